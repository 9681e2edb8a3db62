// SPDX-License-Identifier: Apache-2.0

import Audio
import Foundation
import HapticChip
import HapticEffects
import HardwareAccess

/// A sequence of feedback, effects, patterns, sounds and waits, as Piano's notes.
///
/// Notes with no wait between them start together (the later one preempts the earlier on a
/// single actuator); `.wait` delays are cumulative from the start, as in Piano. Unlike Piano's,
/// `.waitUntilFinished` waits for everything before it, not only the note just before.
public enum SequenceNote: Sendable, Equatable {
    case feedback(Feedback)
    case effect(Effect)
    case pattern(HapticPattern)
    /// A sound heard at the note's time, in step with the haptics beside it (Piano's `.sound`).
    case sound(Sound)
    case wait(Double)
    case waitUntilFinished
}

extension SequenceNote {
    /// Parses the CLI's text form: notes separated by commas or semicolons —
    /// `success`, `impact-heavy 0.4`, `effect 47`, `wait 0.5`, `until-finished`, `pattern FILE`,
    /// `sound NAME|PATH|file://URL` (a name from the freedesktop sound theme, or a file).
    /// `loadSound` decodes a sound (nil: the theme turns it off, and the note is left out); it
    /// throws `AudioError` naming a sound that is missing or cannot be decoded.
    public static func parse(
        _ text: String, loadPattern: (String) throws -> HapticPattern, loadSound: (String) throws -> Sound? = { try Sound.load($0) }
    ) throws -> [SequenceNote] {
        var notes: [SequenceNote] = []
        for (index, raw) in text.split(whereSeparator: { $0 == "," || $0 == ";" }).enumerated() {
            let words = raw.split(separator: " ").map(String.init)
            guard let head = words.first?.lowercased() else { continue }
            let argument = words.dropFirst().joined(separator: " ")
            func fail(_ message: String) -> SequenceParseError { SequenceParseError(note: index + 1, text: String(raw), message: message) }
            switch head {
            case "wait":
                guard let seconds = Double(argument), seconds.isFinite, seconds >= 0, seconds <= 600 else { throw fail("wait takes seconds, 0-600") }
                notes.append(.wait(seconds))
            case "until-finished", "wait-until-finished":
                notes.append(.waitUntilFinished)
            case "effect":
                guard let effect = Effect.lookup(argument) else { throw fail("no ROM effect '\(argument)' (1-123 or a unique part of a name)") }
                notes.append(.effect(effect))
            case "pattern":
                notes.append(.pattern(try loadPattern(argument)))
            case "sound":
                guard !argument.isEmpty else { throw fail("sound takes a theme name (complete), a path or a file:// URL") }
                if let sound = try loadSound(argument) { notes.append(.sound(sound)) }
            default:
                var intensity = 1.0
                if let value = words.dropFirst().first {
                    guard let parsed = Double(value), (0...1).contains(parsed) else { throw fail("intensity must be 0-1") }
                    intensity = parsed
                }
                guard let feedback = Feedback(name: head, intensity: intensity) else {
                    throw fail("'\(head)' is not a feedback, effect, pattern, sound, wait or until-finished")
                }
                notes.append(.feedback(feedback))
            }
        }
        return notes
    }
}

public struct SequenceParseError: Error, CustomStringConvertible, Sendable {
    public var note: Int
    public var text: String
    public var message: String
    public var description: String { "note \(note) ('\(text.trimmingCharacters(in: .whitespaces))'): \(message)" }
}
