// SPDX-License-Identifier: Apache-2.0

import Foundation
import Haptics
import HapticsService
import HapticsSimulation
import HardwareAccess
import Testing

/// feedbackd's `org.sigxcpu.Feedback.Haptic.Vibrate`, as the server plays it on the simulated chip.
@Suite struct HapticInterfaceTests {
    /// The drive's stretches after `start`, in ms from it, and their peaks.
    func bursts(_ rig: EngineRig, from start: ClockInstant) -> [(from: Int, to: Int, peak: Double)] {
        rig.chip.output.bursts(from: start, to: rig.clock.now).map {
            (
                Int(($0.start.duration(since: start).secondsDouble * 1000).rounded()), Int(($0.end.duration(since: start).secondsDouble * 1000).rounded()),
                rig.chip.output.peak(from: $0.start, to: $0.end)
            )
        }
    }

    @Test func aPatternPlaysItsMagnitudesAndPauses() throws {
        let rig = try EngineRig()
        let server = HapticServer(engine: rig.engine, device: "simulated")
        let start = rig.clock.now
        #expect(server.vibrate(app: "org.example.Game", pattern: [(0.6, 100), (0, 50), (1.0, 100)], owner: ":1.5"))
        rig.advance(.milliseconds(400))
        let seen = bursts(rig, from: start)
        #expect(seen.count == 2, "\(seen)")
        guard seen.count == 2 else { return }
        #expect(seen[0].from <= 3 && abs(seen[0].to - 100) <= 5 && abs(seen[1].from - 150) <= 5 && abs(seen[1].to - 250) <= 5, "\(seen)")
        // The drive's share of full scale follows the magnitudes (the chip's RTP in its steps).
        #expect(abs(seen[0].peak - 0.6) < 0.03 && seen[1].peak > 0.97, "\(seen)")
    }

    /// feedbackd's limits: magnitudes clamped to 0...1, 10 pairs at most, 10 s a pair at most;
    /// and hapticd's max-haptic-strength.
    @Test func limitsAndStrengthApply() throws {
        let rig = try EngineRig()
        var options = HapticServer.Options()
        options.maximumHapticStrength = 0.4
        let server = HapticServer(engine: rig.engine, device: "simulated", options: options)
        let start = rig.clock.now
        let pairs: [(magnitude: Double, milliseconds: UInt32)] = [(3, 20_000)] + Array(repeating: (0.9, 10), count: 12)
        #expect(server.vibrate(app: "org.example.Game", pattern: pairs, owner: ":1.5"))
        rig.advance(.seconds(11))
        let seen = bursts(rig, from: start)
        // 10 s at the clamped level, then the nine pairs that fit in the ten, one stretch.
        #expect(seen.count == 1 && abs(seen[0].to - 10_090) <= 10, "\(seen.map { ($0.from, $0.to) })")
        #expect(seen.allSatisfy { $0.peak <= 0.41 && $0.peak > 0.35 }, "\(seen.map(\.peak))")
    }

    /// One vibration at a time: a new one replaces it, an empty pattern ends it (the chip stops
    /// at once), its owner leaving ends it, and a silent profile refuses it.
    @Test func oneAtATimeAndEndedAsAsked() throws {
        let rig = try EngineRig()
        let server = HapticServer(engine: rig.engine, device: "simulated")
        #expect(server.vibrate(app: "game", pattern: [(1, 5000)], owner: ":1.5"))
        rig.advance(.milliseconds(100))
        #expect(rig.chip.output.level(at: rig.clock.now) != 0)
        #expect(server.vibrate(app: "game", pattern: [], owner: ":1.5"))
        rig.advance(.milliseconds(5))
        #expect(rig.chip.output.level(at: rig.clock.now) == 0, "an empty pattern did not stop it")
        #expect(server.triggeredCount == 0)
        #expect(server.vibrate(app: "game", pattern: [(1, 5000)], owner: ":1.7"))
        rig.advance(.milliseconds(50))
        #expect(server.vibrate(app: "other", pattern: [(0.5, 100)], owner: ":1.8"))
        #expect(server.triggeredCount == 1, "the first vibration was not replaced")
        rig.advance(.milliseconds(50))
        server.endTriggered(owner: ":1.8")
        rig.advance(.milliseconds(5))
        #expect(rig.chip.output.level(at: rig.clock.now) == 0, "its owner left and it played on")
        server.setGlobalProfile(.silent)
        #expect(!server.vibrate(app: "game", pattern: [(1, 100)], owner: ":1.5"), "played at silent")
        server.setGlobalProfile(.quiet)
        #expect(server.vibrate(app: "game", pattern: [(1, 100)], owner: ":1.5"), "feedbackd plays Vibrate at quiet")
    }

    /// An event's feedback of higher importance holds the actuator: Vibrate is refused.
    @Test func aMoreImportantFeedbackRefusesIt() throws {
        let rig = try EngineRig()
        let server = HapticServer(engine: rig.engine, device: "simulated")
        _ = server.trigger(FeedbackTrigger(app: "phone", event: "phone-incoming-call", timeout: 0), owner: ":1.2") { _, _ in }
        rig.advance(.milliseconds(100))
        #expect(!server.vibrate(app: "game", pattern: [(1, 100)], owner: ":1.5"))
    }
}
