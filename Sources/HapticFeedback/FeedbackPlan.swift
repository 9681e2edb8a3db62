// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticEffects
import HardwareAccess

/// Drive levels sampled on a fixed grid, played through real-time playback (RTP).
public struct RealTimeClip: Sendable, Hashable {
    /// Time between samples.
    public var tick: Duration
    /// −1...1 of full scale, one per tick; the clip ends with the drive at zero.
    public var levels: [Double]

    public init(tick: Duration = .milliseconds(5), levels: [Double]) {
        self.tick = tick
        self.levels = levels
    }

    public var duration: Duration { tick * levels.count }
}

/// What the chip plays for a feedback: a ROM sequence (one GO write once prepared) or a
/// real-time clip (a continuous scale of intensity).
public enum FeedbackPlan: Sendable, Hashable, CustomStringConvertible {
    case rom(WaveformSequence)
    case realTime(RealTimeClip)

    public var estimatedDuration: Duration {
        switch self {
        case let .rom(sequence): return sequence.estimatedDuration
        case let .realTime(clip): return clip.duration
        }
    }

    #if !hasFeature(Embedded)
        /// The plan at `scale` (0...1) of its strength. ROM effects have fixed strength: a single
        /// effect with one of TI's weaker variants at that strength (within 0.05) plays the variant,
        /// which keeps the chip's own waveform and the one-write prepared trigger; otherwise a scaled
        /// ROM plan becomes real-time playback of the same envelope (the model in `EffectEnvelope`).
        /// At full scale the ROM plan is kept.
        public func scaled(by scale: Double) -> FeedbackPlan {
            let factor = scale.isFinite ? min(1, max(0, scale)) : 1
            switch self {
            case let .rom(sequence):
                if factor >= 0.999 { return self }
                if sequence.steps.count == 1, case let .effect(effect) = sequence.steps[0] {
                    let target = effect.profile.strength * factor
                    if let variant = effect.weakerVariants.first(where: { abs($0.profile.strength - target) <= 0.05 }) {
                        return .rom(WaveformSequence(variant))
                    }
                }
                return FeedbackPlan.realTime(RealTimeClip(levels: sequence.modelLevels())).scaled(by: factor)
            case let .realTime(clip):
                if factor >= 0.999 { return self }
                return .realTime(RealTimeClip(tick: clip.tick, levels: clip.levels.map { $0 * factor }))
            }
        }

        /// The plan as a real-time stream: a ROM sequence becomes its modelled envelope
        /// (`WaveformSequence.modelLevels`), a clip stays as it is. What a chip without a ROM effect
        /// library (DRV2604, DRV2604L) plays instead of an effect, so a feedback it has no effect for
        /// still plays rather than failing.
        public var streamed: FeedbackPlan {
            switch self {
            case let .rom(sequence): return .realTime(RealTimeClip(levels: sequence.modelLevels()))
            case .realTime: return self
            }
        }

    #endif

    /// Whether it is played as a real-time stream.
    public var isRealTime: Bool {
        if case .realTime = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case let .rom(sequence):
            return sequence.steps.map { step -> String in
                switch step {
                case let .effect(effect): return "\(effect.rawValue) \(effect.name)"
                case let .wait(units): return "wait \(Int(units) * 10) ms"
                }
            }.joined(separator: ", ")
        case let .realTime(clip):
            return "real-time clip, \(clip.levels.count) samples every \(clip.tick)"
        }
    }
}
