// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The requests a client sends to `hapticd`, one JSON object per frame (see
/// `docs/service-protocol.md`). Fields that do not apply to the operation are left out.
public struct ServiceRequest: Sendable, Equatable {
    /// What the client asks for.
    public enum Operation: String, Codable, Sendable, CaseIterable {
        /// Play one of `feedback`, `event`, `effect`, `sequence` or `pattern`.
        case play
        /// Wake the chip and preload `feedback` (or `event`), so the next play is one write.
        case prepare
        /// Stop what this client is playing; with `scope: global`, whatever plays, for every
        /// client (`haptic stop --socket`).
        case stop
        /// The chip, the profiles and what plays.
        case status
        /// Set `profile` for this client's application (`scope: app`) or for everyone (`global`).
        case profile
        /// Version 2: start `event` and answer at once with its `trigger` id; its end is pushed
        /// later as a message with `ended` (feedbackd's `TriggerFeedback`). `timeout`: -1 (the
        /// default) once, 0 until `end`, N seconds; `profile` is the hint, `important` as for play.
        case trigger
        /// Version 2: end triggered feedback `trigger` (feedbackd's `EndFeedback`).
        case end
        /// Core Haptics' dynamic parameters sent to the pattern this client's application is
        /// playing (from any connection of it): `intensity` multiplies, `sharpness`,
        /// `attackTime`, `decayTime` and `releaseTime` add, from `after` seconds from now (0: now).
        /// Refused, saying so, when the application plays no pattern.
        case parameters
    }

    /// The protocol version the client speaks; the daemon answers `unsupported-version` to any
    /// other.
    public var version: Int
    /// Echoed in the reply, for clients that pipeline.
    public var id: Int?
    /// What is asked.
    public var op: Operation
    /// The application the request comes from (feedbackd's `app_id`, e.g. `org.example.Kiosk`).
    /// Profiles are kept per application; without it the daemon uses the peer's process name.
    public var app: String?
    /// A feedback by the CLI's name: `impact-heavy`, `success`, `selection`...
    public var feedback: String?
    /// Intensity 0...1 for `feedback` (impacts); for `parameters`, HapticIntensityControl (0...1,
    /// multiplies).
    public var intensity: Double?
    /// For `parameters`: HapticSharpnessControl, −1...1, added to the events' sharpness.
    public var sharpness: Double?
    /// For `parameters`: HapticAttackTimeControl, −1...1, added to the events' attack times.
    public var attackTime: Double?
    /// For `parameters`: HapticDecayTimeControl, −1...1.
    public var decayTime: Double?
    /// For `parameters`: HapticReleaseTimeControl, −1...1.
    public var releaseTime: Double?
    /// For `parameters`: seconds from now at which the values take effect (0, the default: now).
    public var after: Double?
    /// A feedbackd event name: `button-pressed`, `message-new-instant`, `phone-incoming-call`...
    public var event: String?
    /// A ROM effect, 1-123.
    public var effect: Int?
    /// A sequence in the CLI's text form: `success, wait 0.5, impact-heavy`.
    public var sequence: String?
    /// An AHAP (or `.haptic`) document, as text.
    public var pattern: String?
    /// How much the feedback matters; events bring their own, the default is `ui`.
    public var importance: Importance?
    /// Asks to play even where the profile would silence it (alarm clocks); honoured only for
    /// alarm and call importance and when the daemon allows it.
    public var important: Bool?
    /// For a `pattern` play: mix it with the patterns other clients play that asked the same, as
    /// Core Haptics' engine mixes its players (summed, clipped to full scale), where the
    /// arbitration allows both: the same importance. Otherwise it is arbitrated as any play.
    public var mix: Bool?
    /// For `profile`.
    public var profile: FeedbackProfile?
    /// For `profile`: `app` (the default) or `global`; for `stop`: `global` stops every client's.
    public var scope: ProfileScope?
    /// For `trigger`: -1 once, 0 until ended, N seconds.
    public var timeout: Int?
    /// For `end`: the id `trigger` answered with.
    public var trigger: UInt32?

    /// A request of `op`, version 1; set the fields that apply.
    public init(_ op: Operation, version: Int = ServiceFrame.version) {
        self.version = version
        self.op = op
    }
}

/// Whether a profile change is for the client's application or for every application.
public enum ProfileScope: String, Codable, Sendable, CaseIterable {
    case app, global
}

/// The daemon's answer to one request.
public struct ServiceReply: Sendable, Equatable {
    /// Why a request was refused before anything was tried.
    public enum ErrorCode: String, Codable, Sendable, CaseIterable {
        /// Not JSON, a missing or wrong field, an unknown name.
        case badRequest = "bad-request"
        /// A frame longer than `ServiceFrame.maximumLength` (the connection is closed after).
        case tooLarge = "too-large"
        /// A `version` the daemon does not speak.
        case unsupportedVersion = "unsupported-version"
        /// The peer may not do this (a global profile needs root or the daemon's user).
        case notPermitted = "not-permitted"
        /// The chip failed; `reason` says how.
        case fault
        /// The daemon serves its maximum of clients; try again when one has left.
        case busy
    }

    /// The protocol version the daemon speaks.
    public var version = ServiceFrame.version
    /// The request's `id`, echoed.
    public var id: Int?
    /// True when the request did what it asked (`played` for a play).
    public var ok: Bool
    /// For play: `played` or `dropped`.
    public var outcome: String?
    /// Why it was dropped, or what went wrong, in words.
    public var reason: String?
    /// Set when the request was refused before anything was tried.
    public var error: ErrorCode?
    /// Seconds from receiving the request to the end of playback, for play.
    public var playedSeconds: Double?
    /// For status.
    public var status: ServiceStatus?
    /// For `trigger`: the id of the feedback started.
    public var trigger: UInt32?
    /// Set only in a pushed message (version 2), never in a reply: triggered feedback `ended`
    /// has ended, `endReason` says why.
    public var ended: UInt32?
    /// With `ended`: `not-found`, `natural`, `expired` or `explicit` (`FeedbackEndReason`).
    public var endReason: String?

    /// The message pushed when triggered feedback `id` ends.
    public static func endedMessage(_ id: UInt32, _ reason: FeedbackEndReason) -> ServiceReply {
        var message = ServiceReply(id: nil, ok: true)
        message.ended = id
        message.endReason = reason.name
        return message
    }

    /// A reply; `ok` says whether the request did what it asked.
    public init(id: Int?, ok: Bool, outcome: String? = nil, reason: String? = nil, error: ErrorCode? = nil) {
        self.id = id
        self.ok = ok
        self.outcome = outcome
        self.reason = reason
        self.error = error
    }

    /// A refusal with `code` and a message that says what to do.
    public static func failure(_ code: ErrorCode, _ message: String, id: Int? = nil) -> ServiceReply {
        ServiceReply(id: id, ok: false, reason: message, error: code)
    }
}

/// What `status` reports: the same facts as `haptic status --json`, plus the service's own.
public struct ServiceStatus: Sendable, Equatable {
    /// "simulated DRV2605L with an LRA", or the bus and address.
    public var device: String
    /// DRV2605L, DRV2605...
    public var part: String
    /// LRA or ERM.
    public var actuator: String
    /// STANDBY as the chip reports it.
    public var standby: Bool
    /// GO as the chip reports it: true while the sequencer plays.
    public var go: Bool
    /// The engine's belief: shutdown, standby or ready.
    public var power: String
    /// Everyone's profile.
    public var globalProfile: FeedbackProfile
    /// The profile of the asking client's application, if one was set.
    public var appProfile: FeedbackProfile?
    /// Connected clients.
    public var clients: Int
    /// What plays now and for whom, if anything.
    public var playing: String?
    /// Requests played since the daemon started.
    public var played: Int
    /// Requests dropped since the daemon started (arbitration, profiles, chip faults).
    public var dropped: Int
    /// Seconds the chip has been out of standby since the daemon started: what it cost in power,
    /// and proof after the fact that something drove it.
    public var awakeSeconds: Double
}
