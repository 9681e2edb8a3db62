// SPDX-License-Identifier: Apache-2.0

import HapticPatterns
import Haptics
import HapticsSimulation
import HardwareAccess
import Testing

/// Several players at once on one engine, mixed as Core Haptics mixes them (`Options.mixes`): the
/// drive on the simulated chip, on the virtual clock, against each player played alone.
@Suite struct MixedPlayersTests {
    /// A continuous rumble of a second, at 0.6, at resonance (sharpness 0.5): the sum is compared
    /// in the chip's own drive steps, which a drive frequency's making up for resonance rescales
    /// (SharpnessRenderingTests has the mix at a sharpness).
    static let rumble = HapticPattern(events: [.init(type: .hapticContinuous, time: 0, duration: 1, intensity: 0.6, sharpness: 0.5)])
    /// Transients on top, strong enough that the sum passes full scale.
    static let taps = HapticPattern(events: [0.2, 0.45, 0.7].map { .init(type: .hapticTransient, time: $0, intensity: 0.9, sharpness: 0.8) })
    /// One drive step: the chip takes a level in 1/127ths of full scale.
    static let step = 1.0 / 127

    static var mixing: PatternPlayer.Options {
        var options = PatternPlayer.Options()
        options.mixes = true
        return options
    }

    /// The drive every millisecond for `seconds` from the start, with `patterns` started together.
    static func drive(_ patterns: [HapticPattern], seconds: Double = 1.2) throws -> [Double] {
        let rig = try EngineRig()
        let start = rig.clock.now
        let players = patterns.map { PatternPlayer(engine: rig.engine, designed: $0, options: mixing) }
        for player in players { player.start(at: start) }
        rig.advance(.secondsClamped(seconds + 0.1))
        for player in players { #expect(player.outcome == .finished) }
        return (0..<Int(seconds * 1000)).map { rig.chip.output.level(at: start.advanced(by: .milliseconds($0))) }
    }

    /// Two mixing players of the rumble started together now on `rig`, and their start.
    static func twoRumbles(on rig: EngineRig) -> (ClockInstant, PatternPlayer, PatternPlayer) {
        let start = rig.clock.now
        let players = (0..<2).map { _ in PatternPlayer(engine: rig.engine, designed: rumble, options: mixing) }
        for player in players { player.start(at: start) }
        return (start, players[0], players[1])
    }

    /// Two players mixed drive the chip at the clipped sum of what each drives alone, within one
    /// drive step at every millisecond: the rumble goes on under the taps, and the taps' peaks
    /// stop at full scale (not wrapped, not cut off).
    @Test func twoPlayersMixedAreTheClippedSumOfEachAlone() throws {
        let rumble = try Self.drive([Self.rumble])
        let taps = try Self.drive([Self.taps])
        let both = try Self.drive([Self.rumble, Self.taps])
        var worst = (difference: 0.0, millisecond: 0)
        for k in both.indices {
            let difference = abs(both[k] - min(1, rumble[k] + taps[k]))
            if difference > worst.difference { worst = (difference, k) }
        }
        #expect(
            worst.difference <= Self.step + 1e-9,
            "\(worst.difference) at \(worst.millisecond) ms: \(both[worst.millisecond]) mixed, \(rumble[worst.millisecond]) and \(taps[worst.millisecond]) alone")
        // What the mix is for: both at once, and the sum clipped.
        #expect(rumble.contains { $0 > 0.3 } && taps.contains { $0 > 0.5 })
        #expect(both.indices.contains { rumble[$0] > 0.3 && taps[$0] > 0.5 && both[$0] > 0.99 }, "no clipped sum seen")
        #expect(both.allSatisfy { $0 <= 1 })
    }

    /// Stopping one player leaves the other playing at its own level; the last one ending puts the
    /// chip to zero and in standby.
    @Test func stoppingOneLeavesTheOthersPlaying() throws {
        let single = try Self.drive([Self.rumble])[305]
        let rig = try EngineRig()
        let (start, rumble, second) = Self.twoRumbles(on: rig)
        rig.advance(.milliseconds(300))
        let together = rig.chip.output.level(at: start.advanced(by: .milliseconds(299)))
        #expect(together > single + 0.2, "\(together) with both, \(single) for one alone")
        second.stop()
        rig.advance(.milliseconds(10))
        let alone = rig.chip.output.level(at: start.advanced(by: .milliseconds(305)))
        #expect(second.outcome == .stopped && rumble.outcome == nil, "the other player ended too")
        #expect(abs(alone - single) <= Self.step, "\(alone) after the other stopped, \(single) for one alone")
        #expect(rumble.runToCompletion() == .finished)
        rig.advance(.milliseconds(100))
        #expect(rig.chip.output.level(at: rig.clock.now) == 0)
        #expect(rig.engine.powerState == .standby)
    }

    /// A player that does not mix takes the chip from the whole mix, as it takes it from one
    /// player: the chip has one owner at a time.
    @Test func aPlayerThatDoesNotMixTakesTheChipFromTheMix() throws {
        let rig = try EngineRig()
        let (start, first, second) = Self.twoRumbles(on: rig)
        rig.advance(.milliseconds(100))
        let alone = PatternPlayer(engine: rig.engine, designed: Self.rumble)
        alone.start()
        rig.advance(.milliseconds(50))
        #expect(first.outcome == .preempted && second.outcome == .preempted)
        let level = rig.chip.output.level(at: start.advanced(by: .milliseconds(140)))
        #expect(level > 0.3 && level < 0.7, "\(level): the preempted players still drive")
        #expect(alone.runToCompletion() == .finished)
    }

    /// A feedback requested while players mix is rendered into the stream, as one more member:
    /// the rumble goes on under it (no GO, no mode switch: RTP throughout), the drive is the
    /// rumble's and the impact's streamed levels summed, and then the rumble's alone again.
    @Test func aFeedbackDuringTheMixIsMixedIn() throws {
        let single = try Self.drive([Self.rumble])
        let rig = try EngineRig()
        let start = rig.clock.now
        let rumble = PatternPlayer(engine: rig.engine, designed: Self.rumble, options: Self.mixing)
        rumble.start(at: start)
        rig.advance(.milliseconds(300))
        // GO is register 0x0C: a write of 1 to it starts a ROM effect.
        let goWrites = { rig.chip.trace.filter { $0.written == [0x0C, 0x01] }.count }
        let writesBefore = goWrites()
        #expect(rig.engine.play(.impact(.medium)) == .played)
        let impact = try #require(rig.engine.plan(for: .impact(.medium))?.streamed)
        guard case let .realTime(clip) = impact else {
            Issue.record("not streamed: \(impact)")
            return
        }
        rig.advance(.milliseconds(5))
        #expect(rig.chip.registers[.mode] & 0x07 == 0x05, "the mode switched away from RTP")
        rig.advance(.milliseconds(300))
        #expect(rumble.outcome == nil, "the rumble was cut by the feedback: \(String(describing: rumble.outcome))")
        #expect(goWrites() == writesBefore, "a GO was written")
        let tick = Int(clip.tick.secondsDouble * 1000)
        for (index, level) in clip.levels.enumerated() {
            let at = 300 + index * tick + tick / 2
            let expected = min(1, max(0, single[at] + max(0, level)))
            let mixed = rig.chip.output.level(at: start.advanced(by: .milliseconds(at)))
            #expect(abs(mixed - expected) <= Self.step + 1e-9, "\(mixed) at \(at) ms, \(expected) expected")
        }
        let after = 300 + clip.levels.count * tick + 20
        #expect(abs(rig.chip.output.level(at: start.advanced(by: .milliseconds(after))) - single[after]) <= Self.step)
        #expect(rumble.runToCompletion() == .finished)
        rig.advance(.milliseconds(100))
        #expect(rig.chip.output.level(at: rig.clock.now) == 0 && rig.engine.powerState == .standby)
    }

    /// Stop and cancel of the engine end every player of the mix, and the actuator stops.
    @Test func theEngineStoppingEndsTheWholeMix() throws {
        let rig = try EngineRig()
        let players = [Self.rumble, Self.rumble].map { PatternPlayer(engine: rig.engine, designed: $0, options: Self.mixing) }
        for player in players { player.start() }
        rig.advance(.milliseconds(100))
        #expect(rig.chip.output.level(at: rig.clock.now) > 0.5)
        rig.engine.stop()
        rig.advance(.milliseconds(10))
        #expect(players.allSatisfy { $0.outcome == .preempted })
        #expect(rig.chip.output.level(at: rig.clock.now) == 0)
    }
}
