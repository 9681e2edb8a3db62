// SPDX-License-Identifier: Apache-2.0

import ChipFamilies
import DA7280
import DA7280Simulator
import Foundation
import HapticBoards
import HapticChip
import Haptics
import HapticsSimulation
import HardwareAccess
import Testing

private let boardsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Boards")

/// A DA7280 board file opens through the same `HapticBoard` as a DRV2605's, and the engine plays
/// every feedback on it through the chip-neutral core: writes to 0x4A only, felt, and stopped.
@Suite struct DA7280BoardTests {
    /// Board files here name the DA7280, as the programs' may.
    init() { StandardChipFamilies.register() }

    static func open(_ name: String = "sparkfun-qwiic-da7280", actuator: String? = nil, usesChipMemory: Bool = true) throws -> (HapticBoard, SimulatedDA7280, VirtualClock) {
        let file = try BoardFile.load(boardsDirectory.appendingPathComponent(name + ".json").path)
        let clock = VirtualClock()
        let hardware = try SimulatedHardware(board: file, actuator: actuator, clock: clock)
        var options = HapticBoard.Options()
        options.engine = .isolated
        options.calibrations = nil
        options.actuator = actuator
        options.usesChipMemory = usesChipMemory
        let board = try HapticBoard.open(file, hardware: hardware, clock: clock, options: options)
        let chip = try #require(hardware.da7280Chips["main"])
        return (board, chip, clock)
    }

    @Test(arguments: [("sparkfun-qwiic-da7280", "lra"), ("bare-da7280", "lra"), ("bare-da7280", "erm")])
    func everyFeedbackPlaysOnTheDA7280(board name: String, actuator: String) throws {
        let (board, chip, clock) = try Self.open(name, actuator: actuator)
        let engine = board.engine
        #expect(engine.capabilities.chip == "DA7280")
        #expect(engine.capabilities.library == nil)
        #expect(board.chips[0].configuration == nil)
        let stored = try engine.withChip { try #require($0 as? DA7280Driver).stored?.names } ?? []
        #expect(actuator == "erm" ? stored.isEmpty : stored.count >= 12, "the waveform memory holds \(stored)")
        for kind in FeedbackKind.all {
            clock.advance(by: .seconds(3))
            let start = clock.now
            let before = chip.trace.count
            #expect(engine.play(Feedback(kind: kind)) == .played, "\(kind)")
            clock.advance(by: .seconds(2))
            #expect(chip.output.energy(from: start, to: clock.now) > 0, "\(kind): nothing felt")
            #expect(chip.output.peak(from: start, to: clock.now) <= 1 + 1e-9, "\(kind): driven past the rated voltage")
            if stored.contains(kind.name) {
                #expect(chip.trace[before...].contains { $0.written == [0x22, 0x1B] }, "\(kind): not triggered from memory")
                #expect(!chip.trace[before...].contains { $0.written.first == 0x23 }, "\(kind): streamed though stored")
            } else {
                #expect(chip.trace[before...].contains { $0.written.first == 0x23 && ($0.written.last ?? 0) > 0 }, "\(kind): no DRO level written")
            }
            #expect(chip.drive == 0, "\(kind): still driving")
            #expect(chip[.topControl1] == 0, "\(kind): not back in IDLE")
        }
        #expect(chip.trace.allSatisfy { $0.address == .da7280 })
        #expect(engine.statistics.dropped == 0)
        let readBack = try engine.withChip { try $0.readBack() }
        #expect(readBack.standby && !readBack.driving)
    }

    /// A pattern (a transient and a continuous event) plays as the stream too.
    @Test func aPatternPlaysOnTheDA7280() throws {
        let (board, chip, clock) = try Self.open()
        let pattern = HapticPattern(events: [
            .init(type: .hapticTransient, time: 0, intensity: 1, sharpness: 0.5),
            .init(type: .hapticContinuous, time: 0.1, duration: 0.3, intensity: 0.6, sharpness: 0.3)
        ])
        let player = PatternPlayer(engine: board.engine, pattern: PatternRenderer(strategy: .realTime).render(pattern))
        player.start(at: clock.now)
        #expect(player.runToCompletion() == .finished)
        #expect(chip.output.energy(to: clock.now) > 0)
        #expect(chip.output.activeSeconds(to: clock.now) >= 0.29)
        #expect(chip.drive == 0)
    }

    /// A shorted actuator, under a feedback from the waveform memory and under the same feedback
    /// streamed (25 ms: the fault is found after the stream, not by the 100 ms check during it):
    /// the fault counted as over-current and cleared, nothing left driving, the next one plays.
    @Test(arguments: [true, false])
    func aShortIsAFaultAndNothingKeepsDriving(fromMemory: Bool) throws {
        let (board, chip, clock) = try Self.open(usesChipMemory: fromMemory)
        chip.actuatorShorted = true
        _ = board.engine.play(.impact(.heavy))
        clock.advance(by: .seconds(2))
        #expect(board.engine.statistics.faults == 1)
        #expect(board.engine.statistics.lastFault == .fault(overCurrent: true, overTemperature: false))
        #expect(chip[.irqEvent1] == 0, "E_OC_FAULT not cleared")
        #expect(chip.drive == 0 && chip.output.level(at: clock.now) == 0)
        chip.actuatorShorted = false
        clock.advance(by: .seconds(3))
        #expect(board.engine.play(.impact(.heavy)) == .played)
        clock.advance(by: .seconds(2))
        #expect(chip.output.energy(to: clock.now) > 0)
    }

    @Test func aDA7280ActuatorWithoutItsImpedanceIsABoardFileError() throws {
        let json = """
            { "format": 1, "name": "x", "description": "x", "bus": "1", "supplyVolts": 3.3,
              "actuators": { "lra": { "type": "lra", "ratedVrms": 2, "maximumVrms": 2.5, "resonantHz": 170, "maximumMilliamps": 150 } },
              "defaultActuator": "lra", "drivers": [ { "name": "main", "part": "da7280" } ] }
            """
        let file = try BoardFile.parse(Data(json.utf8), path: "x.json")
        #expect(file.drivers[0].address == .da7280 && file.drivers[0].family == .da7280)
        let clock = VirtualClock()
        #expect {
            _ = try HapticBoard.open(file, hardware: try SimulatedHardware(board: file, clock: clock), clock: clock)
        } throws: { error in
            (error as? BoardFileError)?.field == "actuators.lra.impedanceOhms"
        }
    }

    /// The DA7280's own actuator keys are its family's to check, as the file is read, whatever
    /// chip the preset is fitted to: a value of the wrong kind names its field.
    @Test(arguments: [
        (#""shape": "bar""#, "actuators.lra.shape is 'bar' (allowed: coin or bar, for an ERM)"),
        (#""impedanceOhms": -3"#, "actuators.lra.impedanceOhms is -3 (allowed: a positive number)"),
        (#""maximumMilliamps": "lots""#, "actuators.lra.maximumMilliamps is 'lots' (allowed: a number)")
    ])
    func theFamilysActuatorKeysAreCheckedAsTheFileIsRead(key: String, message: String) throws {
        StandardChipFamilies.register()
        let json = """
            { "format": 1, "name": "x", "description": "x", "bus": "1", "supplyVolts": 3.3,
              "actuators": { "lra": { "type": "lra", "ratedVrms": 2, "maximumVrms": 2.5, "resonantHz": 170, \(key) } },
              "defaultActuator": "lra", "drivers": [ { "name": "main", "part": "drv2605l" } ] }
            """
        #expect {
            _ = try BoardFile.parse(Data(json.utf8), path: "x.json")
        } throws: { error in
            (error as? BoardFileError)?.description.contains(message) == true
        }
    }

    /// An ERM's `"shape"` decides how the DA7280 drives it.
    @Test func anERMsShapeIsTheDA7280s() throws {
        StandardChipFamilies.register()
        let json = """
            { "format": 1, "name": "x", "description": "x", "bus": "1", "supplyVolts": 3.3,
              "actuators": { "bar": { "type": "erm", "ratedVolts": 3, "maximumVolts": 3.3, "impedanceOhms": 30, "maximumMilliamps": 100, "shape": "bar" },
                             "coin": { "type": "erm", "ratedVolts": 3, "maximumVolts": 3.3, "impedanceOhms": 30, "maximumMilliamps": 100 } },
              "defaultActuator": "bar", "drivers": [ { "name": "main", "part": "da7280" } ] }
            """
        let file = try BoardFile.parse(Data(json.utf8), path: "x.json")
        #expect(try file.actuator(named: "bar").da7280Actuator(file: file.path).kind == .ermBar)
        #expect(try file.actuator(named: "coin").da7280Actuator(file: file.path).kind == .ermCoin)
    }

    @Test func aDA7280WithAnEnableLineIsABoardFileError() throws {
        let json = """
            { "format": 1, "name": "x", "description": "x", "bus": "1", "supplyVolts": 3.3,
              "actuators": { "lra": { "type": "lra", "ratedVrms": 2, "maximumVrms": 2.5, "resonantHz": 170 } },
              "defaultActuator": "lra", "drivers": [ { "name": "main", "part": "da7280", "enable": { "chip": "0", "line": 4 } } ] }
            """
        #expect { try BoardFile.parse(Data(json.utf8), path: "x.json") } throws: { error in
            (error as? BoardFileError)?.field == "drivers[0].enable"
        }
    }

    /// A supply sag below the under-voltage lock-out while a long feedback streams: the chip goes
    /// idle [DS §5.6.6]; the engine finds it within its clip check (100 ms), stops the stream,
    /// counts the fault and clears E_UVLO by writing 1 to it once the supply is back.
    @Test func aSupplySagDuringAFeedbackIsFoundStoppedAndCleared() throws {
        let (board, chip, clock) = try Self.open()
        let start = clock.now
        #expect(board.engine.play(.vibration(.default)) == .played)
        clock.advance(by: .milliseconds(200))
        #expect(chip.drive > 0)
        chip.supplyVolts = 2.5
        #expect(chip.drive == 0, "the chip idles under the lock-out")
        chip.supplyVolts = 3.3
        let sagEnd = clock.now
        let writesBefore = chip.trace.count
        clock.advance(by: .milliseconds(150))
        #expect(board.engine.statistics.faults == 1 && board.engine.statistics.lastFault == .underVoltage)
        #expect(chip[.irqEvent1] & DA7280Register.Event.underVoltage.rawValue == 0, "E_UVLO not cleared")
        let clearing = chip.trace[writesBefore...].first { $0.kind == .write && $0.written == [DA7280Register.irqEvent1.rawValue, 0xFF] }
        #expect(clearing != nil && clearing!.time <= sagEnd.advanced(by: .milliseconds(100)), "the fault was not found within 100 ms")
        let after = chip.trace.count
        clock.advance(by: .seconds(1))
        #expect(!chip.trace[after...].contains { $0.kind == .write && $0.written.first == DA7280Register.topControl2.rawValue }, "the stream went on into the idle chip")
        #expect(chip.output.level(at: clock.now) == 0 && chip[.topControl1] & 0x07 == 0)
        #expect(chip.output.activeSeconds(from: start, to: clock.now) < 0.25)
    }

    /// A board file asking the DA7280 for what it cannot drive is refused naming the field: a
    /// current past IMAX's range, a maximum voltage past the registers', a maximum below the
    /// rating, an LRA resonance the chip cannot track; nothing is written to the chip.
    @Test(arguments: [
        ("\"maximumMilliamps\": 300", "actuators.lra.maximumMilliamps"), ("\"maximumVrms\": 6.5", "actuators.lra.maximumVrms"),
        ("\"maximumVrms\": 1.5", "actuators.lra.maximumVrms"), ("\"resonantHz\": 320", "actuators.lra.resonantHz"),
        ("\"impedanceOhms\": 0.5", "actuators.lra.impedanceOhms")
    ])
    func whatTheChipCannotDriveIsRefusedByField(change: String, field: String) throws {
        var values = ["\"ratedVrms\": 2.106", "\"maximumVrms\": 2.26", "\"resonantHz\": 170", "\"impedanceOhms\": 13.8", "\"maximumMilliamps\": 165.4"]
        let key = change.split(separator: ":")[0]
        values = values.map { $0.hasPrefix(key) ? change : $0 }
        let json = """
            { "format": 1, "name": "x", "description": "x", "bus": "1", "supplyVolts": 3.3,
              "actuators": { "lra": { "type": "lra", \(values.joined(separator: ", ")) } },
              "defaultActuator": "lra", "drivers": [ { "name": "main", "part": "da7280" } ] }
            """
        let file = try BoardFile.parse(Data(json.utf8), path: "test.json")
        let clock = VirtualClock()
        let hardware = try SimulatedHardware(board: file, actuator: nil, clock: clock)
        var options = HapticBoard.Options()
        options.engine = .isolated
        options.calibrations = nil
        #expect {
            try HapticBoard.open(file, hardware: hardware, clock: clock, options: options)
        } throws: { error in
            (error as? BoardFileError)?.field == field && String(describing: error).contains("a DA7280 cannot drive it")
        }
        #expect(hardware.da7280Chips["main"]?.trace.contains { $0.kind == .write } != true)
    }
}
