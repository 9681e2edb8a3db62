// SPDX-License-Identifier: Apache-2.0

import ChipFamilies
import DA7280
import DRV2605
import DRV2605Simulator
import Foundation
import HapticBoards
import HapticChip
import HapticEffects
import Haptics
import HardwareAccess
import HardwareAccessTesting
import HardwareSimulation
import Testing

private let validBoard = """
    { "format": 1, "name": "test", "bus": "/dev/i2c-3", "supplyVolts": 5,
      "actuators": { "lra": { "type": "lra", "ratedVrms": 2.0, "maximumVrms": 2.0, "resonantHz": 175 },
                     "erm": { "type": "erm", "ratedVolts": 3.0, "maximumVolts": 3.6, "library": "B" } },
      "defaultActuator": "lra",
      "drivers": [ { "name": "a", "address": "0x5A", "part": "drv2605l", "enable": { "chip": "gpiochip0", "line": 17 },
                     "trigger": { "chip": "gpiochip0", "line": 27, "mode": "level" } },
                   { "name": "b", "mux": { "address": "0x70", "channel": 3 } } ],
      "feedback": { "impact-heavy": [47], "success": [1, "wait 80", 1] } }
    """

private func board(_ text: String) throws(BoardFileError) -> BoardFile {
    try BoardFile.parse(Data(text.utf8), path: "test.json")
}

private func boardError(_ text: String) -> BoardFileError? {
    do {
        _ = try board(text)
        return nil
    } catch { return error }
}

@Suite struct BoardFileTests {
    /// Board files here name the DA7280, as the programs' may.
    init() { StandardChipFamilies.register() }

    @Test func validBoardGivesConfigurationAndMapping() throws {
        let file = try board(validBoard)
        #expect(file.drivers.count == 2)
        #expect(file.drivers[0].bus == "/dev/i2c-3" && file.drivers[0].address == .drv2605 && file.drivers[0].part == .drv2605L)
        #expect(file.drivers[0].enable == BoardFile.Line(chip: "gpiochip0", offset: 17, lineName: nil))
        #expect(file.drivers[1].mux == BoardFile.MuxChannel(address: .tca9548a, channel: 3))
        #expect(file.drivers[0].triggerMode == .level && file.drivers[1].triggerMode == .edge)
        let configuration = try file.configuration()
        #expect(configuration.ratedVoltage == 0x53 && configuration.overdriveClamp == 0x65 && configuration.library == .lra)
        let erm = try file.configuration(actuator: "erm")
        #expect(erm.library == .ermB && erm.ratedVoltage == 0x8E && erm.overdriveClamp == 0xB7)
        let mapping = file.mapping(for: .lra)
        #expect(mapping.table[.impact(.heavy)] == .rom(WaveformSequence(Effect(47)!)))
        #expect(mapping.table[.selection] == FeedbackMapping.standard(for: .lra).table[.selection])
    }

    @Test(
        arguments: [
            (#""format": 1"#, #""format": 2"#, "format", "1"),
            (#""type": "lra""#, #""type": "lar""#, "actuators.lra.type", "lra, erm"),
            (#""library": "B""#, #""library": "Z""#, "actuators.erm.library", "A, B, C, D, E, F"),
            (#""channel": 3"#, #""channel": 9"#, "drivers[1].mux.channel", "0-7"),
            (#""address": "0x5A""#, #""address": "0x80""#, "drivers[0].address", "0x03-0x77"),
            (#""part": "drv2605l""#, #""part": "drv2606""#, "drivers[0].part", "drv2605"),
            (#""defaultActuator": "lra""#, #""defaultActuator": "coin""#, "defaultActuator", "erm, lra"),
            (#""impact-heavy": [47]"#, #""impact-heavvy": [47]"#, "feedback.impact-heavvy", "impact-light"),
            (#""impact-heavy": [47]"#, #""impact-heavy": [200]"#, "feedback.impact-heavy[0]", "1-123"),
            (#""wait 80""#, #""wait 2000""#, "feedback.success[1]", "10-1270"),
            (#""ratedVrms": 2.0"#, #""ratedVrms": "2""#, "actuators.lra.ratedVrms", nil),
            (#""supplyVolts": 5"#, #""supplyVolts": 9"#, "supplyVolts", "2.0 to 5.2"),
            (#""mode": "level""#, #""mode": "pulse""#, "drivers[0].trigger.mode", "edge, level")
        ] as [(String, String, String, String?)])
    func errorsNameTheFieldAndTheAllowedValues(original: String, replacement: String, field: String, allowed: String?) throws {
        let error = try #require(boardError(validBoard.replacingOccurrences(of: original, with: replacement)))
        #expect(error.file == "test.json")
        #expect(error.field == field)
        if let allowed { #expect(error.allowed?.contains(allowed) == true, "\(error)") }
    }

    @Test func voltageAboveTheSupplyIsRejectedWhenTheConfigurationIsMade() throws {
        let file = try board(validBoard.replacingOccurrences(of: #""supplyVolts": 5"#, with: #""supplyVolts": 3.3"#))
        #expect(throws: BoardFileError.self) { try file.configuration(actuator: "erm") }
    }

    @Test func malformedJSONAndMissingFieldsAreReported() {
        #expect(boardError("{ \"format\": 1,")?.field == "file")
        #expect(boardError(#"{ "format": 1, "name": "x", "actuators": {}, "drivers": [] }"#)?.field == "actuators")
        #expect(boardError(#"{ "format": 1, "actuators": {} }"#)?.field == "name")
        #expect(boardError("[1, 2]")?.field == "(top level)")
    }

    @Test func shippedBoardFilesAllLoad() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Boards")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        #expect(files.count >= 4)
        for file in files {
            let loaded = try BoardFile.load(directory.appendingPathComponent(file).path)
            #expect(loaded.actuators.map(\.specification.type).contains(.lra))
            if loaded.drivers.allSatisfy({ $0.family == .da7280 }) {
                // A DA7280 board's actuators carry what that chip needs (the SparkFun board's LRA is soldered on: no ERM).
                for actuator in loaded.actuators { _ = try actuator.da7280Actuator(file: file).registers() }
            } else {
                for actuator in loaded.actuators { _ = try loaded.configuration(actuator: actuator.name) }
                #expect(loaded.actuators.map(\.specification.type).contains(.erm), "\(file)")
            }
        }
    }
}

@Suite struct CalibrationStoreTests {
    func temporaryStore() -> CalibrationStore {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("haptics-test-\(UUID().uuidString)")
        return CalibrationStore(path: directory.appendingPathComponent("calibration.json").path)
    }

    let configuration = (try? DRV2605Configuration(.lra(ratedVrms: 2.0, maximumVrms: 2.0, resonantHz: 175))) ?? DRV2605Configuration(actuator: .lra)
    let key = CalibrationStore.key(bus: "/dev/i2c-1", address: .drv2605, actuator: .lra(ratedVrms: 2.0, maximumVrms: 2.0, resonantHz: 175))
    let values = CalibrationValues(compensation: 10, backEMF: 117, backEMFGain: 2, lraPeriod: 58)

    /// The service's unit gives hapticd `StateDirectory=haptics` and runs it as a user without a
    /// home under `ProtectSystem=strict`: its calibration must land in `$STATE_DIRECTORY`, the one
    /// place it may write, or it is never saved and the chip calibrates at every start.
    @Test func theDefaultFileFollowsSystemdsStateDirectory() {
        // A folder of systemd's that is neither default (root's nor a user's), so that the rule shows.
        #expect(CalibrationStore.defaultPath(environment: ["STATE_DIRECTORY": "/var/lib/private/haptics", "HOME": "/"]) == "/var/lib/private/haptics/calibration.json")
        #expect(CalibrationStore.defaultPath(environment: ["STATE_DIRECTORY": "/var/lib/haptics", "HAPTIC_CALIBRATION_FILE": "/tmp/c.json"]) == "/tmp/c.json")
        let user = CalibrationStore.defaultPath(environment: ["HOME": "/home/pi"])
        #expect(user == (getuid() == 0 ? "/var/lib/haptics/calibration.json" : "/home/pi/.local/state/haptics/calibration.json"))
        #expect(CalibrationStore.defaultPath(environment: ["HAPTIC_CALIBRATION_FILE": "", "HOME": "/home/pi"]) == user)
    }

    @Test func savesAndRestoresAcrossStores() throws {
        let store = temporaryStore()
        try store.save(CalibrationRecord(key: key, part: .drv2605L, configuration: configuration, values: values, calibratedAt: Date()))
        let reopened = CalibrationStore(path: store.path)
        let (record, warning) = reopened.lookup(key: key, configuration: configuration)
        #expect(warning == nil)
        #expect(record?.values == values)
        #expect(reopened.lookup(key: key + "x", configuration: configuration).record == nil)
        // Saving again replaces, not appends.
        try store.save(CalibrationRecord(key: key, part: .drv2605L, configuration: configuration, values: values, calibratedAt: Date()))
        #expect(try store.records().count == 1)
        #expect(!FileManager.default.fileExists(atPath: store.path + ".tmp-\(getpid())"))
    }

    /// Each input auto-calibration ran with, changed alone, makes the saved results stale: they
    /// are not applied, and the warning says why. DRIVE_TIME follows the resonant frequency: a board
    /// file with another frequency changes it.
    @Test(arguments: ["RATED_VOLTAGE", "OD_CLAMP", "DRIVE_TIME", "resonant frequency"])
    func eachMismatchedInputIsIgnoredWithAWarning(input: String) throws {
        let store = temporaryStore()
        try store.save(CalibrationRecord(key: key, part: .drv2605L, configuration: configuration, values: values, calibratedAt: Date()))
        #expect(store.lookup(key: key, configuration: configuration).record?.values == values)
        var other = configuration
        switch input {
        case "RATED_VOLTAGE": other.ratedVoltage &+= 1
        case "OD_CLAMP": other.overdriveClamp &+= 1
        case "DRIVE_TIME": other.driveTime = (other.driveTime + 1) & 0x1F
        default:
            // An LRA's RATED_VOLTAGE depends on the frequency too (the open-loop formula).
            other = try DRV2605Configuration(.lra(ratedVrms: 2.0, maximumVrms: 2.0, resonantHz: 235))
            #expect(other.driveTime != configuration.driveTime)
        }
        let (record, warning) = store.lookup(key: key, configuration: other)
        #expect(record == nil, "a calibration made with another \(input) was applied")
        #expect(warning?.contains("other actuator settings") == true)
    }

    @Test(arguments: ["{ not json", "", #"{"format":1,"calibrations":[{"key":"k"}]}"#])
    func corruptOrTruncatedFilesAreReportedAndIgnored(contents: String) throws {
        let store = temporaryStore()
        try store.save(CalibrationRecord(key: key, part: .drv2605L, configuration: configuration, values: values, calibratedAt: Date()))
        let full = try String(contentsOfFile: store.path, encoding: .utf8)
        for text in [contents, String(full.prefix(full.count / 2))] {
            try text.write(toFile: store.path, atomically: false, encoding: .utf8)
            let (record, warning) = store.lookup(key: key, configuration: configuration)
            #expect(record == nil)
            #expect(warning?.contains("corrupt") == true)
        }
    }

    @Test func outOfRangeValuesAreNeverApplied() throws {
        let store = temporaryStore()
        var bad = values
        bad.backEMFGain = 7
        try store.save(CalibrationRecord(key: key, part: .drv2605L, configuration: configuration, values: bad, calibratedAt: Date()))
        #expect(store.lookup(key: key, configuration: configuration).record == nil)
    }

    @Test func restoredCalibrationReachesTheChipAtStartUp() throws {
        let clock = VirtualClock()
        let chip = SimulatedDRV2605(clock: clock)
        var restored = configuration
        restored.calibration = values
        _ = try HapticEngine(bus: chip, configuration: restored, clock: clock, options: .isolated)
        #expect(chip.registers[.autoCalibrationCompensation] == 10 && chip.registers[.autoCalibrationBackEMF] == 117)
        #expect(chip.registers[.feedbackControl] & 0x03 == 2)
        #expect(chip.registers[.lraOpenLoopPeriod] == 58)
    }

    @Test func aBusErrorDuringCalibrationSavesNothing() throws {
        let clock = VirtualClock()
        let chip = SimulatedDRV2605(clock: clock)
        let engine = try HapticEngine(bus: chip, configuration: configuration, clock: clock, options: .isolated)
        chip.injectFault(.fail(.busError), atTransaction: chip.transactionCount + 3)
        let store = temporaryStore()
        #expect(throws: DRV2605Error.self) {
            let calibrated = try engine.withDriver { try $0.calibrate() }
            try store.save(CalibrationRecord(key: key, part: .drv2605L, configuration: configuration, values: calibrated, calibratedAt: Date()))
        }
        #expect(!FileManager.default.fileExists(atPath: store.path))
        #expect(chip.output.level(at: clock.now) == 0)
    }

    @Test func calibrationTimeoutIsAnError() throws {
        let clock = VirtualClock()
        let chip = SimulatedDRV2605(clock: clock)
        let engine = try HapticEngine(bus: chip, configuration: configuration, clock: clock, options: .isolated)
        chip.goStuck = true
        #expect {
            _ = try engine.withDriver { try $0.calibrate() }
        } throws: { error in
            if case .timeout = error as? DRV2605Error { return true }
            return false
        }
        #expect(chip.output.level(at: clock.now) == 0)
    }
}

/// Chips on the channels of a simulated TCA9548A, each with its engine, traffic logged at the switch.
enum MuxRig {
    static func make(
        chips count: Int
    ) throws -> (
        VirtualClock, SimulatedTCA9548A, [SimulatedDRV2605], MonitoredBus,
        TCA9548A, [HapticEngine]
    ) {
        let clock = VirtualClock()
        let mux = SimulatedTCA9548A()
        let chips = (0..<count).map { _ in SimulatedDRV2605(clock: clock) }
        for (channel, chip) in chips.enumerated() { mux.attach(chip, channel: channel) }
        let monitored = MonitoredBus(mux, clock: clock)
        monitored.keepsLog = true
        let tca = TCA9548A(parent: monitored)
        let configuration = try DRV2605Configuration(.lra(ratedVrms: 2.0, maximumVrms: 2.0, resonantHz: 175))
        var engines: [HapticEngine] = []
        for channel in 0..<count {
            engines.append(try HapticEngine(bus: try #require(tca.channel(channel)), configuration: configuration, clock: clock, options: .isolated))
        }
        return (clock, mux, chips, monitored, tca, engines)
    }
}

@Suite struct MultiplexerTests {
    @Test func channelSwitchOnlyWhenTheChannelChanges() throws {
        let (clock, mux, chips, monitored, _, engines) = try MuxRig.make(chips: 3)
        #expect(mux.maskWrites == [0x01, 0x02, 0x04])
        for chip in chips { #expect(chip.registers[.ratedVoltage] == 0x53) }

        let group = HapticGroup(engines: engines, clock: clock)
        monitored.clearLog()
        group.play(.impact(.heavy))
        // Prepare each (switch + burst), then switch + GO each, in chip order.
        let selects = monitored.log.filter { $0.address == .tca9548a }.map(\.written)
        #expect(selects == [[0x01], [0x02], [0x04], [0x01], [0x02], [0x04]])
        let firstGo = try #require(monitored.log.firstIndex { $0.written == [0x0C, 0x01] })
        let afterFirstGo = monitored.log[firstGo...]
        // Per extra chip: one channel switch and one GO write.
        #expect(afterFirstGo.count == 1 + 2 * (chips.count - 1))
        for chip in chips { #expect(chip.output.peak(to: clock.now.advanced(by: .milliseconds(100))) == 1) }
    }

    @Test func aChipOnAnotherChannelDoesNotAnswer() throws {
        let clock = VirtualClock()
        let mux = SimulatedTCA9548A()
        mux.attach(SimulatedDRV2605(clock: clock), channel: 5)
        let tca = TCA9548A(parent: mux)
        let wrong = try #require(tca.channel(4))
        #expect(throws: I2CError.self) { _ = try wrong.readRegister(0, at: .drv2605) }
        let right = try #require(tca.channel(5))
        #expect(try right.readRegister(0, at: .drv2605) == 0xE0)
        #expect(tca.channel(8) == nil)
    }
}

@Suite struct GroupBroadcastTests {
    @Test func oneGOWriteStartsEveryChipAtOnce() throws {
        let (clock, mux, chips, monitored, tca, engines) = try MuxRig.make(chips: 4)
        let group = HapticGroup(engines: engines, clock: clock) { try tca.broadcast(to: .drv2605, [0x0C, 0x01], mask: 0x0F) }
        monitored.clearLog()
        #expect(group.play(.impact(.heavy)) == .zero)
        #expect(monitored.log.filter { $0.written == [0x0C, 0x01] }.count == 1)
        #expect(mux.maskWrites.last == 0x0F)
        let starts = chips.compactMap { $0.output.bursts(to: clock.now.advanced(by: .milliseconds(100))).first?.start }
        #expect(starts.count == 4 && Set(starts).count == 1)
        for engine in engines { #expect(engine.statistics.played == 1) }
        // Each engine returns its chip to standby after the click, through its own channel.
        clock.advance(by: .seconds(1))
        for engine in engines { engine.runDueWork() }
        for chip in chips { #expect(chip.registers[.mode] & 0x40 != 0) }
        // A pattern on the group: every chip driven with the same levels at the same instants.
        let players = group.play(PatternRenderer().render(HapticPattern(events: [.init(type: .hapticContinuous, time: 0, duration: 0.2, intensity: 0.6)])))
        while let next = players.compactMap({ $0.pump() }).min() { clock.sleep(until: max(next, clock.now.advanced(byNanoseconds: 1))) }
        #expect(players.allSatisfy { $0.outcome == .finished })
        let probe = clock.now.advanced(by: .milliseconds(-100))
        let levels = chips.map { $0.output.level(at: probe) }
        #expect(levels.allSatisfy { abs($0 - levels[0]) < 1e-9 } && levels[0] > 0)
        let streamStarts = chips.compactMap { $0.output.bursts(from: probe.advanced(by: .milliseconds(-150)), to: clock.now).first?.start }
        #expect(Set(streamStarts).count == 1)
        // A scaled feedback (real-time playback) cannot be broadcast: one by one instead.
        group.play(.impact(.heavy, intensity: 0.5))
        for engine in engines { #expect(engine.statistics.played == 2) }
    }
}
