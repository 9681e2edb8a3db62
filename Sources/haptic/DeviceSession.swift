// SPDX-License-Identifier: Apache-2.0

import DRV2605
import Dispatch
import Foundation
import HapticBoards
import HapticChip
import HapticEffects
import Haptics
import HapticsSimulation
import HardwareAccess
import HardwareSimulation
import LinuxHardware
import Logging

/// The chip a verb talks to — the board through /dev/i2c-N, or simulated chips — opened from a
/// board file (or a single breakout when there is none) by `HapticBoard`; this type only maps the
/// command line's options onto it. With `allDrivers`, every chip of the board, as a group.
final class DeviceSession {
    /// The selected chip's engine (the board's first driver, or `--driver`).
    let engine: HapticEngine
    /// Every opened chip, by name (one unless `allDrivers`).
    let engines: [(name: String, engine: HapticEngine)]
    /// The opened chips as a group; with them all behind one TCA9548A, triggers are broadcast.
    let group: HapticGroup
    /// The opened board: its bus traffic, switches included.
    let board: HapticBoard
    let clock: any HapticClock
    /// One line for people: where this runs ("simulated DRV2605L, no I2C bus found", …).
    let origin: String
    let options: GlobalOptions
    /// What the selected DRV2605 was configured with, its calibration included (nil for a chip
    /// of another family).
    let configuration: DRV2605Configuration?
    /// The key saved calibrations are filed under for this chip and actuator.
    let calibrationKey: String
    /// The machine's store, or the simulated chips' own file beside it (`--simulate` never
    /// touches the calibrations of real chips).
    let calibrationStore: CalibrationStore
    /// Where the calibration in use came from, for `status`.
    let calibrationSource: String
    /// The simulated chips, with `--simulate`: what `--acceleration-csv` reads the drive from.
    let simulated: SimulatedHardware?
    /// The selected driver's name and its actuator's motion, for `--acceleration-csv`.
    let selectedDriver: String
    let actuatorPhysics: ActuatorPhysics

    /// `drives: false` for the verbs that only look at the chip (probe, dump, status) or calibrate
    /// or diagnose it themselves: the board's calibration policy is not applied at opening.
    /// `verb` and `reason` name why the verb opens the chip itself: with a hapticd socket named
    /// it is refused before anything is opened (no verb drives the chip behind hapticd's back).
    init(
        _ options: GlobalOptions, verb: String, needsTheChipBecause reason: String = "it opens the chip itself",
        engineOptions: HapticEngine.Options = .init(), allDrivers: Bool = false, drives: Bool = true
    ) throws {
        try options.refuseService(verb, because: reason)
        self.options = options
        var (file, fromPath) = try options.boardFile()
        if options.simulatedPart == .da7280, !fromPath {
            throw CLIError(
                "--simulated-part da7280 needs a DA7280 board file (e.g. --board sparkfun-qwiic-da7280): a DA7280's actuator is described by its impedance and current, which only a board file gives",
                exitCode: CLIError.usage)
        }
        let actuatorName = fromPath ? options.actuator : nil
        let selected =
            try options.driver.map { wanted throws -> String in
                guard file.drivers.contains(where: { $0.name == wanted }) else {
                    throw CLIError("board \(file.name) has no driver '\(wanted)' (it has: \(file.drivers.map(\.name).joined(separator: ", ")))", exitCode: CLIError.usage)
                }
                return wanted
            } ?? file.drivers.first?.name ?? "main"
        // --bus and --address apply to every chip opened.
        if let address = try options.addressOverride() { for index in file.drivers.indices { file.drivers[index].address = address } }
        if let bus = options.bus { for index in file.drivers.indices { file.drivers[index].bus = bus } }
        let simulate = options.simulates(withBoardFile: fromPath)
        if options.accelerationCSV != nil, !simulate {
            throw CLIError("--acceleration-csv needs --simulate: the acceleration is a model's, of the simulated chip's drive", exitCode: CLIError.usage)
        }
        selectedDriver = selected
        if case let .lra(_, _, hz) = try file.actuator(named: actuatorName).specification {
            actuatorPhysics = .typical(lra: hz)
        } else {
            actuatorPhysics = .typical(lra: nil)
        }
        calibrationStore = simulate ? CalibrationStore(path: CalibrationStore.simulatedPath) : CalibrationStore()
        let clock: any HapticClock = simulate && options.virtualTime ? VirtualClock() : SystemClock.shared
        self.clock = clock
        simulated =
            simulate
            ? try SimulatedHardware(
                board: file, actuator: actuatorName, part: options.simulatedPart?.part, family: options.simulatedPart?.family, clock: clock,
                keepsTrace: false)
            : nil
        let hardware: any HardwareProvider = simulated ?? LinuxHardwareProvider()
        var boardOptions = HapticBoard.Options()
        boardOptions.actuator = actuatorName
        boardOptions.drivers = allDrivers ? nil : [selected]
        boardOptions.engine = engineOptions
        boardOptions.calibrations = calibrationStore
        boardOptions.calibrationNamespace = simulate ? "simulated:" : ""
        boardOptions.logger.logLevel = .notice
        // On stderr, so that --json on stdout stays one JSON document.
        boardOptions.observer = options.trace ? { transaction in FileHandle.standardError.write(Data("  bus \(transaction)\n".utf8)) } : nil
        boardOptions.warn = { FileHandle.standardError.write(Data("haptic: \($0)\n".utf8)) }
        boardOptions.inform = { FileHandle.standardError.write(Data("haptic: \($0)\n".utf8)) }
        boardOptions.calibrationPolicy = options.calibration
        boardOptions.appliesCalibrationPolicy = drives
        let board = try HapticBoard.open(file, hardware: hardware, clock: clock, options: boardOptions)
        self.board = board

        let primary = board.chips.first { $0.name == selected } ?? board.chips[0]
        engine = primary.engine
        engines = board.chips.map { ($0.name, $0.engine) }
        group = board.group
        configuration = primary.configuration
        calibrationKey = primary.calibrationKey
        calibrationSource = primary.calibrationSource
        let place = board.origin(of: primary, simulated: simulate) + (simulate && !options.simulate ? " (no I2C bus found on this machine)" : "")
        origin =
            place + (!fromPath ? "" : " (board \(file.name)" + (board.chips.count > 1 ? ", \(board.chips.count) chips" : "") + ")")
            + (simulate && options.virtualTime ? ", virtual time" : "")
    }

    /// With `--acceleration-csv FILE`: the selected chip's drive from `start` to now and 100 ms of
    /// ringing after, through the actuator's model, written to FILE (whole or not at all).
    func writeAccelerationCSV(from start: ClockInstant) throws {
        guard let path = options.accelerationCSV, let simulated else { return }
        guard let record = simulated.chips[selectedDriver]?.output ?? simulated.da7280Chips[selectedDriver]?.output else {
            throw CLIError("--acceleration-csv: the driver \(selectedDriver) is not a simulated chip on I2C", exitCode: CLIError.usage)
        }
        let samples = actuatorPhysics.simulate(record, from: start, to: clock.now.advanced(by: .milliseconds(100)))
        do {
            try AtomicFile.write(Data(ActuatorPhysics.csv(samples).utf8), to: path)
        } catch {
            throw CLIError("--acceleration-csv: \(path) cannot be written: \(error)", exitCode: CLIError.cannotCreate)
        }
    }

    /// Prints the one line saying where this runs (not in JSON mode).
    func announce() {
        if !options.json { print("haptic: \(origin)") }
    }

    /// Leaves the chip stopped and asleep.
    func finish() {
        for (_, engine) in engines {
            engine.waitUntilIdle()
            engine.stop()
            engine.runDueWork()
        }
    }

    /// The final chip state, read from the registers: `standby` and `driving` for every chip,
    /// and the chip's own fields (a DRV2605's `go`, `rtp` and `mode`).
    func finalState() throws -> [String: Any] {
        let readBack = try engine.withChip { try $0.readBack() }
        var state: [String: Any] = ["standby": readBack.standby, "driving": readBack.driving]
        for (name, value) in readBack.details { state[name] = value.jsonValue }
        return state
    }

    /// The read-back for people: "chip standby on, actuator stopped (go false, mode ..., rtp 0)".
    static func describe(final: [String: Any]) -> String {
        let details = final.keys.filter { $0 != "standby" && $0 != "driving" }.sorted().map { "\($0) \(final[$0] ?? "")" }
        return "chip standby \(final["standby"] as? Bool == true ? "on" : "off"), actuator \(final["driving"] as? Bool == false ? "stopped" : "DRIVEN")"
            + (details.isEmpty ? "" : " (\(details.joined(separator: ", ")))")
    }

    func printJSON(_ object: [String: Any]) {
        var object = object
        let totals = board.busTraffic
        object["bus"] = ["transactions": totals.transactions, "bytes": totals.wireBytes, "errors": totals.errors]
        if engines.count > 1 { object["chips"] = engines.map(\.name) }
        object["device"] = origin
        if let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]),
            let text = String(data: data, encoding: .utf8)
        {
            print(text)
        }
    }
}
