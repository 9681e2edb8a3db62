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

/// Base of the generators: a cheap handle onto an engine. Releasing the last generator that
/// prepared lets the chip go back to standby, as Apple documents for deallocation.
public class FeedbackGenerator: @unchecked Sendable {
    // Immutable after init; the engine is thread-safe.
    let engine: HapticEngine?

    init(engine: HapticEngine?) { self.engine = engine ?? HapticEngine.shared }

    deinit { engine?.releasePreparation(holder: ObjectIdentifier(self)) }

    func prepare(for feedback: Feedback) { engine?.prepare(feedback, holder: ObjectIdentifier(self)) }
    func fire(_ feedback: Feedback) { engine?.play(feedback) }
}

/// A collision, as `UIImpactFeedbackGenerator`.
public final class ImpactFeedbackGenerator: FeedbackGenerator, @unchecked Sendable {
    public let style: ImpactStyle
    public init(style: ImpactStyle = .medium, engine: HapticEngine? = nil) {
        self.style = style
        super.init(engine: engine)
    }
    /// Readies the chip for an impact in the next few seconds.
    public func prepare() { prepare(for: .impact(style)) }
    public func impactOccurred() { fire(.impact(style)) }
    /// `intensity` 0...1 (clamped).
    public func impactOccurred(intensity: Double) { fire(.impact(style, intensity: intensity)) }
}

/// Movement through discrete values, as `UISelectionFeedbackGenerator`. Play it when the
/// selection changes, not when it is confirmed.
public final class SelectionFeedbackGenerator: FeedbackGenerator, @unchecked Sendable {
    public override init(engine: HapticEngine? = nil) { super.init(engine: engine) }
    public func prepare() { prepare(for: .selection) }
    public func selectionChanged() { fire(.selection) }
}

/// The outcome of a task, as `UINotificationFeedbackGenerator`.
public final class NotificationFeedbackGenerator: FeedbackGenerator, @unchecked Sendable {
    public override init(engine: HapticEngine? = nil) { super.init(engine: engine) }
    public func prepare() { prepare(for: .notification(.success)) }
    public func notificationOccurred(_ type: NotificationType) { fire(.notification(type)) }
}

/// Drawing-canvas events, as `UICanvasFeedbackGenerator`.
public final class CanvasFeedbackGenerator: FeedbackGenerator, @unchecked Sendable {
    public override init(engine: HapticEngine? = nil) { super.init(engine: engine) }
    public func prepare() { prepare(for: .alignment) }
    public func alignmentOccurred() { fire(.alignment) }
    public func pathCompleted() { fire(.pathCompleted) }
}
