// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Sound names looked up as the freedesktop.org sound-theme specification says: the theme, then
/// the themes it inherits, then `freedesktop`; in the directories for the output profile, then
/// `stereo`; localized directories before plain ones; a name not found without its last
/// `-part` ("dialog-warning-battery", then "dialog-warning", then "dialog"); a `.disabled` file
/// silences a name; files directly in a base directory are the unthemed fallback.
///
/// Base directories are `$XDG_DATA_HOME/sounds` (`~/.local/share/sounds`), then `sounds` in each
/// of `$XDG_DATA_DIRS` (`/usr/local/share:/usr/share`). Debian's `sound-theme-freedesktop` puts
/// the default theme in `/usr/share/sounds/freedesktop`.
public struct SoundTheme: Sendable {
    /// What a name resolves to.
    public enum Match: Sendable, Equatable {
        case file(String)
        /// The theme turns this sound off (a `.disabled` file).
        case disabled
    }

    /// The theme looked up first (`freedesktop` is always looked up last).
    public var name: String
    /// The output profile (`stereo`, `5.1`...) whose directories come first.
    public var outputProfile: String
    /// Locale names to try, most specific first ("de_DE", "de").
    public var locales: [String]
    /// Where themes are looked for, in order.
    public var baseDirectories: [String]
    /// Extensions the spec names, in its order.
    static let extensions = ["disabled", "oga", "ogg", "wav"]

    /// The theme `name` (`$HAPTIC_SOUND_THEME`, else freedesktop) for the environment's XDG
    /// directories and locale.
    public init(name: String? = nil, outputProfile: String = "stereo", environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.name = name ?? environment["HAPTIC_SOUND_THEME"] ?? "freedesktop"
        self.outputProfile = outputProfile
        let home = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        let dataDirectories = (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share").split(separator: ":").map(String.init)
        baseDirectories = ([home] + dataDirectories).map { $0 + "/sounds" }
        let language = environment["LC_ALL"] ?? environment["LC_MESSAGES"] ?? environment["LANG"] ?? ""
        let bare = String(language.prefix { $0 != "." && $0 != "@" })
        var locales: [String] = []
        if !bare.isEmpty, bare != "C", bare != "POSIX" {
            locales.append(bare)
            if let underscore = bare.firstIndex(of: "_") { locales.append(String(bare[..<underscore])) }
        }
        self.locales = locales
    }

    /// The file (or `.disabled`) for sound `soundName`, or nil when no theme has it.
    public func lookup(_ soundName: String) -> Match? {
        var themes: [String] = []
        var pending = [name]
        while let theme = pending.first {
            pending.removeFirst()
            guard !themes.contains(theme), themes.count < 16 else { continue }
            themes.append(theme)
            pending += inherited(by: theme)
        }
        if !themes.contains("freedesktop") { themes.append("freedesktop") }
        var candidate = soundName
        while !candidate.isEmpty {
            for theme in themes {
                if let match = lookup(candidate, in: theme) { return match }
            }
            guard let dash = candidate.lastIndex(of: "-") else { break }
            candidate = String(candidate[..<dash])
        }
        for base in baseDirectories {
            for ext in SoundTheme.extensions where FileManager.default.fileExists(atPath: "\(base)/\(soundName).\(ext)") {
                return ext == "disabled" ? .disabled : .file("\(base)/\(soundName).\(ext)")
            }
        }
        return nil
    }

    private func lookup(_ soundName: String, in theme: String) -> Match? {
        for profile in outputProfile == "stereo" ? ["stereo"] : [outputProfile, "stereo"] {
            for base in baseDirectories {
                let root = "\(base)/\(theme)"
                guard let index = IndexTheme(path: root + "/index.theme") else { continue }
                for directory in index.directories(for: profile) {
                    for prefix in locales.map({ "\(root)/\($0)/\(directory)" }) + ["\(root)/\(directory)"] {
                        for ext in SoundTheme.extensions where FileManager.default.fileExists(atPath: "\(prefix)/\(soundName).\(ext)") {
                            return ext == "disabled" ? .disabled : .file("\(prefix)/\(soundName).\(ext)")
                        }
                    }
                }
            }
        }
        return nil
    }

    private func inherited(by theme: String) -> [String] {
        for base in baseDirectories {
            if let index = IndexTheme(path: "\(base)/\(theme)/index.theme") { return index.inherits }
        }
        return []
    }

    /// The sound for `soundName`, decoded; nil when the theme disables it.
    public func load(_ soundName: String) throws(AudioError) -> Sound? {
        switch lookup(soundName) {
        case .none: throw .soundNotFound(soundName)
        case .disabled: return nil
        case let .file(path):
            var sound = try Sound.decode(path: path)
            sound.name = soundName
            return sound
        }
    }

    /// An `index.theme`: its inherited themes and its directories by output profile.
    struct IndexTheme {
        var inherits: [String] = []
        var directories: [String] = []
        var profiles: [String: String] = [:]

        init?(path: String) {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
            var section = ""
            for raw in text.split(whereSeparator: \.isNewline) {
                let line = raw.trimmingCharacters(in: .whitespaces)
                if line.hasPrefix("[") && line.hasSuffix("]") {
                    section = String(line.dropFirst().dropLast())
                    continue
                }
                guard let equals = line.firstIndex(of: "="), !line.hasPrefix("#") else { continue }
                let key = line[..<equals].trimmingCharacters(in: .whitespaces)
                let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                let list = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                if section == "Sound Theme" {
                    if key == "Inherits" { inherits = list }
                    if key == "Directories" { directories = list }
                } else if key == "OutputProfile" {
                    profiles[section] = value
                }
            }
        }

        /// Its directories whose output profile is `profile` (a directory without one is stereo).
        func directories(for profile: String) -> [String] {
            directories.filter { (profiles[$0] ?? "stereo") == profile }
        }
    }
}

extension Sound {
    /// A sound named as the CLI and sequences name them: `file://URL`, a path (relative to
    /// `directory` when given), or a name from `theme`. Nil when the theme disables the name.
    public static func load(_ reference: String, relativeTo directory: String? = nil, theme: SoundTheme = SoundTheme()) throws(AudioError) -> Sound? {
        if reference.hasPrefix("file://") {
            guard let url = URL(string: reference), url.isFileURL else { throw .soundNotFound(reference) }
            return try decode(path: url.path)
        }
        let looksLikePath = reference.contains("/") || reference.contains(".")
        if looksLikePath {
            let path = reference.hasPrefix("/") || directory == nil ? reference : "\(directory!)/\(reference)"
            return try decode(path: path)
        }
        return try theme.load(reference)
    }
}
