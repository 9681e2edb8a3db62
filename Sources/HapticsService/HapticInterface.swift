// SPDX-License-Identifier: Apache-2.0

import Haptics
import HardwareAccess

/// feedbackd's `org.sigxcpu.Feedback.Haptic` interface (feedbackd 0.6 and later): an application
/// vibrates the actuator with a pattern of its own (a game's rumble, a browser's
/// `navigator.vibrate`), rather than naming an event.
///
/// As feedbackd serves it: the pattern is relative magnitudes 0.0-1.0 (clamped) with durations in
/// ms, at most 10 pairs of at most 10 s each (the rest cut off); one such vibration plays at a
/// time (a new one replaces the last, an empty pattern ends it); it plays at the quiet profile or
/// louder, and an event's feedback takes the actuator from it. Here it is arbitrated as UI
/// feedback of its application, so a notification or a call playing refuses it, and the
/// `max-haptic-strength` clamps it.
extension HapticServer {
    /// Most (magnitude, duration) pairs a `Vibrate` pattern plays (feedbackd's limit).
    public static let vibrateMaximumPairs = 10
    /// Longest one pair of a `Vibrate` pattern lasts, in ms (feedbackd's limit).
    public static let vibrateMaximumMilliseconds: UInt32 = 10_000

    /// Plays `pairs` for `app` on behalf of `owner` (a D-Bus peer, whose leaving ends it); true
    /// when it plays (or, for an empty pattern, when the last one was ended), false when the
    /// profile is silent or a more important feedback holds the actuator.
    public func vibrate(app: String, pattern pairs: [(magnitude: Double, milliseconds: UInt32)], owner: String) -> Bool {
        if let previous = triggered.hapticInterfaceRun.withLock({ run in
            defer { run = nil }
            return run
        }) {
            finish(previous, .explicit, stopping: true)
        }
        guard !pairs.isEmpty else { return true }
        guard arbiter.withLock({ $0.effectiveProfile(for: app) }) >= .quiet else {
            logger.info("hapticd: Vibrate for \(app) not played: its profile is silent")
            counts.withLock { $0.dropped += 1 }
            return false
        }
        var events: [HapticPattern.Event] = []
        var time = 0.0
        for (magnitude, milliseconds) in pairs.prefix(Self.vibrateMaximumPairs) {
            let level = magnitude.isFinite ? min(max(magnitude, 0), 1) : 0
            let seconds = Double(min(milliseconds, Self.vibrateMaximumMilliseconds)) / 1000
            if level > 0 && seconds > 0 { events.append(.init(type: .hapticContinuous, time: time, duration: seconds, intensity: level)) }
            time += seconds
        }
        let pattern = HapticPattern(events: events).clamped(to: min(max(options.maximumHapticStrength, 0), 1))
        let resolved = ResolvedEvent(what: .pattern(pattern), importance: .ui, themed: true, sound: nil)
        let (id, plays) = start(FeedbackTrigger(app: app, event: "Vibrate"), resolved, owner: owner) { _, _ in }
        if plays { triggered.hapticInterfaceRun.withLock { $0 = id } }
        return plays
    }
}
