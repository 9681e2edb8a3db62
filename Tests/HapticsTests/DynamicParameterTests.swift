// SPDX-License-Identifier: Apache-2.0

import HapticPatterns
import Haptics
import HapticsSimulation
import HardwareAccess
import Testing

/// Haptics that vary while they play (`PatternPlayer.sendParameters`, `scheduleParameterCurve`):
/// the drive on the simulated chip, on the virtual clock, at the moment the parameter was sent for.
@Suite struct DynamicParameterTests {
    /// One continuous event of a second at full intensity.
    static let buzz = HapticPattern(events: [.init(type: .hapticContinuous, time: 0, duration: 1, intensity: 1, sharpness: 0.5)])

    /// `pattern` started now on a fresh simulated chip, by a player that renders it itself.
    static func playing(_ pattern: HapticPattern) throws -> (EngineRig, ClockInstant, PatternPlayer) {
        let rig = try EngineRig()
        let player = PatternPlayer(engine: rig.engine, designed: pattern)
        let start = rig.clock.now
        player.start(at: start)
        return (rig, start, player)
    }

    /// The drive level `seconds` after `start`.
    static func level(_ rig: EngineRig, _ start: ClockInstant, _ seconds: Double) -> Double {
        rig.chip.output.level(at: start.advanced(by: .secondsClamped(seconds)))
    }

    /// Core Haptics: HapticIntensityControl multiplies, from the time it is sent: the drive halves
    /// within one update (5 ms at the renderer's 200 a second) of its time, and not before.
    @Test func intensityHalvesWithinOneUpdateOfItsTime() throws {
        let (rig, start, player) = try Self.playing(Self.buzz)
        rig.advance(.milliseconds(300))
        let before = Self.level(rig, start, 0.299)
        #expect(before > 0.5, "\(before)")
        try player.sendParameters([.init(id: .hapticIntensityControl, time: 0, value: 0.5)], atTime: start.advanced(by: .milliseconds(400)))
        rig.advance(.milliseconds(300))
        #expect(Self.level(rig, start, 0.399) == before, "changed before its time")
        let after = Self.level(rig, start, 0.402)
        #expect(abs(after - before / 2) < 0.02, "\(after) after, \(before) before")
        #expect(player.runToCompletion() == .finished)
        #expect(rig.chip.output.level(at: rig.clock.now) == 0)
    }

    /// A looping player keeps what was sent into its next pass, as Core Haptics' dynamic
    /// parameters are the player's: intensity 0.5 sent at 0.3 s of the first pass holds from the
    /// start of the second, where the pattern's own level is full again.
    @Test func aLoopCarriesTheSentValuesIntoItsNextPass() throws {
        let short = HapticPattern(events: [.init(type: .hapticContinuous, time: 0, duration: 0.5, intensity: 1, sharpness: 0.5)])
        let (rig, start, player) = try Self.playing(short)
        player.loopEnabled = true
        let pass = Double(player.rendering.samples.count) / player.rendering.rate
        rig.advance(.milliseconds(200))
        let full = Self.level(rig, start, 0.199)
        try player.sendParameters([.init(id: .hapticIntensityControl, time: 0, value: 0.5)], atTime: start.advanced(by: .milliseconds(300)))
        rig.advance(.secondsClamped(pass + 0.2))
        let second = Self.level(rig, start, pass + 0.1)
        #expect(abs(second - full / 2) < 0.02, "\(second) at 0.1 s of the second pass, \(full) in the first before the send")
        player.stop()
        rig.advance(.milliseconds(10))
        #expect(rig.chip.output.level(at: rig.clock.now) == 0)
    }

    /// A time already past means now; the value holds to the end.
    @Test func aPastTimeMeansNow() throws {
        let (rig, start, player) = try Self.playing(Self.buzz)
        rig.advance(.milliseconds(200))
        let before = Self.level(rig, start, 0.199)
        try player.sendParameters([.init(id: .hapticIntensityControl, time: 0, value: 0.25)], atTime: start)
        rig.advance(.milliseconds(5))
        #expect(abs(Self.level(rig, start, 0.206) - before / 4) < 0.02, "not within one update (5 ms at 200 a second)")
        rig.advance(.milliseconds(600))
        #expect(abs(Self.level(rig, start, 0.8) - before / 4) < 0.02)
    }

    /// A curve scheduled mid-play ramps the drive from its time: intensity 1 to 0 over 200 ms.
    @Test func aCurveScheduledMidPlayRamps() throws {
        let (rig, start, player) = try Self.playing(Self.buzz)
        rig.advance(.milliseconds(300))
        let full = Self.level(rig, start, 0.299)
        try player.scheduleParameterCurve(
            .init(id: .hapticIntensityControl, time: 0, points: [.init(time: 0, value: 1), .init(time: 0.2, value: 0)]), atTime: nil)
        rig.advance(.milliseconds(400))
        let middle = Self.level(rig, start, 0.4)
        #expect(abs(middle - full / 2) < 0.05, "\(middle) half way down the ramp, \(full) before it")
        #expect(Self.level(rig, start, 0.51) < 0.03, "at the end of the ramp")
    }

    /// The time controls add to the events' own times: HapticReleaseTimeControl +0.6, sent while
    /// the event plays, changes its envelope from then on, and the chip plays the new envelope.
    @Test func aReleaseTimeControlChangesTheEnvelopeFromItsTime() throws {
        let short = HapticPattern(events: [.init(type: .hapticContinuous, time: 0, duration: 0.5, intensity: 1, sharpness: 0.5)])
        let (rig, start, player) = try Self.playing(short)
        rig.advance(.milliseconds(100))
        let plain = player.rendering
        try player.sendParameters([.init(id: .hapticReleaseTimeControl, time: 0, value: 0.6)], atTime: nil)
        let varied = player.rendering
        rig.advance(.seconds(1))
        let count = max(plain.samples.count, varied.samples.count)
        let sample = { (samples: [Double], index: Int) in index < samples.count ? samples[index] : 0 }
        let first = (0..<count).first { abs(sample(varied.samples, $0) - sample(plain.samples, $0)) > 0.05 }
        let index = try #require(first, "the release control changed nothing")
        #expect(Double(index) / varied.rate >= 0.1, "changed what had already played")
        let time = (Double(index) + 0.5) / varied.rate
        #expect(abs(Self.level(rig, start, time) - sample(varied.samples, index)) < 0.02, "the chip did not play the new envelope at \(time) s")
        #expect(rig.chip.output.level(at: rig.clock.now) == 0)
    }

    /// What the caller sees: a stopped or finished player refuses, saying why; one made from a
    /// rendering alone cannot vary; nothing changes either way.
    @Test func aPlayerThatHasEndedRefusesAndSaysWhy() throws {
        let rig = try EngineRig()
        let player = PatternPlayer(engine: rig.engine, designed: Self.buzz)
        player.start()
        rig.advance(.milliseconds(100))
        player.stop()
        #expect(throws: PatternPlayerError.notPlaying(.stopped)) {
            try player.sendParameters([.init(id: .hapticIntensityControl, time: 0, value: 0.5)])
        }
        let finished = PatternPlayer(engine: rig.engine, designed: HapticPattern(events: [.init(type: .hapticTransient, time: 0)]))
        finished.start()
        #expect(finished.runToCompletion() == .finished)
        #expect(throws: PatternPlayerError.notPlaying(.finished)) {
            try finished.scheduleParameterCurve(.init(id: .hapticIntensityControl, time: 0, points: [.init(time: 0, value: 0)]))
        }
        let fixed = PatternPlayer(engine: rig.engine, pattern: PatternRenderer().render(Self.buzz))
        #expect(throws: PatternPlayerError.noDesign) { try fixed.sendParameters([.init(id: .hapticIntensityControl, time: 0, value: 0.5)]) }
        #expect(throws: PatternPlayerError.self) {
            try player.sendParameters([.init(id: .hapticIntensityControl, time: 0, value: .nan)])
        }
    }

    /// Parameters sent before the start count from the start: what `haptic pattern --parameter`
    /// does with `intensity=0.5@0.3`.
    @Test func parametersSentBeforeTheStartCountFromIt() throws {
        let rig = try EngineRig()
        let start = rig.clock.now.advanced(by: .milliseconds(10))
        let player = PatternPlayer(engine: rig.engine, designed: Self.buzz)
        try player.sendParameters([.init(id: .hapticIntensityControl, time: 0.3, value: 0.5)])
        player.start(at: start)
        rig.advance(.milliseconds(500))
        let before = Self.level(rig, start, 0.29)
        #expect(abs(Self.level(rig, start, 0.302) - before / 2) < 0.02)
    }
}
