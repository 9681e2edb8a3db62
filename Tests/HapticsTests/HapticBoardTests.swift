import DRV2605
import DRV2605Simulator
import Foundation
import HardwareAccess
import Haptics
import HapticsTesting
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
        let key = CalibrationStore.key(bus: "simulated:" + I2CBusPath.resolve(file.drivers[0].bus), address: file.drivers[0].address,
                                       mux: nil, actuator: preset.specification)
        let values = CalibrationValues(compensation: 0x0B, backEMF: 0x77, backEMFGain: 2, lraPeriod: 57)
        try store.save(CalibrationRecord(key: key, part: .drv2605L, configuration: configuration, values: values, calibratedAt: Date()))
        var options = noCalibrations()
        options.calibrations = store
        options.calibrationNamespace = "simulated:"
        let hardware = try SimulatedHardware(board: file, clock: clock)
        let board = try HapticBoard.open(file, hardware: hardware, clock: clock, options: options)
        #expect(board.chips[0].calibrationKey == key)
        #expect(board.chips[0].configuration.calibration == values)
        let chip = try #require(hardware.chips[file.drivers[0].name])
        #expect(chip.registers[.autoCalibrationCompensation] == 0x0B && chip.registers[.autoCalibrationBackEMF] == 0x77)
        options.calibrationNamespace = "elsewhere:"
        let other = try HapticBoard.open(file, hardware: try SimulatedHardware(board: file, clock: clock), clock: clock, options: options)
        #expect(other.chips[0].configuration.calibration == nil)
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
        #expect(board.origin(of: board.chips[0], simulated: false)
            == "\(file.drivers[0].address) on \(I2CBusPath.resolve(file.drivers[0].bus)) via TCA9548A \(mux.address) channel \(mux.channel)")
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
