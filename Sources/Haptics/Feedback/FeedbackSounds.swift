// SPDX-License-Identifier: Apache-2.0

import Audio
import HardwareAccess

extension FeedbackKind {
    /// The freedesktop sound-theme name heard with this feedback, for the kinds that announce
    /// something (a notification, an alert, a completed path); nil for the many small ones (an
    /// impact, a selection tick) that are felt, not heard.
    public var themeSound: String? {
        switch self {
        case .notification(.success), .pathCompleted: return "complete"
        case .notification(.warning): return "dialog-warning"
        case .notification(.error), .taptic(.failed): return "dialog-error"
        case .vibration(.alert): return "message-new-instant"
        case .vibration(.default): return "phone-incoming-call"
        case .levelChange: return "audio-volume-change"
        default: return nil
        }
    }
}

/// Themed sounds for feedback, in step with the haptic: the sound is placed the sound engine's
/// lead time ahead, and the haptic triggered at that instant.
///
/// Shared by feedback generators, `haptic play --sound` and hapticd (which turns it on or off
/// with the profile: full plays sounds, quiet and silent do not).
public final class FeedbackSounds: Sendable {
    /// Where the sounds play.
    public let engine: SoundEngine
    /// Where feedback sounds are looked up.
    public let theme: SoundTheme
    private let cache = Locked<[String: Sound?]>([:])
    private let enabled: Locked<Bool>

    /// Themed sounds on `engine` from `theme`, on or off.
    public init(engine: SoundEngine, theme: SoundTheme = SoundTheme(), isOn: Bool = true) {
        self.engine = engine
        self.theme = theme
        enabled = Locked(isOn)
    }

    /// Whether sounds are played (a profile of `full`).
    public var isOn: Bool {
        get { enabled.withLock { $0 } }
        set { enabled.withLock { $0 = newValue } }
    }

    /// The decoded sound for `feedback` (decoded once), or nil: none themed, turned off by the
    /// theme, or not decodable.
    public func sound(for feedback: Feedback) -> Sound? {
        feedback.kind.themeSound.flatMap { sound(named: $0) }
    }

    /// The decoded sound `reference` names (decoded once): a name from the sound theme, a path or a
    /// `file://` URL (feedbackd's `sound-file` hint); nil when the theme disables it or it cannot be
    /// decoded.
    public func sound(named reference: String) -> Sound? {
        let isFile = reference.contains("/") || reference.contains(".")
        if !isFile, let cached = cache.withLock({ $0[reference] }) { return cached }
        let sound = (try? Sound.load(reference, theme: theme)) ?? nil
        // Theme names are few and cached; files are named by clients, so decoded each time.
        if !isFile { cache.withLock { $0[reference] = sound } }
        return sound
    }

    /// Places `feedback`'s sound, prepares `engine` for the feedback and waits until the sound is
    /// heard, so that the `play` that follows is felt with it; returns at once when no sound plays.
    /// For callers that trigger the haptic themselves (a command, the service's request thread).
    public func waitForSound(of feedback: Feedback, preparing engine: HapticEngine) {
        guard let at = placeAhead(feedback) else { return }
        engine.prepare(feedback)
        engine.clock.sleep(until: at)
    }

    /// Places `feedback`'s sound and returns the instant at which its haptic must be triggered
    /// to be felt with it; nil when no sound plays (the haptic then plays at once).
    public func placeAhead(_ feedback: Feedback) -> ClockInstant? {
        guard isOn, let sound = sound(for: feedback) else { return nil }
        let at = engine.clock.now.advanced(by: engine.leadTime)
        engine.play(sound, at: at)
        return at
    }
}
