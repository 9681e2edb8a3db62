import ArgumentParser
import DRV2605
import Foundation
import HardwareAccess

/// One line on stderr and an exit code that means something (sysexits).
struct CLIError: Error, CustomStringConvertible {
    var message: String
    var exitCode: Int32

    static let runtime: Int32 = 1
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let unavailable: Int32 = 69
    static let permission: Int32 = 77

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
        case let .gpio(gpio):
            self.init(gpio.description, exitCode: gpio.kind == .permissionDenied ? CLIError.permission : CLIError.unavailable)
        case .unknownDevice: self.init(error.description, exitCode: CLIError.unavailable)
        case .invalidArgument, .invalidConfiguration: self.init(error.description, exitCode: CLIError.dataError)
        default: self.init(error.description, exitCode: CLIError.runtime)
        }
    }

    /// Runs `body`, turning any error into one line on stderr and the matching exit code.
    static func reporting(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as CLIError {
            FileHandle.standardError.write(Data("haptic: \(error.message)\n".utf8))
            throw ExitCode(error.exitCode)
        } catch let error as DRV2605Error {
            let cli = CLIError(error)
            FileHandle.standardError.write(Data("haptic: \(cli.message)\n".utf8))
            throw ExitCode(cli.exitCode)
        } catch let error as I2CError {
            let cli = CLIError(error)
            FileHandle.standardError.write(Data("haptic: \(cli.message)\n".utf8))
            throw ExitCode(cli.exitCode)
        } catch let error as GPIOError {
            FileHandle.standardError.write(Data("haptic: \(error.description)\n".utf8))
            throw ExitCode(error.kind == .permissionDenied ? CLIError.permission : CLIError.unavailable)
        }
    }
}
