// SPDX-License-Identifier: Apache-2.0

import HapticsService
import HardwareAccess
import Testing

/// Who gets the actuator, on a virtual timeline: importance against what plays, profiles stacked
/// as feedbackd stacks them.
@Suite struct ArbitrationTests {
    let t0 = ClockInstant(nanoseconds: 1_000_000_000)
    func at(_ milliseconds: Int) -> ClockInstant { t0.advanced(by: .milliseconds(milliseconds)) }

    @Test func aPlayingAlarmIsNotInterruptedByLessButBeatenByMore() {
        var arbiter = ServiceArbiter()
        #expect(arbiter.admit(.alarm, app: "clock", client: 1, length: .seconds(2), now: at(0)) == .play)
        for lower in [Importance.call, .notification, .ui, .ambient] where lower < .alarm {
            guard case .drop = arbiter.admit(lower, app: "chat", client: 2, length: .milliseconds(50), now: at(500)) else {
                Issue.record("\(lower) interrupted an alarm")
                continue
            }
        }
        #expect(arbiter.current(at: at(500))?.app == "clock", "the drops did not take the actuator")
        #expect(arbiter.admit(.alarm, app: "clock2", client: 3, length: .seconds(1), now: at(600)) == .play, "equal importance replaces")
        // Once it has finished by itself, anything plays again.
        #expect(arbiter.admit(.ambient, app: "game", client: 4, length: .milliseconds(20), now: at(1700)) == .play)
    }

    /// Patterns that ask to mix play together at the same importance; either ending leaves the
    /// other; a play that does not mix, and a more important one, replace them all; a mixing
    /// pattern of another importance is arbitrated as any play.
    @Test func mixingPatternsOfOneImportancePlayTogether() {
        var arbiter = ServiceArbiter()
        #expect(arbiter.admit(.ambient, app: "game", client: 1, length: .seconds(2), now: at(0), mixes: true) == .play)
        #expect(arbiter.admit(.ambient, app: "music", client: 2, length: .seconds(3), now: at(100), mixes: true) == .play)
        #expect(arbiter.current(at: at(200))?.client == 1, "the first plays on")
        #expect(arbiter.isPlaying(client: 1, at: at(200)) && arbiter.isPlaying(client: 2, at: at(200)))
        arbiter.ended(client: 1)
        #expect(arbiter.current(at: at(300))?.client == 2, "the mixed one plays on alone")
        #expect(arbiter.admit(.ambient, app: "game", client: 1, length: .seconds(1), now: at(400), mixes: true) == .play)
        // Past its own end the first is forgotten and the second still plays.
        #expect(arbiter.current(at: at(1500))?.client == 2)
        #expect(!arbiter.isPlaying(client: 1, at: at(1500)))
        // Without mix, the same importance replaces every mixed pattern.
        #expect(arbiter.admit(.ambient, app: "game", client: 1, length: .seconds(1), now: at(1600), mixes: true) == .play)
        #expect(arbiter.admit(.ambient, app: "video", client: 3, length: .milliseconds(100), now: at(1700)) == .play)
        #expect(!arbiter.isPlaying(client: 1, at: at(1710)) && !arbiter.isPlaying(client: 2, at: at(1710)))
        // A mixing pattern of more importance does not join: it replaces.
        #expect(arbiter.admit(.ui, app: "a", client: 4, length: .seconds(1), now: at(2000), mixes: true) == .play)
        #expect(arbiter.admit(.notification, app: "b", client: 5, length: .seconds(1), now: at(2100), mixes: true) == .play)
        #expect(!arbiter.isPlaying(client: 4, at: at(2200)) && arbiter.isPlaying(client: 5, at: at(2200)))
        // Nor does one of less: it is dropped, as without mix.
        #expect(arbiter.admit(.ui, app: "a", client: 4, length: .seconds(1), now: at(2300), mixes: true) != .play)
    }

    @Test func newerUIFeedbackReplacesOlder() {
        var arbiter = ServiceArbiter()
        #expect(arbiter.admit(.ui, app: "kiosk", client: 1, length: .milliseconds(100), now: at(0)) == .play)
        #expect(arbiter.admit(.ui, app: "kiosk", client: 1, length: .milliseconds(100), now: at(10)) == .play)
        #expect(arbiter.current(at: at(20))?.until == at(110))
        #expect(arbiter.admit(.ambient, app: "game", client: 2, length: .milliseconds(100), now: at(50)) != .play)
        #expect(arbiter.admit(.notification, app: "mail", client: 3, length: .milliseconds(100), now: at(60)) == .play)
    }

    @Test func profilesStackAndTheQuieterWins() {
        var arbiter = ServiceArbiter()
        arbiter.setProfile(.quiet, for: "game")
        #expect(arbiter.effectiveProfile(for: "game") == .quiet)
        #expect(arbiter.admit(.ui, app: "game", client: 1, length: .milliseconds(10), now: at(0)) != .play, "quiet: no UI feedback")
        #expect(arbiter.admit(.notification, app: "game", client: 1, length: .milliseconds(10), now: at(100)) == .play)
        #expect(arbiter.admit(.ui, app: "kiosk", client: 2, length: .milliseconds(10), now: at(200)) == .play, "other apps unaffected")
        arbiter.globalProfile = .silent
        #expect(arbiter.effectiveProfile(for: "kiosk") == .silent)
        #expect(arbiter.admit(.notification, app: "kiosk", client: 2, length: .milliseconds(10), now: at(300)) != .play)
        #expect(arbiter.admit(.alarm, app: "clock", client: 3, length: .milliseconds(10), now: at(400)) != .play, "silent silences alarms too")
        // An important alarm overrides (feedbackd's allow-important), an important UI tap does not.
        #expect(arbiter.admit(.alarm, app: "clock", client: 3, important: true, length: .milliseconds(10), now: at(500)) == .play)
        #expect(arbiter.admit(.ui, app: "kiosk", client: 2, important: true, length: .milliseconds(10), now: at(600)) != .play)
        // feedbackd's allow-important list: only the apps named.
        arbiter.importantApps = ["org.sigxcpu.FbdAlertSlider"]
        #expect(arbiter.admit(.alarm, app: "clock", client: 3, important: true, length: .milliseconds(10), now: at(700)) != .play)
        #expect(
            arbiter.admit(.alarm, app: "org.sigxcpu.FbdAlertSlider", client: 4, important: true, length: .milliseconds(10), now: at(800)) == .play)
        // An app's louder profile never beats a quieter global one.
        arbiter.globalProfile = .quiet
        arbiter.setProfile(.full, for: "kiosk")
        #expect(arbiter.effectiveProfile(for: "kiosk") == .quiet)
    }

    @Test func aDropSaysWhy() {
        var arbiter = ServiceArbiter()
        arbiter.globalProfile = .quiet
        guard case let .drop(reason) = arbiter.admit(.ui, app: "kiosk", client: 1, length: .zero, now: at(0)) else {
            Issue.record("not dropped")
            return
        }
        #expect(reason.contains("global profile is quiet"))
        arbiter.globalProfile = .full
        _ = arbiter.admit(.call, app: "phone", client: 2, length: .seconds(5), now: at(10))
        guard case let .drop(busy) = arbiter.admit(.notification, app: "mail", client: 3, length: .zero, now: at(20)) else {
            Issue.record("not dropped")
            return
        }
        #expect(busy.contains("call feedback of phone is playing"))
    }

    @Test func aClientThatLeavesFreesTheActuator() {
        var arbiter = ServiceArbiter()
        _ = arbiter.admit(.alarm, app: "clock", client: 7, length: .seconds(10), now: at(0))
        #expect(arbiter.isPlaying(client: 7, at: at(100)))
        #expect(!arbiter.isPlaying(client: 8, at: at(100)))
        arbiter.ended(client: 8)
        #expect(arbiter.current(at: at(100)) != nil, "another client's end does not free it")
        arbiter.ended(client: 7)
        #expect(arbiter.current(at: at(100)) == nil)
        #expect(arbiter.admit(.ambient, app: "game", client: 9, length: .zero, now: at(200)) == .play)
    }
}
