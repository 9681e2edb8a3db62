// SPDX-License-Identifier: Apache-2.0

import Foundation
import Haptics
import HardwareAccess

/// A feedbackd theme (its JSON format: a `name`, an optional `parent-name`, and `profiles`, each
/// a `name` of full, quiet or silent with its `feedbacks`, each an `event-name` and a `type`), so
/// the themes users already edit for feedbackd (per-device durations, custom `x-` events, which
/// events buzz in quiet) decide what hapticd plays for each event.
///
/// Read as feedbackd 0.8 reads it (its `doc/feedback-themes.rst` and `data/default.json`):
/// - `VibraRumble`: `duration` and `pause` in ms, `count`, `magnitude` 0.0-1.0 (full when absent).
/// - `VibraPeriodic`: `duration` ms, `magnitude` 0.0-1.0, `fade-in-level` 0.0-1.0 and
///   `fade-in-time` ms, played as ff-memless plays the periodic effect feedbackd uploads: an
///   absent or zero fade-in level is the magnitude (no fade), an absent or zero fade-in time the
///   whole duration.
/// - `VibraPattern`: `magnitudes` 0.0-1.0 with `durations` in ms.
/// - `Sound`: `effect`, a freedesktop sound theme's event name, and `media-role`.
/// - `Led`: kept (it decides that the event is the theme's) but not played: hapticd drives an
///   actuator and a speaker. Named in `skipped`.
///
/// Themes written for feedbackd before 0.8 give magnitudes and fade-in levels as integers of
/// 0-0xFFFF; as in feedbackd, a value above 1 is read that way (65535 is 1.0) and named in
/// `warnings`, so an old theme plays as it did rather than at full strength.
///
/// Profiles stack as feedbackd's theme specification says: `full` uses the full, quiet and silent
/// parts, `quiet` the quiet and silent ones, `silent` only its own. Each part holds at most one
/// feedback per event; a theme merged over its parent (`parent-name`) replaces the parent's
/// feedback for an event part by part.
public struct FeedbackdTheme: Sendable, Equatable {
    /// One feedback of a part, for one event.
    public enum Entry: Sendable, Equatable {
        /// A vibration (`VibraRumble`, `VibraPeriodic`, `VibraPattern`) as the pattern it plays.
        case vibration(HapticPattern)
        /// A `Sound`: the sound theme's event name (`effect`) and its `media-role`.
        case sound(effect: String, mediaRole: String?)
        /// An entry of a type hapticd does not play (`Led`).
        case unplayed(type: String)
    }

    /// The theme's `name`.
    public var name: String
    /// The theme it extends (`parent-name`), nil for a root theme such as `default`.
    public var parentName: String?
    /// Each part's feedbacks, by event name.
    public var parts: [FeedbackProfile: [String: Entry]]
    /// Notes on what was read with feedbackd's compatibility rules (legacy integer magnitudes).
    public var warnings: [String]
    /// The files the theme was read from, the theme's own first and its ancestors after.
    public var files: [String]

    /// Why a theme was not loaded.
    public struct LoadError: Error, CustomStringConvertible, Equatable {
        /// The file.
        public var file: String
        /// What is wrong, and where.
        public var detail: String
        /// One line.
        public var description: String { "theme \(file): \(detail)" }
    }

    /// The theme in `file`, on its own (its `parent-name` not followed: `FeedbackdThemeLocator`
    /// follows it).
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
        guard let name = root["name"] as? String, !name.isEmpty else {
            throw LoadError(file: file, detail: "'name' must be a non-empty string (the theme's name, as others' 'parent-name' gives it)")
        }
        self.name = name
        switch root["parent-name"] {
        case nil: parentName = nil
        case let parent as String where !parent.isEmpty:
            guard name != "default" else {
                throw LoadError(file: file, detail: "'parent-name': the default theme is the root of every chain and names no parent")
            }
            parentName = parent
        default: throw LoadError(file: file, detail: "'parent-name' must be a theme's name (a non-empty string)")
        }
        guard let profiles = root["profiles"] as? [[String: Any]] else {
            throw LoadError(file: file, detail: "'profiles' must be a list of objects")
        }
        var parts: [FeedbackProfile: [String: Entry]] = [:]
        var warnings: [String] = []
        for (index, part) in profiles.enumerated() {
            guard let partName = part["name"] as? String, let profile = FeedbackProfile(rawValue: partName) else {
                throw LoadError(file: file, detail: "profiles[\(index)]: 'name' must be full, quiet or silent")
            }
            guard parts[profile] == nil else {
                throw LoadError(file: file, detail: "profiles[\(index)]: a second '\(partName)' part")
            }
            guard let feedbacks = part["feedbacks"] as? [[String: Any]] else {
                throw LoadError(file: file, detail: "profiles[\(index)] (\(partName)): 'feedbacks' must be a list of objects")
            }
            var entries: [String: Entry] = [:]
            for (position, entry) in feedbacks.enumerated() {
                let place = "\(partName)/feedbacks[\(position)]"
                guard let event = entry["event-name"] as? String, !event.isEmpty else {
                    throw LoadError(file: file, detail: "\(place): 'event-name' must be a non-empty string")
                }
                guard let type = entry["type"] as? String else {
                    throw LoadError(file: file, detail: "\(place) (\(event)): 'type' must be a string")
                }
                guard entries[event] == nil else {
                    throw LoadError(file: file, detail: "\(place) (\(event)): a second feedback for the event in the \(partName) part")
                }
                do {
                    var reader = EntryReader(entry: entry)
                    entries[event] = try reader.read(type)
                    warnings += reader.warnings.map { "\(place) (\(event)): \($0)" }
                } catch {
                    throw LoadError(file: file, detail: "\(place) (\(event)): \(error.detail)")
                }
            }
            parts[profile] = entries
        }
        self.parts = parts
        self.warnings = warnings
        files = [file]
    }

    /// This theme over `parent`: the parent's feedbacks, each replaced part by part by this
    /// theme's feedback for the same event (feedbackd merges a chain from its root up).
    public func merged(over parent: FeedbackdTheme) -> FeedbackdTheme {
        var result = self
        result.parts = parent.parts.merging(parts) { inherited, own in inherited.merging(own) { _, own in own } }
        result.parentName = nil
        result.warnings = parent.warnings + warnings
        result.files = files + parent.files
        return result
    }

    /// The vibration for `event` under `profile`: the loudest part allowed that has one.
    public func vibration(for event: String, profile: FeedbackProfile) -> HapticPattern? {
        for part in FeedbackProfile.allCases.sorted(by: >) where part <= profile {
            if case let .vibration(pattern)? = parts[part]?[event] { return pattern }
        }
        return nil
    }

    /// The sound theme's name for `event` under `profile`: the loudest part allowed that has a
    /// `Sound` for it.
    public func sound(for event: String, profile: FeedbackProfile) -> String? {
        for part in FeedbackProfile.allCases.sorted(by: >) where part <= profile {
            if case let .sound(effect, _)? = parts[part]?[event] { return effect }
        }
        return nil
    }

    /// The vibrations, by part and event name.
    public var vibrations: [FeedbackProfile: [String: HapticPattern]] {
        parts.mapValues { entries in
            entries.compactMapValues { entry in
                if case let .vibration(pattern) = entry { return pattern }
                return nil
            }
        }.filter { !$0.value.isEmpty }
    }

    /// Every event the theme has a feedback for, in any part: the theme decides what these play.
    public var events: Set<String> { Set(parts.values.flatMap(\.keys)) }

    /// Entries not played, each as "profile/event: type".
    public var skipped: [String] {
        parts.flatMap { part, entries in
            entries.compactMap { event, entry -> String? in
                if case let .unplayed(type) = entry { return "\(part.rawValue)/\(event): \(type)" }
                return nil
            }
        }.sorted()
    }

    /// Longest vibration a theme entry may ask for.
    static let maximumSeconds = 30.0

    private struct EntryError: Error {
        var detail: String
    }

    /// Reads one feedback's fields by its type, noting the legacy values it reads.
    private struct EntryReader {
        let entry: [String: Any]
        var warnings: [String] = []

        init(entry: [String: Any]) { self.entry = entry }

        /// A number field in its range (JSON numbers arrive as NSNumber).
        func number(_ key: String, in range: ClosedRange<Double>, default value: Double? = nil) throws(EntryError) -> Double {
            guard let raw = entry[key] else {
                if let value { return value }
                throw EntryError(detail: "needs '\(key)'")
            }
            guard let value = raw as? NSNumber, String(cString: value.objCType) != "c", case let number = value.doubleValue, number.isFinite, range.contains(number) else {
                throw EntryError(detail: "'\(key)' must be a number from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))")
            }
            return number
        }

        /// A level 0.0-1.0; a value above 1 is a legacy 0-0xFFFF integer, read as feedbackd reads it.
        mutating func level(_ key: String, default value: Double) throws(EntryError) -> Double {
            guard entry[key] != nil else { return value }
            let number: Double
            do {
                number = try self.number(key, in: 0...0xFFFF)
            } catch {
                throw EntryError(detail: "'\(key)' must be a number from 0.0 to 1.0 (or, in a theme for feedbackd before 0.8, 0 to 65535)")
            }
            guard number > 1 else { return number }
            let level = number / 0xFFFF
            warnings.append("'\(key)' \(Self.format(number)) read as a legacy 0-65535 value: \(Self.format(level)); give 0.0-1.0")
            return level
        }

        static func format(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(format: "%.3g", value)
        }

        mutating func read(_ type: String) throws(EntryError) -> Entry {
            let milliseconds = 0...(FeedbackdTheme.maximumSeconds * 1000)
            var events: [HapticPattern.Event] = []
            switch type {
            case "Sound":
                guard let effect = entry["effect"] as? String, !effect.isEmpty else {
                    throw EntryError(detail: "needs 'effect': the sound theme's event name (e.g. message-new-instant)")
                }
                if entry["media-role"] != nil, !(entry["media-role"] is String) {
                    throw EntryError(detail: "'media-role' must be a string (e.g. Alarm)")
                }
                return .sound(effect: effect, mediaRole: entry["media-role"] as? String)
            case "Led":
                guard entry["color"] is String else { throw EntryError(detail: "needs 'color': red, green, blue, white or #RRGGBB") }
                _ = try number("frequency", in: 0...Double(Int32.max), default: 0)
                return .unplayed(type: type)
            case "VibraRumble":
                let duration = try number("duration", in: milliseconds) / 1000
                let pause = try number("pause", in: milliseconds, default: 0) / 1000
                let count = Int(try number("count", in: 1...100, default: 1))
                let magnitude = try level("magnitude", default: 1)
                guard Double(count) * duration + Double(count - 1) * pause <= FeedbackdTheme.maximumSeconds else {
                    throw EntryError(detail: "plays over \(Int(FeedbackdTheme.maximumSeconds)) s")
                }
                for index in 0..<count where duration > 0 && magnitude > 0 {
                    events.append(.init(type: .hapticContinuous, time: Double(index) * (duration + pause), duration: duration, intensity: magnitude))
                }
            case "VibraPeriodic":
                let duration = try number("duration", in: milliseconds)
                let magnitude = try level("magnitude", default: 1)
                // feedbackd's device: a zero fade-in level is the magnitude, a zero fade-in time the duration.
                let fadeInLevel = try level("fade-in-level", default: 0)
                let fadeInTime = try number("fade-in-time", in: milliseconds, default: 0)
                let effect = ForceFeedbackEffect(
                    id: 0, kind: .periodic(waveform: .sine, magnitude: magnitude, offset: 0, period: .milliseconds(10)),
                    length: .milliseconds(Int64(duration)),
                    envelope: .init(
                        attackLength: .milliseconds(Int64(fadeInTime > 0 ? fadeInTime : duration)),
                        attackLevel: fadeInLevel > 0 ? fadeInLevel : magnitude))
                var mixer = MemlessMixer(maximumSeconds: FeedbackdTheme.maximumSeconds)
                mixer.play(effect, count: 1, at: .zero)
                return .vibration(mixer.pattern(from: .zero))
            case "VibraPattern":
                guard let magnitudes = entry["magnitudes"] as? [NSNumber], let durations = entry["durations"] as? [NSNumber],
                    magnitudes.count == durations.count, !magnitudes.isEmpty
                else {
                    throw EntryError(detail: "needs 'magnitudes' and 'durations', lists of numbers of the same, non-zero length")
                }
                var time = 0.0
                for (magnitude, duration) in zip(magnitudes.map(\.doubleValue), durations.map(\.doubleValue)) {
                    guard magnitude.isFinite, (0...1).contains(magnitude), duration.isFinite, milliseconds.contains(duration) else {
                        throw EntryError(detail: "'magnitudes' are 0.0 to 1.0 and 'durations' 0 to \(Int(FeedbackdTheme.maximumSeconds * 1000)) ms")
                    }
                    if magnitude > 0 && duration > 0 {
                        events.append(.init(type: .hapticContinuous, time: time, duration: duration / 1000, intensity: magnitude))
                    }
                    time += duration / 1000
                }
                guard time <= FeedbackdTheme.maximumSeconds else { throw EntryError(detail: "plays over \(Int(FeedbackdTheme.maximumSeconds)) s") }
            default:
                throw EntryError(detail: "'type' \(type) is none of Sound, VibraRumble, VibraPeriodic, VibraPattern, Led")
            }
            return .vibration(HapticPattern(events: events))
        }
    }
}
