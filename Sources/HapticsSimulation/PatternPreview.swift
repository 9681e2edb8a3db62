// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import HapticChip
import HapticEffects
import Haptics
import HardwareAccess

/// A rendered pattern played on a simulated chip on a virtual clock: what the actuator would do,
/// beside the curves as designed. `haptic render` draws it; the studio plots it under the design.
public enum PatternPreview {
    /// One instant: the designed intensity and sharpness and the actuator's drive level (0...1).
    public struct Row: Sendable, Equatable {
        /// Seconds from the start.
        public var time: Double
        /// The designed intensity, 0...1.
        public var intensity: Double
        /// The designed sharpness, 0...1.
        public var sharpness: Double
        /// What the simulated actuator was driven with, 0...1 of full scale.
        public var drive: Double
    }

    /// Plays `pattern` to its end on a fresh simulated chip driving `actuator` (a typical one of
    /// that kind, ERM with its ROM library B; `EngineRig`, so the machine's policy file is not read) and samples it at the pattern's rate.
    public static func rows(for pattern: RenderedPattern, actuator: ActuatorType) throws -> [Row] {
        let rig = try EngineRig(actuator: actuator)
        let (clock, chip, engine) = (rig.clock, rig.chip, rig.engine)
        chip.keepsTrace = false
        clock.advance(by: .milliseconds(10))
        let start = clock.now
        let player = PatternPlayer(engine: engine, pattern: pattern)
        player.start(at: start)
        player.runToCompletion()
        let steps = max(pattern.samples.count, Int(clock.now.duration(since: start).secondsDouble * pattern.rate) + 1)
        return (0..<steps).map { index in
            let time = Double(index) / pattern.rate
            return Row(
                time: time, intensity: index < pattern.intensity.count ? pattern.intensity[index] : 0,
                sharpness: index < pattern.sharpness.count ? pattern.sharpness[index] : 0,
                drive: chip.output.level(at: start.advanced(by: .secondsClamped(time))))
        }
    }
}
