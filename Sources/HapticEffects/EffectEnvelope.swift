// SPDX-License-Identifier: Apache-2.0

// Not in firmware: the shapes need `sin` (Foundation's), and only the simulator and the
// haptics layer's real-time rendering of ROM effects use them.
#if !hasFeature(Embedded)
    import Foundation

    /// Model drive envelopes for ROM effects, sampled on the chip's 5 ms playback grid.
    ///
    /// The simulator drives its actuator with them, and the haptics layer renders a ROM sequence as
    /// real-time playback with them when it must scale intensity (ROM effects have fixed strength).
    ///
    /// TI publishes no waveforms; these follow the effects' names (a click kicks and brakes, a bump
    /// rises and falls smoothly, a ramp ramps) so that tests can compare feedbacks by what the
    /// actuator is driven with. They are the simulator's model, not measurements.
    public enum EffectEnvelope {
        /// Drive levels (−1...1) for `effect` lasting `duration`, one per `tick`.
        public static func levels(for effect: Effect, duration: Duration, tick: Duration) -> [Double] {
            let profile = effect.profile
            let count = max(1, Int((duration.secondsDouble / tick.secondsDouble).rounded()))
            let s = profile.strength
            return (0..<count).map { index in
                let u = (Double(index) + 0.5) / Double(count)
                switch profile.family {
                case .click, .sharpClick, .transitionClick, .tick:
                    return u < 0.65 ? s : (u < 0.9 ? -0.5 * s : 0)
                case .bump:
                    return s * sin(Double.pi * u)
                case .doubleClick, .doubleTick:
                    return (u < 0.3 || (u >= 0.55 && u < 0.85)) ? s : 0
                case .tripleClick:
                    let phase = (u * 3).truncatingRemainder(dividingBy: 1)
                    return phase < 0.6 ? s : 0
                case .fuzz:
                    return index % 2 == 0 ? s : 0.5 * s
                case .buzz, .alert, .longBuzz:
                    return u < 0.93 ? s : -0.5 * s
                case .transitionHum, .smoothHum:
                    return s
                case .pulsing:
                    return (u * 4).truncatingRemainder(dividingBy: 1) < 0.5 ? s : 0
                case .rampUp, .rampDown:
                    return profile.startStrength + (profile.endStrength - profile.startStrength) * u
                }
            }
        }
    }

    extension WaveformSequence {
        /// The sequence as model drive levels on a `tick` grid (waits are zeros).
        public func modelLevels(tick: Duration = .milliseconds(5)) -> [Double] {
            var levels: [Double] = []
            for step in steps {
                switch step {
                case let .effect(effect):
                    levels += EffectEnvelope.levels(for: effect, duration: effect.estimatedDuration, tick: tick)
                case let .wait(units):
                    levels += [Double](repeating: 0, count: Int((Double(units) * 10 / (tick.secondsDouble * 1000)).rounded()))
                }
            }
            return levels
        }
    }
#endif
