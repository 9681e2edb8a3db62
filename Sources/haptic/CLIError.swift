// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Audio
import DRV2605
import Foundation
import HapticBoards
import HapticChip
import HapticEffects
import Haptics
import HardwareAccess

/// One line on stderr and an exit code that means something (sysexits).
struct CLIError: Error, CustomStringConvertible {
    var message: String
    var exitCode: Int32

    static let runtime: Int32 = 1
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    /// EX_NOINPUT: a file named on the command line (a sound) does not exist.
    static let noInput: Int32 = 66
    static let unavailable: Int32 = 69
    /// EX_CANTCREAT: an output file (a recording) cannot be written.
    static let cannotCreate: Int32 = 73
    static let permission: Int32 = 77
    /// EX_TEMPFAIL: a feedback was not played because of the rate limit or selection coalescing.
    static let temporaryFailure: Int32 = 75
    /// EX_CONFIG: a feedback was not played because the policy turns haptics off.
    static let configuration: Int32 = 78

    /// 128 + SIGINT: interrupted (SIGINT or SIGTERM), the actuator stopped first.
    static let interrupted: Int32 = 130

    /// Every exit code `haptic` uses and what it means, in order: `haptic --help` prints it, and
    /// the README's table is checked against it.
    static let table: [(code: Int32, meaning: String)] = [
        (0, "ok"),
        (runtime, "runtime failure (a chip fault, the chip still driving after a stop)"),
        (usage, "usage (a wrong option or verb; a verb that needs the chip to itself while a hapticd socket is named)"),
        (dataError, "bad input (a corrupt pattern, board file or sound)"),
        (noInput, "a file missing (a sound)"),
        (unavailable, "device unavailable (no bus, no chip at the address, another chip than the board's part, a kernel driver bound, no audio device, hapticd not answering)"),
        (cannotCreate, "a recording that cannot be written"),
        (temporaryFailure, "not played now (the rate limit, coalesced, or hapticd played something more important)"),
        (permission, "permission"),
        (configuration, "configuration (haptics turned off by the policy file, calibration policy saved with none saved)"),
        (interrupted, "interrupted by SIGINT or SIGTERM (the actuator stopped)")
    ]

    /// The table as one line a code each, for `--help` and the README.
    static var tableText: String { table.map { "\($0.code) \($0.meaning)" }.joined(separator: "\n") }

    var description: String { message }

    init(_ message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }

    init(_ error: I2CError) {
        message = error.description
        switch error.kind {
        case .permissionDenied: exitCode = CLIError.permission
        case .noSuchBus, .noAcknowledge, .addressInUse, .unsupported: exitCode = CLIError.unavailable
        default: exitCode = CLIError.runtime
        }
    }

    init(_ error: DRV2605Error) {
        switch error {
        case let .bus(bus): self.init(bus)
        case let .gpio(gpio): self.init(gpio)
        case let .forceFeedback(device): self.init(device)
        case .unknownDevice: self.init(error.description, exitCode: CLIError.unavailable)
        case .invalidArgument, .invalidConfiguration: self.init(error.description, exitCode: CLIError.dataError)
        default: self.init(error.description, exitCode: CLIError.runtime)
        }
    }

    /// A feedback the engine dropped: what the user asked for did not happen, so the exit is not 0.
    init(notPlayed label: String, _ reason: DropReason) {
        let code: Int32
        switch reason {
        case .turnedOff: code = CLIError.configuration
        case .coalesced, .rateLimited: code = CLIError.temporaryFailure
        case .unmapped: code = CLIError.dataError
        case .fault: code = CLIError.runtime
        case .service: code = CLIError.temporaryFailure
        case .firmware: code = CLIError.unavailable
        }
        self.init("\(label) was not played: \(reason)", exitCode: code)
    }

    /// Throws when `outcome` says the request was dropped.
    static func requirePlayed(_ outcome: FeedbackOutcome, _ label: String) throws(CLIError) {
        if case let .dropped(reason) = outcome { throw CLIError(notPlayed: label, reason) }
    }

    init(_ error: GPIOError) {
        self.init(error.description, exitCode: error.kind == .permissionDenied ? CLIError.permission : CLIError.unavailable)
    }

    /// A kernel force-feedback device that is not there (69) or may not be opened (77).
    init(_ error: ForceFeedbackDeviceError) {
        self.init(error.description, exitCode: error.errno == EACCES || error.errno == EPERM ? CLIError.permission : CLIError.unavailable)
    }

    /// Any error as a CLI error: the typed layers keep their exit codes, anything else is a runtime failure.
    static func from(_ error: any Error) -> CLIError {
        switch error {
        case let error as CLIError: return error
        case let error as DRV2605Error: return CLIError(error)
        case let error as I2CError: return CLIError(error)
        case let error as GPIOError: return CLIError(error)
        case let error as ForceFeedbackDeviceError: return CLIError(error)
        case let error as BoardFileError: return CLIError(error.description, exitCode: CLIError.dataError)
        case let error as PatternFileError: return CLIError(error.description, exitCode: CLIError.dataError)
        case let error as SequenceParseError: return CLIError(error.description, exitCode: CLIError.dataError)
        case let error as AudioError:
            switch error {
            case .soundNotFound: return CLIError(error.description, exitCode: CLIError.noInput)
            case .soundUnreadable, .soundTruncated: return CLIError(error.description, exitCode: CLIError.dataError)
            case .deviceUnavailable, .deviceFailed: return CLIError(error.description, exitCode: CLIError.unavailable)
            case .recordingUnwritable: return CLIError(error.description, exitCode: CLIError.cannotCreate)
            case .underrun: return CLIError(error.description, exitCode: CLIError.runtime)
            }
        case let error as CalibrationStoreError: return CLIError(error.description, exitCode: CLIError.runtime)
        case let error as CalibrationRequiredError: return CLIError(error.description, exitCode: CLIError.configuration)
        case let error as WrongPartError: return CLIError(error.description, exitCode: CLIError.unavailable)
        default: return CLIError(String(describing: error), exitCode: CLIError.runtime)
        }
    }

    /// Runs `body`, turning any error into one line on stderr and the matching exit code.
    static func reporting(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            let cli = CLIError.from(error)
            FileHandle.standardError.write(Data("haptic: \(cli.message)\n".utf8))
            throw ExitCode(cli.exitCode)
        }
    }
}
