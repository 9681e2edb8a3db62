// SPDX-License-Identifier: Apache-2.0

extension PatternPlayer {
    /// How a playback ended; every ending leaves the actuator at zero.
    public enum Outcome: Sendable, Equatable {
        /// Played to the end.
        case finished
        /// `stop()` ended it.
        case stopped
        /// `cancel()` ended it (or `runToCompletion` reached its limit).
        case cancelled
        /// A newer feedback or `engine.stop()` took the chip.
        case preempted
        /// The chip could not be driven (the typed error's text); it was stopped.
        case failed(String)
        /// Not played: the policy turns haptics off (as a feedback would be dropped).
        case dropped(DropReason)
    }
}
