// SPDX-License-Identifier: Apache-2.0

import DRV2605
import Foundation
import HapticBoards
import HapticChip
import HapticEffects
import Haptics
import Testing

/// Inputs found by fuzzing (Scripts/fuzz) or by reviewing the same pattern after a finding.
/// Each used to crash; each must now be an error or a warning.
@Suite struct FuzzRegressionTests {
    /// FuzzPatternFile: a .haptic file whose version.major is a huge number trapped converting it
    /// to Int for the error message.
    @Test func hugeMetaVersionIsAnError() {
        let text =
            #"{"version":{"major":888888888888888888888888888888888888888888888888888,"minor":0},"signals":{"continuous":{"envelopes":{"amplitude":[{"time":0,"amplitude":1},{"time":1,"amplitude":0}]}}}}"#
        #expect(parseError(text, file: "x.haptic")?.path == "version.major")
    }

    /// The same conversion existed for register values computed from actuator voltages.
    @Test func hugeActuatorVoltagesAreAnError() {
        #expect(throws: DRV2605Error.self) {
            try ActuatorEquations.registers(for: .erm(ratedVolts: 1e300, maximumVolts: 1e300), loop: .closed, supplyVolts: .infinity)
        }
        #expect(throws: DRV2605Error.self) {
            try ActuatorEquations.registers(for: .lra(ratedVrms: .nan, maximumVrms: 2, resonantHz: 175), loop: .closed)
        }
        let board = """
            { "format": 1, "name": "x", "actuators": { "a": { "type": "erm", "ratedVolts": 1e300, "maximumVolts": 1e300 } }, "drivers": [ {} ] }
            """
        let file = try? BoardFile.parse(Data(board.utf8), path: "x.json")
        #expect(file != nil)
        #expect(throws: BoardFileError.self) { try file?.configuration() }
    }

    /// DRIVE_TIME exactly at the edge of its range (resonance 5000/4.5 Hz).
    @Test func driveTimeAtTheEdgeDoesNotTrap() {
        _ = try? ActuatorEquations.registers(for: .lra(ratedVrms: 1, maximumVrms: 1, resonantHz: 5000 / 4.5), loop: .closed)
    }

    @Test func absurdWaitIsAnError() {
        #expect(throws: DRV2605Error.self) { try WaveformSequence.wait(.seconds(Int64.max)) }
    }

    /// Patterns built in code are not bounded by the file readers' limits.
    @Test func rendererLeavesOutWhatCannotBePlayed() {
        let pattern = HapticPattern(
            events: [
                .init(type: .hapticTransient, time: 1e300),
                .init(type: .hapticContinuous, time: .nan, duration: 1),
                .init(type: .hapticContinuous, time: 0, duration: .infinity),
                .init(type: .hapticContinuous, time: 0, duration: 0.1, intensity: 0.5)
            ], curves: [.init(id: .hapticIntensityControl, time: 0, points: [.init(time: 1e308, value: 1)])])
        let rendered = PatternRenderer().render(pattern)
        #expect(rendered.warnings.contains { $0.contains("cannot be played") })
        #expect(rendered.playedSeconds < 1)
        #expect(rendered.samples.allSatisfy { $0.isFinite && abs($0) <= 1 })
    }
}
