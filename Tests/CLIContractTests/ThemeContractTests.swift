// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// feedbackd themes through the programs: `haptic theme validate`, `haptic render --theme`, and
/// hapticd finding a theme by name as feedbackd does; with feedbackd's own default theme where
/// its release is here (HAPTIC_FEEDBACKD_ROOT, set by Scripts/test), required under CI on x86_64.
@Suite(.serialized) struct ThemeContractTests {
    let haptic: Program
    let hapticd: Program
    let scratch: ScratchFolder
    let environment: [String: String]
    /// feedbackd's release, unpacked.
    let feedbackd: String?

    init() throws {
        haptic = try Program("haptic")
        hapticd = try Program("hapticd")
        scratch = try ScratchFolder()
        environment = [
            "HAPTIC_CALIBRATION_FILE": scratch.file("calibration.json"), "STATE_DIRECTORY": scratch.path, "HAPTIC_BOARD": "", "HAPTICD_SOCKET": "",
            "XDG_CONFIG_HOME": scratch.file("config"), "FEEDBACK_THEME": ""
        ]
        feedbackd = ProcessInfo.processInfo.environment["HAPTIC_FEEDBACKD_ROOT"].flatMap { $0.isEmpty ? nil : $0 }
        #if arch(x86_64)
            if feedbackd == nil && ProcessInfo.processInfo.environment["CI"] == "true" {
                throw ProgramError("CI=true, and HAPTIC_FEEDBACKD_ROOT is not set: run Scripts/test (Scripts/lib/feedbackd-upstream)")
            }
        #endif
    }

    /// feedbackd's default theme, or (without its release here) a theme of the test's own in its format.
    func defaultTheme() throws -> String {
        if let feedbackd { return feedbackd + "/usr/share/feedbackd/themes/default.json" }
        let file = scratch.file("default.json")
        try
            #"{"name": "default", "profiles": [{"name": "quiet", "feedbacks": [{"event-name": "phone-incoming-call", "type": "VibraPeriodic", "magnitude": 0.5, "duration": 1000}]}]}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test func validateAcceptsFeedbackdsThemeAndNamesWhatIsWrong() throws {
        let good = try haptic.run(["theme", "validate", try defaultTheme()], environment: environment)
        #expect(good.status == 0 && good.stdout.contains("valid: theme default"), "\(good.stdout) \(good.stderr)")
        #expect(!good.stderr.contains("warning"), "feedbackd's own theme gave warnings: \(good.stderr)")
        let bad = scratch.file("bad.json")
        try #"{"name": "bad", "profiles": [{"name": "quiet", "feedbacks": [{"event-name": "window-close", "type": "VibraRumble", "duration": -5}]}]}"#
            .write(toFile: bad, atomically: true, encoding: .utf8)
        let refused = try haptic.run(["theme", "validate", bad], environment: environment)
        #expect(refused.status == 65, "\(refused.status) \(refused.stderr)")
        #expect(refused.stderr.contains("quiet/feedbacks[0] (window-close): 'duration' must be a number from 0 to 30000"), "\(refused.stderr)")
        let legacy = scratch.file("legacy.json")
        try #"{"name": "old", "profiles": [{"name": "quiet", "feedbacks": [{"event-name": "theme-demo", "type": "VibraPeriodic", "magnitude": 32767, "duration": 100}]}]}"#
            .write(toFile: legacy, atomically: true, encoding: .utf8)
        let warned = try haptic.run(["theme", "validate", legacy], environment: environment)
        #expect(warned.status == 0 && warned.stderr.contains("'magnitude' 32767 read as a legacy 0-65535 value: 0.5"), "\(warned.stderr)")
        #expect(try haptic.run(["theme", "validate", scratch.file("none.json")], environment: environment).status == 66)
    }

    /// The issue's check: feedbackd's incoming call, rendered at full, peaks at 0.5 (the CSV's
    /// intensity column read back), and exports as a pattern file hapticd plays.
    @Test func renderPeaksAtTheThemesMagnitude() throws {
        let theme = try defaultTheme()
        let csv = scratch.file("call.csv")
        let run = try haptic.run(
            ["render", "--theme", theme, "--event", "phone-incoming-call", "--profile", "full", "-o", csv, "--json"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        // The call's magnitude, 0.5, at feedbackd's master gain on its vibrator (0xC000 of 0xFFFF).
        let peak = 0.5 * 49152 / 65535
        #expect(abs((run.json?["peakIntensity"] as? Double ?? 0) - peak) < 1e-6, "\(run.stdout)")
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").dropFirst().map { $0.split(separator: ",") }
        let intensities = rows.compactMap { Double($0[1]) }
        #expect(abs((intensities.max() ?? 0) - peak) < 1e-4 && rows.count > 100, "\(intensities.max() ?? -1) over \(rows.count) rows")
        let ahap = scratch.file("call.ahap")
        #expect(try haptic.run(["render", "--theme", theme, "--event", "phone-incoming-call", "-o", ahap], environment: environment).status == 0)
        let played = try haptic.run(["pattern", ahap, "--simulate", "--json"], environment: environment)
        #expect(played.status == 0, "the exported pattern does not play: \(played.stderr)")
        let silent = try haptic.run(["render", "--theme", theme, "--event", "phone-incoming-call", "--profile", "silent", "-o", csv], environment: environment)
        #expect(silent.status == 65 && silent.stderr.contains("no vibration at the silent profile"), "\(silent.stderr)")
        #expect(try haptic.run(["render", "--event", "phone-incoming-call", "-o", csv], environment: environment).status == 64)
    }

    /// `hapticd --theme default` finds feedbackd's default in $XDG_DATA_DIRS and a device theme
    /// chained to it, as feedbackd does, and names the files; a theme that is not there stops it (78).
    @Test func hapticdFindsAThemeByName() throws {
        let share = scratch.file("share")
        try FileManager.default.createDirectory(atPath: share + "/feedbackd/themes", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try defaultTheme(), toPath: share + "/feedbackd/themes/default.json")
        try #"{"name": "kiosk", "parent-name": "default", "profiles": [{"name": "quiet", "feedbacks": [{"event-name": "x-door", "type": "VibraRumble", "duration": 80}]}]}"#
            .write(toFile: share + "/feedbackd/themes/kiosk.json", atomically: true, encoding: .utf8)
        var environment = environment
        environment["XDG_DATA_DIRS"] = share
        let socket = scratch.file("hapticd.sock")
        let daemon = try hapticd.start(["--simulate", "--socket", socket, "--theme", "kiosk"], environment: environment)
        try daemon.waitUntil("the socket") { FileManager.default.fileExists(atPath: socket) }
        let door = try haptic.run(["play", "x-door", "--socket", socket, "--json"], environment: environment)
        #expect(door.status == 0 && door.json?["outcome"] as? String == "played", "the theme's own event: \(door.stderr)")
        daemon.signal(SIGTERM)
        let run = try daemon.wait(deadline: .seconds(10))
        #expect(run.status == 0)
        #expect(run.stderr.contains("theme kiosk from \(share)/feedbackd/themes/kiosk.json over \(share)/feedbackd/themes/default.json"), "\(run.stderr)")
        let missing = try hapticd.run(["--simulate", "--socket", socket, "--theme", "absent"], environment: environment, deadline: .seconds(60))
        #expect(missing.status == 78 && missing.stderr.contains("no theme named absent"), "\(missing.stderr)")
    }

    /// `hapticd --max-haptic-strength` reaches what a theme's event drives: a full-strength rumble
    /// plays on the simulated LRA as the ROM's strongest buzz (effect 47, Buzz 1 - 100 %); at 0.5
    /// it drives about half of full scale (streamed: RTP_INPUT, signed, of 127; or a weaker buzz,
    /// 48-51: 80, 60, 40, 20 %), read from hapticd's `--trace`.
    @Test func maximumHapticStrengthLimitsWhatThemeEventsDrive() throws {
        let theme = scratch.file("strong.json")
        try #"{"name": "strong", "profiles": [{"name": "quiet", "feedbacks": [{"event-name": "x-door", "type": "VibraRumble", "duration": 200, "magnitude": 1.0}]}]}"#
            .write(toFile: theme, atomically: true, encoding: .utf8)
        func strongestPercent(_ options: [String]) throws -> Int? {
            let socket = scratch.file("hapticd-\(options.count).sock")
            let daemon = try hapticd.start(["--simulate", "--trace", "--socket", socket, "--theme", theme] + options, environment: environment)
            try daemon.waitUntil("the socket") { FileManager.default.fileExists(atPath: socket) }
            let door = try haptic.run(["play", "x-door", "--socket", socket, "--json"], environment: environment)
            #expect(door.status == 0 && door.json?["outcome"] as? String == "played", "\(door.stderr)")
            daemon.signal(SIGTERM)
            let run = try daemon.wait(deadline: .seconds(30))
            // The strongest drive written: a ROM buzz in the first waveform slot (MODE, RTP,
            // LIBRARY and the slots in one burst from 0x01), or an RTP_INPUT level.
            let buzz = [47: 100, 48: 80, 49: 60, 50: 40, 51: 20]
            let drives = run.stderr.split(separator: "\n").compactMap { line -> Int? in
                guard line.contains("W 0x5A ["), let burst = line.split(separator: "[").last else { return nil }
                let bytes = burst.dropLast().split(separator: " ").compactMap { Int($0, radix: 16) }
                if bytes.count > 4, bytes[0] == 0x01 { return buzz[bytes[4]] }
                if bytes.count == 2, bytes[0] == 0x02, bytes[1] <= 0x7F { return bytes[1] * 100 / 127 }
                return nil
            }
            return drives.max()
        }
        let full = try strongestPercent([])
        let limited = try strongestPercent(["--max-haptic-strength", "0.5"])
        #expect(full == 100, "at full strength: \(full.map { "\($0) %" } ?? "not played")")
        #expect(limited.map { $0 <= 60 && $0 >= 40 } == true, "at 0.5: \(limited.map { "\($0) %" } ?? "not played")")
    }
}
