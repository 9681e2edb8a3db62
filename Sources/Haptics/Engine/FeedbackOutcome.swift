// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticEffects

/// What became of one feedback request. Feedback calls never throw (as on iOS), but whoever asked
/// can still see that a request was not played and why: the CLI turns a drop into a non-zero exit.
public enum FeedbackOutcome: Sendable, Equatable, CustomStringConvertible {
    /// Triggered on the chip.
    case played
    /// Not played; nothing was left running.
    case dropped(DropReason)

    public var wasPlayed: Bool { self == .played }

    public var description: String {
        switch self {
        case .played: return "played"
        case let .dropped(reason): return "dropped: \(reason)"
        }
    }
}

/// Why a feedback was not played.
public enum DropReason: Sendable, Equatable, CustomStringConvertible {
    /// The policy turns haptics off (the file that did it, when it was the system's).
    case turnedOff(policyFile: String)
    /// A selection feedback too close to the previous one (`selectionMinimumIntervalSeconds`).
    case coalesced
    /// More than `maximumFeedbackPerSecond` in the last second.
    case rateLimited(perSecond: Int)
    /// The mapping has no plan for this feedback on this actuator.
    case unmapped
    /// The chip could not be driven (bus error, reset, fault): the typed error's text.
    case fault(String)
    /// The system service did not play it (a more important feedback, a profile, a bad request,
    /// or no service): its reason.
    case service(String)
    /// A microcontroller running the project's firmware (`FirmwareDevice`) did not play it: its
    /// refusal, or why it could not be asked.
    case firmware(String)

    public var description: String {
        switch self {
        case let .turnedOff(file): return "haptics are turned off in the policy (\(file))"
        case .coalesced: return "coalesced with the selection feedback just before it"
        case let .rateLimited(perSecond): return "rate limit of \(perSecond) feedbacks a second reached"
        case .unmapped: return "no plan for it in the mapping"
        case let .fault(text): return "chip fault: \(text)"
        case let .service(text): return "hapticd: \(text)"
        case let .firmware(text): return "firmware: \(text)"
        }
    }
}
