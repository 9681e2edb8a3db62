// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// How much a feedback matters, highest first: what decides who gets the one actuator when
/// several applications want it (Android's usage classes, feedbackd's event kinds).
public enum Importance: String, Codable, Sendable, CaseIterable, Comparable {
    /// An alarm going off: beats everything.
    case alarm
    /// A ringing phone or an incoming call.
    case call
    /// A message, a reminder, a battery warning.
    case notification
    /// Feedback on something the user just touched (a button, a slider's detent).
    case ui
    /// Games, music, background texture: played when nothing else wants the actuator.
    case ambient

    /// Higher is more important.
    var rank: Int {
        switch self {
        case .alarm: return 4
        case .call: return 3
        case .notification: return 2
        case .ui: return 1
        case .ambient: return 0
        }
    }

    /// Less important first.
    public static func < (lhs: Importance, rhs: Importance) -> Bool { lhs.rank < rhs.rank }

    /// The quietest profile this importance still plays in. Stacked as feedbackd stacks themes:
    /// `full` plays everything, `quiet` only what is meant to reach a user who asked for calm
    /// (notifications, calls, alarms), `silent` nothing, unless the request is `important`.
    var quietestProfile: FeedbackProfile {
        switch self {
        case .alarm, .call, .notification: return .quiet
        case .ui, .ambient: return .full
        }
    }
}

/// How much feedback a user wants, per application and for the whole system (feedbackd's levels).
public enum FeedbackProfile: String, Codable, Sendable, CaseIterable, Comparable {
    /// Every feedback.
    case full
    /// Only notifications, calls and alarms.
    case quiet
    /// None, except important alarms and calls.
    case silent

    var level: Int {
        switch self {
        case .full: return 2
        case .quiet: return 1
        case .silent: return 0
        }
    }

    /// Quieter first.
    public static func < (lhs: FeedbackProfile, rhs: FeedbackProfile) -> Bool { lhs.level < rhs.level }
}

/// Decides which requests reach the actuator: the profiles first, then importance against what
/// is playing. Pure state on the daemon's clock, so it is tested on a virtual one.
///
/// - A playing feedback of higher importance is not interrupted by a lower one (the newcomer is
///   dropped and told why), as Android keeps a ringing alarm.
/// - Equal or higher importance replaces what plays: the newest UI feedback is the one the
///   user's finger is on.
/// - The effective profile is the quieter of the global one and the application's.
/// - Patterns that ask to mix (`ServiceRequest.mix`) play together when both asked and are of the
///   same importance: the newcomer joins what plays (`mixed`) instead of replacing it, as Core
///   Haptics' engine plays several players at once. Any other admitted request replaces them all.
public struct ServiceArbiter: Sendable {
    /// Everyone's profile (`haptic profile --global`, or the daemon's option).
    public var globalProfile: FeedbackProfile = .full
    /// Per application, as each set it.
    public private(set) var appProfiles: [String: FeedbackProfile] = [:]
    /// The applications whose `important` requests of alarm and call importance may play through
    /// a profile that would silence them (feedbackd's `allow-important`); nil: every application's.
    public var importantApps: Set<String>?

    /// Whether `app`'s `important` hint counts.
    public func allowsImportant(for app: String) -> Bool {
        importantApps.map { $0.contains(app) } ?? true
    }

    /// What the actuator is doing, as far as arbitration is concerned.
    public struct Playing: Sendable, Equatable {
        /// How much it matters.
        public var importance: Importance
        /// The application it plays for.
        public var app: String
        /// The connection it came from: its leaving stops it.
        public var client: Int
        /// When it will have finished by itself.
        public var until: ClockInstant
        /// A pattern that asked to mix with others (`ServiceRequest.mix`).
        public var mixes = false
    }
    /// What plays, as far as arbitration knows (it may have ended by itself: see `current(at:)`).
    public private(set) var playing: Playing?
    /// The patterns mixed with `playing`, each another client's (all of `playing`'s importance).
    public private(set) var mixed: [Playing] = []

    /// Whether a request may play, and if not why.
    public enum Verdict: Sendable, Equatable {
        case play
        case drop(String)
    }

    /// Everything at `full`, nothing playing, important requests allowed.
    public init() {}

    /// Sets `app`'s profile (`nil` forgets it).
    public mutating func setProfile(_ profile: FeedbackProfile?, for app: String) {
        appProfiles[app] = profile
    }

    /// The profile that applies to `app`: the quieter of the global one and its own.
    public func effectiveProfile(for app: String) -> FeedbackProfile {
        min(globalProfile, appProfiles[app] ?? .full)
    }

    /// Decides on a request of `importance` from `app` on connection `client` that would play for
    /// `length`, at `now`. On `.play` the request becomes what is playing. `profile` is the
    /// request's own hint (feedbackd's `profile`): it can make the request quieter, never louder.
    /// `checksProfile` false leaves the profile out (a theme already chose by it).
    /// `mixes`: a pattern that asks to mix; it joins a mixing pattern of the same importance
    /// that plays (`mixed`), which goes on.
    public mutating func admit(
        _ importance: Importance, app: String, client: Int, important: Bool = false,
        length: Duration, now: ClockInstant, profile hint: FeedbackProfile? = nil, checksProfile: Bool = true,
        mixes: Bool = false
    ) -> Verdict {
        let profile = min(effectiveProfile(for: app), hint ?? .full)
        let overrides = important && allowsImportant(for: app) && importance >= .call
        if checksProfile && profile < importance.quietestProfile && !overrides {
            let whose =
                hint.map { $0 == profile } == true && profile < effectiveProfile(for: app)
                ? "the request's profile hint"
                : profile == globalProfile && (appProfiles[app] ?? .full) >= globalProfile ? "the global profile" : "\(app)'s profile"
            return .drop("\(whose) is \(profile.rawValue), and \(importance.rawValue) feedback plays only in \(importance.quietestProfile.rawValue) or louder")
        }
        forgetEnded(at: now)
        if let current = playing, current.importance > importance {
            return .drop("a \(current.importance.rawValue) feedback of \(current.app) is playing, and \(importance.rawValue) feedback does not interrupt it")
        }
        let newcomer = Playing(importance: importance, app: app, client: client, until: now.advanced(by: length), mixes: mixes)
        if mixes, let current = playing, current.mixes, current.importance == importance, current.client != client {
            mixed.append(newcomer)
            return .play
        }
        playing = newcomer
        mixed = []
        return .play
    }

    /// Forgets what has finished by itself; a mixed pattern outliving the first takes its place.
    private mutating func forgetEnded(at now: ClockInstant) {
        mixed.removeAll { now >= $0.until }
        if let current = playing, now >= current.until { playing = mixed.isEmpty ? nil : mixed.removeFirst() }
    }

    /// What plays at `now`, if anything (finished feedback is forgotten).
    public mutating func current(at now: ClockInstant) -> Playing? {
        forgetEnded(at: now)
        return playing
    }

    /// Keeps what `client` plays for longer (a feedback repeated until it is ended).
    public mutating func extend(client: Int, until instant: ClockInstant) {
        if playing?.client == client { playing?.until = instant }
        for index in mixed.indices where mixed[index].client == client { mixed[index].until = instant }
    }

    /// A feedback ended early (stopped, failed): what it had of the actuator is free (a pattern
    /// mixed with it plays on, in its place).
    public mutating func ended(client: Int) {
        mixed.removeAll { $0.client == client }
        if playing?.client == client { playing = mixed.isEmpty ? nil : mixed.removeFirst() }
    }

    /// Whether what plays belongs to `client` (its leaving must stop the actuator), mixed or not.
    public func isPlaying(client: Int, at now: ClockInstant) -> Bool {
        ([playing].compactMap { $0 } + mixed).contains { $0.client == client && now < $0.until }
    }
}
