// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

// The policy's admission of triggers: one rule for feedback and patterns alike.
extension EngineCore {
    /// The policy's verdict on a trigger at `now` (nil: it may play): turned off, a selection
    /// too soon after the last, or over the rate limit. One rule for feedback and patterns alike.
    func refusal(selection: Bool, at now: ClockInstant) -> DropReason? {
        guard options.policy.enabled else { return .turnedOff(policyFile: HapticsPolicy.defaultPath) }
        if selection, let last = lastSelection,
            now.duration(since: last).secondsDouble < options.policy.selectionMinimumIntervalSeconds
        {
            return .coalesced
        }
        recentTriggers.removeAll { now.duration(since: $0) >= .seconds(1) }
        guard recentTriggers.count < options.policy.maximumFeedbackPerSecond else {
            return .rateLimited(perSecond: options.policy.maximumFeedbackPerSecond)
        }
        return nil
    }

    /// A pattern about to start: dropped (and counted) as a feedback would be, or admitted and
    /// counted as one trigger against the rate limit (unless `countsAsTrigger` is false: only
    /// haptics turned off drop it then).
    func admitPattern(label: String, countsAsTrigger: Bool) -> DropReason? {
        let now = clock.now
        let reason = countsAsTrigger ? refusal(selection: false, at: now) : options.policy.enabled ? nil : .turnedOff(policyFile: HapticsPolicy.defaultPath)
        if let reason {
            _ = drop(label, reason)
            return reason
        }
        if countsAsTrigger { recentTriggers.append(now) }
        return nil
    }
}
