// SPDX-License-Identifier: Apache-2.0

import ChipFamilies
import DA7280
import Foundation
import HapticBoards
import HapticChip
import Haptics
import HardwareAccess
import LinuxHardware
import Testing

/// The bus named by HAPTIC_HIL_DA7280_BUS (e.g. /dev/i2c-1), with a DA7280 at 0x4A driving
/// SparkFun's Qwiic LRA (or an actuator with those values) mounted to a mass.
let hilDA7280Bus = ProcessInfo.processInfo.environment["HAPTIC_HIL_DA7280_BUS"]

@Suite(.serialized, .enabled(if: hilDA7280Bus != nil, "set HAPTIC_HIL_DA7280_BUS=/dev/i2c-N to run on a DA7280 board"))
struct DA7280HardwareInLoopTests {
    /// Board files here name the DA7280, as the programs' may.
    init() { StandardChipFamilies.register() }

    /// The board file of a SparkFun Qwiic Haptic Driver on the rig's bus.
    static func board() throws -> BoardFile {
        let json = """
            { "format": 1, "name": "hil-da7280", "description": "the rig's DA7280", "bus": "\(hilDA7280Bus ?? "")", "supplyVolts": 3.3,
              "actuators": { "lra": { "type": "lra", "ratedVrms": 2.106, "maximumVrms": 2.26, "resonantHz": 170,
                                      "impedanceOhms": 13.8, "maximumMilliamps": 165.4 } },
              "defaultActuator": "lra", "drivers": [ { "name": "main", "part": "da7280" } ] }
            """
        return try BoardFile.parse(Data(json.utf8), path: "hil-da7280.json")
    }

    /// Start-up leaves the actuator's registers as computed, the chip in IDLE and not driving.
    @Test(.timeLimit(.minutes(1)))
    func startUpConfiguresTheActuatorAndLeavesTheChipIdle() throws {
        let bus = try LinuxI2CBus(hilDA7280Bus ?? "")
        let driver = DA7280Driver(bus: bus, actuator: .sparkFunQwiicLRA, clock: SystemClock.shared)
        try driver.start()
        #expect(try bus.readRegister(DA7280Register.chipRevision.rawValue, at: .da7280) == DA7280Register.da7280Revision)
        let expected = try DA7280Actuator.sparkFunQwiicLRA.registers().burst()
        #expect(try bus.readRegisters(DA7280Register.lraPeriodHigh.rawValue, count: expected.count, at: .da7280) == expected)
        #expect(
            try driver.readBack()
                == HapticChipReadBack(
                    standby: true, driving: false, details: ["operationMode": .int(0), "standbyEnabled": .bool(false), "overrideValue": .int(0)]))
    }

    /// The stream reaches the chip as DRO (TOP_CTL1 mode 1 with STANDBY_EN, the level in TOP_CTL2),
    /// and its end leaves the chip inactive at zero in IDLE.
    @Test(.timeLimit(.minutes(1)))
    func theStreamIsDirectRegisterOverrideOnTheChip() throws {
        let bus = try LinuxI2CBus(hilDA7280Bus ?? "")
        let driver = DA7280Driver(bus: bus, actuator: .sparkFunQwiicLRA, clock: SystemClock.shared)
        try driver.start()
        try driver.beginRealTimePlayback()
        try driver.setRealTime(amplitude: 0.5)
        #expect(try bus.readRegisters(DA7280Register.topControl1.rawValue, count: 2, at: .da7280) == [0x09, 64])
        SystemClock.shared.sleep(for: .milliseconds(50))
        try driver.endRealTimePlayback(standby: true)
        #expect(try bus.readRegisters(DA7280Register.topControl1.rawValue, count: 2, at: .da7280) == [0x00, 0x00])
        #expect(try !driver.playbackStatus().hasFault)
    }

    /// Every feedback through the board opener and the engine: played, and the chip ends stopped in IDLE.
    @Test(.timeLimit(.minutes(1)))
    func everyFeedbackPlaysAndTheChipEndsStopped() throws {
        var options = HapticBoard.Options()
        options.engine = .isolated
        options.calibrations = nil
        let board = try HapticBoard.open(try Self.board(), hardware: LinuxHardwareProvider(), options: options)
        let engine = board.engine
        #expect(engine.capabilities.chip == "DA7280")
        for kind in FeedbackKind.all {
            #expect(engine.play(Feedback(kind: kind)) == .played, "\(kind)")
            engine.waitUntilIdle(timeout: .seconds(3))
        }
        engine.stop()
        SystemClock.shared.sleep(for: .milliseconds(50))
        engine.runDueWork()
        #expect(engine.statistics.dropped == 0 && engine.statistics.faults == 0)
        let readBack = try engine.withChip { try $0.readBack() }
        #expect(!readBack.driving)
    }
}
