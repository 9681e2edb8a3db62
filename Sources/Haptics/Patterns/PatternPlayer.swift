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
        /// A mixing player's place in the engine's mixed stream (`Options.mixes`).
        var membership: EngineCore.MixMembership?
        /// Clock instant at which pattern offset `originOffset` played.
        var origin: ClockInstant = .zero
        var originOffset: Double = 0
        var pausedOffset: Double = 0
        var nextIndex = 0
        var nextHit = 0
        var lastLevel: Double?
        /// The sharpness written with it (nil: the rendering asks for none).
        var lastSharpness: Double?
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
        /// The rendering played now: nil for the one given (`pattern`), else the one made again
        /// after dynamic parameters were sent or a curve scheduled (PatternPlayer+Parameters).
        var rendering: RenderedPattern?
        /// The pattern as designed and its renderer, for a player that renders it itself: what
        /// dynamic parameters are added to, and rendered again with.
        var design: Design?
    }

    /// A pattern as designed and the renderer that renders it.
    struct Design {
        var pattern: HapticPattern
        var renderer: PatternRenderer
    }

    /// The engine whose chip the player takes for the pattern's length.
    public let engine: HapticEngine
    /// What is played: a real-time stream or ROM hits, from `PatternRenderer`; until dynamic
    /// parameters change it (`rendering`).
    public let pattern: RenderedPattern
    /// What is played now: `pattern`, or its rendering again with the parameters sent since.
    public var rendering: RenderedPattern { state.withLock { playing($0) } }
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
    /// Dynamic parameters and curves taken so far, one send at a time (PatternPlayer+Parameters).
    let variations = Locked(0)

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
        let scale = engine.policy.intensityScale
        self.deviceSource = scale < 0.999 || (sounds != nil && self.soundTrack != nil) ? nil : source
        self.pattern = Self.playable(pattern, on: engine, mixing: options.mixes)
        self.options = options
    }

    /// A player that renders `designed` itself with `renderer`, and again whenever dynamic
    /// parameters are sent or a parameter curve is scheduled while it plays (Core Haptics'
    /// `CHHapticAdvancedPatternPlayer`; PatternPlayer+Parameters).
    public convenience init(
        engine: HapticEngine, designed: HapticPattern, renderer: PatternRenderer = PatternRenderer(), options: Options = Options(),
        soundTrack: PatternSoundTrack? = nil, sounds: SoundEngine? = nil
    ) {
        self.init(
            engine: engine, pattern: renderer.render(designed), options: options, soundTrack: soundTrack, sounds: sounds,
            source: PatternSource(pattern: designed))
        state.withLock { $0.design = Design(pattern: designed, renderer: renderer) }
    }

    /// `rendered` as `engine` plays it: ROM clicks stream on a chip without an effect library,
    /// in a mix (the mix is one stream), and under the policy's intensity scale, as every
    /// feedback (ROM effects have fixed strengths, so a scaled pattern streams its scaled
    /// envelope).
    static func playable(_ rendered: RenderedPattern, on engine: HapticEngine, mixing: Bool) -> RenderedPattern {
        var pattern = rendered
        if pattern.mode == .rom, !engine.hasEffectLibrary || mixing { pattern.mode = .realTime }
        let scale = engine.policy.intensityScale
        if scale < 0.999 {
            pattern.mode = .realTime
            pattern.samples = pattern.samples.map { $0 * scale }
        }
        // Continuous sharpness reaches the actuator as its drive frequency where the chip has
        // one to set; elsewhere the report says it does not.
        if !pattern.driveSharpness.isEmpty {
            let rendering = engine.sharpnessRendering
            if rendering.band == nil || pattern.mode != .realTime { pattern.driveSharpness = [] }
            pattern.warnings.append(
                rendering.band.map { pattern.mode == .realTime ? $0.summary : "sharpness is not rendered: ROM clicks play at resonance" }
                    ?? "sharpness of continuous events is not rendered: \(rendering.unavailable)")
        }
        return pattern
    }

    /// What a player on `engine` would report about `rendered` before it plays: the rendering's
    /// warnings, and how this chip renders its sharpness (the drive-frequency band, or why not).
    public static func warnings(for rendered: RenderedPattern, on engine: HapticEngine, mixing: Bool = false) -> [String] {
        playable(rendered, on: engine, mixing: mixing).warnings
    }

    /// The rendering played now (under `state`'s lock).
    func playing(_ state: State) -> RenderedPattern { state.rendering ?? pattern }

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
        let token: (UInt64, EngineCore.MixMembership?)? = state.withLock { state in
            guard case .playing = state.status else { return nil }
            state.pausedOffset = position(state, now)
            state.status = .paused
            let token = state.token
            let membership = state.membership
            state.token = nil
            state.membership = nil
            return token.map { ($0, membership) }
        }
        if let (token, membership) = token { engine.release(token, membership: membership) }
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
        let isPlaying = state.withLock { state -> Bool in
            let pattern = playing(state)
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
        if isPlaying {
            replaceSounds(from: target, at: now)
            wakeWork()
        }
    }

    /// Runs `pump` now: the next write was timed for the old position or rate.
    func wakeWork() {
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
}
