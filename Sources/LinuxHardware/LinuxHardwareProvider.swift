// SPDX-License-Identifier: Apache-2.0

import Foundation
import HardwareAccess

/// The machine's I2C buses (`/dev/i2c-N`) and GPIO lines (libgpiod), for `HapticBoard.open`.
/// Each bus is opened once and shared by the chips on it.
public final class LinuxHardwareProvider: HardwareProvider {
    private var buses: [String: LinuxI2CBus] = [:]
    /// Where the chips' lock files are (`ChipLock.defaultDirectory`).
    public let lockDirectory: String

    /// Opens nothing until a board asks.
    public init(lockDirectory: String = ChipLock.defaultDirectory) {
        self.lockDirectory = lockDirectory
    }

    /// `/dev/i2c-N` by path or number, opened at the first request.
    public func bus(at path: String) throws -> any I2CBus {
        let resolved = I2CBusPath.resolve(path)
        if let bus = buses[resolved] { return bus }
        let bus = try LinuxI2CBus(resolved)
        buses[resolved] = bus
        return bus
    }

    /// The force-feedback device at `path`, or with `auto` the vibrator feedbackd would use
    /// (`VibratorFinder`), opened as its client.
    public func forceFeedbackOutput(at path: String) throws -> any ForceFeedbackOutput {
        guard path == "auto" else { return try LinuxForceFeedbackOutput(path: path) }
        guard let found = VibratorFinder().vibrator() else {
            throw ForceFeedbackDeviceError(
                operation: "find", path: "/dev/input", errno: nil,
                detail: "no input device with force feedback (is the vibrator's kernel driver loaded? ls /sys/class/input/*/device/capabilities/ff)")
        }
        return try LinuxForceFeedbackOutput(path: found.path)
    }

    /// Takes the chip for this program: its lock (`ChipLock`, refused with `ChipInUseError` while
    /// another program holds it), then a dead-man guard (`DeadManGuard`) that writes the claim's
    /// stop should this program die without stopping the chip.
    public func claim(_ claim: ChipClaim) throws -> (any ChipOwnership)? {
        let bus = buses[I2CBusPath.resolve(claim.bus)]
        return try LinuxChipOwnership(claim, directory: lockDirectory) {
            let lock = try ChipLock(claim, directory: lockDirectory)
            if let problem = lock.problem { FileHandle.standardError.write(Data("haptics: warning: \(problem)\n".utf8)) }
            guard let bus, bus.descriptor >= 0 else { return (lock, nil) }
            return (lock, try DeadManGuard(claim, busDescriptor: bus.descriptor, lockDescriptor: lock.descriptor))
        }
    }

    /// A libgpiod output line, initially low.
    public func outputLine(chip: String, line: GPIOLineSelector, consumer: String) throws -> any GPIOOutputLine {
        try LinuxGPIOLine(chip: chip, line: line, consumer: consumer, initial: false)
    }
}
