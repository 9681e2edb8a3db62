// SPDX-License-Identifier: Apache-2.0

import ChipFamilies
import DA7280
import DA7280Simulator
import DRV2605
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

/// The DA7280 module's own feedback table: complete, ordered as the guidelines ask, and what a
/// DA7280 board plays (under the board file's overrides).
@Suite struct DA7280FeedbackTableTests {
    /// Board files here name the DA7280, as the programs' may.
    init() { StandardChipFamilies.register() }

    @Test func anEnvelopeIsSampledStepByStep() {
        let envelope = DriveEnvelope([.init(1, 10), .init(0, 5), .init(0.5, 7)])
        #expect(envelope.milliseconds == 22)
        #expect(envelope.levels(tickMilliseconds: 5) == [1, 1, 0, 0.5, 0.5])
        #expect(DriveEnvelope([.init(3, 5)]).levels(tickMilliseconds: 5) == [1])
    }

    @Test func theTableNamesEveryFeedbackAndNoTwoAlike() {
        let names = Set(FeedbackKind.all.map(\.name))
        #expect(Set(DA7280FeedbackTable.lra.keys) == names)
        let envelopes = Array(DA7280FeedbackTable.lra.values)
        #expect(Set(envelopes).count == envelopes.count, "two feedbacks drive the same")
        func energy(_ name: String) -> Double {
            DA7280FeedbackTable.lra[name]?.steps.reduce(0) { $0 + $1.level * $1.level * $1.milliseconds } ?? 0
        }
        #expect(energy("impact-light") < energy("impact-medium") && energy("impact-medium") < energy("impact-heavy"))
        let clicks = ["impact-light", "impact-medium", "impact-heavy", "impact-rigid", "alignment", "level-change", "taptic-peek"]
        #expect(clicks.allSatisfy { energy("selection") < energy($0) }, "selection is not the lightest")
        #expect(clicks.allSatisfy { (DA7280FeedbackTable.lra["selection"]?.milliseconds ?? 99) <= (DA7280FeedbackTable.lra[$0]?.milliseconds ?? 0) })
        let coin = DA7280Actuator(kind: .ermCoin, nominalVolts: 3.0, absoluteMaximumVolts: 3.3, maximumCurrentMilliamps: 100, impedanceOhms: 30)
        #expect(DA7280FeedbackTable.envelopes(for: coin) == nil)
    }

    /// On an LRA every drive (the steps between silences) lasts more than three half-periods of
    /// its resonance, so the chip's rapid stop brakes it, and a whole number of them, so it ends
    /// at a zero crossing where the chip takes the next level [DS §5.7.2, §5.7.8]; the designed
    /// levels and silences are kept, and no drive is shortened.
    @Test(arguments: [170.0, 235, 60])
    func everyDriveIsFittedToTheResonance(hz: Double) throws {
        var actuator = DA7280Actuator.sparkFunQwiicLRA
        actuator.resonantHz = hz
        let table = try #require(DA7280FeedbackTable.envelopes(for: actuator))
        let half = 500 / hz
        func runs(_ envelope: DriveEnvelope) -> [Double] {
            var result: [Double] = []
            var current: Double?
            for step in envelope.steps {
                if step.level > 0 {
                    current = (current ?? 0) + step.milliseconds
                } else if let length = current {
                    result.append(length)
                    current = nil
                }
            }
            if let current { result.append(current) }
            return result
        }
        for (name, envelope) in table {
            let designed = try #require(DA7280FeedbackTable.lra[name])
            #expect(envelope.steps.map(\.level) == designed.steps.map(\.level), "\(name)")
            for (fitted, original) in zip(runs(envelope), runs(designed)) {
                #expect(fitted > 3 * half + 1e-9, "\(name): a drive of \(fitted) ms is not braked at \(hz) Hz")
                let halves = fitted / half
                #expect(abs(halves - halves.rounded()) < 1e-6, "\(name): \(fitted) ms is not whole half-periods at \(hz) Hz")
                #expect(fitted >= original - 1e-9 && fitted < max(original, 4 * half) + half, "\(name): \(original) ms became \(fitted) ms")
            }
        }
        #expect(abs((table["selection"]?.milliseconds ?? 0) - 4 * half) < 1e-9)
    }

    static func open(_ json: String? = nil, board: String = "sparkfun-qwiic-da7280", actuator: String? = nil) throws -> (HapticBoard, SimulatedDA7280, VirtualClock) {
        let file =
            try json.map { try BoardFile.parse(Data($0.utf8), path: "test.json") }
            ?? BoardFile.load(boardsDirectory.appendingPathComponent(board + ".json").path)
        let clock = VirtualClock()
        let hardware = try SimulatedHardware(board: file, actuator: actuator, clock: clock)
        var options = HapticBoard.Options()
        options.engine = .isolated
        options.calibrations = nil
        options.actuator = actuator
        let opened = try HapticBoard.open(file, hardware: hardware, clock: clock, options: options)
        return (opened, try #require(hardware.da7280Chips["main"]), clock)
    }

    /// impact-heavy on the SparkFun board: the table's 18 ms at full scale, fitted to seven
    /// half-periods of the 170 Hz LRA (20.6 ms: five 5 ms ticks), not the modelled envelope of
    /// TI's Strong Click; played from the waveform memory, where it is four 5.44 ms timebases
    /// at AMP 15, on one write of SEQ_START.
    @Test func aDA7280BoardPlaysTheChipsOwnTable() throws {
        let (board, chip, clock) = try Self.open()
        guard case .realTime(let clip)? = board.engine.mapping.table[.impact(.heavy)] else {
            Issue.record("impact-heavy is not the DA7280's envelope")
            return
        }
        #expect(clip.levels == [1, 1, 1, 1, 1])
        let start = clock.now
        let before = chip.trace.count
        #expect(board.engine.play(.impact(.heavy)) == .played)
        #expect(chip.trace[before...].filter { $0.kind == .write }.last?.written == [0x22, 0x1B], "not triggered from memory")
        clock.advance(by: .seconds(1))
        #expect(abs(chip.output.activeSeconds(from: start, to: clock.now) - 0.02176) < 1e-9)
        #expect(chip.output.peak(from: start, to: clock.now) == 1)
    }

    /// The board file's override wins over the chip's table; a coin ERM keeps the standard table.
    @Test func theBoardsOverrideWinsAndACoinERMKeepsTheStandardTable() throws {
        let json = """
            { "format": 1, "name": "x", "description": "x", "bus": "1", "supplyVolts": 3.3,
              "actuators": { "lra": { "type": "lra", "ratedVrms": 2, "maximumVrms": 2.5, "resonantHz": 170,
                                      "impedanceOhms": 20, "maximumMilliamps": 150 } },
              "defaultActuator": "lra", "drivers": [ { "name": "main", "part": "da7280" } ],
              "feedback": { "impact-heavy": [1] } }
            """
        let (board, _, _) = try Self.open(json)
        #expect(board.engine.mapping.table[.impact(.heavy)] == .rom(WaveformSequence(.strongClick100)))
        guard case .realTime? = board.engine.mapping.table[.impact(.light)] else {
            Issue.record("impact-light is not the DA7280's envelope")
            return
        }
        let (erm, _, _) = try Self.open(board: "bare-da7280", actuator: "erm")
        #expect(erm.engine.mapping == FeedbackMapping.standard(for: .erm))
    }
}
