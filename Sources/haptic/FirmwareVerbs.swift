// SPDX-License-Identifier: Apache-2.0

import FirmwareLink
import Foundation
import Haptics
import HardwareAccess
import LinuxHardware

/// `--device serial:PATH`: the verbs that a microcontroller running the project's firmware
/// answers (play, pattern, sequence, stop, status). The firmware drives its own chip; this program asks by name.
enum FirmwareCall {
    /// Opens the port and checks that the firmware answers; tells it the actuator when the
    /// command line names one (`--actuator`, `--board`), before anything plays.
    static func open(_ global: GlobalOptions, port path: String) throws -> (FirmwareDevice, FirmwareDevice.Status) {
        // A board file or actuator the chip cannot drive is refused before the port is opened.
        let actuator = try global.firmwareActuator()
        let line: LinuxSerialLine
        do {
            line = try LinuxSerialLine(path: path)
        } catch {
            throw CLIError.from(.link(error))
        }
        let device = FirmwareDevice(line: line)
        do {
            guard let actuator else { return (device, try device.status()) }
            let answer = try device.setActuator(actuator)
            if answer.loop != actuator.loop.rawValue {
                FileHandle.standardError.write(
                    Data("warning: the firmware could not calibrate the \(answer.type) (is it wired to OUT+ and OUT-?): it drives it \(answer.loop) loop\n".utf8))
            }
            return (device, try device.status())
        } catch {
            throw CLIError.from(error)
        }
    }

    static func play(_ global: GlobalOptions, port: String, feedback: Feedback) throws {
        let (device, status) = try open(global, port: port)
        if !global.json { print("\(feedback.kind.name): \(feedback.kind.meaning)") }
        let start = ContinuousClock.now
        do {
            let length = try device.playAndWait(feedback.kind)
            let took = ContinuousClock.now - start
            if global.json {
                try printJSON([
                    "feedback": feedback.kind.name, "played": true, "board": status.board, "chip": status.chip, "estimatedMilliseconds": length.nanoseconds / 1_000_000,
                    "tookMilliseconds": took.nanoseconds / 1_000_000
                ])
            } else {
                print("firmware: played on \(status.board) (\(status.chip)) in \(took.nanoseconds / 1_000_000) ms; the chip is back in standby")
            }
        } catch {
            throw CLIError.from(error)
        }
    }

    /// Uploads a pattern file's pattern; the firmware renders it and plays it on its timer.
    static func pattern(_ global: GlobalOptions, port: String, file: String, document: PatternDocument) throws {
        let (device, status) = try open(global, port: port)
        let name = (file as NSString).lastPathComponent
        let audio = document.pattern.events.filter { !$0.type.isHaptic }.count
        if !global.json {
            print("\(name): \(String(format: "%.3f", document.pattern.duration)) s designed; rendered and played on the firmware")
            for warning in document.warnings { print("warning: \(warning)") }
            if audio > 0 { print("warning: \(audio) audio event(s) not played: the firmware plays haptics only") }
        }
        let start = ContinuousClock.now
        let rendered: FirmwareDevice.Rendering
        do {
            rendered = try device.playPattern(document.pattern)
        } catch {
            throw CLIError.from(error)
        }
        let took = ContinuousClock.now - start
        if global.json {
            try printJSON([
                "file": file, "played": true, "board": status.board, "chip": status.chip, "levels": rendered.levels, "clicks": rendered.clicks,
                "renderedMilliseconds": rendered.length.nanoseconds / 1_000_000, "tookMilliseconds": took.nanoseconds / 1_000_000
            ])
        } else {
            print(
                "firmware: \(rendered.clicks > 0 ? "\(rendered.clicks) ROM clicks" : "\(rendered.levels) levels") (\(rendered.length.nanoseconds / 1_000_000) ms) played on \(status.board) (\(status.chip)) in \(took.nanoseconds / 1_000_000) ms; the chip is back in standby"
            )
        }
    }

    /// Uploads a sequence's notes; the firmware places them in time and plays them on its timer.
    static func sequence(_ global: GlobalOptions, port: String, notes: [SequenceNote]) throws {
        let commands: [String]
        do {
            commands = try FirmwareDevice.noteCommands(notes)
        } catch {
            throw CLIError(error.description, exitCode: CLIError.usage)
        }
        let (device, status) = try open(global, port: port)
        let start = ContinuousClock.now
        let placed: (notes: Int, length: Duration)
        do {
            placed = try device.playSequence(notes)
        } catch {
            throw CLIError.from(error)
        }
        let took = ContinuousClock.now - start
        if global.json {
            try printJSON([
                "notes": placed.notes, "played": true, "board": status.board, "chip": status.chip, "commands": commands.count,
                "designedMilliseconds": placed.length.nanoseconds / 1_000_000, "tookMilliseconds": took.nanoseconds / 1_000_000
            ])
        } else {
            print(
                "firmware: \(placed.notes) notes (\(placed.length.nanoseconds / 1_000_000) ms) played on \(status.board) (\(status.chip)) in \(took.nanoseconds / 1_000_000) ms; the chip is back in standby"
            )
        }
    }

    static func stop(_ global: GlobalOptions, port: String) throws {
        let (device, _) = try open(global, port: port)
        do {
            try device.stop()
            let after = try device.status()
            guard after.playing == nil else {
                throw CLIError("the firmware still plays \(after.playing ?? "") after stop", exitCode: CLIError.runtime)
            }
            if global.json { try printJSON(["stopped": true, "power": after.power]) } else { print("stopped; chip \(after.power)") }
        } catch let error as FirmwareDeviceError {
            throw CLIError.from(error)
        }
    }

    static func status(_ global: GlobalOptions, port: String) throws {
        let (_, status) = try open(global, port: port)
        if global.json {
            try printJSON([
                "board": status.board, "chip": status.chip, "power": status.power, "playing": status.playing ?? NSNull(), "actuator": status.actuator ?? NSNull(),
                "loop": status.loop ?? NSNull()
            ])
        } else {
            let actuator = status.actuator.map { ", \($0) actuator\(status.loop.map { " (\($0) loop)" } ?? "")" } ?? ""
            print("firmware on \(port): board \(status.board), chip \(status.chip)\(actuator), \(status.power), playing \(status.playing ?? "nothing")")
        }
    }

    static func printJSON(_ object: [String: Any]) throws {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }
}

extension CLIError {
    /// A firmware request's failure: its refusal kinds map to exit codes as the local verbs' do.
    static func from(_ error: FirmwareDeviceError) -> CLIError {
        switch error {
        case let .link(serial):
            return CLIError(error.description, exitCode: serial.kind == .permissionDenied ? CLIError.permission : CLIError.unavailable)
        case .noAnswer, .garbled: return CLIError(error.description, exitCode: CLIError.unavailable)
        case let .refused(kind, _):
            return CLIError(error.description, exitCode: ["unknown-feedback", "bad-argument", "too-long"].contains(kind) ? CLIError.dataError : CLIError.runtime)
        }
    }
}
