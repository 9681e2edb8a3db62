// SPDX-License-Identifier: Apache-2.0

import Audio
import Foundation
import HapticChip
import HapticEffects
import HardwareAccess

/// The player's pacing: each step writes what is due on the engine's clock (a level, a ROM hit,
/// a sound) while the player still owns the chip, and schedules the next.
extension PatternPlayer {

    /// Writes whatever is due at `clock.now`; returns when to call again (`nil`: finished).
    @discardableResult
    public func pump() -> ClockInstant? {
        let now = clock.now
        enum Action { case none, begin(ClockInstant), finish(Outcome) }
        let scheduledStart: ClockInstant? = state.withLock { state in
            if case let .scheduled(at) = state.status { return at }
            return nil
        }
        if let at = scheduledStart {
            if now < at { return at }
            // The same policy as every feedback: turned off or over the rate limit, nothing
            // reaches the chip.
            if let reason = engine.admitPattern(label: "a pattern", countsAsTrigger: options.countsAsTrigger) {
                finish(.dropped(reason))
                return nil
            }
            let uploads = deviceRendersThisStart()
            let pattern = rendering
            let token: UInt64
            var membership: EngineCore.MixMembership?
            var onDevice = false
            if options.mixes {
                // Into the engine's mixed stream, beside the players in it (EngineCore+Mixing).
                do {
                    let joined = try engine.joinMix()
                    token = joined.token
                    membership = joined
                } catch {
                    finish(.failed(String(describing: error)))
                    return nil
                }
            } else {
                token = engine.beginExclusive()
                do {
                    let began: Void? = try engine.withExclusive(token) { core in
                        if uploads, let device = core.driver as? any PatternRenderingDevice, let source = deviceSource,
                            try device.startRendering(source.pattern) != nil
                        {
                            onDevice = true
                        } else if pattern.mode == .realTime {
                            try core.driver.beginRealTimePlayback()
                        } else {
                            try core.driver.wake()
                        }
                    }
                    if began == nil {
                        finish(.preempted)
                        return nil
                    }
                } catch {
                    engine.endExclusive(token)
                    finish(.failed(String(describing: error)))
                    return nil
                }
            }
            // The device starts once the upload is done: its stream's time begins then.
            let origin = onDevice ? max(at, clock.now) : at
            state.withLock { state in
                state.token = token
                state.membership = membership
                state.status = .playing
                state.onDevice = onDevice
                state.leaveDevice = false
                state.origin = origin
                state.nextIndex = Int(state.originOffset * pattern.rate)
                state.nextHit = pattern.hits.firstIndex { $0.time >= state.originOffset } ?? pattern.hits.count
                state.lastLevel = nil
            }
        }
        return step(now)
    }

    func position(_ state: State, _ now: ClockInstant) -> Double {
        state.originOffset + now.duration(since: state.origin).secondsDouble * state.playbackRate
    }

    /// Rounded up to the nanosecond, so that at the deadline the position has really reached `offset`.
    func deadline(_ state: State, offset: Double) -> ClockInstant {
        let seconds = max(0, (offset - state.originOffset) / state.playbackRate)
        return state.origin.advanced(byNanoseconds: Int64((min(seconds, 9e9) * 1e9).rounded(.up)))
    }

    func step(_ now: ClockInstant) -> ClockInstant? {
        // A newer feedback or engine.stop() took the chip: stop at once, even between writes.
        if let token = state.withLock({ $0.token }), !engine.owns(token) {
            finish(.preempted)
            return nil
        }
        // Lateness is taken when the level reaches the bus (after the write), or at the decision
        // when there is nothing to write: what the actuator sees, not when the player woke.
        enum Work {
            case write(UInt64, Double, Double?, EngineCore.MixMembership?, next: ClockInstant, target: ClockInstant), hit(UInt64, Effect, target: ClockInstant),
                loop(UInt64), end, wait(ClockInstant), none, leaveDevice(UInt64), deviceEnd(UInt64, ClockInstant)
        }
        let work: Work = state.withLock { state in
            let pattern = playing(state)
            let length = pattern.mode == .realTime ? Double(pattern.samples.count) / pattern.rate : pattern.playedSeconds
            guard case .playing = state.status, let token = state.token else { return .none }
            let offset = position(state, now)
            if state.onDevice {
                if state.leaveDevice || state.loopEnabled || state.playbackRate != 1 { return .leaveDevice(token) }
                if offset >= length { return .deviceEnd(token, deadline(state, offset: length)) }
                // Looked at now and then: a newer feedback or stop() takes the chip meanwhile.
                return .wait(min(deadline(state, offset: length), now.advanced(by: Self.deviceWatchInterval)))
            }
            let end = state.loopEnabled && state.loopEnd > 0 ? min(state.loopEnd, length) : length
            if offset >= end {
                return state.loopEnabled ? .loop(token) : .end
            }
            switch pattern.mode {
            case .realTime:
                let due = min(pattern.samples.count - 1, Int(offset * pattern.rate + 1e-6))
                if due < state.nextIndex { return .wait(deadline(state, offset: Double(state.nextIndex) / pattern.rate)) }
                state.timing.missedUpdates += max(0, due - state.nextIndex)
                state.nextIndex = due + 1
                let level = pattern.samples[due]
                let sharpness = due < pattern.driveSharpness.count ? pattern.driveSharpness[due] : nil
                let target = deadline(state, offset: Double(due) / pattern.rate)
                if state.lastLevel == level, state.lastSharpness == sharpness {
                    if options.recordsTiming { state.timing.latenessNanoseconds.append(now.nanoseconds - target.nanoseconds) }
                    return .wait(deadline(state, offset: Double(state.nextIndex) / pattern.rate))
                }
                state.lastLevel = level
                state.lastSharpness = sharpness
                return .write(
                    token, level, sharpness, state.membership, next: deadline(state, offset: Double(state.nextIndex) / pattern.rate), target: target)
            case .rom:
                guard state.nextHit < pattern.hits.count else { return .wait(deadline(state, offset: end)) }
                let hit = pattern.hits[state.nextHit]
                if hit.time > offset { return .wait(deadline(state, offset: min(hit.time, end))) }
                state.nextHit += 1
                return .hit(token, hit.effect, target: deadline(state, offset: hit.time))
            }
        }
        switch work {
        case .none:
            return nil
        case let .wait(next):
            return next
        case .end:
            finish(.finished)
            return nil
        case let .loop(token):
            let stillOwner = (try? engine.withExclusive(token) { _ in true }) ?? nil
            guard stillOwner != nil else {
                finish(.preempted)
                return nil
            }
            carrySentParametersIntoNextPass()
            state.withLock { state in
                state.origin = now
                state.originOffset = 0
                state.nextIndex = 0
                state.nextHit = 0
            }
            replaceSounds(from: 0, at: now)
            return now
        case let .write(token, level, sharpness, membership, next, target):
            return writeOwned(token, target: target, then: next) { core in
                if let membership {
                    try core.setMixedLevel(level, sharpness: sharpness, for: membership)
                } else {
                    try core.setStreamSharpness(sharpness)
                    try core.driver.setRealTime(amplitude: level)
                }
            }
        case let .hit(token, effect, target):
            return writeOwned(token, target: target, then: now) { core in try core.playFromLibrary(WaveformSequence(effect)) }
        case let .leaveDevice(token):
            return leaveDevice(token, now)
        case let .deviceEnd(token, end):
            return awaitDeviceEnd(token, end: end, now)
        }
    }

    /// One write to the chip while `token` still owns it, timed against `target`; the player ends
    /// as preempted when the token was taken back, or failed when the write failed.
    func writeOwned(
        _ token: UInt64, target: ClockInstant, then next: ClockInstant,
        _ write: (EngineCore) throws -> Void
    ) -> ClockInstant? {
        do {
            let written: Void? = try engine.withExclusive(token, write)
            guard written != nil else {
                finish(.preempted)
                return nil
            }
            let after = clock.now
            state.withLock { state in
                state.timing.writes += 1
                if options.recordsTiming { state.timing.latenessNanoseconds.append(after.nanoseconds - target.nanoseconds) }
            }
            return next
        } catch {
            finish(.failed(String(describing: error)))
            return nil
        }
    }

    func finish(_ outcome: Outcome) {
        let (token, membership, completion, alreadyDone): (UInt64?, EngineCore.MixMembership?, (@Sendable (Outcome) -> Void)?, Bool) =
            state.withLock { state in
                if case .finished = state.status { return (nil, nil, nil, true) }
                let token = state.token
                let membership = state.membership
                state.token = nil
                state.membership = nil
                state.status = .finished(outcome)
                state.pausedOffset = 0
                return (token, membership, state.completion, false)
            }
        guard !alreadyDone else { return }
        if let token { engine.release(token, membership: membership) }
        // A pattern that ends as designed lets its sounds ring out; any other end silences them.
        if outcome != .finished { stopSounds() }
        completion?(outcome)
    }

    /// Hands `pump` to the clock (a thread that sleeps to each deadline and spins the rest, or
    /// the virtual clock's `advance`), unless the work from an earlier start is still running.
    func scheduleIfNeeded() {
        let running = state.withLock { $0.work }
        if let running {
            running.wake()  // still running: pump now, and do not end at this step's nil
            if !running.isCancelled { return }
        }
        // Held weakly: a player its owner lets go of is cancelled (deinit), on every clock.
        let work = clock.schedule(WorkOptions(name: "haptics-player", spin: options.spin, threadSetup: options.threadSetup)) { [weak self] in
            self?.pump()
        }
        state.withLock { $0.work = work }
    }
}
