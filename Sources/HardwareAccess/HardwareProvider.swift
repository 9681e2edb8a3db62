// SPDX-License-Identifier: Apache-2.0

/// Where an opened board's buses and GPIO lines come from: the machine (LinuxHardware's
/// `LinuxHardwareProvider`) or simulated chips (HapticsSimulation's `SimulatedHardware`). Opening a
/// board (`HapticBoard.open`) asks it for every bus path and line the board file names, so the
/// same board file runs on the Pi, on the simulator, and in tests.
public protocol HardwareProvider: AnyObject {
    /// The I2C bus at `path` ("/dev/i2c-1"); the same object each time for the same path, since
    /// the chips on a bus (and the multiplexer in front of them) share it.
    func bus(at path: String) throws -> any I2CBus
    /// `line` on `chip`, requested as an output driven low; `consumer` is what `gpioinfo` shows.
    func outputLine(chip: String, line: GPIOLineSelector, consumer: String) throws -> any GPIOOutputLine
    /// The kernel force-feedback device at `path` (`/dev/input/eventN`, a `/dev/input/by-path/`
    /// name, or `auto`: the vibrator feedbackd would use), opened as its client.
    func forceFeedbackOutput(at path: String) throws -> any ForceFeedbackOutput
    /// Takes the chip `claim` names for this program: refused with `ChipInUseError` while another
    /// program holds it, and, where the machine can, guarded so that the claim's stop is written
    /// should this program die without stopping the chip. Nil where there is nothing to hold
    /// (simulated chips, a test's bus).
    func claim(_ claim: ChipClaim) throws -> (any ChipOwnership)?
}

extension HardwareProvider {
    /// Simulated chips and a test's own bus belong to the process that made them: nothing to hold.
    public func claim(_ claim: ChipClaim) throws -> (any ChipOwnership)? { nil }

    /// A provider without kernel vibrators (a test's own bus or lines) refuses them.
    public func forceFeedbackOutput(at path: String) throws -> any ForceFeedbackOutput {
        throw ForceFeedbackDeviceError(operation: "open", path: path, errno: nil, detail: "this hardware has no kernel force-feedback devices")
    }
}
