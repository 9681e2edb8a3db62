// SPDX-License-Identifier: Apache-2.0

import Foundation
import HapticsService
import Testing

/// Themes found as feedbackd finds them, in folders of the test's own: the user's, the device's by
/// its compatible strings, the system's; chains followed, loops and missing parents refused.
@Suite struct FeedbackdThemeLocatorTests {
    let root = NSTemporaryDirectory() + "feedbackd-themes-\(UUID().uuidString.prefix(8))"
    var system: String { root + "/share/feedbackd/themes" }
    var user: String { root + "/config/feedbackd/themes" }

    init() throws {
        for folder in [root + "/share/feedbackd/themes", root + "/config/feedbackd/themes"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
    }

    func locator(compatibles: [String] = [], theme: String? = nil) -> FeedbackdThemeLocator {
        var environment = ["XDG_CONFIG_HOME": root + "/config", "XDG_DATA_DIRS": root + "/nothing:" + root + "/share", "HOME": root]
        environment["FEEDBACK_THEME"] = theme
        return FeedbackdThemeLocator(environment: environment, compatibles: compatibles)
    }

    /// A theme file with one quiet rumble of `milliseconds` per event.
    func write(_ folder: String, _ name: String, parent: String? = nil, rumbles: [String: Int]) throws {
        let feedbacks = rumbles.sorted { $0.key < $1.key }.map { #"{"event-name": "\#($0.key)", "type": "VibraRumble", "duration": \#($0.value)}"# }
        let parentField = parent.map { #""parent-name": "\#($0)", "# } ?? ""
        try #"{"name": "\#(name)", \#(parentField)"profiles": [{"name": "quiet", "feedbacks": [\#(feedbacks.joined(separator: ", "))]}]}"#
            .write(toFile: "\(folder)/\(name).json", atomically: true, encoding: .utf8)
    }

    func milliseconds(_ theme: FeedbackdTheme, _ event: String) -> Int? {
        theme.vibration(for: event, profile: .quiet).map { Int(($0.duration * 1000).rounded()) }
    }

    /// A device theme (`<compatible>.json`, most specific compatible first) names `default` as its
    /// parent: its own events replace the default's, the rest fall back to it.
    @Test func aDeviceThemeFallsBackToItsParent() throws {
        try write(system, "default", rumbles: ["window-close": 25, "message-new-instant": 150])
        try write(system, "pine64,pinephone", parent: "default", rumbles: ["message-new-instant": 300])
        try write(system, "pine64,pinephone-1.2", parent: "default", rumbles: ["message-new-instant": 400])
        let theme = try locator(compatibles: ["pine64,pinephone-1.2", "pine64,pinephone", "allwinner,sun50i-a64"]).load("default")
        #expect(theme.name == "pine64,pinephone-1.2" && theme.files == ["\(system)/pine64,pinephone-1.2.json", "\(system)/default.json"])
        #expect(milliseconds(theme, "message-new-instant") == 400, "the device's own")
        #expect(milliseconds(theme, "window-close") == 25, "the parent's")
        // Without a device theme for the machine: feedbackd's default.
        #expect(try locator(compatibles: ["raspberrypi,5-model-b"]).load("default").name == "default")
    }

    /// The user's theme of a name wins over the system's; a named theme's chain goes through the
    /// device theme to the default, as feedbackd's does.
    @Test func theUsersThemeComesFirst() throws {
        try write(system, "default", rumbles: ["window-close": 25])
        try write(system, "pine64,pinephone", parent: "default", rumbles: ["button-pressed": 9])
        try write(user, "mine", parent: "default", rumbles: ["window-close": 60])
        let theme = try locator(compatibles: ["pine64,pinephone"]).load("mine")
        #expect(theme.files == ["\(user)/mine.json", "\(system)/pine64,pinephone.json", "\(system)/default.json"])
        #expect(milliseconds(theme, "window-close") == 60 && milliseconds(theme, "button-pressed") == 9)
        try write(user, "default", rumbles: ["window-close": 70])
        #expect(milliseconds(try locator().load("default"), "window-close") == 70)
    }

    /// An ordinary session sets no `XDG_CONFIG_HOME`: the user's themes are then in
    /// `~/.config/feedbackd/themes`, as the XDG base directories and feedbackd say, and a relative
    /// `XDG_CONFIG_HOME` is ignored as the specification requires. Nothing here sets the variable
    /// the real default depends on.
    @Test func withoutXDGConfigHomeTheUsersThemesAreInDotConfig() throws {
        let home = root + "/home"
        let folder = home + "/.config/feedbackd/themes"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try write(system, "default", rumbles: ["window-close": 25])
        try write(folder, "mine", parent: "default", rumbles: ["window-close": 60])
        for environment in [["HOME": home], ["HOME": home, "XDG_CONFIG_HOME": "relative/config"]] {
            var environment = environment
            environment["XDG_DATA_DIRS"] = root + "/share"
            let locator = FeedbackdThemeLocator(environment: environment, compatibles: [])
            #expect(locator.userDirectory == folder, "\(environment)")
            let theme = try locator.load("mine")
            #expect(theme.files == ["\(folder)/mine.json", "\(system)/default.json"])
            #expect(milliseconds(theme, "window-close") == 60)
        }
        // Neither variable: no user folder, and the system's themes alone.
        #expect(FeedbackdThemeLocator(environment: ["XDG_DATA_DIRS": root + "/share"], compatibles: []).userDirectory == nil)
    }

    /// FEEDBACK_THEME names a file, taken as it is; without it, no theme (hapticd's own table).
    @Test func theEnvironmentNamesAFile() throws {
        try write(system, "default", rumbles: ["window-close": 25])
        try write(root, "kiosk", parent: "default", rumbles: ["x-door": 80])
        let theme = try #require(try locator(theme: root + "/kiosk.json").environmentTheme())
        #expect(milliseconds(theme, "x-door") == 80 && milliseconds(theme, "window-close") == 25)
        #expect(try locator().environmentTheme() == nil)
    }

    @Test func loopsAndMissingParentsAreRefused() throws {
        try write(system, "a", parent: "b", rumbles: ["x": 1])
        try write(system, "b", parent: "a", rumbles: ["x": 2])
        #expect {
            _ = try locator().load("a")
        } throws: { "\($0)".contains("makes a loop: a → b → a") }
        try write(system, "orphan", parent: "gone", rumbles: ["x": 1])
        #expect {
            _ = try locator().load("orphan")
        } throws: { "\($0)".contains("'parent-name' gone: no such theme") }
        #expect {
            _ = try locator().load("absent")
        } throws: { "\($0)".contains("no theme named absent in \(user)") }
        // Deeper than feedbackd allows.
        for level in 0...11 { try write(system, "t\(level)", parent: level == 11 ? nil : "t\(level + 1)", rumbles: ["x": level + 1]) }
        #expect {
            _ = try locator().load("t0")
        } throws: { "\($0)".contains("more than 10 parents") }
        #expect(milliseconds(try locator().load("t1"), "x") == 2, "ten parents are allowed")
    }

    @Test func theDeviceTreesCompatiblesAreRead() throws {
        let file = root + "/compatible"
        try Data("pine64,pinephone-1.2\u{0}pine64,pinephone\u{0}allwinner,sun50i-a64\u{0}".utf8).write(to: URL(fileURLWithPath: file))
        #expect(FeedbackdThemeLocator.deviceCompatibles(path: file) == ["pine64,pinephone-1.2", "pine64,pinephone", "allwinner,sun50i-a64"])
        #expect(FeedbackdThemeLocator.deviceCompatibles(path: root + "/none").isEmpty)
    }
}
