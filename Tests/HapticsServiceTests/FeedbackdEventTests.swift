// SPDX-License-Identifier: Apache-2.0

import Haptics
import HapticsService
import Testing

/// The event names are feedbackd's Event Naming Specification 0.0.0's, no more and no fewer, and
/// each plays a feedback this stack has.
@Suite struct FeedbackdEventTests {
    /// The spec's list (feedbackd, doc/Event-naming-spec-0.0.0.md), section by section.
    static let specification: [String] = [
        // Applications: notifications, actions, input events.
        "alarm-clock-elapsed", "camera-focus", "camera-shutter", "phone-failure", "phone-hangup", "phone-incoming-call",
        "phone-missed-call", "phone-outgoing-busy", "timeout-completed",
        "message-sent-instant",
        "button-pressed", "button-released",
        // System components: actions, alerts, notifications, input events.
        "bell-terminal", "screen-capture", "theme-demo",
        "battery-low", "power-unplug-battery-low",
        "battery-caution", "battery-full", "device-added", "key-pressed", "key-released", "message-missed-email",
        "message-missed-instant", "message-missed-notification", "message-missed-sms", "message-new-cellbroadcast",
        "message-new-email", "message-new-instant", "message-new-sms", "notification-missed-generic",
        "notification-new-generic", "power-plug", "power-unplug",
        "window-close"
    ]

    @Test func theNamesAreExactlyTheSpecifications() {
        #expect(Self.specification.count == 35)
        #expect(Set(FeedbackdEvent.mappings.keys) == Set(Self.specification))
        #expect(Set(FeedbackdEvent.mappings.keys).subtracting(Self.specification).isEmpty, "not in the spec")
    }

    @Test(arguments: specification)
    func everyEventPlaysAFeedbackOfOurs(event: String) {
        #expect(FeedbackdEvent.mapping(for: event) != nil, "\(event): its feedback name is not one of ours")
    }

    /// Names that are not the spec's are unknown (the review found `keyboard-pressed` here).
    @Test(arguments: ["keyboard-pressed", "dialog-warning", "complete", "device-removed", "x-myapp-ding"])
    func aNameOutsideTheSpecIsUnknown(event: String) {
        #expect(FeedbackdEvent.mapping(for: event) == nil)
    }

    /// Alarms and calls outrank notifications, which outrank touches: what arbitration relies on.
    @Test func importanceFollowsTheEventsUrgency() {
        #expect(FeedbackdEvent.mapping(for: "alarm-clock-elapsed")?.importance == .alarm)
        #expect(FeedbackdEvent.mapping(for: "phone-incoming-call")?.importance == .call)
        #expect(FeedbackdEvent.mapping(for: "message-new-sms")?.importance == .notification)
        #expect(FeedbackdEvent.mapping(for: "key-pressed")?.importance == .ui)
    }
}
