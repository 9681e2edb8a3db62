// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import HapticChip
import HapticEffects
import Haptics
import HapticsSimulation
import HardwareAccess
import Testing

/// A chip without a ROM effect library (DRV2604, DRV2604L) plays every feedback, effect, pattern
/// and sequence as a real-time stream of the effect's modelled envelope: never an error, never a GO
/// of a ROM effect it does not have, and the actuator left stopped.
@Suite struct StreamFallbackTests {
    static func rig(_ part: Part, actuator: ActuatorType = .lra) throws -> EngineRig {
        var chip = SimulatedDRV2605.Options()
        chip.part = part
        return try EngineRig(actuator: actuator, chipOptions: chip)
    }

    /// The writes since `index` in the chip's trace.
    static func writes(_ rig: EngineRig, since index: Int) -> [[UInt8]] {
        rig.chip.trace[index...].filter { $0.kind == .write }.map(\.written)
    }

    static func streamed(_ writes: [[UInt8]]) -> Bool {
        writes.contains { $0.count >= 2 && $0[0] == 0x01 && $0[1] & 0x07 == 5 }  // MODE = real-time playback
    }

    static func wroteGo(_ writes: [[UInt8]]) -> Bool { writes.contains { $0 == [0x0C, 0x01] } }

    @Test(arguments: [(Part.drv2604L, ActuatorType.lra), (.drv2604L, .erm), (.drv2604, .lra)])
    func everyFeedbackPlaysAsAStream(part: Part, actuator: ActuatorType) throws {
        let rig = try Self.rig(part, actuator: actuator)
        #expect(rig.engine.capabilities.chip == part.description && rig.engine.capabilities.library == nil)
        for kind in FeedbackKind.all {
            rig.advance(.seconds(3))
            rig.chip.clearOutput()
            let before = rig.chip.trace.count
            let start = rig.clock.now
            let feedback = Feedback(kind: kind)
            guard case .realTime(let clip)? = rig.engine.plan(for: feedback) else {
                Issue.record("\(kind): not planned as a stream on the \(part)")
                continue
            }
            #expect(rig.engine.play(feedback) == .played, "\(kind)")
            rig.advance(.seconds(2))
            let writes = Self.writes(rig, since: before)
            #expect(rig.chip.output.energy(from: start, to: rig.clock.now) > 0, "\(kind): nothing felt")
            #expect(Self.streamed(writes), "\(kind): never in real-time playback")
            #expect(!Self.wroteGo(writes), "\(kind): GO written on a chip with no ROM effects")
            // It lasted what the effect lasts, and ended stopped and in standby.
            let active = rig.chip.output.activeSeconds(from: start, to: rig.clock.now)
            #expect(active <= clip.duration.secondsDouble + 0.01, "\(kind): driven \(active) s for a \(clip.duration) clip")
            #expect(rig.chip.registers[.realTimePlaybackInput] == 0, "\(kind)")
            #expect(rig.chip.registers[.mode] & 0x40 != 0, "\(kind): not back in standby")
        }
        #expect(rig.engine.statistics.dropped == 0)
    }

    /// The ROM part keeps its ROM plans: the fallback is for chips without the library only.
    @Test func aROMPartStillPlaysItsEffects() throws {
        let rig = try Self.rig(.drv2605L)
        guard case .rom? = rig.engine.plan(for: .impact(.heavy)) else {
            Issue.record("the DRV2605L streams a ROM plan")
            return
        }
        let before = rig.chip.trace.count
        #expect(rig.engine.play(.impact(.heavy)) == .played)
        #expect(Self.wroteGo(Self.writes(rig, since: before)))
    }

    /// An effect asked for by number (`haptic effect 47`, a sequence's effect note, the service's
    /// effect request, the studio's audition) plays its envelope on the DRV2604L.
    @Test func aROMEffectByNumberPlaysAsAStream() throws {
        let rig = try Self.rig(.drv2604L)
        rig.advance(.seconds(1))
        let before = rig.chip.trace.count
        let start = rig.clock.now
        #expect(rig.engine.play(plan: .rom(WaveformSequence(.buzz100)), label: "effect 47") == .played)
        rig.advance(.seconds(1))
        let active = rig.chip.output.activeSeconds(from: start, to: rig.clock.now)
        let length = Effect.buzz100.estimatedDuration.secondsDouble
        #expect(active > 0.8 * length && active <= length + 0.01, "driven \(active) s for a \(length) s effect")
        #expect(Self.streamed(Self.writes(rig, since: before)))
    }

    /// prepare() then play: the prepared path wakes the chip and the trigger streams.
    @Test func aPreparedFeedbackPlaysAsAStream() throws {
        let rig = try Self.rig(.drv2604L)
        rig.advance(.seconds(1))
        rig.engine.prepare(.impact(.medium))
        rig.advance(.milliseconds(20))
        #expect(rig.chip.registers[.mode] & 0x40 == 0, "prepare() left the chip in standby")
        let start = rig.clock.now
        #expect(rig.engine.play(.impact(.medium)) == .played)
        rig.advance(.milliseconds(200))
        #expect(rig.chip.output.energy(from: start, to: rig.clock.now) > 0)
    }

    /// A pattern the renderer would play as ROM clicks plays its samples instead.
    @Test func aClickPatternPlaysAsAStream() throws {
        let rig = try Self.rig(.drv2604L)
        let pattern = HapticPattern(events: [.init(type: .hapticTransient, time: 0), .init(type: .hapticTransient, time: 0.2)])
        let rendered = PatternRenderer(strategy: .rom).render(pattern)
        #expect(rendered.mode == .rom)
        rig.advance(.seconds(1))
        let before = rig.chip.trace.count
        let start = rig.clock.now
        let player = PatternPlayer(engine: rig.engine, pattern: rendered)
        player.start(at: start)
        #expect(player.runToCompletion() == .finished)
        let bursts = rig.chip.output.bursts(from: start, to: rig.clock.now)
        #expect(bursts.count == 2, "\(bursts)")
        #expect(bursts.contains { abs($0.start.duration(since: start).secondsDouble - 0.2) < 0.01 })
        let writes = Self.writes(rig, since: before)
        #expect(Self.streamed(writes) && !Self.wroteGo(writes))
        #expect(rig.chip.registers[.realTimePlaybackInput] == 0)
    }

    /// A sequence of feedback, an effect and a wait, on the DRV2604L: all felt, at their times.
    @Test func aSequencePlaysAsAStream() throws {
        let rig = try Self.rig(.drv2604L)
        rig.advance(.seconds(1))
        let start = rig.clock.now
        let player = SequencePlayer(engine: rig.engine, notes: [.feedback(.impact(.heavy)), .wait(0.3), .effect(.strongClick100)])
        player.start()
        #expect(player.runToCompletion() == .finished)
        rig.advance(.milliseconds(100))
        let bursts = rig.chip.output.bursts(from: start, to: rig.clock.now)
        #expect(bursts.count >= 2, "\(bursts)")
        #expect(bursts.contains { abs($0.start.duration(since: start).secondsDouble - 0.3) < 0.01 })
        #expect(rig.chip.registers[.realTimePlaybackInput] == 0)
    }
}
