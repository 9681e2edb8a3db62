// SPDX-License-Identifier: Apache-2.0

import DRV2605
import HapticChip
import HapticEffects
import HapticFeedback
import HardwareAccess

/// A feedback or ROM effect with the name the firmware reports it by.
struct NamedPlan {
    var name: String
    var plan: FeedbackPlan
    /// Made ready ahead of its time in a sequence (a feedback is, as on Linux; an effect is not).
    var preparedAhead = false
}

/// A sequence of feedback, ROM effects and waits sent a line at a time (`notes ...`), placed in
/// time by the rules `haptic sequence` uses on Linux (`SequenceSchedule`, the same source file),
/// and kept until `start` plays it on the board's timer.
///
///     notes begin
///     notes feedback NAME                 (at full intensity, as `play`)
///     notes effect NUMBER                 (a ROM effect, 1...123)
///     notes wait MICROSECONDS             (up to 600 s)
///     notes until-finished                (the clock to the end of every note before)
///     notes end                           ok notes end NOTES MS
///
/// Pattern and sound notes stay on the host: a pattern is uploaded on its own (`upload`), and
/// the board has no sound.
final class NoteUpload {
    typealias Refusal = PatternUpload.Refusal
    /// The most steps (notes and waits) one sequence may have: room is kept for them at `begin`.
    static let stepLimit = 32

    private var steps: [SequenceSchedule<NamedPlan>.Step] = []
    /// Whether an upload has begun and not ended.
    private(set) var open = false
    /// The last sequence placed in time, which `start` plays.
    private(set) var schedule: SequenceSchedule<NamedPlan>?

    /// Takes one `notes` line (its words after `notes`), its feedback from `mapping` (the
    /// actuator's table); returns the answer's text after `ok `.
    func take(_ words: [String], mapping: FeedbackMapping) throws(Refusal) -> String {
        guard let what = words.first else { throw Self.usage }
        let arguments = Array(words.dropFirst())
        if "begin".sameBytes(as: what) {
            schedule = nil
            steps = []
            steps.reserveCapacity(Self.stepLimit)
            open = true
            return "notes begin"
        }
        guard open else { throw Refusal(kind: "bad-argument", text: "notes begin first") }
        if "end".sameBytes(as: what) {
            let placed = SequenceSchedule(steps)
            steps = []
            open = false
            schedule = placed
            return "notes end " + String(placed.entries.count) + " " + String(Int64(placed.seconds * 1000))
        }
        guard steps.count < Self.stepLimit else {
            throw Refusal(kind: "too-long", text: "a sequence here has at most " + String(Self.stepLimit) + " notes and waits")
        }
        if "feedback".sameBytes(as: what) {
            guard arguments.count == 1 else { throw Self.usage }
            guard let feedback = Feedback(name: arguments[0]), let plan = mapping.plan(for: feedback) else {
                throw Refusal(kind: "unknown-feedback", text: arguments[0] + "; 'feedbacks' lists them")
            }
            steps.append(.note(NamedPlan(name: feedback.kind.name, plan: plan, preparedAhead: true), seconds: plan.estimatedDuration.secondsDouble))
            return "notes feedback"
        }
        if "effect".sameBytes(as: what) {
            guard arguments.count == 1, let number = Int(arguments[0]), (1...123).contains(number), let effect = Effect(rawValue: UInt8(number)) else {
                throw Refusal(kind: "bad-argument", text: "notes effect takes a ROM effect, 1...123")
            }
            let sequence = WaveformSequence(effect)
            steps.append(.note(NamedPlan(name: "effect", plan: .rom(sequence)), seconds: sequence.estimatedDuration.secondsDouble))
            return "notes effect"
        }
        if "wait".sameBytes(as: what) {
            guard arguments.count == 1, let micros = Int(arguments[0]), (0...600_000_000).contains(micros) else {
                throw Refusal(kind: "bad-argument", text: "notes wait takes microseconds, 0...600000000")
            }
            steps.append(.wait(Double(micros) / 1_000_000))
            return "notes wait"
        }
        if "until-finished".sameBytes(as: what) {
            guard arguments.isEmpty else { throw Self.usage }
            steps.append(.untilFinished)
            return "notes until-finished"
        }
        throw Self.usage
    }

    static let usage = Refusal(
        kind: "bad-argument", text: "notes begin|feedback NAME|effect NUMBER|wait MICROSECONDS|until-finished|end")
}
