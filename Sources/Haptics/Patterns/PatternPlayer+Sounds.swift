// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// The pattern's audio events, placed on the sound engine in step with the haptics.
extension PatternPlayer {
    /// Stops the sounds placed for this run (5 ms fades).
    func stopSounds() {
        let placed = state.withLock { state -> [Int] in
            defer { state.soundIDs = [] }
            return state.soundIDs
        }
        sounds?.stop(placed)
    }

    /// Stops the sounds and places those from `offset` on, heard from `instant` (late when that
    /// is less than the engine's lead time ahead: counted in its report).
    func replaceSounds(from offset: Double, at instant: ClockInstant) {
        guard let sounds, let soundTrack else { return }
        stopSounds()
        let rate = state.withLock { $0.playbackRate }
        let placed = soundTrack.place(on: sounds, from: offset, at: instant, rate: rate)
        state.withLock { $0.soundIDs += placed }
    }
}
