// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// What went wrong in the DRV2605 layer, each case naming what to do about it.
public enum DRV2605Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bus failed; the underlying error keeps errno and a hint.
    case bus(I2CError)
    /// An EN or IN/TRIG line failed.
    case gpio(GPIOError)
    /// STATUS held a DEVICE_ID that is not a DRV2604/2605 part.
    case unknownDevice(id: UInt8, status: UInt8)
    /// A wait on the chip passed its deadline (GO never cleared, reset never finished).
    case timeout(String)
    /// The chip reported over-current or over-temperature and shut its output down.
    case fault(overCurrent: Bool, overTemperature: Bool)
    /// The configuration is not something the chip can do, or not for this actuator.
    case invalidConfiguration(String)
    /// An argument was out of range (effect number, slot count, wait length).
    case invalidArgument(String)
    /// The part lacks the feature (e.g. ROM effects on a DRV2604, library F on a non-L part).
    case unsupported(String)
    /// Auto-calibration ran and DIAG_RESULT said it did not converge.
    case calibrationFailed(String)
    /// The driver was used before `start()`.
    case notStarted
    /// OTP was burnt, but what the chip loads from it after a reset is not what was burnt.
    case otpNotVerified(String)

    public var description: String {
        switch self {
        case let .bus(error): return error.description
        case let .gpio(error): return error.description
        case let .unknownDevice(id, status):
            return String(
                format:
                    "no DRV2604/DRV2605 at this address: STATUS read 0x%02X (device ID %d; expected 3, 4, 6 or 7). Hint: check that the address is the haptic driver's (0x5A) and not another chip's",
                status, id)
        case let .timeout(what):
            return "timed out: \(what). The actuator was stopped. Hint: check the chip's supply and EN; a GO bit that never clears means the chip is not running its routine"
        case let .fault(overCurrent, overTemperature):
            let which = [overCurrent ? "over-current" : nil, overTemperature ? "over-temperature" : nil].compactMap { $0 }.joined(separator: " and ")
            return "the chip reported \(which) and stopped driving. Hint: check for a shorted actuator or one whose impedance is too low; let the chip cool"
        case let .invalidConfiguration(text): return "invalid configuration: \(text)"
        case let .invalidArgument(text): return "invalid argument: \(text)"
        case let .unsupported(text): return "not supported: \(text)"
        case let .calibrationFailed(text):
            return "auto-calibration failed: \(text). Hint: mount the actuator to a mass (a loose motor on a desk often fails), and check the rated voltage and clamp"
        case .notStarted: return "the driver has not been started: call start() first"
        case let .otpNotVerified(text):
            return "OTP programming could not be verified: \(text). OTP cannot be burnt again; the chip starts with what it holds. Hint: check VDD during the burn (4.0-4.4 V)"
        }
    }

    /// The I2C error kind, when the failure came from the bus.
    public var busErrorKind: I2CError.Kind? {
        if case let .bus(error) = self { return error.kind }
        return nil
    }
}
