// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// What went wrong in a chip's driver, each case naming what to do about it. Chip-neutral: every
/// chip module throws these (the DRV2605's `DRV2605Error` is this type), so the engine handles
/// one kind of error whatever chip it drives; what is particular to a chip is in the text.
public enum HapticChipError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bus failed; the underlying error keeps errno and a hint.
    case bus(I2CError)
    /// An EN or IN/TRIG line failed.
    case gpio(GPIOError)
    /// A kernel force-feedback device failed (a vibrator Linux drives itself); the underlying
    /// error keeps errno and what to do.
    case forceFeedback(ForceFeedbackDeviceError)
    /// Something answered at the address, but not a chip this driver knows: what was read, and
    /// what was expected.
    case unknownDevice(String)
    /// A wait on the chip passed its deadline (a routine never ended, a reset never finished).
    case timeout(String)
    /// The chip reported over-current or over-temperature and shut its output down.
    case fault(overCurrent: Bool, overTemperature: Bool)
    /// The chip sensed no back-EMF where it drove and stopped driving.
    case actuatorFault
    /// The chip's supply fell below its under-voltage lock-out and the chip stopped driving.
    case underVoltage
    /// The chip could not play a sequence from its own waveform memory and stopped.
    case sequenceFault
    /// The configuration is not something the chip can do, or not for this actuator.
    case invalidConfiguration(String)
    /// An argument was out of range (effect number, slot count, wait length).
    case invalidArgument(String)
    /// The chip lacks the feature (e.g. library F on a DRV2605 that is not an L part).
    case unsupported(String)
    /// Auto-calibration ran and the chip said it did not converge.
    case calibrationFailed(String)
    /// The driver was used before `start()`.
    case notStarted
    /// One-time-programmable memory was burnt, but what the chip loads from it after a reset is
    /// not what was burnt.
    case otpNotVerified(String)
    /// The chip is driven by another device (the haptics firmware on a microcontroller), and
    /// that device failed or could not be reached; the text says what, and what to do.
    case remote(String)

    public var description: String {
        switch self {
        case let .bus(error): return error.description
        case let .gpio(error): return error.description
        case let .forceFeedback(error): return error.description
        case let .unknownDevice(text):
            return "not the expected chip at this address: \(text). Hint: check that the address is the haptic driver's and not another chip's"
        case let .timeout(what):
            return "timed out: \(what). The actuator was stopped. Hint: check the chip's supply and its enable line; a routine that never ends means the chip is not running it"
        case let .fault(overCurrent, overTemperature):
            let which = [overCurrent ? "over-current" : nil, overTemperature ? "over-temperature" : nil].compactMap { $0 }.joined(separator: " and ")
            return "the chip reported \(which) and stopped driving. Hint: check for a shorted actuator or one whose impedance is too low; let the chip cool"
        case .actuatorFault:
            return "the chip sensed no movement from the actuator and stopped driving. Hint: check the actuator's wires, and that it is mounted and free to move"
        case .underVoltage:
            return
                "the chip's supply fell below its under-voltage lock-out and it stopped driving. Hint: check the supply and its wiring; a long or thin supply wire sags when the actuator starts, and a battery may be low"
        case .sequenceFault:
            return
                "the chip could not play a sequence from its waveform memory and stopped. Hint: the memory's contents or the sequence number are wrong; load the waveform memory again"
        case let .invalidConfiguration(text): return "invalid configuration: \(text)"
        case let .invalidArgument(text): return "invalid argument: \(text)"
        case let .unsupported(text): return "not supported: \(text)"
        case let .calibrationFailed(text):
            return "auto-calibration failed: \(text). Hint: mount the actuator to a mass (a loose motor on a desk often fails), and check the rated voltage and clamp"
        case .notStarted: return "the driver has not been started: call start() first"
        case let .remote(text): return text
        case let .otpNotVerified(text):
            return "OTP programming could not be verified: \(text). OTP cannot be burnt again; the chip starts with what it holds. Hint: check the supply during the burn"
        }
    }

    /// The I2C error kind, when the failure came from the bus.
    public var busErrorKind: I2CError.Kind? {
        if case let .bus(error) = self { return error.kind }
        return nil
    }
}
