// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import Foundation
import HapticBoards
import HapticChip
import HapticEffects
import Haptics
import HapticsSimulation
import HardwareAccess
import Testing

private let boardsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Boards")

private func shippedBoard(_ name: String) throws -> BoardFile {
    try BoardFile.load(boardsDirectory.appendingPathComponent(name + ".json").path)
}

private func noCalibrations() -> HapticBoard.Options {
    var options = HapticBoard.Options()
    options.engine = .isolated
    options.calibrations = nil
    return options
}

/// Opening a board is a library job: the shipped board files, on simulated hardware.
@Suite struct HapticBoardTests {
    /// Four chips behind one TCA9548A: four engines, and a group whose trigger is one GO write
    /// through every channel, so the four actuators start at the same instant.
    @Test func fourChipsBehindASwitchStartTogether() throws {
        let clock = VirtualClock()
        let file = try shippedBoard("tca9548a-four-lra")
        let hardware = try SimulatedHardware(board: file, clock: clock)
        let board = try HapticBoard.open(file, hardware: hardware, clock: clock, options: noCalibrations())
        #expect(board.chips.map(\.name) == file.drivers.map(\.name))
        #expect(board.group.play(.impact(.heavy)) == .zero)
        let onsets = try file.drivers.map { driver in
            try #require(hardware.chips[driver.name]).output.onsetSeconds(from: .zero, to: clock.now.advanced(by: .milliseconds(100)))
        }
        #expect(onsets.allSatisfy { $0 != nil && $0 == onsets[0] }, "onsets \(onsets)")
        let device = try #require(hardware.switches.values.first)
        #expect(device.maskWrites.contains(0x0F), "no broadcast through all four channels")
    }

    /// EN and IN/TRIG from the board file reach the chip they are wired to: start-up raises EN,
    /// a prepared trigger is an IN/TRIG edge with no bus write.
    @Test func theBoardsLinesDriveItsChip() throws {
        let clock = VirtualClock()
        let file = try shippedBoard("bare-drv2605l")
        let hardware = try SimulatedHardware(board: file, clock: clock)
        let board = try HapticBoard.open(file, hardware: hardware, clock: clock, options: noCalibrations())
        let chip = try #require(hardware.chips[file.drivers[0].name])
        #expect(chip.enablePin)
        #expect(board.engine.capabilities.hasTriggerPin && board.engine.capabilities.hasEnablePin)
        board.engine.prepare(.selection)
        clock.advance(by: .milliseconds(5))
        let before = chip.transactionCount
        #expect(board.engine.play(.selection) == .played)
        #expect(chip.transactionCount == before)
        #expect(chip.output.onsetSeconds(from: .zero, to: clock.now.advanced(by: .milliseconds(50))) != nil)
    }

    /// A saved calibration for the chip's key is written back at opening; one for another
    /// actuator is not.
    @Test func savedCalibrationIsRestoredForItsChipOnly() throws {
        let clock = VirtualClock()
        let file = try shippedBoard("adafruit-drv2605l")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("board-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = CalibrationStore(path: path)
        let preset = try file.actuator(named: nil)
        let configuration = try file.configuration()
        let key = CalibrationStore.key(
            bus: "simulated:" + I2CBusPath.resolve(file.drivers[0].bus), address: file.drivers[0].address,
            mux: nil, actuator: preset.specification)
        let values = CalibrationValues(compensation: 0x0B, backEMF: 0x77, backEMFGain: 2, lraPeriod: 57)
        try store.save(CalibrationRecord(key: key, part: .drv2605L, configuration: configuration, values: values, calibratedAt: Date()))
        var options = noCalibrations()
        options.calibrations = store
        options.calibrationNamespace = "simulated:"
        let hardware = try SimulatedHardware(board: file, clock: clock)
        let board = try HapticBoard.open(file, hardware: hardware, clock: clock, options: options)
        #expect(board.chips[0].calibrationKey == key)
        #expect(board.chips[0].configuration?.calibration == values)
        let chip = try #require(hardware.chips[file.drivers[0].name])
        #expect(chip.registers[.autoCalibrationCompensation] == 0x0B && chip.registers[.autoCalibrationBackEMF] == 0x77)
        options.calibrationNamespace = "elsewhere:"
        let other = try HapticBoard.open(file, hardware: try SimulatedHardware(board: file, clock: clock), clock: clock, options: options)
        #expect(other.chips[0].configuration?.calibration != values, "another chip's calibration was applied")
        #expect(other.chips[0].calibrationSource.hasPrefix("calibrated at start-up"))
    }

    /// What the daemon and the studio open: the first chip only, and where it is, for people.
    @Test func theFirstChipOpensAloneAndSaysWhereItIs() throws {
        let clock = VirtualClock()
        let file = try shippedBoard("tca9548a-four-lra")
        var options = HapticBoard.Options.firstChip(of: file, simulated: false)
        options.calibrations = nil
        let board = try HapticBoard.open(file, hardware: try SimulatedHardware(board: file, clock: clock), clock: clock, options: options)
        #expect(board.chips.map(\.name) == [file.drivers[0].name])
        let mux = try #require(file.drivers[0].mux)
        #expect(
            board.origin(of: board.chips[0], simulated: false)
                == "DRV2605L at \(file.drivers[0].address) on \(I2CBusPath.resolve(file.drivers[0].bus)) via TCA9548A \(mux.address) channel \(mux.channel)")
        #expect(board.origin(of: board.chips[0], simulated: true).hasPrefix("simulated DRV2605L with an"))
        #expect(HapticBoard.Options.firstChip(of: file, simulated: true).calibrationNamespace == "simulated:")
        #expect(try BoardFile.named(nil, orSingleOn: "3").drivers.map(\.bus) == ["/dev/i2c-3"])
        #expect(throws: BoardFileError.self) { try BoardFile.named("no-such-board", orSingleOn: nil) }
    }

    @Test func anUnknownDriverIsABoardFileError() throws {
        let clock = VirtualClock()
        let file = try shippedBoard("tca9548a-four-lra")
        var options = noCalibrations()
        options.drivers = ["pinky"]
        #expect(throws: BoardFileError.self) {
            try HapticBoard.open(file, hardware: try SimulatedHardware(board: file, clock: clock), clock: clock, options: options)
        }
    }
}

/// What the first start-up of a new board does about calibration (`CalibrationPolicy`): the chip is
/// never driven closed loop on its reset values for A_CAL_COMP and A_CAL_BEMF.
@Suite struct CalibrationPolicyTests {
    private struct Opened {
        let board: HapticBoard
        let chip: SimulatedDRV2605
        let informed: [String]
        let warned: [String]
        /// Bus transactions in the order they were made.
        let trace: [BusTransaction]
    }

    private static func open(
        _ file: BoardFile, store: CalibrationStore?, policy: CalibrationPolicy? = nil,
        actuatorConnected: Bool = true
    ) throws -> Opened {
        let clock = VirtualClock()
        let hardware = try SimulatedHardware(board: file, clock: clock)
        let chip = try #require(hardware.chips[file.drivers[0].name])
        chip.actuator.connected = actuatorConnected
        var options = HapticBoard.Options()
        options.engine = .isolated
        options.calibrations = store
        options.calibrationNamespace = "simulated:"
        options.calibrationPolicy = policy
        let informed = Locked<[String]>([])
        let warned = Locked<[String]>([])
        let trace = Locked<[BusTransaction]>([])
        options.inform = { message in informed.withLock { $0.append(message) } }
        options.warn = { message in warned.withLock { $0.append(message) } }
        options.observer = { transaction in trace.withLock { $0.append(transaction) } }
        let board = try HapticBoard.open(file, hardware: hardware, clock: clock, options: options)
        return Opened(
            board: board, chip: chip, informed: informed.withLock { $0 }, warned: warned.withLock { $0 },
            trace: trace.withLock { $0 })
    }

    private static func temporaryStore() -> CalibrationStore {
        CalibrationStore(path: FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString).json").path)
    }

    /// MODE written with auto-calibration (7) and then GO: the calibration routine was started.
    private static func calibrationStarted(_ trace: [BusTransaction]) -> Bool {
        let modeThenGo = trace.filter { $0.kind == .write && $0.error == nil }.map(\.written)
        guard let mode = modeThenGo.firstIndex(where: { $0.first == Register.mode.rawValue && $0.count >= 2 && $0[1] & 0x07 == 0x07 })
        else { return false }
        return modeThenGo[mode...].contains { $0 == [Register.go.rawValue, 0x01] }
    }

    /// `auto` (the default): the first start-up with nothing saved calibrates before anything is
    /// played, says so once, and saves it; the next start-up restores it without calibrating.
    @Test func theFirstStartUpCalibratesAndSavesAndTheNextRestores() throws {
        let file = try shippedBoard("adafruit-drv2605l")
        let store = Self.temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        let first = try Self.open(file, store: store)
        #expect(Self.calibrationStarted(first.trace), "no MODE 7 + GO at the first start-up")
        let calibration = try #require(first.board.chips[0].configuration?.calibration)
        #expect(first.chip.registers[.autoCalibrationCompensation] == calibration.compensation)
        #expect(first.informed.count == 1 && first.informed[0].contains("auto-calibrated at start-up"), "\(first.informed)")
        #expect(first.informed[0].contains(store.path))
        #expect(first.warned.isEmpty, "\(first.warned)")
        #expect(try store.records().map(\.values) == [calibration])
        #expect(first.board.chips[0].calibrationSource.hasPrefix("calibrated at start-up"))

        let second = try Self.open(file, store: store)
        #expect(!Self.calibrationStarted(second.trace), "calibrated again although a calibration was saved")
        #expect(second.informed.isEmpty)
        #expect(second.board.chips[0].configuration?.calibration == calibration)
        #expect(second.board.chips[0].calibrationSource.hasPrefix("restored from"))
        #expect(second.chip.registers[.autoCalibrationBackEMF] == calibration.backEMF)
    }

    /// Without a store (an app that keeps no files) the chip is still calibrated, every start-up.
    @Test func withoutAStoreTheChipIsStillCalibrated() throws {
        let opened = try Self.open(try shippedBoard("adafruit-drv2605l"), store: nil)
        #expect(Self.calibrationStarted(opened.trace))
        #expect(opened.board.chips[0].configuration?.calibration != nil)
        #expect(opened.board.engine.capabilities.loop == .closed)
    }

    /// `saved`: no closed loop without a saved calibration; the error says how to make one.
    @Test func savedRefusesWithoutACalibrationAndSaysHow() throws {
        let file = try shippedBoard("adafruit-drv2605l")
        let store = Self.temporaryStore()
        do {
            _ = try Self.open(file, store: store, policy: .saved)
            Issue.record("opened closed loop with no calibration")
        } catch let error as CalibrationRequiredError {
            #expect(error.description.contains("haptic calibrate --board adafruit-drv2605l"))
        }
        #expect(try store.records().isEmpty)
    }

    /// `open-loop`: never calibrates, and the chip runs open loop (ERM_OPEN_LOOP/LRA_OPEN_LOOP).
    @Test func openLoopNeverCalibrates() throws {
        let opened = try Self.open(try shippedBoard("adafruit-drv2605l"), store: nil, policy: .openLoop)
        #expect(!Self.calibrationStarted(opened.trace))
        #expect(opened.board.engine.capabilities.loop == .open)
        #expect(opened.chip.registers[Control3Register.self].lraOpenLoop)
        #expect(opened.board.engine.play(.success) == .played)
    }

    /// A calibration that fails at start-up (the actuator is not connected) is not followed by a
    /// closed-loop drive on the reset values: the chip starts again open loop, with a warning, and
    /// nothing is saved.
    @Test func aFailedStartUpCalibrationFallsBackToOpenLoop() throws {
        let file = try shippedBoard("adafruit-drv2605l")
        let store = Self.temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: store.path) }
        let opened = try Self.open(file, store: store, actuatorConnected: false)
        #expect(Self.calibrationStarted(opened.trace))
        #expect(opened.board.engine.capabilities.loop == .open)
        #expect(opened.chip.registers[Control3Register.self].lraOpenLoop, "the chip was left closed loop")
        #expect(opened.warned.contains { $0.contains("auto-calibration at start-up failed") && $0.contains("open loop") }, "\(opened.warned)")
        #expect(opened.board.chips[0].configuration?.calibration == nil)
        #expect(try store.records().isEmpty)
    }

    /// The board file names the policy per driver; a wrong value is an error naming the allowed ones.
    @Test func theBoardFileNamesThePolicy() throws {
        let text =
            #"{ "format": 1, "name": "t", "actuators": { "lra": { "type": "lra", "ratedVrms": 2.0, "maximumVrms": 2.5, "resonantHz": 175 } }, "defaultActuator": "lra", "drivers": [ { "name": "main", "calibration": "POLICY" } ] }"#
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("policy-board-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try text.replacingOccurrences(of: "POLICY", with: "open-loop").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try BoardFile.load(path).drivers[0].calibration == .openLoop)
        try text.replacingOccurrences(of: "POLICY", with: "sometimes").write(toFile: path, atomically: true, encoding: .utf8)
        #expect { try BoardFile.load(path) } throws: { error in
            "\(error)".contains("auto, saved, open-loop")
        }
    }
}
