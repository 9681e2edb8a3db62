// SPDX-License-Identifier: Apache-2.0

import Foundation
import Haptics

extension HapticServer {
    /// Limits that protect the daemon from its clients.
    public struct Options: Sendable {
        /// Clients served at once; one more gets a `busy` reply and is closed.
        public var maximumClients = 32
        /// Once a message has begun, the rest must arrive within this (a slow or half-open
        /// client is closed instead of holding a thread).
        public var messageDeadline: Duration = .seconds(2)
        /// A connected client that sends nothing for this long is closed.
        public var idleDeadline: Duration = .seconds(600)
        /// Longest pattern or sequence played for a client.
        public var maximumPlaySeconds = 120.0
        /// Themed sounds for the feedback that has one, played when the client's profile is
        /// `full` (quiet and silent: the haptic alone); nil: no sound (`hapticd --sound` sets it).
        public var sounds: FeedbackSounds?
        /// The strongest a feedbackd event's vibration or a `Vibrate` pattern drives the actuator,
        /// 0...1 (feedbackd's `max-haptic-strength`): louder levels are clamped to it.
        public var maximumHapticStrength = 1.0
        /// The applications whose `important` hint lets an alarm or a call through a profile that
        /// would silence it (feedbackd's `allow-important`); nil: every application's.
        public var importantApps: Set<String>?
        /// Where the global and per-application profiles are kept across restarts; nil: not kept.
        public var profileStore: ServiceProfileStore?
        /// The defaults above.
        public init() {}
    }

    /// Who is asking: one connection.
    public struct Client: Sendable {
        /// The connection's number (force feedback plays as a negative one).
        public var id: Int
        /// The application name used for profiles: the request's `app`, else the peer process's name.
        public var app: String
        /// The peer's user (SO_PEERCRED); a global profile change needs root or the daemon's user.
        public var uid: UInt32
        /// The connection, to notice the client leaving while its pattern plays; nil in tests
        /// that call `handle` directly.
        public var connection: UnixConnection?

        /// A client as the server sees it.
        public init(id: Int, app: String, uid: UInt32, connection: UnixConnection? = nil) {
            self.id = id
            self.app = app
            self.uid = uid
            self.connection = connection
        }
    }
}
