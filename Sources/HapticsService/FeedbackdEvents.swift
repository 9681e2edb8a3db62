// SPDX-License-Identifier: Apache-2.0

import Haptics

/// feedbackd's event names (the Event Naming Specification its themes use), mapped onto this
/// stack's feedbacks and importance, so a client written for feedbackd's `TriggerFeedback` can
/// name its events unchanged.
public enum FeedbackdEvent {
    /// One event: the feedback that plays it and how much it matters.
    public struct Mapping: Sendable, Equatable {
        /// The feedback's name, as `Feedback(name:)` reads it.
        public var feedback: String
        /// The event's importance for arbitration.
        public var importance: Importance
    }

    /// The events known, by name.
    public static let mappings: [String: Mapping] = [
        // Alarms and calls.
        "alarm-clock-elapsed": .init(feedback: "vibration-alert", importance: .alarm),
        "phone-incoming-call": .init(feedback: "vibration-alert", importance: .call),
        "phone-outgoing-busy": .init(feedback: "error", importance: .call),
        "phone-hangup": .init(feedback: "stop", importance: .call),
        "phone-failure": .init(feedback: "failed", importance: .call),
        // Notifications.
        "message-new-instant": .init(feedback: "success", importance: .notification),
        "message-new-sms": .init(feedback: "success", importance: .notification),
        "message-new-email": .init(feedback: "taptic-peek", importance: .notification),
        "message-missed-instant": .init(feedback: "warning", importance: .notification),
        "message-missed-sms": .init(feedback: "warning", importance: .notification),
        "message-missed-email": .init(feedback: "warning", importance: .notification),
        "phone-missed-call": .init(feedback: "warning", importance: .notification),
        "battery-low": .init(feedback: "warning", importance: .notification),
        "battery-caution": .init(feedback: "error", importance: .notification),
        "power-plug": .init(feedback: "start", importance: .notification),
        "power-unplug": .init(feedback: "stop", importance: .notification),
        "timeout-completed": .init(feedback: "path-complete", importance: .notification),
        "complete": .init(feedback: "success", importance: .notification),
        "device-added": .init(feedback: "start", importance: .notification),
        "device-removed": .init(feedback: "stop", importance: .notification),
        // Touch and UI.
        "button-pressed": .init(feedback: "impact-medium", importance: .ui),
        "button-released": .init(feedback: "impact-light", importance: .ui),
        "keyboard-pressed": .init(feedback: "selection", importance: .ui),
        "window-close": .init(feedback: "impact-soft", importance: .ui),
        "screen-capture": .init(feedback: "impact-rigid", importance: .ui),
        "bell-terminal": .init(feedback: "taptic-pop", importance: .ui),
        "dialog-warning": .init(feedback: "warning", importance: .ui),
        "dialog-error": .init(feedback: "error", importance: .ui),
        "theme-demo": .init(feedback: "alignment", importance: .ui)
    ]

    /// The feedback and importance of event `name`, or nil when the event is not known.
    public static func mapping(for name: String) -> (feedback: Feedback, importance: Importance)? {
        guard let mapping = mappings[name], let feedback = Feedback(name: mapping.feedback) else { return nil }
        return (feedback, mapping.importance)
    }
}
