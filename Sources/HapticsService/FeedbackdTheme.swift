// SPDX-License-Identifier: Apache-2.0

import Foundation
import Haptics
import HardwareAccess

/// A feedbackd theme (its JSON format: a `name`, an optional `parent-name`, and `profiles`, each
/// a `name` of full, quiet or silent with its `feedbacks`, each an `event-name` and a `type`), so
/// the themes users already edit for feedbackd (per-device durations, custom `x-` events, which
/// events buzz in quiet) decide what hapticd plays for each event.
///
/// Read as feedbackd 0.8.2 (Debian 13's) reads and plays it, from its sources
/// (`src/fbd-feedback-*.c`, `src/fbd-dev-vibra.c`), not from its documentation alone:
/// - A theme without `profiles`, or a part without `feedbacks`, has none: the published device
///   themes `oneplus,enchilada` and `xiaomi,beryllium` are a name and a parent, nothing more.
/// - `VibraRumble`: `duration` (the whole feedback, 1000 ms when absent), `count` rumbles (1),
///   `pause` between them (0 ms), `magnitude` 0.0-1.0 (0.5 when absent). Each rumble lasts
///   `duration / count - pause` ms (whole ms), one every rumble and pause; when that is not
///   positive, one rumble of 1000 ms. A magnitude outside 0.0-1.0 leaves feedbackd's default, 0.5
///   (GObject refuses a value out of the property's range), and is named in `warnings`.
/// - `VibraPeriodic`: `duration` (1000 ms), `magnitude` (0.5), `fade-in-level` (0.0) and
///   `fade-in-time` (500 ms), uploaded as a sine with an attack from the fade-in level to the
///   magnitude over the fade-in time and a replay delay of 200 ms, and stopped `duration` after
///   it was played: what ff-memless makes of that is what plays (silent for 200 ms, then the
///   attack). Before 0.8 a zero fade-in level meant none; feedbackd 0.8 fades in from 0.
/// - `VibraPattern`: `magnitudes` with `durations` in ms, each magnitude clamped to 0.0-1.0.
/// - `Sound`: `effect`, a freedesktop sound theme's event name, and `media-role`.
/// - `Dummy`, and a `type` feedbackd does not know (it makes a Dummy of it): nothing plays, for
///   its `duration` (0 ms when absent), and the event runs that long: a client sees it running
///   until then, or until it ends it (`fbd-feedback-dummy.c`; feedbackd's own libfeedback tests
///   rely on it). `Led`: kept (the event is the theme's) but not played. Both named in `skipped`;
///   an unknown type in `warnings` too.
/// - Two feedbacks for one event in a part: the later one is kept, as feedbackd's table keeps it,
///   and named in `warnings`.
/// - Strength: feedbackd sets its vibrator's master gain (FF_GAIN) to 75 % (`fbd-dev-vibra.c`),
///   so every vibration here plays at `deviceGain` of its magnitude, as feedbackd's does on the
///   same vibrator.
///
/// Themes written for feedbackd before 0.8 give a periodic's magnitude and fade-in level as
/// integers of 0-0xFFFF; as in feedbackd, such a value above 1 is read that way (65535 is 1.0)
/// and named in `warnings`.
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
        /// A `Dummy` (or a type feedbackd makes a Dummy of): nothing plays, for `seconds`.
        case silent(type: String, seconds: Double)
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
        // Absent or null: no profiles (feedbackd's default for the property), as in the device
        // themes that only name their parent.
        let profiles: [[String: Any]]
        switch root["profiles"] {
        case nil, is NSNull: profiles = []
        case let list as [[String: Any]]: profiles = list
        default: throw LoadError(file: file, detail: "'profiles' must be a list of objects")
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
            let feedbacks: [[String: Any]]
            switch part["feedbacks"] {
            case nil, is NSNull: feedbacks = []
            case let list as [[String: Any]]: feedbacks = list
            default: throw LoadError(file: file, detail: "profiles[\(index)] (\(partName)): 'feedbacks' must be a list of objects")
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
                if entries[event] != nil {
                    warnings.append("\(place) (\(event)): a second feedback for the event in the \(partName) part: this one is kept, as feedbackd keeps it")
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

    /// How long `event` runs with nothing played under `profile`: the longest `Dummy` of the
    /// parts allowed (feedbackd runs every part's feedback and ends the event when all have
    /// ended), nil when it has none.
    public func silence(for event: String, profile: FeedbackProfile) -> Double? {
        let lengths = FeedbackProfile.allCases.filter { $0 <= profile }.compactMap { part -> Double? in
            if case let .silent(_, seconds)? = parts[part]?[event] { return seconds }
            return nil
        }
        return lengths.max()
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
                switch entry {
                case let .unplayed(type), let .silent(type, _): return "\(part.rawValue)/\(event): \(type)"
                case .vibration, .sound: return nil
                }
            }
        }.sorted()
    }

    /// Longest vibration a theme entry may ask for.
    static let maximumSeconds = 30.0

    /// feedbackd's duration of a vibration that gives none (FBD_FEEDBACK_VIBRA_DEFAULT_DURATION).
    static let defaultMilliseconds = 1000.0
    /// The replay delay feedbackd gives a periodic effect.
    static let periodicDelayMilliseconds: Int64 = 200

    /// feedbackd's master gain on its vibrator (`FF_GAIN` 0xC000 of 0xFFFF): what every magnitude
    /// is scaled by before it reaches the actuator.
    public static let deviceGain = Double(0xC000) / Double(0xFFFF)

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

        /// A level 0.0-1.0 of a property that has no legacy reading (a rumble's magnitude): a
        /// value outside is refused by GObject in feedbackd, which keeps the default.
        mutating func rangedLevel(_ key: String, default value: Double) throws(EntryError) -> Double {
            guard entry[key] != nil else { return value }
            let number = try self.number(key, in: -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude)
            guard (0...1).contains(number) else {
                warnings.append("'\(key)' \(Self.format(number)) is outside 0.0-1.0: feedbackd keeps its default, \(Self.format(value))")
                return value
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

        /// A Dummy's `duration` in seconds, read as GObject sets feedbackd's property: a number of
        /// milliseconds in range, else (named in `warnings`) the default, 0.
        mutating func dummySeconds(in range: ClosedRange<Double>) -> Double {
            guard entry["duration"] != nil else { return 0 }
            guard let milliseconds = try? number("duration", in: range) else {
                warnings.append("'duration' is not a number of milliseconds from 0 to \(Self.format(range.upperBound)): feedbackd keeps its default, 0")
                return 0
            }
            return milliseconds / 1000
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
            case "Dummy":
                return .silent(type: type, seconds: dummySeconds(in: milliseconds))
            case "VibraRumble":
                // fbd-feedback-vibra-rumble.c: the duration is the whole feedback's.
                let duration = Int(try number("duration", in: milliseconds, default: FeedbackdTheme.defaultMilliseconds))
                var pause = Int(try number("pause", in: milliseconds, default: 0))
                var count = Int(try number("count", in: 1...100, default: 1))
                let magnitude = try rangedLevel("magnitude", default: 0.5)
                var rumble = duration / count - pause
                if rumble <= 0 {
                    rumble = Int(FeedbackdTheme.defaultMilliseconds)
                    pause = 0
                    count = 1
                }
                for index in 0..<count where magnitude > 0 {
                    events.append(
                        .init(
                            type: .hapticContinuous, time: Double(index * (rumble + pause)) / 1000, duration: Double(rumble) / 1000,
                            intensity: magnitude * FeedbackdTheme.deviceGain))
                }
            case "VibraPeriodic":
                // fbd-feedback-vibra-periodic.c and fbd_dev_vibra_periodic.
                let duration = try number("duration", in: milliseconds, default: FeedbackdTheme.defaultMilliseconds)
                let magnitude = try level("magnitude", default: 0.5)
                let fadeInLevel = try level("fade-in-level", default: 0)
                let fadeInTime = try number("fade-in-time", in: milliseconds, default: 500)
                let effect = ForceFeedbackEffect(
                    id: 0, kind: .periodic(waveform: .sine, magnitude: magnitude, offset: 0, period: .milliseconds(10)),
                    length: .milliseconds(Int64(duration)), delay: .milliseconds(FeedbackdTheme.periodicDelayMilliseconds),
                    envelope: .init(attackLength: .milliseconds(Int64(fadeInTime)), attackLevel: min(fadeInLevel, magnitude)))
                var mixer = MemlessMixer(maximumSeconds: FeedbackdTheme.maximumSeconds)
                mixer.gain = FeedbackdTheme.deviceGain
                mixer.play(effect, count: 1, at: .zero)
                // feedbackd stops the feedback `duration` after it started, delay included.
                let end = duration / 1000
                return .vibration(
                    HapticPattern(
                        events: mixer.pattern(from: .zero).events.compactMap { event in
                            guard event.time < end - 1e-9 else { return nil }
                            var cut = event
                            cut.duration = min(event.duration, end - event.time)
                            return cut
                        }))
            case "VibraPattern":
                guard let magnitudes = entry["magnitudes"] as? [NSNumber], let durations = entry["durations"] as? [NSNumber],
                    magnitudes.count == durations.count, !magnitudes.isEmpty
                else {
                    throw EntryError(detail: "needs 'magnitudes' and 'durations', lists of numbers of the same, non-zero length")
                }
                var time = 0.0
                for (given, duration) in zip(magnitudes.map(\.doubleValue), durations.map(\.doubleValue)) {
                    guard given.isFinite, duration.isFinite, milliseconds.contains(duration) else {
                        throw EntryError(detail: "'magnitudes' are numbers and 'durations' 0 to \(Int(FeedbackdTheme.maximumSeconds * 1000)) ms")
                    }
                    // fbd-feedback-vibra-pattern.c clamps each magnitude to 0.0-1.0.
                    let magnitude = min(1, max(0, given))
                    if magnitude != given { warnings.append("'magnitudes' \(Self.format(given)) clamped to \(Self.format(magnitude)), as feedbackd clamps it") }
                    if magnitude > 0 && duration > 0 {
                        events.append(.init(type: .hapticContinuous, time: time, duration: duration / 1000, intensity: magnitude * FeedbackdTheme.deviceGain))
                    }
                    time += duration / 1000
                }
                guard time <= FeedbackdTheme.maximumSeconds else { throw EntryError(detail: "plays over \(Int(FeedbackdTheme.maximumSeconds)) s") }
            default:
                // feedbackd makes a Dummy of a type it does not know: the event is the theme's,
                // and nothing plays.
                warnings.append("'type' \(type) is none of Sound, VibraRumble, VibraPeriodic, VibraPattern, Led, Dummy: played as feedbackd plays it, as nothing")
                return .silent(type: type, seconds: dummySeconds(in: milliseconds))
            }
            return .vibration(HapticPattern(events: events))
        }
    }
}
