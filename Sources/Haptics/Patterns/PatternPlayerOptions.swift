// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

extension PatternPlayer {
    /// How the player paces itself.
    public struct Options: Sendable {
        /// Spin this long before each deadline instead of sleeping (real clocks only).
        public var spin: Duration = .microseconds(150)
        /// Runs once on the player thread before pacing starts (e.g. `prctl(PR_SET_TIMERSLACK, 1)`
        /// through LinuxHardware's `LinuxRealtime.reduceTimerSlack`).
        public var threadSetup: (@Sendable () -> Void)?
        /// Keep each update's lateness for statistics (the benchmark reads them).
        public var recordsTiming = true
        /// The start counts as one trigger against the policy's rate limit, as a feedback does.
        /// Off for a pattern that replaces the one playing with its continuation (a force-feedback
        /// remix), which is no new feedback; haptics turned off drop it either way.
        public var countsAsTrigger = true
        /// Plays together with the other mixing players on the engine, as Core Haptics' engine
        /// plays its players: the chip is driven at the sum of their levels, limited to full scale
        /// (EngineCore+Mixing), and stopping one leaves the others playing. A mixing player always
        /// streams (a transient plays as its samples). Off, a player takes the chip, stopping
        /// whatever plays, mixed players included.
        public var mixes = false
        /// 150 µs of spin, no thread setup, timing recorded, counted as a trigger, not mixed.
        public init() {}
    }
}
