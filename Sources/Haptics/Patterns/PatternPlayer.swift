// SPDX-License-Identifier: Apache-2.0

import Audio
import Foundation
import HapticChip
import HapticEffects
import HardwareAccess

/// Plays a rendered pattern on an engine, as Core Haptics' advanced pattern player: start now or
/// at a time, stop, cancel, pause and resume, seek, loop (with a loop end), playback rate and a
/// completion handler.
///
/// The real-time stream is paced against absolute deadlines on a dedicated thread (on a real
/// clock): it sleeps with `clock_nanosleep` until shortly before each deadline and spins the rest,
/// because timer slack and wake-up latency alone are about 100 µs. Only changed levels are written.
/// Stop, cancel, errors and preemption leave the actuator at zero within one update and the chip
/// in standby. On a virtual clock there is no thread: the clock's `advance` (or `pump()`) drives it.
/// A device that renders patterns itself plays them from its own timer (PatternPlayer+Device).
public final class PatternPlayer: Sendable {
    enum Status { case idle, scheduled(ClockInstant), playing, paused, finished(Outcome) }

    struct State {
        var status: Status = .idle
        var token: UInt64?
        /// Clock instant at which pattern offset `originOffset` played.
        var origin: ClockInstant = .zero
        var originOffset: Double = 0
        var pausedOffset: Double = 0
        var nextIndex = 0
        var nextHit = 0
        var lastLevel: Double?
        var playbackRate: Double = 1
        var loopEnabled = false
        var loopEnd: Double = 0
        var timing = Timing()
        var completion: (@Sendable (Outcome) -> Void)?
        var work: ScheduledWork?
        /// The sounds placed for the current run (stopped on pause, seek, loop and any stop).
        var soundIDs: [Int] = []
        /// The device renders the pattern (`PatternRenderingDevice`) and times its stream.
        var onDevice = false
        /// A seek while the device rendered: stream from here from the new position.
        var leaveDevice = false
    }

    /// The engine whose chip the player takes for the pattern's length.
    public let engine: HapticEngine
    /// What is played: a real-time stream or ROM hits, from `PatternRenderer`.
    public let pattern: RenderedPattern
    public let options: Options
    /// The pattern's audio events, played on `sounds` in step with the haptics.
    public let soundTrack: PatternSoundTrack?
    /// Where `soundTrack` plays (nil: the audio events are not played).
    public let sounds: SoundEngine?
    /// What a device that renders patterns itself renders again (nil: the pattern is streamed
    /// from here on every chip): the source given, unless the rendering was scaled since or plays
    /// with sounds (which are timed here).
    let deviceSource: PatternSource?
    /// What the player is doing, behind a lock (its extensions share it).
    let state = Locked(State())

    /// A player for `pattern` on `engine`; nothing happens until `start`.
    /// A ROM rendering on a chip without a ROM effect library (DRV2604, DRV2604L) plays its
    /// samples as a stream instead: every rendering carries them. Under a policy's intensity
    /// scale below 1 the samples are scaled and streamed.
    ///
    /// With a `soundTrack` and a sound engine, a start without a time begins the haptics the
    /// engine's lead time from now, and each sound is placed so that both are heard together.
    ///
    /// `source`, the pattern `pattern` was rendered from and how, lets a device that renders
    /// patterns itself (`PatternRenderingDevice`) play it from its own timer.
    public init(
        engine: HapticEngine, pattern: RenderedPattern, options: Options = Options(), soundTrack: PatternSoundTrack? = nil,
        sounds: SoundEngine? = nil, source: PatternSource? = nil
    ) {
        self.engine = engine
        self.soundTrack = soundTrack?.isEmpty == true ? nil : soundTrack
        self.sounds = sounds
        var pattern = pattern
        if pattern.mode == .rom, !engine.hasEffectLibrary { pattern.mode = .realTime }
        // The policy's intensity scale, as for every feedback: ROM effects have fixed strengths,
        // so a scaled pattern streams its (scaled) envelope.
        let scale = engine.policy.intensityScale
        if scale < 0.999 {
            pattern.mode = .realTime
            pattern.samples = pattern.samples.map { $0 * scale }
        }
        self.deviceSource = scale < 0.999 || (sounds != nil && self.soundTrack != nil) ? nil : source
        self.pattern = pattern
        self.options = options
    }

    var clock: any HapticClock { engine.clock }

    /// A player dropped while it still holds the chip gives it back: the actuator stops.
    deinit { finish(.cancelled) }

    // MARK: - Controls

    /// Called once when the player stops for any reason (on the player's thread or the caller's).
    public var completionHandler: (@Sendable (Outcome) -> Void)? {
        get { state.withLock { $0.completion } }
        set { state.withLock { $0.completion = newValue } }
    }
    /// Scales time: 2 plays twice as fast. Values ≤ 0 are ignored, as Core Haptics does. The
    /// sounds still to come move with the haptics (each sound plays at its own speed).
    public var playbackRate: Double {
        get { state.withLock { $0.playbackRate } }
        set {
            guard newValue > 0, newValue.isFinite else { return }
            let now = clock.now
            let sounding: (offset: Double, at: ClockInstant)? = state.withLock { state in
                var sounding: (Double, ClockInstant)?
                switch state.status {
                case .playing:
                    state.originOffset = position(state, now)
                    state.origin = now
                    sounding = (state.originOffset, now)
                case let .scheduled(at):
                    sounding = (state.originOffset, at)
                default:
                    break
                }
                state.playbackRate = newValue
                return sounding
            }
            if let sounding { replaceSounds(from: sounding.offset, at: sounding.at) }
            wakeWork()
        }
    }
    /// Loop back to the start at the end (or at `loopEnd`) until stopped.
    public var loopEnabled: Bool {
        get { state.withLock { $0.loopEnabled } }
        set { state.withLock { $0.loopEnabled = newValue } }
    }
    /// Loop point in seconds; 0 = the end of the pattern.
    public var loopEnd: Double {
        get { state.withLock { $0.loopEnd } }
        set { state.withLock { $0.loopEnd = max(0, newValue.isFinite ? newValue : 0) } }
    }
    /// The timing figures so far.
    public var timing: Timing { state.withLock { $0.timing } }
    /// Whether the device renders and times the stream now (`PatternRenderingDevice`), not this
    /// machine.
    public var rendersOnDevice: Bool { state.withLock { $0.onDevice } }
    /// How playback ended, or nil while it has not.
    public var outcome: Outcome? {
        state.withLock { if case let .finished(outcome) = $0.status { return outcome } else { return nil } }
    }

    /// Starts at `time` (`nil`: now).
    public func start(at time: ClockInstant? = nil) {
        var at = time ?? clock.now
        if let sounds, let soundTrack {
            if time == nil { at = at.advanced(by: sounds.leadTime) }
            let (offset, rate) = state.withLock { ($0.pausedOffset, $0.playbackRate) }
            let placed = soundTrack.place(on: sounds, from: offset, at: at, rate: rate)
            state.withLock { $0.soundIDs += placed }
        }
        state.withLock { state in
            state.status = .scheduled(at)
            state.originOffset = state.pausedOffset
        }
        // Starting now, the first level goes out from the caller's thread: a player's thread is
        // made for it, which took milliseconds of a force-feedback client's onset (ff-memless
        // starts an effect in the call that plays it).
        let running = state.withLock { $0.work.map { !$0.isCancelled } ?? false }
        if !running, at <= clock.now { pump() }
        scheduleIfNeeded()
    }

    /// Stops now; the completion handler gets `.stopped`.
    public func stop() { finish(.stopped) }
    /// Drops everything pending and stops now; the completion handler gets `.cancelled`.
    public func cancel() { finish(.cancelled) }

    /// Stops output and remembers where it was; `resume()` continues from there.
    public func pause() {
        let now = clock.now
        let token: UInt64? = state.withLock { state in
            guard case .playing = state.status else { return nil }
            state.pausedOffset = position(state, now)
            state.status = .paused
            let token = state.token
            state.token = nil
            return token
        }
        if let token { engine.endExclusive(token) }
        stopSounds()
    }

    /// Continues a paused playback from where it paused, now or at `time`.
    public func resume(at time: ClockInstant? = nil) {
        let paused = state.withLock { state -> Bool in
            if case .paused = state.status { return true }
            return false
        }
        if paused { start(at: time) }
    }

    /// Jumps to `offset` seconds (0 = the start). Past the end: stops, unless looping.
    public func seek(to offset: Double) {
        let now = clock.now
        let target = max(0, offset.isFinite ? offset : 0)
        let playing = state.withLock { state -> Bool in
            state.pausedOffset = target
            if case .playing = state.status {
                state.origin = now
                state.originOffset = target
                state.nextIndex = Int(target * pattern.rate)
                state.nextHit = pattern.hits.firstIndex { $0.time >= target } ?? pattern.hits.count
                if state.onDevice { state.leaveDevice = true }
                return true
            }
            return false
        }
        if playing {
            replaceSounds(from: target, at: now)
            wakeWork()
        }
    }

    /// Runs `pump` now: the next write was timed for the old position or rate.
    private func wakeWork() {
        state.withLock { $0.work }?.wake()
    }

    /// Blocks until the player finishes or `timeout` passes (`nil`: still playing). On a virtual
    /// clock it plays everything scheduled meanwhile, moving time as it goes.
    @discardableResult
    public func waitUntilFinished(timeout: Duration) -> Outcome? {
        _ = clock.wait(until: { outcome != nil }, timeout: timeout)
        return outcome
    }

    /// Waits until the player finishes, cancelling it if it has not after `limit`.
    @discardableResult
    public func runToCompletion(limit: Duration = .seconds(3600)) -> Outcome? {
        if waitUntilFinished(timeout: limit) == nil { cancel() }
        return outcome
    }

    // MARK: - Pacing

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
            let token = engine.beginExclusive()
            var onDevice = false
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
            // The device starts once the upload is done: its stream's time begins then.
            let origin = onDevice ? max(at, clock.now) : at
            state.withLock { state in
                state.token = token
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
    private func deadline(_ state: State, offset: Double) -> ClockInstant {
        let seconds = max(0, (offset - state.originOffset) / state.playbackRate)
        return state.origin.advanced(byNanoseconds: Int64((min(seconds, 9e9) * 1e9).rounded(.up)))
    }

    private func step(_ now: ClockInstant) -> ClockInstant? {
        // A newer feedback or engine.stop() took the chip: stop at once, even between writes.
        if let token = state.withLock({ $0.token }), !engine.owns(token) {
            finish(.preempted)
            return nil
        }
        // Lateness is taken when the level reaches the bus (after the write), or at the decision
        // when there is nothing to write: what the actuator sees, not when the player woke.
        enum Work {
            case write(UInt64, Double, next: ClockInstant, target: ClockInstant), hit(UInt64, Effect, target: ClockInstant),
                loop(UInt64), end, wait(ClockInstant), none, leaveDevice(UInt64), deviceEnd(UInt64, ClockInstant)
        }
        let length = pattern.mode == .realTime ? Double(pattern.samples.count) / pattern.rate : pattern.playedSeconds
        let work: Work = state.withLock { state in
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
                let target = deadline(state, offset: Double(due) / pattern.rate)
                if state.lastLevel == level {
                    if options.recordsTiming { state.timing.latenessNanoseconds.append(now.nanoseconds - target.nanoseconds) }
                    return .wait(deadline(state, offset: Double(state.nextIndex) / pattern.rate))
                }
                state.lastLevel = level
                return .write(token, level, next: deadline(state, offset: Double(state.nextIndex) / pattern.rate), target: target)
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
            state.withLock { state in
                state.origin = now
                state.originOffset = 0
                state.nextIndex = 0
                state.nextHit = 0
            }
            replaceSounds(from: 0, at: now)
            return now
        case let .write(token, level, next, target):
            return writeOwned(token, target: target, then: next) { core in try core.driver.setRealTime(amplitude: level) }
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
    private func writeOwned(
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
        let (token, completion, alreadyDone): (UInt64?, (@Sendable (Outcome) -> Void)?, Bool) = state.withLock { state in
            if case .finished = state.status { return (nil, nil, true) }
            let token = state.token
            state.token = nil
            state.status = .finished(outcome)
            state.pausedOffset = 0
            return (token, state.completion, false)
        }
        guard !alreadyDone else { return }
        if let token { engine.endExclusive(token) }
        // A pattern that ends as designed lets its sounds ring out; any other end silences them.
        if outcome != .finished { stopSounds() }
        completion?(outcome)
    }

    /// Hands `pump` to the clock (a thread that sleeps to each deadline and spins the rest, or
    /// the virtual clock's `advance`), unless the work from an earlier start is still running.
    private func scheduleIfNeeded() {
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
