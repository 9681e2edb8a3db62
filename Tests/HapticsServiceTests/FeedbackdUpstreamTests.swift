// SPDX-License-Identifier: Apache-2.0

import Foundation
import Haptics
import HapticsService
import HapticsSimulation
import HardwareAccess
import Testing

/// feedbackd's current release unpacked (Scripts/lib/feedbackd-upstream, from Debian 13's
/// `feedbackd` package), when Scripts/test found it: `HAPTIC_FEEDBACKD_ROOT`.
let feedbackdRoot: String? = {
    guard let root = ProcessInfo.processInfo.environment["HAPTIC_FEEDBACKD_ROOT"], !root.isEmpty else { return nil }
    return root
}()

/// Under CI on x86_64 the files must be there (Scripts/test fetches them); elsewhere the tests
/// skip without them.
let feedbackdRootRequired: Bool = {
    #if arch(x86_64)
        return ProcessInfo.processInfo.environment["CI"] == "true"
    #else
        return false
    #endif
}()

/// hapticd against feedbackd's own default theme (`data/default.json` as feedbackd ships it), not
/// a theme of ours written the way we think feedbackd's look.
@Suite(
    .enabled(
        if: feedbackdRoot != nil || feedbackdRootRequired,
        "needs feedbackd's release unpacked: HAPTIC_FEEDBACKD_ROOT (Scripts/test sets it); required under CI=true"))
struct FeedbackdUpstreamTests {
    let root: String
    let defaultTheme: String
    /// feedbackd's master gain on its vibrator (FF_GAIN 0xC000).
    let gain = 49152.0 / 65535.0

    init() throws {
        root = try #require(feedbackdRoot, "CI=true, and HAPTIC_FEEDBACKD_ROOT is not set: run Scripts/test, or Scripts/lib/feedbackd-upstream")
        defaultTheme = root + "/usr/share/feedbackd/themes/default.json"
    }

    @Test func feedbackdsDefaultThemeLoadsAsWritten() throws {
        let theme = try FeedbackdTheme.load(defaultTheme)
        #expect(theme.name == "default" && theme.parentName == nil)
        #expect(theme.warnings.isEmpty, "feedbackd 0.8's own theme read with legacy rules: \(theme.warnings)")
        // Its incoming call: a periodic of magnitude 0.5 for 1 s with feedbackd's default fade-in
        // (from 0 over 500 ms) after its 200 ms replay delay, at quiet and so at full; at the
        // master gain feedbackd sets on its vibrator.
        let call = try #require(theme.vibration(for: "phone-incoming-call", profile: .full))
        #expect(abs(call.duration - 1) < 1e-9 && abs((call.events.first?.time ?? 0) - 0.2) < 1e-9)
        #expect(call.events.filter { $0.time >= 0.7 }.allSatisfy { abs($0.intensity - 0.5 * gain) < 1e-6 }, "\(call.events.map(\.intensity))")
        #expect(theme.sound(for: "phone-incoming-call", profile: .full) == "phone-incoming-call")
        #expect(theme.sound(for: "phone-incoming-call", profile: .quiet) == nil)
        // Every event it names is one hapticd knows, or one it plays from the theme alone.
        let unknown = theme.events.filter { FeedbackdEvent.mapping(for: $0) == nil }
        #expect(unknown.isEmpty, "events of feedbackd's theme that hapticd's table lacks: \(unknown.sorted())")
    }

    /// On the simulated chip: feedbackd's incoming call drives the actuator from 0.2 s to 1 s, at
    /// its magnitude (0.5) times feedbackd's master gain (75 %) of full scale.
    @Test func itsVibrationsDriveTheChipAtTheirMagnitudes() throws {
        let rig = try EngineRig()
        let server = HapticServer(engine: rig.engine, device: "simulated", globalProfile: .quiet)
        server.setTheme(try FeedbackdTheme.load(defaultTheme))
        let start = rig.clock.now
        _ = server.trigger(FeedbackTrigger(app: "org.gnome.Calls", event: "phone-incoming-call"), owner: "test") { _, _ in }
        rig.advance(.milliseconds(1500))
        let bursts = rig.chip.output.bursts(from: start, to: rig.clock.now)
        #expect(bursts.count == 1, "\(bursts)")
        #expect(abs((bursts.first?.start.duration(since: start).secondsDouble ?? 0) - 0.2) < 0.01, "\(bursts)")
        #expect(abs((bursts.first?.end.duration(since: start).secondsDouble ?? 0) - 1) < 0.01, "\(bursts)")
        let peak = rig.chip.output.peak(from: start, to: rig.clock.now)
        #expect(abs(peak - 0.5 * gain) < 0.01, "peak \(peak) of full scale")
    }

    /// A device theme of the test's own names feedbackd's default as its parent: its events
    /// replace the default's, the rest fall back to feedbackd's.
    @Test func aDeviceThemeFallsBackToFeedbackdsDefault() throws {
        let share = NSTemporaryDirectory() + "feedbackd-upstream-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: share) }
        let themes = share + "/feedbackd/themes"
        try FileManager.default.createDirectory(atPath: themes, withIntermediateDirectories: true)
        try
            #"{"name": "pine64,pinephone", "parent-name": "default", "profiles": [{"name": "quiet", "feedbacks": [{"event-name": "phone-incoming-call", "type": "VibraRumble", "duration": 800, "count": 2, "pause": 200}]}]}"#
            .write(toFile: themes + "/pine64,pinephone.json", atomically: true, encoding: .utf8)
        let locator = FeedbackdThemeLocator(
            environment: ["XDG_DATA_DIRS": share + ":" + root + "/usr/share", "XDG_CONFIG_HOME": share + "/none"],
            compatibles: ["pine64,pinephone-1.2", "pine64,pinephone", "allwinner,sun50i-a64"])
        let theme = try locator.load("default")
        #expect(theme.files == [themes + "/pine64,pinephone.json", defaultTheme])
        #expect(theme.vibration(for: "phone-incoming-call", profile: .quiet)?.events.count == 2, "the device's rumble")
        let generic = try #require(theme.vibration(for: "notification-new-generic", profile: .quiet), "feedbackd's event lost")
        #expect(generic.events.map(\.intensity) == [0.25 * gain, 0.25 * gain])
    }

    /// Every device theme Debian publishes (feedbackd-device-themes) loads over feedbackd's
    /// default as feedbackd would take it on that device, with no warning: two of them
    /// (`oneplus,enchilada`, `xiaomi,beryllium`) are only a name and a parent, which stopped
    /// hapticd from starting once.
    @Test func everyPublishedDeviceThemeLoads() throws {
        let themes = root + "/usr/share/feedbackd/themes"
        let devices = try FileManager.default.contentsOfDirectory(atPath: themes).filter { $0.hasSuffix(".json") && $0 != "default.json" }.sorted()
        #expect(devices.count >= 9, "feedbackd-device-themes: \(devices)")
        for file in devices {
            let compatible = String(file.dropLast(".json".count))
            let locator = FeedbackdThemeLocator(
                environment: ["XDG_DATA_DIRS": root + "/usr/share", "XDG_CONFIG_HOME": root + "/none"], compatibles: [compatible])
            do {
                let theme = try locator.load("default")
                #expect(theme.files == [themes + "/" + file, defaultTheme], "\(file): \(theme.files)")
                #expect(theme.warnings.isEmpty, "\(file): \(theme.warnings)")
                #expect(theme.vibration(for: "phone-incoming-call", profile: .quiet) != nil, "\(file): no call")
            } catch {
                Issue.record("\(file): \(error)")
            }
        }
    }
}
