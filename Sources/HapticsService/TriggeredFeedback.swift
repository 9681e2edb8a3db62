// SPDX-License-Identifier: Apache-2.0

import Haptics
import HardwareAccess

/// A feedback started by id and ended later: feedbackd's `TriggerFeedback` / `EndFeedback` /
/// `FeedbackEnded`, as the D-Bus service and the socket's version 2 ask for it.
///
/// A trigger answers at once with an id; the feedback plays on the engine's clock (a virtual
/// one in tests) once, for `timeout` seconds, or until it is ended, and its end is reported
/// exactly once, with the reason.
public struct FeedbackTrigger: Sendable, Equatable {
    /// The application asking (feedbackd's `app_id`); profiles are kept per application.
    public var app: String
    /// A feedbackd event name (`button-pressed`, `phone-incoming-call`...).
    public var event: String
    /// feedbackd's timeout in seconds: -1 plays the feedback once, 0 repeats it until it is ended,
    /// N repeats it for N seconds.
    public var timeout: Int
    /// The `profile` hint: the event plays as if the profile were at most this loud.
    public var profile: FeedbackProfile?
    /// The `important` hint: an alarm or a call plays through a profile that would silence it,
    /// where the daemon allows it.
    public var important: Bool
    /// The `sound-file` hint: a sound file heard instead of the theme's sound for the event, when
    /// the effective profile is full and hapticd plays sound.
    public var soundFile: String?

    /// A trigger of `event` for `app`.
    public init(
        app: String, event: String, timeout: Int = -1, profile: FeedbackProfile? = nil, important: Bool = false, soundFile: String? = nil
    ) {
        self.app = app
        self.event = event
        self.timeout = timeout
        self.profile = profile
        self.important = important
        self.soundFile = soundFile
    }
}

/// Why a triggered feedback ended: feedbackd's reasons, with its numbers (libfeedback's
/// `LfbEventEndReason`; on D-Bus as an unsigned 32-bit value, so -1 travels as 0xFFFFFFFF).
public enum FeedbackEndReason: Int32, Sendable, CaseIterable {
    /// Nothing was played: an unknown event, a profile that silences it, or a more important
    /// feedback holding the actuator.
    case notFound = -1
    /// It played to its end (or a newer feedback of equal or higher importance took the actuator).
    case natural = 0
    /// Its timeout passed.
    case expired = 1
    /// It was ended by its client (`EndFeedback`), or its client went away.
    case explicit = 2

    /// The value on D-Bus (`u`).
    public var wireValue: UInt32 { UInt32(bitPattern: rawValue) }

    /// The name in the socket protocol's pushed message: `not-found`, `natural`, `expired`, `explicit`.
    public var name: String {
        switch self {
        case .notFound: return "not-found"
        case .natural: return "natural"
        case .expired: return "expired"
        case .explicit: return "explicit"
        }
    }

    /// The reason named `name`.
    public init?(name: String) {
        guard let reason = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = reason
    }
}

/// What an event plays: one of the stack's feedbacks, or a theme's vibration.
enum EventFeedback: Sendable {
    case feedback(Feedback)
    case pattern(HapticPattern)
}

/// An event resolved: what it plays, how much it matters, whether a theme chose it by the
/// profile, the sound heard with it (a theme's `Sound`, or the `sound-file` hint), and how long
/// it runs at least with nothing played (a theme's `Dummy`).
struct ResolvedEvent: Sendable {
    var what: EventFeedback
    var importance: Importance
    var themed: Bool
    var sound: String?
    var silentSeconds: Double = 0
}

/// The feedbacks started by `trigger` that have not ended yet.
final class TriggeredFeedbacks: Sendable {
    struct Run: Sendable {
        /// The arbiter's key for it: unique among the server's clients and runs.
        var arbiterKey: Int
        /// Who may end it as a group (a D-Bus peer, a socket connection).
        var owner: String
        var ended: @Sendable (UInt32, FeedbackEndReason) -> Void
        var work: ScheduledWork?
        /// The theme's pattern playing now, for a themed event.
        var player: PatternPlayer?
        /// The sounds placed for it (stopped when it is ended early).
        var sounds: [Int] = []
    }

    let runs = Locked<[UInt32: Run]>([:])
    let nextID = Locked<UInt32>(0)
    /// The run of the last `Vibrate` (feedbackd's haptic interface plays one at a time).
    let hapticInterfaceRun = Locked<UInt32?>(nil)

    /// Takes run `id` out (once): whoever gets it reports the end.
    func remove(_ id: UInt32) -> Run? { runs.withLock { $0.removeValue(forKey: id) } }
}

extension HapticServer {
    /// How long a repeated feedback rests between repetitions: a ringing phone's rhythm, felt as
    /// separate buzzes rather than one hum.
    public static let repeatPause: Duration = .milliseconds(500)

    /// Starts `trigger` for `owner` and returns its id at once; `ended` is called once, from the
    /// engine's clock or from the caller of `endTriggered`, when it ends and why. Nothing played
    /// (an unknown event, a silencing profile, a more important feedback playing) ends it at once
    /// with `.notFound`, after the id is returned, as feedbackd does.
    public func trigger(
        _ trigger: FeedbackTrigger, owner: String, ended: @escaping @Sendable (UInt32, FeedbackEndReason) -> Void
    ) -> UInt32 {
        let resolved = resolve(trigger)
        if resolved == nil {
            logger.info("hapticd: \(trigger.app) triggered '\(trigger.event)', which nothing plays here (not a known event, or silenced by the theme)")
        }
        return start(trigger, resolved, owner: owner, ended: ended).id
    }

    /// Starts what `resolved` plays for `trigger` (nil: nothing, ended at once as not found).
    /// Returns the id and whether it plays.
    func start(
        _ trigger: FeedbackTrigger, _ resolved: ResolvedEvent?, owner: String, ended: @escaping @Sendable (UInt32, FeedbackEndReason) -> Void
    ) -> (id: UInt32, plays: Bool) {
        let id = triggered.nextID.withLock { last -> UInt32 in
            last = last == UInt32.max ? 1 : last + 1
            return last
        }
        let key = newClientID()
        let clock = engine.clock
        let received = clock.now
        guard let resolved else {
            counts.withLock { $0.dropped += 1 }
            return (endAtOnce(id, owner: owner, key: key, ended: ended), false)
        }
        let (what, eventImportance, themed) = (resolved.what, resolved.importance, resolved.themed)
        let sound = resolved.sound.flatMap { name in options.sounds.flatMap { sounds in sounds.sound(named: name).map { (sounds, $0) } } }
        let rendered: RenderedPattern?
        let length: Duration
        switch what {
        case let .feedback(feedback):
            rendered = nil
            length = engine.plan(for: feedback)?.estimatedDuration ?? .milliseconds(50)
        case let .pattern(pattern):
            let render = PatternRenderer().render(pattern)
            rendered = render
            length = .secondsClamped(render.playedSeconds)
        }
        let repeats = trigger.timeout >= 0
        // A theme's Dummy runs the event that long with nothing played (the arbiter is held for
        // the vibration alone).
        let runs = max(length, .secondsClamped(resolved.silentSeconds))
        let deadline: ClockInstant? = trigger.timeout > 0 ? received.advanced(by: .seconds(trigger.timeout)) : nil
        // The arbiter holds the actuator for one play, the timeout, or (repeating until ended) an hour
        // at a time, renewed at each repetition.
        let held: Duration = !repeats ? length : deadline.map { $0.duration(since: received) } ?? .seconds(3600)
        let verdict = arbiter.withLock { arbiter -> ServiceArbiter.Verdict in
            let hinted = trigger.profile.map { min($0, arbiter.effectiveProfile(for: trigger.app)) }
            // A themed event's profile was the theme's to decide (the part it is in).
            return arbiter.admit(
                eventImportance, app: trigger.app, client: key, important: trigger.important, length: held, now: received,
                profile: hinted, checksProfile: !themed)
        }
        if case let .drop(reason) = verdict {
            logger.info("hapticd: \(trigger.event) for \(trigger.app) not played: \(reason)")
            counts.withLock { $0.dropped += 1 }
            return (endAtOnce(id, owner: owner, key: key, ended: ended), false)
        }
        triggered.runs.withLock { $0[id] = TriggeredFeedbacks.Run(arbiterKey: key, owner: owner, ended: ended, work: nil) }
        // The step plays, then comes back when the play is over (once) or for the next repetition.
        // With a sound, each play first places the sound the sound engine's lead time ahead and
        // comes back at that instant, so the vibration is felt as the sound is heard.
        let plays = Locked(0)
        let soundPlaced = Locked(false)
        // The step holds the server only while the feedback runs: its work drops it when it ends
        // or is cancelled (a weak reference here also shows as a leak under LeakSanitizer: the
        // side table it makes is reached through a tagged pointer LeakSanitizer does not follow).
        let work = clock.schedule(WorkOptions(name: "hapticd-trigger")) { [self] () -> ClockInstant? in
            let now = clock.now
            let count = plays.withLock { $0 }
            let current = self.arbiter.withLock { $0.playing?.client == key }
            if count > 0 && !current {
                // Over by itself (once), or another feedback took the actuator.
                self.finish(id, .natural, stopping: false)
                return nil
            }
            if let deadline, now >= deadline {
                self.finish(id, .expired, stopping: true)
                return nil
            }
            if count > 0 && !repeats {
                self.finish(id, .natural, stopping: false)
                return nil
            }
            if let (sounds, sound) = sound, !soundPlaced.withLock({ $0 }) {
                soundPlaced.withLock { $0 = true }
                let at = now.advanced(by: sounds.engine.leadTime)
                let handle = sounds.engine.play(sound, at: at)
                self.triggered.runs.withLock { $0[id]?.sounds.append(handle) }
                return at
            }
            soundPlaced.withLock { $0 = false }
            switch what {
            case let .feedback(feedback):
                if case let .dropped(reason) = self.engine.play(feedback) {
                    self.logger.info("hapticd: \(trigger.event) for \(trigger.app): \(reason)")
                    self.counts.withLock { $0.dropped += 1 }
                    self.finish(id, count == 0 ? .notFound : .natural, stopping: false)
                    return nil
                }
            case let .pattern(pattern):
                guard let rendered else { return nil }
                // A theme's event with a sound and no vibration: the sound alone.
                guard !pattern.events.isEmpty else { break }
                let player = PatternPlayer(engine: self.engine, pattern: rendered, source: PatternSource(pattern: pattern))
                self.triggered.runs.withLock { $0[id]?.player = player }
                player.start()
            }
            if count == 0 { self.counts.withLock { $0.played += 1 } }
            plays.withLock { $0 += 1 }
            var next = now.advanced(by: repeats ? runs + Self.repeatPause : runs)
            if repeats && deadline == nil {
                self.arbiter.withLock { $0.extend(client: key, until: next.advanced(by: .seconds(3600))) }
            }
            if let deadline { next = min(next, deadline) }
            return next
        }
        triggered.runs.withLock { $0[id]?.work = work }
        return (id, true)
    }

    /// Ends triggered feedback `id` (`EndFeedback`): the actuator stops if it is what plays, and
    /// `ended` is called with `.explicit`. Returns false when no such feedback plays (it ended
    /// already, or never was).
    @discardableResult
    public func endTriggered(_ id: UInt32) -> Bool {
        finish(id, .explicit, stopping: true)
    }

    /// Ends every triggered feedback of `owner` (a client that left the bus or the socket).
    public func endTriggered(owner: String) {
        let ids = triggered.runs.withLock { runs in runs.filter { $0.value.owner == owner }.map(\.key) }
        for id in ids { finish(id, .explicit, stopping: true) }
    }

    /// The triggered feedbacks that have not ended.
    public var triggeredCount: Int { triggered.runs.withLock { $0.count } }

    /// Reports `id` ended with `reason` (once), stopping the actuator first when asked and the
    /// feedback still holds it.
    @discardableResult
    func finish(_ id: UInt32, _ reason: FeedbackEndReason, stopping stops: Bool) -> Bool {
        guard let run = triggered.remove(id) else { return false }
        run.work?.cancel()
        run.player?.cancel()
        if stops, !run.sounds.isEmpty, let sounds = options.sounds { sounds.engine.stop(run.sounds) }
        let held = arbiter.withLock { arbiter -> Bool in
            let held = arbiter.playing?.client == run.arbiterKey
            if held { arbiter.ended(client: run.arbiterKey) }
            return held
        }
        if stops && held { engine.stop() }
        run.ended(id, reason)
        return true
    }

    /// What `trigger`'s event plays: the theme's vibration at the effective profile (its part
    /// decides, `themed` true), else the built-in feedback; its importance from the built-in table
    /// (a theme's own `x-` events: notification). Nil when nothing plays it: unknown, or the theme
    /// has it only in louder parts (an `important` alarm or call then plays the loudest part's,
    /// where the daemon allows the app). The sound: at a full profile the `sound-file` hint, else
    /// the theme's `Sound` in the parts allowed.
    func resolve(_ trigger: FeedbackTrigger) -> ResolvedEvent? {
        let (event, app) = (trigger.event, trigger.app)
        let mapping = FeedbackdEvent.mapping(for: event)
        let importance = mapping?.importance ?? .notification
        let (profile, allowsImportant) = arbiter.withLock { (min($0.effectiveProfile(for: app), trigger.profile ?? .full), $0.allowsImportant(for: app)) }
        let strength = min(max(options.maximumHapticStrength, 0), 1)
        let hinted = profile == .full ? trigger.soundFile : nil
        if let theme = currentTheme, theme.events.contains(event) {
            let sound = hinted ?? theme.sound(for: event, profile: profile)
            let silence = theme.silence(for: event, profile: profile)
            var pattern = theme.vibration(for: event, profile: profile)
            if pattern == nil && important(trigger, importance, allowsImportant) { pattern = theme.vibration(for: event, profile: .full) }
            guard pattern != nil || sound != nil || silence != nil else { return nil }
            return ResolvedEvent(
                what: .pattern((pattern ?? HapticPattern(events: [])).clamped(to: strength)), importance: importance, themed: true, sound: sound,
                silentSeconds: silence ?? 0)
        }
        guard let mapping else { return nil }
        return ResolvedEvent(what: .feedback(mapping.feedback), importance: importance, themed: false, sound: hinted)
    }

    private func important(_ trigger: FeedbackTrigger, _ importance: Importance, _ allowed: Bool) -> Bool {
        trigger.important && allowed && importance >= .call
    }

    /// An id whose feedback never started: its end is reported on the clock's next step, after
    /// the caller has the id.
    private func endAtOnce(
        _ id: UInt32, owner: String, key: Int, ended: @escaping @Sendable (UInt32, FeedbackEndReason) -> Void
    ) -> UInt32 {
        triggered.runs.withLock { $0[id] = TriggeredFeedbacks.Run(arbiterKey: key, owner: owner, ended: ended, work: nil) }
        let work = engine.clock.schedule(WorkOptions(name: "hapticd-trigger")) { [self] () -> ClockInstant? in
            finish(id, .notFound, stopping: false)
            return nil
        }
        triggered.runs.withLock { $0[id]?.work = work }
        return id
    }
}

extension HapticPattern {
    /// The pattern with no haptic event stronger than `strength` (feedbackd's
    /// `max-haptic-strength`: louder levels are clamped, quieter ones kept).
    func clamped(to strength: Double) -> HapticPattern {
        guard strength < 1 else { return self }
        var pattern = self
        for index in pattern.events.indices where pattern.events[index].type.isHaptic {
            pattern.events[index].intensity = min(pattern.events[index].intensity, strength)
        }
        return pattern
    }
}
