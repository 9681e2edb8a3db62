// SPDX-License-Identifier: Apache-2.0

import Haptics

extension FirmwareDevice: FeedbackTarget {
    /// Starts `feedback` on the microcontroller; a refusal or a silent link is a drop with its
    /// reason. The firmware plays the table's plan at full strength: an intensity below 1 is not
    /// played (rather than played too strong), and says so.
    @discardableResult
    public func play(_ feedback: Feedback) -> FeedbackOutcome {
        guard feedback.intensity >= 0.999 else {
            return .dropped(.firmware("the firmware plays feedback at full intensity only; \(feedback.kind.name) at \(feedback.intensity) was not played"))
        }
        do {
            try start(feedback.kind)
            return .played
        } catch {
            return .dropped(.firmware(error.description))
        }
    }

    /// Loads the feedback's sequence on the chip ahead of `play`.
    public func prepare(_ feedback: Feedback, holder: ObjectIdentifier?) { try? prepareFeedback(feedback.kind) }

    /// Nothing to release: the firmware puts the chip back in standby after each feedback.
    public func releasePreparation(holder: ObjectIdentifier) {}
}
