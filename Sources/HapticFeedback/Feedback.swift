// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// The mass of colliding objects, as `UIImpactFeedbackGenerator.FeedbackStyle`.
public enum ImpactStyle: String, Sendable, CaseIterable {
    case light, medium, heavy, soft, rigid
}

/// The outcome of a task, as `UINotificationFeedbackGenerator.FeedbackType`.
public enum NotificationType: String, Sendable, CaseIterable {
    case success, warning, error
}

/// Piano's vibration notes (the old AudioServices vibrations).
public enum Vibration: String, Sendable, CaseIterable {
    /// A 1 s buzz.
    case `default`
    /// Two short buzzes.
    case alert
}

/// The first-generation Taptic Engine's system sounds, as Piano names them.
public enum TapticEngineFeedback: String, Sendable, CaseIterable {
    /// Weak.
    case peek
    /// Strong.
    case pop
    /// Three weak.
    case cancelled
    /// Weak then strong.
    case tryAgain
    /// Three strong.
    case failed
}

/// One haptic feedback, in Apple's vocabulary: what generators, `SensoryFeedback` values and
/// sequences hand to the engine.
public enum Feedback: Sendable, Hashable, CustomStringConvertible {
    case impact(ImpactStyle, intensity: Double = 1)
    case selection
    case notification(NotificationType)
    /// Canvas: an object snapped into alignment.
    case alignment
    /// Canvas: a drawn path completed or a shape was recognised.
    case pathCompleted
    /// SwiftUI: an important value rose above a threshold.
    case increase
    /// SwiftUI: an important value fell below a threshold.
    case decrease
    /// SwiftUI: an activity started.
    case start
    /// SwiftUI: an activity stopped.
    case stop
    /// SwiftUI: movement between discrete pressure levels.
    case levelChange
    case vibration(Vibration)
    case taptic(TapticEngineFeedback)

    /// Shorthands for the notification feedbacks, so `engine.play(.success)` reads as in SwiftUI.
    public static let success = Feedback.notification(.success)
    /// `.notification(.warning)`.
    public static let warning = Feedback.notification(.warning)
    /// `.notification(.error)`.
    public static let error = Feedback.notification(.error)

    /// The key the mapping table is indexed by (intensity aside).
    public var kind: FeedbackKind {
        switch self {
        case let .impact(style, _): return .impact(style)
        case .selection: return .selection
        case let .notification(type): return .notification(type)
        case .alignment: return .alignment
        case .pathCompleted: return .pathCompleted
        case .increase: return .increase
        case .decrease: return .decrease
        case .start: return .start
        case .stop: return .stop
        case .levelChange: return .levelChange
        case let .vibration(vibration): return .vibration(vibration)
        case let .taptic(taptic): return .taptic(taptic)
        }
    }

    /// 0...1: how strongly to play (impacts only; others play at full strength).
    public var intensity: Double {
        if case let .impact(_, intensity) = self { return intensity.isFinite ? min(1, max(0, intensity)) : 1 }
        return 1
    }

    /// The CLI name, with the intensity when it is not full: "impact-heavy at 0.4".
    public var description: String {
        if case let .impact(style, intensity) = self, intensity < 1 {
            return "impact-\(style.rawValue) at \(intensity)"
        }
        return kind.name
    }

    /// Parses the CLI names: "success", "impact-heavy", "taptic-peek", "vibration-alert", …
    public init?(name: String, intensity: Double = 1) {
        guard let kind = FeedbackKind.all.first(where: { $0.name.sameBytes(as: name.asciiLowercased()) }) else { return nil }
        self.init(kind: kind, intensity: intensity)
    }

    /// The feedback of `kind`; `intensity` matters for impacts only.
    public init(kind: FeedbackKind, intensity: Double = 1) {
        switch kind {
        case let .impact(style): self = .impact(style, intensity: intensity)
        case .selection: self = .selection
        case let .notification(type): self = .notification(type)
        case .alignment: self = .alignment
        case .pathCompleted: self = .pathCompleted
        case .increase: self = .increase
        case .decrease: self = .decrease
        case .start: self = .start
        case .stop: self = .stop
        case .levelChange: self = .levelChange
        case let .vibration(vibration): self = .vibration(vibration)
        case let .taptic(taptic): self = .taptic(taptic)
        }
    }
}

/// A feedback without its intensity: a row of the mapping table.
public enum FeedbackKind: Sendable, Hashable, CustomStringConvertible {
    case impact(ImpactStyle)
    case selection
    case notification(NotificationType)
    case alignment, pathCompleted, increase, decrease, start, stop, levelChange
    case vibration(Vibration)
    case taptic(TapticEngineFeedback)

    /// Every kind, in the order the demo plays them.
    public static let all: [FeedbackKind] =
        ImpactStyle.allCases.map { .impact($0) } + [.selection] + NotificationType.allCases.map { .notification($0) }
        + [.alignment, .pathCompleted, .increase, .decrease, .start, .stop, .levelChange]
        + Vibration.allCases.map { .vibration($0) } + TapticEngineFeedback.allCases.map { .taptic($0) }

    /// The kind's place in `all`: what equality and hashing compare. The payloads are enums
    /// with string raw values, which the standard library would compare and hash as strings,
    /// bringing its Unicode tables into firmware.
    public var ordinal: Int {
        switch self {
        case let .impact(style):
            switch style {
            case .light: return 0
            case .medium: return 1
            case .heavy: return 2
            case .soft: return 3
            case .rigid: return 4
            }
        case .selection: return 5
        case let .notification(type):
            switch type {
            case .success: return 6
            case .warning: return 7
            case .error: return 8
            }
        case .alignment: return 9
        case .pathCompleted: return 10
        case .increase: return 11
        case .decrease: return 12
        case .start: return 13
        case .stop: return 14
        case .levelChange: return 15
        case let .vibration(vibration):
            switch vibration {
            case .default: return 16
            case .alert: return 17
            }
        case let .taptic(taptic):
            switch taptic {
            case .peek: return 18
            case .pop: return 19
            case .cancelled: return 20
            case .tryAgain: return 21
            case .failed: return 22
            }
        }
    }

    public static func == (lhs: FeedbackKind, rhs: FeedbackKind) -> Bool { lhs.ordinal == rhs.ordinal }
    public func hash(into hasher: inout Hasher) { hasher.combine(ordinal) }

    /// The name the CLI and board files use.
    public var name: String {
        switch self {
        case let .impact(style): return "impact-\(style.rawValue)"
        case .selection: return "selection"
        case let .notification(type): return type.rawValue
        case .alignment: return "alignment"
        case .pathCompleted: return "path-complete"
        case .increase: return "increase"
        case .decrease: return "decrease"
        case .start: return "start"
        case .stop: return "stop"
        case .levelChange: return "level-change"
        case let .vibration(vibration): return "vibration-\(vibration.rawValue)"
        case let .taptic(taptic): return "taptic-\(taptic == .tryAgain ? "try-again" : taptic.rawValue)"
        }
    }
    public var description: String { name }

    /// What the feedback means, for the demo and the README.
    public var meaning: String {
        switch self {
        case .impact(.light): return "a small, light element collides or snaps into place"
        case .impact(.medium): return "a moderately sized element collides"
        case .impact(.heavy): return "a large, heavy element collides"
        case .impact(.soft): return "a soft, compressible element collides"
        case .impact(.rigid): return "a hard, inflexible element collides"
        case .selection: return "the selection moved through a series of values (picker tick)"
        case .notification(.success): return "a task completed successfully"
        case .notification(.warning): return "a task produced a warning"
        case .notification(.error): return "a task failed"
        case .alignment: return "a dragged item aligned with a guide"
        case .pathCompleted: return "a drawn path was completed or recognised"
        case .increase: return "an important value rose above a threshold"
        case .decrease: return "an important value fell below a threshold"
        case .start: return "an activity started"
        case .stop: return "an activity stopped"
        case .levelChange: return "moved between discrete pressure levels"
        case .vibration(.default): return "the classic 1 s vibration"
        case .vibration(.alert): return "two short vibrations"
        case .taptic(.peek): return "Taptic Engine peek: one weak tap"
        case .taptic(.pop): return "Taptic Engine pop: one strong tap"
        case .taptic(.cancelled): return "Taptic Engine cancelled: three weak taps"
        case .taptic(.tryAgain): return "Taptic Engine try again: weak then strong"
        case .taptic(.failed): return "Taptic Engine failed: three strong taps"
        }
    }
}

/// SwiftUI's `SensoryFeedback` values, so code written for `.sensoryFeedback(_:trigger:)` can
/// name the same feedback here and hand it to `HapticEngine.play(_:)`.
public struct SensoryFeedback: Sendable, Hashable {
    /// SwiftUI's impact weights.
    public enum Weight: String, Sendable, Hashable { case light, medium, heavy }
    /// SwiftUI's impact flexibilities.
    public enum Flexibility: String, Sendable, Hashable { case rigid, solid, soft }

    /// The feedback this value plays.
    public let feedback: Feedback
    init(_ feedback: Feedback) { self.feedback = feedback }

    /// A task completed (SwiftUI `.success`).
    public static let success = SensoryFeedback(.notification(.success))
    /// A task produced a warning.
    public static let warning = SensoryFeedback(.notification(.warning))
    /// A task failed.
    public static let error = SensoryFeedback(.notification(.error))
    /// A selection changed.
    public static let selection = SensoryFeedback(.selection)
    /// A value went up (a stepper, a volume).
    public static let increase = SensoryFeedback(.increase)
    /// A value went down.
    public static let decrease = SensoryFeedback(.decrease)
    /// An activity started (a timer, a recording).
    public static let start = SensoryFeedback(.start)
    /// An activity stopped.
    public static let stop = SensoryFeedback(.stop)
    /// Something snapped into alignment.
    public static let alignment = SensoryFeedback(.alignment)
    /// A discrete level was crossed (a slider's notch).
    public static let levelChange = SensoryFeedback(.levelChange)
    /// A drawn path was completed.
    public static let pathComplete = SensoryFeedback(.pathCompleted)
    /// The generic collision: light weight at full intensity (as SwiftUI's default).
    public static let impact = SensoryFeedback(.impact(.light, intensity: 1))

    /// An impact of `weight` at `intensity` 0...1 (SwiftUI's `.impact(weight:intensity:)`).
    public static func impact(weight: Weight = .light, intensity: Double = 1) -> SensoryFeedback {
        let style: ImpactStyle = weight == .light ? .light : weight == .medium ? .medium : .heavy
        return SensoryFeedback(.impact(style, intensity: intensity))
    }

    /// Rigid and soft map to UIKit's styles of the same name; solid (medium flexibility) to medium.
    public static func impact(flexibility: Flexibility, intensity: Double = 1) -> SensoryFeedback {
        let style: ImpactStyle = flexibility == .rigid ? .rigid : flexibility == .soft ? .soft : .medium
        return SensoryFeedback(.impact(style, intensity: intensity))
    }
}

#if !hasFeature(Embedded)
    // Saved in board files and service messages on Linux; firmware has no Codable.
    extension ImpactStyle: Codable {}
    extension NotificationType: Codable {}
    extension Vibration: Codable {}
    extension TapticEngineFeedback: Codable {}
#endif
