// SPDX-License-Identifier: Apache-2.0

import Foundation
import Haptics
import HardwareAccess

/// A feedbackd theme (its JSON format: a `name`, and `profiles`, each a `name` of full, quiet or
/// silent with its `feedbacks`, each an `event-name` and a `type`), so the themes users already
/// edit for feedbackd (per-device durations, custom `x-` events, which events buzz in quiet)
/// decide what hapticd plays for each event.
///
/// The vibration types become patterns: `VibraRumble` (`duration` and `pause` in ms, `count`,
/// optional `magnitude` 0-0xFFFF, full when absent), `VibraPeriodic` (`duration` ms, `magnitude`
/// 0-0x7FFF, `fade-in-level` 0-0x7FFF and `fade-in-time` ms, played as ff-memless plays a
/// periodic effect) and `VibraPattern` (`magnitudes` 0...1 with `durations` in ms). `Sound` and
/// `Led` entries are kept out (hapticd drives an actuator) and named in `skipped`.
///
/// Profiles stack as feedbackd's theme specification says: `full` uses the full, quiet and silent
/// parts, `quiet` the quiet and silent ones, `silent` only its own; the loudest part allowed that
/// has a vibration for the event is the one played.
public struct FeedbackdTheme: Sendable, Equatable {
    /// The theme's `name`.
    public var name: String
    /// The vibrations, by profile part and event name.
    public var vibrations: [FeedbackProfile: [String: HapticPattern]]
    /// Entries not played, each as "profile/event: type".
    public var skipped: [String]

    /// Why a theme was not loaded.
    public struct LoadError: Error, CustomStringConvertible, Equatable {
        /// The file.
        public var file: String
        /// What is wrong, and where.
        public var detail: String
        /// One line.
        public var description: String { "theme \(file): \(detail)" }
    }

    /// The theme in `file`.
    public static func load(_ file: String) throws(LoadError) -> FeedbackdTheme {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw LoadError(file: file, detail: "cannot read it (does it exist, and may hapticd's user read it?)")
        }
        return try FeedbackdTheme(json: data, file: file)
    }

    /// The theme `json` holds; `file` names it in errors.
    public init(json: Data, file: String = "theme") throws(LoadError) {
        let root: [String: Any]
        do {
            guard let object = try JSONSerialization.jsonObject(with: json) as? [String: Any] else {
                throw LoadError(file: file, detail: "not a JSON object")
            }
            root = object
        } catch let error as LoadError {
            throw error
        } catch {
            throw LoadError(file: file, detail: "not JSON: \(error.localizedDescription)")
        }
        name = root["name"] as? String ?? (file as NSString).lastPathComponent
        guard let profiles = root["profiles"] as? [[String: Any]] else {
            throw LoadError(file: file, detail: "no 'profiles' list")
        }
        var vibrations: [FeedbackProfile: [String: HapticPattern]] = [:]
        var skipped: [String] = []
        for (index, part) in profiles.enumerated() {
            guard let partName = part["name"] as? String, let profile = FeedbackProfile(rawValue: partName) else {
                throw LoadError(file: file, detail: "profiles[\(index)]: 'name' must be full, quiet or silent")
            }
            for (position, entry) in (part["feedbacks"] as? [[String: Any]] ?? []).enumerated() {
                let place = "\(partName)/feedbacks[\(position)]"
                guard let event = entry["event-name"] as? String, !event.isEmpty, let type = entry["type"] as? String else {
                    throw LoadError(file: file, detail: "\(place): needs 'event-name' and 'type'")
                }
                switch type {
                case "VibraRumble", "VibraPeriodic", "VibraPattern":
                    do {
                        vibrations[profile, default: [:]][event] = try Self.pattern(type, entry)
                    } catch {
                        throw LoadError(file: file, detail: "\(place) (\(event)): \(error.detail)")
                    }
                default:
                    skipped.append("\(partName)/\(event): \(type)")
                }
            }
        }
        self.vibrations = vibrations
        self.skipped = skipped
    }

    /// The vibration for `event` under `profile`: the loudest part allowed that has one.
    public func vibration(for event: String, profile: FeedbackProfile) -> HapticPattern? {
        for part in FeedbackProfile.allCases.sorted(by: >) where part <= profile {
            if let pattern = vibrations[part]?[event] { return pattern }
        }
        return nil
    }

    /// Every event the theme vibrates for, in any part.
    public var events: Set<String> { Set(vibrations.values.flatMap(\.keys)) }

    private struct EntryError: Error {
        var detail: String
    }

    /// A number field in its range (JSON numbers arrive as Int or Double).
    private static func number(_ entry: [String: Any], _ key: String, in range: ClosedRange<Double>, default value: Double? = nil) throws(EntryError) -> Double {
        guard let raw = entry[key] else {
            if let value { return value }
            throw EntryError(detail: "needs '\(key)'")
        }
        guard let number = (raw as? NSNumber)?.doubleValue, number.isFinite, range.contains(number) else {
            throw EntryError(detail: "'\(key)' must be a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// Longest vibration a theme entry may ask for.
    static let maximumSeconds = 30.0

    private static func pattern(_ type: String, _ entry: [String: Any]) throws(EntryError) -> HapticPattern {
        let milliseconds = 0...(maximumSeconds * 1000)
        var events: [HapticPattern.Event] = []
        switch type {
        case "VibraRumble":
            let duration = try number(entry, "duration", in: milliseconds) / 1000
            let pause = try number(entry, "pause", in: milliseconds, default: 0) / 1000
            let count = Int(try number(entry, "count", in: 1...100, default: 1))
            let magnitude = try number(entry, "magnitude", in: 0...0xFFFF, default: 0xFFFF) / 0xFFFF
            guard Double(count) * (duration + pause) <= maximumSeconds else {
                throw EntryError(detail: "plays over \(Int(maximumSeconds)) s")
            }
            for index in 0..<count where duration > 0 && magnitude > 0 {
                events.append(.init(type: .hapticContinuous, time: Double(index) * (duration + pause), duration: duration, intensity: magnitude))
            }
        case "VibraPeriodic":
            let duration = try number(entry, "duration", in: milliseconds)
            let magnitude = try number(entry, "magnitude", in: 0...0x7FFF, default: 0x7FFF) / 0x7FFF
            let attackLevel = try number(entry, "fade-in-level", in: 0...0x7FFF, default: 0x7FFF) / 0x7FFF
            let attackTime = try number(entry, "fade-in-time", in: milliseconds, default: 0)
            let effect = ForceFeedbackEffect(
                id: 0, kind: .periodic(waveform: .sine, magnitude: magnitude, offset: 0, period: .milliseconds(10)),
                length: .milliseconds(Int64(duration)),
                envelope: .init(attackLength: .milliseconds(Int64(attackTime)), attackLevel: attackLevel))
            var mixer = MemlessMixer(maximumSeconds: maximumSeconds)
            mixer.play(effect, count: 1, at: .zero)
            return mixer.pattern(from: .zero)
        case "VibraPattern":
            guard let magnitudes = entry["magnitudes"] as? [NSNumber], let durations = entry["durations"] as? [NSNumber],
                magnitudes.count == durations.count, !magnitudes.isEmpty
            else {
                throw EntryError(detail: "needs 'magnitudes' and 'durations' of the same, non-zero length")
            }
            var time = 0.0
            for (magnitude, duration) in zip(magnitudes.map(\.doubleValue), durations.map(\.doubleValue)) {
                guard magnitude.isFinite, (0...1).contains(magnitude), duration.isFinite, milliseconds.contains(duration) else {
                    throw EntryError(detail: "magnitudes are 0 to 1 and durations 0 to \(Int(maximumSeconds * 1000)) ms")
                }
                if magnitude > 0 && duration > 0 {
                    events.append(.init(type: .hapticContinuous, time: time, duration: duration / 1000, intensity: magnitude))
                }
                time += duration / 1000
            }
            guard time <= maximumSeconds else { throw EntryError(detail: "plays over \(Int(maximumSeconds)) s") }
        default:
            throw EntryError(detail: "unknown type \(type)")
        }
        return HapticPattern(events: events)
    }
}
