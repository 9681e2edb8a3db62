// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import DRV2605
import FirmwareLink
import Foundation
import HapticBoards
import HapticChip
import HapticEffects
import Haptics
import HapticsService
import HardwareAccess

/// Options every verb takes.
struct GlobalOptions: ParsableArguments {
    @Option(help: "Board file: a name from 'haptic boards' or a path. Default: $HAPTIC_BOARD or /etc/haptics/board.json when present.")
    var board: String?

    @Option(help: "Which chip of the board file (default: its first driver).")
    var driver: String?

    @Option(help: "I2C bus: a path (/dev/i2c-1) or a number (1). Default: /dev/i2c-1, or the simulated chip when the machine has no I2C bus.")
    var bus: String?

    @Option(help: "7-bit I2C address of the chip (the DRV2605 is always 0x5A).")
    var address: String = "0x5A"

    @Option(
        help: ArgumentHelp(
            "A vibrator Linux drives itself, through its force-feedback device: /dev/input/eventN, a /dev/input/by-path/ name, or auto (the one feedbackd would use); or serial:PORT, a microcontroller running the project's firmware (serial:/dev/ttyACM0; play, pattern, sequence, stop and status).",
            valueName: "device"))
    var device: String?

    @Flag(help: "Run on simulated chips instead of the board: the board file's parts (a DRV2605L without one), in real time.")
    var simulate = false

    @Flag(help: "With the simulated chip: run as fast as possible on a virtual clock (for scripts).")
    var virtualTime = false

    @Option(help: "Simulated part (default: the board file's, else drv2605l): a part other than the board's is refused as a wrongly fitted chip would be.")
    var simulatedPart: SimulatedPartValue?

    @Option(help: "Actuator: with a board file, one of its actuator names (default: the board's default); without, lra or erm.")
    var actuator: String?

    @Option(help: "What start-up does without a saved calibration: auto calibrates and saves, saved refuses, open-loop never calibrates (default: the board file's, else auto).")
    var calibration: CalibrationPolicy?

    @Option(
        help: ArgumentHelp(
            "With --simulate: write what the actuator did to FILE as CSV (time_s,drive,acceleration_g at 8 kHz, from the start of playback): the simulated chip's drive through a model of the actuator's motion (an LRA as a resonator, an ERM with its spin-up and spin-down).",
            valueName: "file"))
    var accelerationCSV: String?

    @Flag(help: "Print every bus transaction as it happens, on stderr (stdout keeps the verb's output, and --json stays valid JSON).")
    var trace = false

    @Flag(help: "Print a machine-readable JSON summary on stdout instead of text.")
    var json = false

    @Option(
        help:
            "Ask hapticd at this socket instead of opening the chip (play, effect, pattern, sequence, status, stop, profile); the verbs that need the chip to themselves (probe, dump, calibrate, diagnose, demo, studio) refuse it. Also $HAPTICD_SOCKET."
    )
    var socket: String?

    /// The daemon's socket to use: `--socket`, else `$HAPTICD_SOCKET` unless the command line names
    /// a chip of its own (`--simulate`, `--board`, `--bus`, `--device`), else the system hapticd's
    /// (`/run/haptics/hapticd.sock`) when it answers: with hapticd running, the chip is its, and a
    /// verb that opened it behind hapticd's back would be refused by the chip's lock anyway.
    var serviceSocket: String? {
        if let named = namedServiceSocket { return named }
        guard !simulate, board == nil, bus == nil, device == nil, ProcessInfo.processInfo.environment["HAPTICD_SOCKET"] == nil else { return nil }
        return Self.systemServiceAnswers ? Self.systemServiceSocket : nil
    }

    /// The socket the command line or `$HAPTICD_SOCKET` names (`serviceSocket` without the system
    /// hapticd found running): what the verbs that need the chip to themselves refuse.
    var namedServiceSocket: String? {
        if let socket { return socket }
        guard !simulate, board == nil, bus == nil, device == nil else { return nil }
        return ProcessInfo.processInfo.environment["HAPTICD_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Where the system hapticd listens (its unit's RuntimeDirectory).
    static let systemServiceSocket = "/run/haptics/hapticd.sock"

    /// Whether the system hapticd's socket accepts a connection now (a socket left by a hapticd
    /// that died refuses it; one this user may not open is not used either).
    static var systemServiceAnswers: Bool {
        FileManager.default.fileExists(atPath: systemServiceSocket) && (try? HapticServiceClient(socketPath: systemServiceSocket)) != nil
    }

    /// The port of `--device serial:PORT`: a microcontroller running the project's firmware.
    var serialDevice: String? {
        device.flatMap(FirmwareDevice.port(inDevice:))
    }

    /// The actuator to tell a firmware (`--device serial:`): `--board`'s preset (`--actuator`
    /// names one, else the board's default) or, without `--board`, `--actuator`'s typical lra
    /// or erm; nil when neither is given, which leaves the firmware's as it is. `$HAPTIC_BOARD`
    /// and /etc/haptics/board.json are this machine's own chip, not the microcontroller's, and
    /// are not read.
    func firmwareActuator() throws -> FirmwareActuator? {
        if let board {
            let file = try BoardFile.load(try BoardFile.locate(board))
            guard file.feedback.isEmpty else {
                throw CLIError(
                    "\(file.path) remaps feedbacks to its own ROM sequences, which the firmware does not take: it plays the standard table; use a board file without \"feedback\" with --device serial:",
                    exitCode: CLIError.usage)
            }
            return try FirmwareActuator(board: file, actuator: actuator)
        }
        guard let actuator else { return nil }
        guard let type = ActuatorType(rawValue: actuator.lowercased()) else {
            throw CLIError("--actuator must be lra or erm with --device serial: (or an actuator of --board's file), not '\(actuator)'", exitCode: CLIError.usage)
        }
        return try FirmwareActuator(.typical(type))
    }

    /// The board file named (`--board`, `$HAPTIC_BOARD`, /etc/haptics/board.json), or a single
    /// breakout with the `--actuator` type when there is none.
    func boardFile() throws -> (file: BoardFile, fromPath: Bool) {
        if serialDevice != nil {
            throw CLIError("--device serial: is a microcontroller running the haptics firmware: only play, pattern, sequence, stop and status go to it", exitCode: CLIError.usage)
        }
        if let device {
            guard board == nil, bus == nil else { throw CLIError("--device names the vibrator: give it without --board or --bus", exitCode: CLIError.usage) }
            guard let type = ActuatorType(rawValue: (actuator ?? "erm").lowercased()) else {
                throw CLIError("--actuator must be lra or erm with --device, not '\(actuator ?? "")'", exitCode: CLIError.usage)
            }
            return (BoardFile.kernelVibrator(device: device, actuator: type), false)
        }
        let environment = ProcessInfo.processInfo.environment["HAPTIC_BOARD"].flatMap { $0.isEmpty ? nil : $0 }
        if let path = try (board ?? environment).map({ name throws -> String in try BoardFile.locate(name) }) ?? BoardFile.defaultBoardPath() {
            return (try BoardFile.load(path), true)
        }
        guard let type = ActuatorType(rawValue: (actuator ?? "lra").lowercased()) else {
            throw CLIError("--actuator must be lra or erm without a board file, not '\(actuator ?? "")'", exitCode: CLIError.usage)
        }
        return (BoardFile.single(actuator: type), false)
    }

    /// Refuses (exit 64) when a hapticd socket is named: `verb` would open the chip behind the
    /// daemon's back while it drives it. Every verb that opens the chip itself calls this first.
    func refuseService(_ verb: String, because reason: String) throws {
        guard let socket = namedServiceSocket else { return }
        let named = self.socket != nil ? "--socket \(socket)" : "HAPTICD_SOCKET=\(socket)"
        throw CLIError(
            "\(verb) does not go through hapticd (\(named)): \(reason). Stop hapticd first (systemctl stop hapticd) and run it without \(self.socket != nil ? "--socket" : "HAPTICD_SOCKET")",
            exitCode: CLIError.usage)
    }

    /// `--address` when it is not the default 0x5A.
    func addressOverride() throws -> I2CAddress? {
        guard address.lowercased() != "0x5a" else { return nil }
        guard let value = Int(address.lowercased().replacingOccurrences(of: "0x", with: ""), radix: 16), let parsed = I2CAddress(value) else {
            throw CLIError("--address must be a 7-bit address such as 0x5A, not '\(address)'", exitCode: CLIError.usage)
        }
        return parsed
    }

    /// Whether to run on simulated chips: `--simulate`, or nothing named and no I2C bus on this machine.
    func simulates(withBoardFile: Bool) -> Bool {
        guard !simulate else { return true }
        return !withBoardFile && bus == nil && device == nil && !FileManager.default.fileExists(atPath: "/dev/i2c-1")
            && !((try? FileManager.default.contentsOfDirectory(atPath: "/dev"))?.contains { $0.hasPrefix("i2c-") } ?? false)
    }
}
