// SPDX-License-Identifier: Apache-2.0

import Foundation
import Haptics
import HardwareAccess

/// The pages connected over the WebSocket: "feel while dragging" taps and their latency, ROM
/// auditions, and stop. When the last page goes away, the actuator is stopped: a studio left
/// looping a pattern in a closed tab must not keep the motor running.
public final class StudioLive: Sendable {
    /// A message from a page.
    public struct Message: Decodable, Sendable {
        /// `feel`, `audition`, `vary` (the live sliders: intensity and sharpness sent to the pattern
        /// playing) or `stop`.
        public var type: String
        /// Echoed back, so the page can match replies and time them.
        public var seq: Int?
        public var intensity: Double?
        public var sharpness: Double?
        public var effect: Int?
    }

    /// A reply to a page.
    public struct Reply: Codable, Sendable, Equatable {
        /// `hello`, `felt`, `auditioned`, `varied`, `stopped` or `error`.
        public var type: String
        public var seq: Int?
        /// `played`, or why the tap was dropped (the page shows it).
        public var outcome: String?
        /// Time spent in the server, from message to chip, in microseconds.
        public var serverMicroseconds: Double?
        public var device: String?
        public var simulated: Bool?
        public var error: String?
        /// In `hello`: the release serving the page (`SwiftHaptics.version`).
        public var version: String?
    }

    public let playback: StudioPlayback
    private let pages = Locked(0)

    /// Live control of `playback`'s chip.
    public init(playback: StudioPlayback) {
        self.playback = playback
    }

    /// Pages connected now.
    public var pageCount: Int { pages.withLock { $0 } }

    /// A page connected: counts it and returns the greeting it is sent.
    public func connected() -> Reply {
        pages.withLock { $0 += 1 }
        return Reply(
            type: "hello", device: playback.device.origin, simulated: playback.device.isSimulated,
            version: SwiftHaptics.version)
    }

    /// A page went away; the last one leaving stops the actuator. Returns whether it was the last.
    @discardableResult
    public func disconnected() -> Bool {
        let last = pages.withLock { count -> Bool in
            count = max(0, count - 1)
            return count == 0
        }
        if last { playback.stop() }
        return last
    }

    /// Answers one text message.
    public func handle(_ text: String) -> Reply {
        guard text.utf8.count <= 4096, let message = try? JSONDecoder().decode(Message.self, from: Data(text.utf8)) else {
            return Reply(type: "error", error: "not a studio message: expected JSON like {\"type\":\"feel\",\"intensity\":0.5,\"sharpness\":0.5}")
        }
        let clock = playback.device.engine.clock
        let start = clock.now
        do {
            switch message.type {
            case "feel":
                let outcome = try playback.feel(intensity: message.intensity ?? .nan, sharpness: message.sharpness ?? .nan)
                return Reply(
                    type: "felt", seq: message.seq, outcome: String(describing: outcome),
                    serverMicroseconds: clock.now.duration(since: start).secondsDouble * 1e6)
            case "audition":
                let outcome = try playback.audition(effect: message.effect ?? 0)
                return Reply(type: "auditioned", seq: message.seq, outcome: String(describing: outcome))
            case "stop":
                return Reply(type: "stopped", seq: message.seq, outcome: playback.stop() ? "stopped" : "not confirmed: the chip did not answer")
            case "vary":
                try playback.vary(intensity: message.intensity, sharpness: message.sharpness)
                return Reply(type: "varied", seq: message.seq, outcome: "sent", serverMicroseconds: clock.now.duration(since: start).secondsDouble * 1e6)
            default:
                return Reply(type: "error", seq: message.seq, error: "unknown message type \(message.type); expected feel, audition, vary or stop")
            }
        } catch {
            return Reply(type: "error", seq: message.seq, error: "\(error)")
        }
    }
}
