// SPDX-License-Identifier: Apache-2.0

/// A sequence's notes placed in time, as Piano places them: the timing rules of `haptic
/// sequence` on Linux and of the firmware's `notes`, in one place.
///
/// - A note starts where the notes before it left the clock: notes with no wait between them
///   start together (on one actuator the later one preempts the earlier).
/// - A wait moves the clock on; waits add up from the start.
/// - "Until finished" moves the clock to the end of every note before it (Piano's waits only for
///   the note just before).
///
/// Generic over what a note is, so that Linux (feedback, effects, patterns, sounds) and the
/// firmware (feedback and effects) share the rules, not the notes.
public struct SequenceSchedule<Note> {
    /// One step of a sequence as written.
    public enum Step {
        /// A note that plays for `seconds`.
        case note(Note, seconds: Double)
        /// Moves the clock on by `seconds` (a negative or non-number wait counts as none).
        case wait(Double)
        /// Moves the clock to the end of everything before.
        case untilFinished
    }

    /// A note placed in time.
    public struct Entry {
        /// Seconds from the sequence's start.
        public var offset: Double
        /// How long it plays.
        public var seconds: Double
        /// The note.
        public var note: Note

        /// `note` at `offset` seconds from the start, playing for `seconds`.
        public init(offset: Double, seconds: Double, note: Note) {
            self.offset = offset
            self.seconds = seconds
            self.note = note
        }

        /// When it ends, in seconds from the sequence's start.
        public var end: Double { offset + seconds }
    }

    /// The notes in the order written, each with its place in time (waits resolved).
    public private(set) var entries: [Entry] = []

    /// Places `steps` in time.
    public init(_ steps: [Step]) {
        var clock = 0.0
        for step in steps {
            switch step {
            case let .wait(seconds):
                if seconds > 0 && seconds.isFinite { clock += seconds }
            case .untilFinished:
                clock = max(clock, Self.end(of: entries))
            case let .note(note, seconds):
                entries.append(Entry(offset: clock, seconds: seconds > 0 && seconds.isFinite ? seconds : 0, note: note))
            }
        }
    }

    /// From the start to the end of the last note to end.
    public var seconds: Double { Self.end(of: entries) }

    private static func end(of entries: [Entry]) -> Double {
        var end = 0.0
        for entry in entries where entry.end > end { end = entry.end }
        return end
    }
}

extension SequenceSchedule: Sendable where Note: Sendable {}
extension SequenceSchedule.Step: Sendable where Note: Sendable {}
extension SequenceSchedule.Entry: Sendable where Note: Sendable {}
extension SequenceSchedule.Entry: Equatable where Note: Equatable {}
