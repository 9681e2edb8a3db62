// SPDX-License-Identifier: Apache-2.0

import Haptics

/// feedbackd's event names, exactly as its Event Naming Specification 0.0.0 lists them (feedbackd's
/// `doc/Event-naming-spec-0.0.0.md`: the applications' events and the system components'), each
/// mapped onto one of this stack's feedbacks and an importance, so a client written for feedbackd
/// names its events unchanged. Names outside the spec (an app's own `x-` events, the sound naming
/// spec's `dialog-warning`) are unknown here, as they are to a feedbackd theme that lacks them.
public enum FeedbackdEvent {
    /// One event: the feedback that plays it and how much it matters.
    public struct Mapping: Sendable, Equatable {
        /// The feedback's name, as `Feedback(name:)` reads it.
        public var feedback: String
        /// The event's importance for arbitration.
        public var importance: Importance
    }

    /// The events known, by name: the spec's 35, no more.
    public static let mappings: [String: Mapping] = [
        // Applications: notifications.
        "alarm-clock-elapsed": .init(feedback: "vibration-alert", importance: .alarm),
        "camera-focus": .init(feedback: "alignment", importance: .ui),
        "camera-shutter": .init(feedback: "impact-rigid", importance: .ui),
        "phone-failure": .init(feedback: "taptic-failed", importance: .call),
        "phone-hangup": .init(feedback: "stop", importance: .call),
        "phone-incoming-call": .init(feedback: "vibration-alert", importance: .call),
        "phone-missed-call": .init(feedback: "warning", importance: .notification),
        "phone-outgoing-busy": .init(feedback: "error", importance: .call),
        "timeout-completed": .init(feedback: "path-complete", importance: .notification),
        // Applications: actions and input.
        "message-sent-instant": .init(feedback: "impact-light", importance: .ui),
        "button-pressed": .init(feedback: "impact-medium", importance: .ui),
        "button-released": .init(feedback: "impact-light", importance: .ui),
        // System components: actions.
        "bell-terminal": .init(feedback: "taptic-pop", importance: .ui),
        "screen-capture": .init(feedback: "impact-rigid", importance: .ui),
        // The spec: an alias for a representative event of the theme, such as an incoming call.
        "theme-demo": .init(feedback: "vibration-default", importance: .ui),
        // System components: alerts (the more urgent battery event is the stronger feedback).
        "battery-low": .init(feedback: "error", importance: .notification),
        "power-unplug-battery-low": .init(feedback: "error", importance: .notification),
        // System components: notifications.
        "battery-caution": .init(feedback: "warning", importance: .notification),
        "battery-full": .init(feedback: "success", importance: .notification),
        "device-added": .init(feedback: "start", importance: .notification),
        // A press and its release within the selection interval coalesce: one tick per key.
        "key-pressed": .init(feedback: "selection", importance: .ui),
        "key-released": .init(feedback: "selection", importance: .ui),
        "message-missed-email": .init(feedback: "warning", importance: .notification),
        "message-missed-instant": .init(feedback: "warning", importance: .notification),
        "message-missed-notification": .init(feedback: "warning", importance: .notification),  // deprecated in the spec
        "message-missed-sms": .init(feedback: "warning", importance: .notification),
        // Cell broadcasts carry public warnings (emergency alerts): as urgent as an alarm.
        "message-new-cellbroadcast": .init(feedback: "vibration-alert", importance: .alarm),
        "message-new-email": .init(feedback: "taptic-peek", importance: .notification),
        "message-new-instant": .init(feedback: "success", importance: .notification),
        "message-new-sms": .init(feedback: "success", importance: .notification),
        "notification-missed-generic": .init(feedback: "warning", importance: .notification),
        "notification-new-generic": .init(feedback: "taptic-pop", importance: .notification),
        "power-plug": .init(feedback: "start", importance: .notification),
        "power-unplug": .init(feedback: "stop", importance: .notification),
        // System components: input events.
        "window-close": .init(feedback: "impact-soft", importance: .ui)
    ]

    /// The feedback and importance of event `name`, or nil when the event is not known.
    public static func mapping(for name: String) -> (feedback: Feedback, importance: Importance)? {
        guard let mapping = mappings[name], let feedback = Feedback(name: mapping.feedback) else { return nil }
        return (feedback, mapping.importance)
    }
}
