// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticFeedback
import HardwareAccess

/// Players mixed into one real-time stream, as Core Haptics' engine mixes the players it plays at
/// once ("the engine mixes the output of all its players"): each player sets its own level, and the
/// chip is driven at the sum of every player's current level, limited to full scale. The stream
/// holds the chip as one exclusive player does (one token, shared): a feedback or a player that does
/// not mix takes it back from all of them at once, and the last player to leave gives it back (the
/// chip to standby, as after one player).
struct StreamMix {
    /// The exclusive token the players share.
    let token: UInt64
    /// Each player's level now, by its member number.
    var levels: [UInt64: Double] = [:]
    /// The sharpness each player's stream asks for now, where it asks for one.
    var sharpness: [UInt64: Double] = [:]
    var memberCounter: UInt64 = 0
    /// The level last written to the chip (nil: none yet).
    var written: Double?
    /// Feedbacks requested while the mix plays, each a member of its own that the engine's timer
    /// steps through its clip's levels (Core Haptics renders a transient into the players' output:
    /// a feedback is mixed in, not a mode switch that cuts the stream).
    var clips: [UInt64: MixedClip] = [:]

    /// A feedback's levels played as one member of the mix, from `start`; `next` is the index of
    /// the next level due.
    struct MixedClip {
        let clip: RealTimeClip
        let start: ClockInstant
        var next: Int
    }

    /// The drive the chip gets from the players' levels: each limited to what the chip drives
    /// (`HapticChipDriver.realTimeLevels`: a brake the chip would ignore alone stays ignored),
    /// summed, then limited to full scale (a sum past it is clipped, never wrapped).
    func drive(within range: ClosedRange<Double>) -> Double {
        let sum = levels.values.reduce(0) { $0 + min(range.upperBound, max(range.lowerBound, $1)) }
        return min(range.upperBound, max(range.lowerBound, sum))
    }

    /// The sharpness the mix drives at: the loudest player's that asks for one (a rumble's
    /// frequency is the rumble's, not that of a click mixed into it); nil when none asks.
    var drivenSharpness: Double? {
        // Louder wins; between equals, the earlier member.
        sharpness.max { a, b in (abs(levels[a.key] ?? 0), b.key) < (abs(levels[b.key] ?? 0), a.key) }?.value
    }

    /// The drive to write now: the mix's, when it differs from the level last written (which it
    /// becomes); nil when the chip already has it.
    mutating func changedDrive(within range: ClosedRange<Double>) -> Double? {
        let level = drive(within: range)
        guard written != level else { return nil }
        written = level
        return level
    }
}

extension EngineCore {
    /// A player's place in the mixed stream: its token and its member number.
    struct MixMembership: Sendable, Equatable {
        let token: UInt64
        let member: UInt64
    }

    /// Adds a player to the mixed stream: the one playing when the chip still belongs to it, else
    /// a new one (whatever else plays is stopped, and the chip starts real-time playback). The
    /// new player's level is zero until it sets one.
    func joinMix() throws(HapticChipError) -> MixMembership {
        if var current = mix, exclusive == current.token {
            current.memberCounter += 1
            current.levels[current.memberCounter] = 0
            mix = current
            return MixMembership(token: current.token, member: current.memberCounter)
        }
        let token = beginExclusive()
        do {
            try driver.beginRealTimePlayback()
        } catch {
            endExclusive(token)
            throw error
        }
        mix = StreamMix(token: token, levels: [1: 0], memberCounter: 1)
        return MixMembership(token: token, member: 1)
    }

    /// Sets one player's level (and the sharpness it asks for, nil: none) and drives the chip at
    /// the mix's (written only when it changed), at the loudest player's sharpness.
    func setMixedLevel(_ level: Double, sharpness: Double? = nil, for membership: MixMembership) throws(HapticChipError) {
        guard var current = mix, current.token == membership.token, exclusive == membership.token,
            current.levels[membership.member] != nil
        else { return }
        current.levels[membership.member] = level
        current.sharpness[membership.member] = sharpness
        try setStreamSharpness(current.drivenSharpness)
        let drive = current.changedDrive(within: driver.realTimeLevels)
        mix = current
        if let drive { try driver.setRealTime(amplitude: drive) }
    }

    /// A player leaves the mix: the others go on at the sum of their own levels; the last one to
    /// leave gives the chip back (`endExclusive`).
    func leaveMix(_ membership: MixMembership) {
        guard var current = mix, current.token == membership.token, exclusive == membership.token else { return }
        current.levels[membership.member] = nil
        current.sharpness[membership.member] = nil
        guard !current.levels.isEmpty else {
            endExclusive(membership.token)
            return
        }
        let drive = current.changedDrive(within: driver.realTimeLevels)
        mix = current
        if let drive {
            do { try driver.setRealTime(amplitude: drive) } catch { recover("a player leaving the mix", error) }
        }
    }
}

extension EngineCore {
    /// Whether the chip belongs to the mixed stream now.
    var isMixing: Bool { mix.map { exclusive == $0.token } ?? false }

    /// A feedback's stream into the mix: a member of its own from now, its first level written
    /// here (a failed write is the caller's drop), the rest by `stepMixedClips`.
    func playMixed(_ clip: RealTimeClip) throws(HapticChipError) {
        let membership = try joinMix()
        mix?.clips[membership.member] = StreamMix.MixedClip(clip: clip, start: clock.now, next: clip.levels.isEmpty ? 0 : 1)
        try setMixedLevel(clip.levels.first ?? 0, for: membership)
        if clip.levels.isEmpty { leaveMix(membership) }
    }

    /// Steps every feedback in the mix to the level due now (one write for all of them); a clip
    /// that has played its last level leaves. Returns when the next level is due.
    func stepMixedClips() -> ClockInstant? {
        guard var current = mix, exclusive == current.token, !current.clips.isEmpty else { return nil }
        let now = clock.now
        var next: [ClockInstant] = []
        var ended: [UInt64] = []
        for (member, var playing) in current.clips {
            let tick = playing.clip.tick
            var index = playing.next
            while index < playing.clip.levels.count, playing.start.advanced(by: tick * index) <= now { index += 1 }
            if index > playing.next { current.levels[member] = playing.clip.levels[index - 1] }
            playing.next = index
            if index >= playing.clip.levels.count {
                let end = playing.start.advanced(by: tick * playing.clip.levels.count)
                if now >= end { ended.append(member) } else { next.append(end) }
            } else {
                next.append(playing.start.advanced(by: tick * index))
            }
            current.clips[member] = playing
        }
        for member in ended {
            current.clips[member] = nil
            current.levels[member] = nil
        }
        if current.levels.isEmpty {
            // The last member was a feedback: the chip is given back as after a player.
            mix = current
            endExclusive(current.token)
            return nil
        }
        let drive = current.changedDrive(within: driver.realTimeLevels)
        mix = current
        if let drive {
            do { try driver.setRealTime(amplitude: drive) } catch { recover("a feedback in the mix", error) }
        }
        return next.min()
    }
}

extension HapticEngine {
    /// Adds a mixing player to the engine's mixed stream (`EngineCore.joinMix`).
    func joinMix() throws(HapticChipError) -> EngineCore.MixMembership {
        let joined = withCore { core in Result { () throws(HapticChipError) in try core.joinMix() } }
        worker.wake()
        return try joined.get()
    }

    /// Gives the chip back after a player's exclusive playback (`endExclusive`), or, for a
    /// player of the mix, its place in it (the others play on).
    func release(_ token: UInt64, membership: EngineCore.MixMembership?) {
        if let membership {
            withCore { $0.leaveMix(membership) }
            worker.wake()
        } else {
            endExclusive(token)
        }
    }
}
