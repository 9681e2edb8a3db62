// SPDX-License-Identifier: Apache-2.0

import Foundation
import HapticBoards
import Haptics
import HapticsSimulation
import HardwareAccess

extension HapticBench {
    /// The DA7280's bus cost, on the simulated chip opened from a board file as an app opens it:
    /// start-up, and for a few feedbacks the whole feedback and the part before the drive starts,
    /// then the prepared trigger from the waveform memory beside the same feedback streamed,
    /// with bus times computed at 400 kHz.
    func measureDA7280() throws -> [String: Any] {
        let file = try BoardFile.parse(
            Data(
                #"""
                { "format": 1, "name": "bench-da7280", "bus": "/dev/i2c-1", "supplyVolts": 3.3,
                  "actuators": { "lra": { "type": "lra", "ratedVrms": 2.106, "maximumVrms": 2.26, "resonantHz": 170,
                                          "impedanceOhms": 13.8, "maximumMilliamps": 165.4 } },
                  "defaultActuator": "lra", "drivers": [ { "name": "main", "part": "da7280" } ] }
                """#.utf8), path: "bench-da7280.json")
        let clock = VirtualClock()
        let hardware = LoggingHardware(try SimulatedHardware(board: file, clock: clock, keepsTrace: false), clock: clock)
        var options = HapticBoard.Options()
        options.engine = benchOptions
        options.calibrations = nil
        let board = try HapticBoard.open(file, hardware: hardware, clock: clock, options: options)
        let startUp = hardware.log
        func cost(_ log: [BusTransaction]) -> [String: Any] {
            let bytes = log.reduce(0) { $0 + $1.wireBytes }
            return [
                "transactions": log.count, "bytes": bytes,
                "computedBusMicroseconds400kHz": I2CWire.seconds(wireBytes: bytes, transactions: log.count, clockHz: 400_000) * 1e6
            ]
        }
        var feedbacks: [String: Any] = [:]
        for kind in [FeedbackKind.impact(.heavy), .selection, .notification(.success)] {
            clock.advance(by: .seconds(3))
            board.engine.runDueWork()
            hardware.clearLog()
            board.engine.play(Feedback(kind: kind))
            clock.advance(by: .seconds(2))
            let log = hardware.log
            // Up to the drive: SEQ_START in RTWM (TOP_CTL1 0x1B) from memory, or the first
            // non-zero level written to TOP_CTL2 (0x23) when streamed.
            let firstDrive = log.firstIndex { $0.written == [0x22, 0x1B] || ($0.written.count == 2 && $0.written[0] == 0x23 && $0.written[1] != 0) }
            feedbacks[kind.name] = [
                "whole": cost(log), "untilDriving": cost(firstDrive.map { Array(log[...$0]) } ?? log)
            ]
        }
        // Prepared: the engine told a feedback is coming (the chip selects its sequence and waits
        // armed), then the trigger alone; beside it the same feedback streamed (the memory left
        // alone), prepared as well.
        var streamedOptions = options
        streamedOptions.usesChipMemory = false
        let streamedClock = VirtualClock()
        let streamedHardware = LoggingHardware(try SimulatedHardware(board: file, clock: streamedClock, keepsTrace: false), clock: streamedClock)
        let streamedBoard = try HapticBoard.open(file, hardware: streamedHardware, clock: streamedClock, options: streamedOptions)
        var prepared: [String: Any] = [:]
        for kind in [FeedbackKind.notification(.success), .impact(.heavy), .selection] {
            var row: [String: Any] = [:]
            for (name, opened, opener, time) in [("memory", board, hardware, clock), ("stream", streamedBoard, streamedHardware, streamedClock)] {
                time.advance(by: .seconds(3))
                opened.engine.runDueWork()
                opened.engine.prepare(Feedback(kind: kind))
                time.advance(by: .milliseconds(20))
                opened.engine.runDueWork()
                opener.clearLog()
                opened.engine.play(Feedback(kind: kind))
                let trigger = opener.log
                time.advance(by: .seconds(2))
                opened.engine.runDueWork()
                row[name] = ["trigger": cost(trigger), "whole": cost(opener.log)]
            }
            if let memory = row["memory"] as? [String: Any], let trigger = memory["trigger"] as? [String: Any] {
                row["transactions"] = trigger["transactions"]
            }
            prepared[kind.name] = row
        }
        return [
            "startUp": cost(startUp), "feedbacks": feedbacks, "prepared": prepared,
            "note": "simulated DA7280 at 0x4A, SparkFun's LRA, the DA7280's own table; prepared.<feedback>.transactions: the trigger from the waveform memory"
        ]
    }
}
