// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import DRV2605
import Foundation
import HapticBoards
import HapticChip
import HapticEffects
import Haptics
import HapticsService
import HardwareAccess

struct Calibrate: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run auto-calibration, print the results and save them (restored at every start-up).")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Also burn the results into the chip's one-time-programmable memory. Irreversible: asks for confirmation.")
    var burnOTP = false
    @Flag(help: "Answer yes to the OTP confirmation (for scripts that really mean it).")
    var yes = false

    func run() throws {
        try CLIError.reporting {
            let session = try DeviceSession(global, verb: "calibrate", needsTheChipBecause: "auto-calibration needs the chip to itself", drives: false)
            session.announce()
            if !global.json { print("calibrating (about 1.2 s; keep the actuator mounted and still)…") }
            var reported = 0
            let values = try session.engine.withDriver { driver in
                try driver.calibrate { elapsed in
                    let quarter = Int(elapsed.secondsDouble * 4)
                    if !global.json, quarter > reported {
                        reported = quarter
                        print(String(format: "  %.2f s", Double(quarter) / 4))
                    }
                }
            }
            let part = try session.engine.withDriver { driver throws(DRV2605Error) -> Part in
                guard let part = driver.part else { throw .notStarted }
                return part
            }
            guard let configuration = session.configuration else { throw DRV2605Error.unsupported("calibration is for a DRV2605-family chip") }
            let record = CalibrationRecord(
                key: session.calibrationKey, part: part, configuration: configuration,
                values: values, calibratedAt: Date())
            try session.calibrationStore.save(record)
            var otp: [String: Any]?
            if burnOTP {
                var confirmed = yes
                if !confirmed {
                    print("Burning OTP is irreversible: the chip will start with these values forever. Type 'burn' to continue: ", terminator: "")
                    confirmed = readLine() == "burn"
                }
                guard confirmed else { throw CLIError("OTP not burnt (not confirmed)", exitCode: CLIError.usage) }
                let burnt = try session.engine.withDriver { try $0.programOTP(confirmed: true) }
                otp = [
                    "verified": true, "ratedVoltage": Int(burnt[.ratedVoltage]), "overdriveClamp": Int(burnt[.overdriveClamp]),
                    "compensation": Int(burnt[.autoCalibrationCompensation]), "backEMF": Int(burnt[.autoCalibrationBackEMF]),
                    "feedbackControl": Int(burnt[.feedbackControl])
                ]
                if !global.json {
                    print(
                        String(
                            format: "OTP burnt and read back after a reset: 0x16-0x1A = %02X %02X %02X %02X %02X",
                            burnt[.ratedVoltage], burnt[.overdriveClamp], burnt[.autoCalibrationCompensation],
                            burnt[.autoCalibrationBackEMF], burnt[.feedbackControl]))
                }
            }
            var result: [String: Any] = [
                "compensation": Int(values.compensation), "backEMF": Int(values.backEMF),
                "backEMFGain": Int(values.backEMFGain), "saved": session.calibrationStore.path,
                "key": session.calibrationKey
            ]
            if let otp { result["otp"] = otp }
            if let period = values.lraPeriod { result["lraPeriod"] = Int(period) }
            if let hz = values.resonantHz { result["resonantHz"] = hz }
            if global.json {
                session.printJSON(["calibration": result])
            } else {
                print(
                    String(
                        format: "done: A_CAL_COMP 0x%02X (compensation %.3f), A_CAL_BEMF 0x%02X, BEMF_GAIN %d",
                        values.compensation, 1 + Double(values.compensation) / 255, values.backEMF, values.backEMFGain)
                        + (values.resonantHz.map { String(format: ", resonance %.1f Hz", $0) } ?? ""))
                print("saved to \(session.calibrationStore.path)")
            }
        }
    }
}

struct Diagnose: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check the actuator: fine, open, shorted or timed out; with live supply and resonance readouts.")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try CLIError.reporting {
            let session = try DeviceSession(global, verb: "diagnose", needsTheChipBecause: "the diagnostic needs the chip to itself", drives: false)
            session.announce()
            let verdict = try session.engine.withDriver { try $0.diagnose() }
            let live = verdict == .fine ? try session.engine.withDriver { try $0.measureWhileDriving() } : nil
            let text: String
            switch verdict {
            case .fine: text = "actuator fine"
            case .openOrOutOfRange: text = "actuator open, missing or out of range: check its wires and that it is the configured type"
            case .shorted: text = "actuator shorted (over-current): check for a short across the motor pads"
            case .timedOut: text = "diagnostic timed out: the chip did not finish; check its supply"
            }
            if global.json {
                var object: [String: Any] = ["verdict": verdict.rawValue]
                if let live {
                    object["supplyVolts"] = live.supplyVolts
                    object["resonanceHz"] = live.resonanceHz ?? NSNull()
                }
                session.printJSON(object)
            } else {
                print(text)
                if let live {
                    print(
                        String(format: "supply %.2f V", live.supplyVolts) + (live.resonanceHz.map { String(format: ", LRA resonance %.1f Hz (measured while driving)", $0) } ?? ""))
                }
            }
            if verdict != .fine { throw ExitCode(CLIError.runtime) }
        }
    }
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Part, mode, standby, fault flags, calibration source and supply voltage.")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Drive the actuator briefly to read the live supply voltage and LRA resonance.") var live = false

    func run() throws {
        try CLIError.reporting {
            if let socket = global.serviceSocket {
                try ServiceCall.run(global, socket: socket, label: "status", request: ServiceRequest(.status))
                return
            }
            if let port = global.serialDevice {
                try FirmwareCall.status(global, port: port)
                return
            }
            let session = try DeviceSession(global, verb: "status", drives: false)
            let file = try session.engine.withDriver { try $0.dumpRegisters() }
            let status = file[StatusRegister.self]
            let mode = file[ModeRegister.self]
            let capabilities = session.engine.capabilities
            let measured = live ? try session.engine.withDriver { try $0.measureWhileDriving() } : nil
            let supply = measured?.supplyVolts ?? ActuatorEquations.supplyVolts(register: file[.supplyVoltage])
            let calibrated = CalibrationValues(
                compensation: file[.autoCalibrationCompensation], backEMF: file[.autoCalibrationBackEMF],
                backEMFGain: file[FeedbackControlRegister.self].backEMFGain)
            if global.json {
                session.printJSON([
                    "part": capabilities.chip, "mode": mode.mode.description, "standby": mode.standby,
                    "faults": ["overCurrent": status.overCurrent, "overTemperature": status.overTemperature],
                    "calibration": [
                        "source": session.calibrationSource, "compensation": Int(calibrated.compensation),
                        "backEMF": Int(calibrated.backEMF), "backEMFGain": Int(calibrated.backEMFGain)
                    ],
                    "otpProgrammed": file[Control4Register.self].otpProgrammed,
                    "supplyVolts": supply, "library": capabilities.library?.description ?? "none",
                    "actuator": capabilities.actuator.description
                ])
                return
            }
            session.announce()
            print("part:        \(capabilities.chip)")
            print(
                "actuator:    \(capabilities.actuator), \(capabilities.library?.description ?? "no effect library"), \(capabilities.loop) loop; RATED_VOLTAGE 0x\(String(format: "%02X", file[.ratedVoltage])), OD_CLAMP 0x\(String(format: "%02X", file[.overdriveClamp]))"
            )
            print("mode:        \(mode.mode), standby \(mode.standby ? "on" : "off")")
            print(
                "faults:      "
                    + (status.overCurrent || status.overTemperature
                        ? [status.overCurrent ? "over-current" : nil, status.overTemperature ? "over-temperature" : nil].compactMap { $0 }.joined(separator: ", ")
                        : "none"))
            print(
                "calibration: \(session.calibrationSource); A_CAL_COMP 0x\(String(format: "%02X", calibrated.compensation)), A_CAL_BEMF 0x\(String(format: "%02X", calibrated.backEMF)), BEMF_GAIN \(calibrated.backEMFGain)"
            )
            print(String(format: "supply:      %.2f V", supply) + (measured == nil ? " (last VBAT reading; --live drives the actuator to measure)" : " (measured while driving)"))
            if let hz = measured?.resonanceHz { print(String(format: "resonance:   %.1f Hz (measured while driving)", hz)) }
        }
    }
}

struct Boards: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the known board files.")
    @Flag(help: "JSON instead of text.") var json = false

    func run() throws {
        try CLIError.reporting {
            var list: [[String: Any]] = []
            for (name, path) in BoardFile.knownBoards() {
                do {
                    let board = try BoardFile.load(path)
                    list.append([
                        "name": name, "path": path, "description": board.description,
                        "drivers": board.drivers.map(\.name), "actuators": board.actuators.map(\.name),
                        "defaultActuator": board.defaultActuator
                    ])
                } catch {
                    list.append(["name": name, "path": path, "error": String(describing: error)])
                }
            }
            if json {
                let data = try JSONSerialization.data(withJSONObject: list, options: [.prettyPrinted, .sortedKeys])
                print(String(decoding: data, as: UTF8.self))
                return
            }
            if list.isEmpty { print("no board files found (looked in: \(BoardFile.searchDirectories().joined(separator: ", ")))") }
            for item in list {
                print("\(item["name"] as? String ?? "")")
                if let error = item["error"] as? String {
                    print("    INVALID: \(error)")
                    continue
                }
                print("    \(item["description"] as? String ?? "")")
                print(
                    "    drivers: \((item["drivers"] as? [String] ?? []).joined(separator: ", ")); actuators: \((item["actuators"] as? [String] ?? []).joined(separator: ", ")) (default \(item["defaultActuator"] as? String ?? ""))"
                )
                print("    \(item["path"] as? String ?? "")")
            }
            if let machine = BoardFile.defaultBoardPath() { print("this machine's board file: \(machine)") }
        }
    }
}
