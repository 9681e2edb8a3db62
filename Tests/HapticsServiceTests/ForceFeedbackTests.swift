// SPDX-License-Identifier: Apache-2.0

import DRV2605
import Foundation
import HapticChip
import HapticEffects
import Haptics
import HapticsService
import HapticsSimulation
import HardwareAccess
import Testing

/// A force-feedback device a test scripts: the events a client's uploads and plays would make.
final class ScriptedForceFeedbackDevice: ForceFeedbackDevice, @unchecked Sendable {
    var events: [ForceFeedbackEvent] = []
    var closed = false
    func nextEvent(timeout: Duration) throws -> ForceFeedbackEvent? { events.isEmpty ? nil : events.removeFirst() }
    func close() { closed = true }
}

/// What SDL, feedbackd and fftest ask of the force-feedback device, played on the simulated chip
/// on a virtual clock.
@Suite struct ForceFeedbackTests {
    let rig: EngineRig
    let server: HapticServer
    let device = ScriptedForceFeedbackDevice()
    let bridge: ForceFeedbackBridge

    init() throws {
        rig = try EngineRig()
        server = HapticServer(engine: rig.engine, device: "simulated")
        bridge = ForceFeedbackBridge(device: device, server: server)
    }

    /// fftest's weak rumble (0xC000, 5 s) at its 75 % master gain: driven at about 0.56 for 5 s,
    /// then stopped and back in standby.
    @Test func aRumblePlaysForItsLengthAtItsMagnitudeTimesTheGain() {
        bridge.handle(.gain(Double(0xC000) / 65535))
        bridge.handle(.upload(ForceFeedbackEffect(id: 5, kind: .rumble(strong: 0, weak: Double(0xC000) / 65535), length: .seconds(5))))
        let start = rig.clock.now
        bridge.handle(.play(id: 5, count: 1))
        rig.advance(.seconds(1))
        let level = rig.chip.output.level(at: rig.clock.now)
        #expect(abs(level - 0.5625) < 0.05, "driven at \(level)")
        rig.advance(.seconds(5))
        let active = rig.chip.output.activeSeconds(from: start, to: rig.clock.now)
        #expect(abs(active - 5) < 0.05, "driven for \(active) s")
        #expect(rig.chip.output.level(at: rig.clock.now) == 0)
        #expect(rig.chip.registers[ModeRegister.self].standby)
        #expect(bridge.counts == (1, 1))
        let awake = rig.engine.statistics.awakeSeconds
        #expect(awake >= 5 && awake < 5.2, "awake \(awake) s")
    }

    @Test func stopAndEraseStopAtOnce() {
        bridge.handle(.upload(ForceFeedbackEffect(id: 0, kind: .constant(level: 0.5), length: .seconds(20))))
        bridge.handle(.play(id: 0, count: 1))
        rig.advance(.milliseconds(500))
        #expect(rig.chip.output.level(at: rig.clock.now) > 0.4)
        bridge.handle(.stop(id: 0))
        let stopped = rig.clock.now
        rig.advance(.milliseconds(100))
        #expect(rig.chip.output.energy(from: stopped, to: rig.clock.now) == 0, "still driving after stop")
        bridge.handle(.play(id: 0, count: 1))
        rig.advance(.milliseconds(300))
        bridge.handle(.erase(id: 0))
        let erased = rig.clock.now
        rig.advance(.milliseconds(100))
        #expect(rig.chip.output.energy(from: erased, to: rig.clock.now) == 0, "still driving after erase")
        bridge.handle(.play(id: 0, count: 1))  // erased: nothing plays
        rig.advance(.milliseconds(100))
        #expect(rig.chip.output.energy(from: erased, to: rig.clock.now) == 0)
    }

    /// fftest's periodic sine: 0.5 magnitude, 100 ms period, 1 s attack and fade from 0.5, after a
    /// 1 s delay: silent for the delay, then pulsing ten times a second.
    /// A periodic effect as ff-memless plays it on a vibrator: its magnitude through its envelope,
    /// the envelope's levels absolute (an attack from 0.2 rises to 0.5; a fade to 0.8 rises too),
    /// the waveform not rendered, nothing during the delay.
    @Test func aPeriodicEffectFollowsItsEnvelopeInAbsoluteLevels() {
        let effect = ForceFeedbackEffect(
            id: 0, kind: .periodic(waveform: .sine, magnitude: 0.5, offset: 0, period: .milliseconds(100)),
            length: .seconds(4), delay: .seconds(1),
            envelope: .init(attackLength: .seconds(1), attackLevel: 0.2, fadeLength: .seconds(1), fadeLevel: 0.8))
        let pattern = ForceFeedbackBridge.pattern(for: effect, gain: 1)
        #expect(abs(pattern.duration - 5) < 0.001)
        #expect(pattern.events.allSatisfy { $0.time >= 1 - 1e-9 }, "nothing during the delay")
        func level(at time: Double) -> Double { pattern.events.first { $0.time <= time && time < $0.time + $0.duration }?.intensity ?? 0 }
        #expect(abs(level(at: 1.02) - 0.2075) < 0.01, "the attack starts at its absolute level: \(level(at: 1.02))")
        #expect(abs(level(at: 1.52) - 0.3575) < 0.01, "halfway up: \(level(at: 1.52))")
        let steady: [Double] = stride(from: 2.005, to: 4.0, by: 0.01).map { level(at: $0) }
        #expect(steady.allSatisfy { abs($0 - 0.5) < 1e-6 }, "steady at the magnitude, not pulsing: \(steady.filter { abs($0 - 0.5) >= 1e-6 })")
        #expect(abs(level(at: 4.98) - 0.797) < 0.01, "the fade ends at its absolute level, above the magnitude: \(level(at: 4.98))")
    }

    /// Two effects at once are added and clamped, the gain applied once; stopping one leaves the
    /// other (SDL plays several at once and expects them summed).
    @Test func playingEffectsAreAddedAndClamped() {
        bridge.handle(.gain(0.5))
        bridge.handle(.upload(ForceFeedbackEffect(id: 0, kind: .rumble(strong: 0.6, weak: 0), length: .seconds(2))))
        bridge.handle(.upload(ForceFeedbackEffect(id: 1, kind: .periodic(waveform: .square, magnitude: 1, offset: 0, period: .milliseconds(50)), length: .seconds(2))))
        bridge.handle(.upload(ForceFeedbackEffect(id: 2, kind: .rumble(strong: 1, weak: 0), length: .seconds(2))))
        bridge.handle(.play(id: 0, count: 1))
        rig.advance(.milliseconds(300))
        let one = rig.chip.output.level(at: rig.clock.now)
        bridge.handle(.play(id: 1, count: 1))
        rig.advance(.milliseconds(300))
        let two = rig.chip.output.level(at: rig.clock.now)
        bridge.handle(.play(id: 2, count: 1))
        rig.advance(.milliseconds(300))
        let three = rig.chip.output.level(at: rig.clock.now)
        bridge.handle(.stop(id: 2))
        bridge.handle(.stop(id: 1))
        rig.advance(.milliseconds(300))
        let back = rig.chip.output.level(at: rig.clock.now)
        #expect(abs(one - 0.3) < 0.05, "0.6 at half gain: \(one)")
        #expect(abs(two - 0.8) < 0.05, "0.3 + 0.5: \(two)")
        #expect(abs(three - 1) < 0.02, "0.3 + 0.5 + 0.5 clamped: \(three)")
        #expect(abs(back - 0.3) < 0.05, "the first alone again: \(back)")
        bridge.handle(.stop(id: 0))
        rig.advance(.milliseconds(100))
        #expect(rig.chip.output.level(at: rig.clock.now) == 0)
    }

    /// Two rumbles add, whatever order the mixer visits them in (a larger-of-the-two would give 0.4).
    @Test func twoRumblesAdd() {
        var mixer = MemlessMixer()
        mixer.play(ForceFeedbackEffect(id: 0, kind: .rumble(strong: 0.3, weak: 0.2), length: .seconds(1)), count: 1, at: .zero)
        mixer.play(ForceFeedbackEffect(id: 1, kind: .rumble(strong: 0.4, weak: 0.1), length: .seconds(1)), count: 1, at: .zero)
        #expect(abs(mixer.level(at: .zero.advanced(by: .milliseconds(100))) - 0.7) < 1e-9)
        mixer.play(ForceFeedbackEffect(id: 2, kind: .rumble(strong: 0.5, weak: 0), length: .seconds(1)), count: 1, at: .zero)
        #expect(mixer.level(at: .zero.advanced(by: .milliseconds(100))) == 1, "clamped at full")
    }

    /// The combined rumble plays its strong motor's sum, or the weak one's when no strong is asked
    /// (drv260x's rule for the rumble ff-memless hands it).
    @Test func theStrongSumWinsOverTheWeak() {
        var mixer = MemlessMixer()
        mixer.play(ForceFeedbackEffect(id: 0, kind: .rumble(strong: 0, weak: 0.7), length: .seconds(1)), count: 1, at: .zero)
        #expect(abs(mixer.level(at: .zero.advanced(by: .milliseconds(100))) - 0.7) < 1e-9)
        mixer.play(ForceFeedbackEffect(id: 1, kind: .rumble(strong: 0.2, weak: 0), length: .seconds(1)), count: 1, at: .zero)
        #expect(abs(mixer.level(at: .zero.advanced(by: .milliseconds(100))) - 0.2) < 1e-9)
        #expect(mixer.level(at: .zero.advanced(by: .seconds(1))) == 0, "over at its length")
    }

    @Test func gainScalesAndAnInfiniteEffectIsCapped() {
        let forever = ForceFeedbackEffect(id: 1, kind: .constant(level: -1), length: .zero)
        let pattern = ForceFeedbackBridge.pattern(for: forever, gain: 0.25)
        #expect(abs(pattern.duration - ForceFeedbackBridge.maximumSeconds) < 0.001)
        #expect(pattern.events.allSatisfy { abs($0.intensity - 0.25) < 0.001 }, "a negative force is felt by its size")
        let repeated = ForceFeedbackBridge.pattern(for: ForceFeedbackEffect(id: 2, kind: .rumble(strong: 1, weak: 0), length: .milliseconds(200)), gain: 1, count: 3)
        #expect(abs(repeated.duration - 0.6) < 0.001)
    }

    /// Force feedback goes through the same arbitration as the socket's clients: a playing call
    /// is not interrupted by a game's rumble.
    @Test func forceFeedbackIsArbitratedLikeAClient() throws {
        let observer = HapticServer.Client(id: 1, app: "test", uid: 0)
        let call = server.startPattern(
            HapticPattern(events: [.init(type: .hapticContinuous, time: 0, duration: 2, intensity: 1)]),
            app: "phone", importance: .call, source: 7)
        let player = try call.get()
        rig.advance(.milliseconds(200))
        bridge.handle(.upload(ForceFeedbackEffect(id: 3, kind: .rumble(strong: 0.2, weak: 0), length: .seconds(1))))
        bridge.handle(.play(id: 3, count: 1))
        #expect(server.handle(ServiceRequest(.status), from: observer).status?.dropped == 1, "the rumble was dropped")
        rig.advance(.milliseconds(500))
        #expect(player.outcome == nil, "the call still plays")
        #expect(rig.chip.output.level(at: rig.clock.now) > 0.9, "at the call's level, not the rumble's")
    }
}
