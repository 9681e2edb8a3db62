// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// The engine generators use when none is given, as UIKit's generators use the device's Taptic
/// Engine. Set it once at start-up (`HapticEngine.shared = engine`); with none set, generators
/// drop their requests with one log line, as iOS does on a device without haptics.
extension HapticEngine {
    private static let sharedEngine = Locked<HapticEngine?>(nil)
    public static var shared: HapticEngine? {
        get { sharedEngine.withLock { $0 } }
        set { sharedEngine.withLock { $0 = newValue } }
    }
}

/// Where feedback goes: an engine in this process (`HapticEngine`), or the system service that
/// owns the chip for every program (HapticsService's `ServiceFeedbackTarget`). Generators and
/// `SensoryFeedback` work the same on either.
public protocol FeedbackTarget: AnyObject, Sendable {
    /// Plays `feedback` now; says whether it was played and if not why.
    @discardableResult func play(_ feedback: Feedback) -> FeedbackOutcome
    /// Readies the chip for `feedback` in the next few seconds, on behalf of `holder`.
    func prepare(_ feedback: Feedback, holder: ObjectIdentifier?)
    /// `holder` (a generator) is gone: its preparation may lapse.
    func releasePreparation(holder: ObjectIdentifier)
}

extension HapticEngine: FeedbackTarget {}

/// The target of generators made without an engine: `HapticEngine.shared` when one is set, else
/// the target set here (an app that uses the system service sets it once at start-up, e.g. with
/// `ServiceFeedbackTarget.connectIfRunning()`).
public enum FeedbackTargets {
    private static let fallback = Locked<(any FeedbackTarget)?>(nil)
    /// Used when `HapticEngine.shared` is nil.
    public static var service: (any FeedbackTarget)? {
        get { fallback.withLock { $0 } }
        set { fallback.withLock { $0 = newValue } }
    }
    /// What a generator without an engine of its own uses.
    public static var current: (any FeedbackTarget)? { HapticEngine.shared ?? service }
}

/// Base of the generators: a cheap handle onto an engine (or the system service). Releasing the
/// last generator that prepared lets the chip go back to standby, as Apple documents for deallocation.
public class FeedbackGenerator: @unchecked Sendable {
    // Immutable after init; the target is thread-safe.
    let target: (any FeedbackTarget)?
    private let soundOutput = Locked<FeedbackSounds?>(nil)

    init(engine: HapticEngine?) { target = engine ?? FeedbackTargets.current }

    deinit { target?.releasePreparation(holder: ObjectIdentifier(self)) }

    /// Themed sounds played with the feedback that has one (success, warning, error...), off
    /// by default. With sounds on, such a feedback is felt when its sound is heard: the sound
    /// engine's lead time after the call (the call itself returns at once).
    public var sounds: FeedbackSounds? {
        get { soundOutput.withLock { $0 } }
        set { soundOutput.withLock { $0 = newValue } }
    }

    func prepare(for feedback: Feedback) { target?.prepare(feedback, holder: ObjectIdentifier(self)) }
    func fire(_ feedback: Feedback) {
        guard let target else { return }
        guard let sounds, let at = sounds.placeAhead(feedback) else {
            target.play(feedback)
            return
        }
        target.prepare(feedback, holder: ObjectIdentifier(self))
        let clock = sounds.engine.clock
        _ = clock.schedule(WorkOptions(name: "haptics-feedback-with-sound")) {
            if clock.now < at { return at }
            target.play(feedback)
            return nil
        }
    }
}

/// A collision, as `UIImpactFeedbackGenerator`.
public final class ImpactFeedbackGenerator: FeedbackGenerator, @unchecked Sendable {
    /// How heavy the colliding objects feel (light, medium, heavy, soft, rigid).
    public let style: ImpactStyle
    /// A generator of `style` impacts on `engine` (default: `HapticEngine.shared`).
    public init(style: ImpactStyle = .medium, engine: HapticEngine? = nil) {
        self.style = style
        super.init(engine: engine)
    }
    /// Readies the chip for an impact in the next few seconds, so that the impact is one bus
    /// write (or one IN/TRIG edge) instead of a wake and a load.
    public func prepare() { prepare(for: .impact(style)) }
    /// Plays the impact now, at full intensity. Never throws: what cannot be played is dropped
    /// with one log line (the engine's `play` returns why, for callers that need to know).
    public func impactOccurred() { fire(.impact(style)) }
    /// Plays the impact now at `intensity` 0...1 (clamped); below full intensity the mapping
    /// plays a scaled waveform (see the README's mapping table).
    public func impactOccurred(intensity: Double) { fire(.impact(style, intensity: intensity)) }
}

/// Movement through discrete values, as `UISelectionFeedbackGenerator`. Play it when the
/// selection changes, not when it is confirmed.
public final class SelectionFeedbackGenerator: FeedbackGenerator, @unchecked Sendable {
    /// A generator on `engine` (default: `HapticEngine.shared`).
    public override init(engine: HapticEngine? = nil) { super.init(engine: engine) }
    /// Readies the chip for the next selection change (a picker starting to move).
    public func prepare() { prepare(for: .selection) }
    /// One light tick for a changed selection. Changes closer together than the policy's
    /// selection interval are coalesced, so a fast-spinning picker does not turn into a buzz.
    public func selectionChanged() { fire(.selection) }
}

/// The outcome of a task, as `UINotificationFeedbackGenerator`.
public final class NotificationFeedbackGenerator: FeedbackGenerator, @unchecked Sendable {
    /// A generator on `engine` (default: `HapticEngine.shared`).
    public override init(engine: HapticEngine? = nil) { super.init(engine: engine) }
    /// Readies the chip for a notification in the next few seconds (success is preloaded; the
    /// others need one more write when they come).
    public func prepare() { prepare(for: .notification(.success)) }
    /// Plays the pattern for `type`: success, warning or error, each distinct by rhythm.
    public func notificationOccurred(_ type: NotificationType) { fire(.notification(type)) }
}

/// Drawing-canvas events, as `UICanvasFeedbackGenerator`.
public final class CanvasFeedbackGenerator: FeedbackGenerator, @unchecked Sendable {
    /// A generator on `engine` (default: `HapticEngine.shared`).
    public override init(engine: HapticEngine? = nil) { super.init(engine: engine) }
    /// Readies the chip for a snap to a guide.
    public func prepare() { prepare(for: .alignment) }
    /// A dragged item snapped to a guide or another item.
    public func alignmentOccurred() { fire(.alignment) }
    /// A drawn path was closed or finished.
    public func pathCompleted() { fire(.pathCompleted) }
}
