// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import HapticsService

/// `haptic theme`: feedbackd themes, as hapticd reads them.
struct ThemeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "theme",
        abstract: "Check feedbackd themes (JSON) as hapticd reads them.",
        discussion: "`haptic render --theme FILE --event NAME` draws or exports an event's vibration.",
        subcommands: [ValidateTheme.self])
}

/// `haptic theme validate FILE`: feedbackd's `fbd-theme-validate`, for hapticd's reading.
struct ValidateTheme: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a feedbackd theme file: exit 0 when hapticd can play it, 65 with a line naming the field that is wrong.",
        discussion:
            "The file alone is checked (its parent-name is not looked up). Values read by feedbackd's rules for themes older than 0.8 (integer magnitudes) are named as warnings.")
    @Argument(help: "The theme file (JSON).") var file: String
    @Flag(help: "Print a JSON summary.") var json = false

    func run() throws {
        try CLIError.reporting {
            guard FileManager.default.fileExists(atPath: file) else {
                throw CLIError("\(file): no such file", exitCode: CLIError.noInput)
            }
            let theme: FeedbackdTheme
            do { theme = try FeedbackdTheme.load(file) } catch { throw CLIError("\(error)", exitCode: CLIError.dataError) }
            for warning in theme.warnings { FileHandle.standardError.write(Data("haptic: warning: \(file): \(warning)\n".utf8)) }
            let counts = FeedbackProfile.allCases.map { ($0.rawValue, theme.parts[$0]?.count ?? 0) }
            if json {
                let data = try JSONSerialization.data(
                    withJSONObject: [
                        "file": file, "name": theme.name, "parent": theme.parentName as Any, "feedbacks": Dictionary(uniqueKeysWithValues: counts),
                        "vibrations": theme.vibrations.values.map(\.count).reduce(0, +), "unplayed": theme.skipped, "warnings": theme.warnings
                    ], options: [.prettyPrinted, .sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            } else {
                let parts = counts.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
                print("\(file): valid: theme \(theme.name)\(theme.parentName.map { " (parent \($0))" } ?? ""); feedbacks: \(parts)")
            }
        }
    }
}
