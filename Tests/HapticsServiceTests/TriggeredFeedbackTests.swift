// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import Foundation
import HapticChip
import HapticEffects
import Haptics
import HapticsService
import HapticsSimulation
import HardwareAccess
import Testing

/// feedbackd's trigger / end / ended on the simulated chip and a virtual clock: what a libfeedback
/// client gets through the D-Bus service, without a bus.
@Suite struct TriggeredFeedbackTests {
    let rig: EngineRig
    let server: HapticServer
    /// Each end as it was reported: id, reason, and when on the virtual clock.
    let ends = Locked<[(id: UInt32, reason: FeedbackEndReason, at: ClockInstant)]>([])

    init() throws {
        rig = try EngineRig()
        server = HapticServer(engine: rig.engine, device: "simulated")
    }

    private func trigger(_ trigger: FeedbackTrigger, owner: String = ":1.1") -> UInt32 {
        let clock = rig.clock
        return server.trigger(trigger, owner: owner) { [ends] id, reason in ends.withLock { $0.append((id, reason, clock.now)) } }
    }

    private func reasons(of id: UInt32) -> [FeedbackEndReason] { ends.withLock { $0.filter { $0.id == id }.map(\.reason) } }

    private var standby: Bool { rig.chip.registers[ModeRegister.self].standby }

    @Test func onceEndsNaturallyAfterItPlayed() {
        let start = rig.clock.now
        let id = trigger(FeedbackTrigger(app: "org.example.Kiosk", event: "button-pressed"))
        #expect(reasons(of: id).isEmpty, "ended before the id was returned")
        rig.advance(.milliseconds(300))
        #expect(reasons(of: id) == [.natural])
        #expect(rig.chip.output.peak(from: start, to: rig.clock.now) > 0, "nothing reached the actuator")
        #expect(standby)
        #expect(server.triggeredCount == 0)
    }

    /// Timeout 0: the call rings, repetition after repetition, until EndFeedback; then the actuator
    /// stops at once and the end is reported as explicit.
    @Test func aLoopPlaysUntilItIsEnded() {
        let id = trigger(FeedbackTrigger(app: "org.example.Phone", event: "phone-incoming-call", timeout: 0))
        rig.advance(.seconds(4))
        #expect(reasons(of: id).isEmpty, "a loop ended by itself")
        let late = rig.clock.now.advanced(by: .seconds(-2))
        #expect(rig.chip.output.peak(from: late, to: rig.clock.now) > 0, "no repetition in the last 2 s of 4")
        // Ended while a repetition drives the actuator, as a user answering the call would.
        for _ in 0..<200 where rig.chip.output.peak(from: rig.clock.now.advanced(by: .milliseconds(-5)), to: rig.clock.now) == 0 {
            rig.advance(.milliseconds(5))
        }
        #expect(rig.chip.output.peak(from: rig.clock.now.advanced(by: .milliseconds(-5)), to: rig.clock.now) > 0)
        #expect(server.endTriggered(id))
        let ended = rig.clock.now
        #expect(reasons(of: id) == [.explicit])
        rig.advance(.milliseconds(100))
        #expect(rig.chip.output.peak(from: ended.advanced(by: .milliseconds(20)), to: rig.clock.now) == 0, "still driven after EndFeedback")
        #expect(standby, "not in standby 100 ms after EndFeedback")
        #expect(!server.endTriggered(id), "ended twice")
        rig.advance(.seconds(3))
        #expect(reasons(of: id) == [.explicit], "reported more than once")
    }

    /// A theme's `Dummy` runs its event for its `duration` with nothing driven, as feedbackd's
    /// does (fbd-feedback-dummy.c): it ends naturally then, explicitly when ended before; one of
    /// no duration ends at once, naturally, not as not found. (feedbackd's own libfeedback tests,
    /// run against hapticd by Scripts/feedbackd-tests, rely on it.)
    @Test func aThemesDummyRunsForItsDurationWithNothingDriven() throws {
        let json = #"""
            {"name": "test", "profiles": [{"name": "full", "feedbacks": [
              {"type": "Dummy", "event-name": "test-dummy-0"},
              {"type": "Dummy", "event-name": "test-dummy-10", "duration": 10000}]}]}
            """#
        server.setTheme(try FeedbackdTheme(json: Data(json.utf8), file: "test.json"))
        let start = rig.clock.now
        let instant = trigger(FeedbackTrigger(app: "org.example.Test", event: "test-dummy-0"))
        let timed = trigger(FeedbackTrigger(app: "org.example.Test", event: "test-dummy-10"))
        let ended = trigger(FeedbackTrigger(app: "org.example.Test", event: "test-dummy-10"))
        rig.advance(.milliseconds(100))
        #expect(reasons(of: instant) == [.natural], "a Dummy of no duration: \(reasons(of: instant))")
        #expect(reasons(of: timed).isEmpty && reasons(of: ended).isEmpty, "a 10 s Dummy ended within 100 ms")
        #expect(server.endTriggered(ended))
        #expect(reasons(of: ended) == [.explicit])
        rig.advance(.milliseconds(9800))
        #expect(reasons(of: timed).isEmpty, "ended before its 10 s")
        rig.advance(.milliseconds(200))
        #expect(reasons(of: timed) == [.natural])
        #expect(rig.chip.output.peak(from: start, to: rig.clock.now) == 0, "a Dummy drove the actuator")
    }

    @Test func aTimeoutEndsItAsExpired() {
        let start = rig.clock.now
        let id = trigger(FeedbackTrigger(app: "org.example.Clock", event: "alarm-clock-elapsed", timeout: 2))
        rig.advance(.milliseconds(1900))
        #expect(reasons(of: id).isEmpty)
        rig.advance(.milliseconds(200))
        let end = ends.withLock { $0.first { $0.id == id } }
        #expect(end?.reason == .expired)
        #expect(end.map { $0.at.duration(since: start) } == .seconds(2), "expired at \(String(describing: end?.at))")
        rig.advance(.milliseconds(100))
        #expect(standby)
    }

    @Test func whatDoesNotPlayEndsAsNotFound() {
        let start = rig.clock.now
        let unknown = trigger(FeedbackTrigger(app: "a", event: "no-such-event"))
        let hinted = trigger(FeedbackTrigger(app: "a", event: "button-pressed", profile: .quiet))
        #expect(reasons(of: unknown).isEmpty && reasons(of: hinted).isEmpty, "ended before the ids were returned")
        rig.advance(.milliseconds(300))
        #expect(reasons(of: unknown) == [.notFound])
        #expect(reasons(of: hinted) == [.notFound], "a quiet profile hint let a button press play")
        #expect(rig.chip.output.peak(from: start, to: rig.clock.now) == 0)
    }

    /// The hint cannot make an event louder than the application's profile; `important` lets a
    /// call through the global silent profile (feedbackd's allow-important).
    @Test func hintsQuietenAndImportantOverrides() {
        server.setGlobalProfile(.silent)
        let loud = trigger(FeedbackTrigger(app: "a", event: "phone-incoming-call", profile: .full))
        let important = trigger(FeedbackTrigger(app: "a", event: "phone-incoming-call", important: true))
        let start = rig.clock.now
        rig.advance(.seconds(2))
        #expect(reasons(of: loud) == [.notFound])
        #expect(reasons(of: important) == [.natural])
        #expect(rig.chip.output.peak(from: start, to: rig.clock.now) > 0)
    }

    /// A client that leaves the bus: its loops end and the actuator stops; others' go on.
    @Test func anOwnerLeavingEndsOnlyItsFeedback() {
        let mine = trigger(FeedbackTrigger(app: "a", event: "phone-incoming-call", timeout: 0), owner: ":1.7")
        rig.advance(.milliseconds(500))
        server.endTriggered(owner: ":1.8")
        #expect(reasons(of: mine).isEmpty)
        server.endTriggered(owner: ":1.7")
        #expect(reasons(of: mine) == [.explicit])
        rig.advance(.milliseconds(100))
        #expect(standby)
    }

    /// An alarm takes the actuator from a ringing call: the call's loop ends (natural), the alarm plays.
    @Test func aMoreImportantFeedbackEndsALoop() {
        let call = trigger(FeedbackTrigger(app: "phone", event: "phone-incoming-call", timeout: 0))
        rig.advance(.seconds(1))
        let tap = trigger(FeedbackTrigger(app: "kiosk", event: "button-pressed"))
        rig.advance(.milliseconds(100))
        #expect(reasons(of: tap) == [.notFound], "a button press interrupted a call")
        let alarm = trigger(FeedbackTrigger(app: "clock", event: "alarm-clock-elapsed"))
        rig.advance(.seconds(3))
        #expect(reasons(of: call) == [.natural])
        #expect(reasons(of: alarm) == [.natural])
    }

    @Test func stoppingTheServerEndsEverything() {
        let id = trigger(FeedbackTrigger(app: "a", event: "phone-incoming-call", timeout: 0))
        rig.advance(.milliseconds(300))
        server.stop()
        #expect(reasons(of: id) == [.explicit])
        #expect(server.triggeredCount == 0)
    }
}
