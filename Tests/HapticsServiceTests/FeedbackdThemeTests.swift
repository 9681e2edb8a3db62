// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import Foundation
import HapticChip
import HapticEffects
import Haptics
import HapticsService
import HapticsSimulation
import HardwareAccess
import Testing

/// A theme of the test's own in feedbackd 0.8's JSON format: a rumble that repeats (600 ms in all:
/// two rumbles of 600 / 2 - 200 = 100 ms, 300 ms apart), a periodic with a fade-in, a pattern, a
/// sound, an LED, and events placed in different parts.
private let themeJSON = """
    {
      "name": "kiosk",
      "parent-name": "default",
      "profiles": [
        {"name": "full", "feedbacks": [
          {"event-name": "button-pressed", "type": "VibraPattern", "magnitudes": [0.8], "durations": [30]},
          {"event-name": "message-new-instant", "type": "Sound", "effect": "message-new-instant"}
        ]},
        {"name": "quiet", "feedbacks": [
          {"event-name": "message-new-instant", "type": "VibraRumble", "duration": 600, "pause": 200, "count": 2},
          {"event-name": "x-doorbell", "type": "VibraPeriodic", "duration": 400, "magnitude": 0.5,
           "fade-in-level": 0.125, "fade-in-time": 200}
        ]},
        {"name": "silent", "feedbacks": [
          {"event-name": "x-doorbell", "type": "Led", "color": "blue", "frequency": 1000}
        ]}
      ]
    }
    """

@Suite struct FeedbackdThemeTests {
    let theme: FeedbackdTheme
    /// feedbackd's master gain on its vibrator (FF_GAIN 0xC000), written here apart.
    let gain = 49152.0 / 65535.0

    init() throws {
        theme = try FeedbackdTheme(json: Data(themeJSON.utf8), file: "kiosk.json")
    }

    @Test func entriesBecomePatternsAndSounds() throws {
        #expect(theme.name == "kiosk" && theme.parentName == "default")
        let rumble = try #require(theme.vibrations[.quiet]?["message-new-instant"])
        let times = rumble.events.map(\.time)
        #expect(times.count == 2 && abs(times[0]) < 1e-9 && abs(times[1] - 0.3) < 1e-9, "\(times)")
        // feedbackd's default magnitude, 0.5, at its vibrator's gain.
        #expect(rumble.events.allSatisfy { abs($0.duration - 0.1) < 1e-9 && abs($0.intensity - 0.5 * gain) < 1e-9 })
        let doorbell = try #require(theme.vibrations[.quiet]?["x-doorbell"])
        // Periodic: silent for its 200 ms replay delay, then rising from 0.125 towards 0.5 over
        // 200 ms (ff-memless's absolute levels in its 50 ms steps), stopped at 400 ms.
        #expect(abs(doorbell.duration - 0.4) < 1e-9)
        #expect(doorbell.events.allSatisfy { $0.time >= 0.2 - 1e-9 }, "\(doorbell.events.map(\.time))")
        let levels = doorbell.events.map { $0.intensity / gain }
        #expect(levels.first.map { $0 > 0.125 && $0 < 0.2 } == true && zip(levels, levels.dropFirst()).allSatisfy { $0 < $1 } && levels.last! < 0.5, "\(levels)")
        let press = try #require(theme.vibrations[.full]?["button-pressed"])
        #expect(press.events.count == 1 && abs(press.events[0].intensity - 0.8 * gain) < 1e-9 && abs(press.events[0].duration - 0.03) < 1e-9)
        #expect(theme.sound(for: "message-new-instant", profile: .full) == "message-new-instant")
        #expect(theme.sound(for: "message-new-instant", profile: .quiet) == nil, "a full part's sound at quiet")
        #expect(theme.skipped == ["silent/x-doorbell: Led"])
        #expect(theme.events == ["button-pressed", "message-new-instant", "x-doorbell"])
        #expect(theme.warnings.isEmpty)
    }

    /// feedbackd 0.8 uploads a periodic effect with a 200 ms replay delay and an attack from its
    /// fade-in level (0 when absent) over its fade-in time (500 ms when absent), and stops it
    /// `duration` after it started: before 0.8 a zero level meant no fade, 0.8 fades in from 0.
    @Test func aPeriodicWaitsItsDelayThenFadesIn() throws {
        let json = """
            {"name": "flat", "profiles": [{"name": "quiet", "feedbacks": [
              {"event-name": "ring", "type": "VibraPeriodic", "magnitude": 0.5, "duration": 1000},
              {"event-name": "short", "type": "VibraPeriodic", "magnitude": 0.5, "duration": 150},
              {"event-name": "default", "type": "VibraPeriodic"}
            ]}]}
            """
        let theme = try FeedbackdTheme(json: Data(json.utf8), file: "flat.json")
        let ring = try #require(theme.vibration(for: "ring", profile: .quiet))
        #expect(ring.events.allSatisfy { $0.time >= 0.2 - 1e-9 } && abs(ring.duration - 1) < 1e-9, "\(ring.events.map(\.time))")
        let rising = ring.events.filter { $0.time < 0.7 }.map { $0.intensity / gain }
        #expect(rising.first.map { $0 < 0.1 } == true && zip(rising, rising.dropFirst()).allSatisfy { $0 < $1 }, "\(rising)")
        #expect(ring.events.filter { $0.time >= 0.7 }.allSatisfy { abs($0.intensity - 0.5 * gain) < 1e-3 })
        // Stopped before its delay ended: nothing is felt, as with feedbackd.
        #expect(try #require(theme.vibration(for: "short", profile: .quiet)).events.isEmpty)
        // Nothing given: 1000 ms at 0.5.
        let plain = try #require(theme.vibration(for: "default", profile: .quiet))
        #expect(abs(plain.duration - 1) < 1e-9 && abs((plain.events.map(\.intensity).max() ?? 0) - 0.5 * gain) < 1e-3)
    }

    /// A periodic's magnitude from a theme for feedbackd before 0.8 (0-0xFFFF) is read as
    /// feedbackd reads it; a rumble's magnitude outside 0.0-1.0 leaves feedbackd's default, 0.5
    /// (GObject refuses the value). Both are named in warnings.
    @Test func legacyAndOutOfRangeMagnitudesReadAsFeedbackdReadsThem() throws {
        let json = """
            {"name": "old", "profiles": [{"name": "quiet", "feedbacks": [
              {"event-name": "ring", "type": "VibraPeriodic", "magnitude": 32767, "duration": 1000, "fade-in-time": 1},
              {"event-name": "tap", "type": "VibraRumble", "magnitude": 13107, "duration": 50},
              {"event-name": "one", "type": "VibraRumble", "magnitude": 1, "duration": 50}
            ]}]}
            """
        let theme = try FeedbackdTheme(json: Data(json.utf8), file: "old.json")
        func peak(_ event: String) throws -> Double { (try #require(theme.vibration(for: event, profile: .quiet)).events.map(\.intensity).max() ?? 0) / gain }
        #expect(abs(try peak("ring") - 0.5) < 1e-4)
        #expect(abs(try peak("tap") - 0.5) < 1e-9)
        #expect(abs(try peak("one") - 1) < 1e-9)
        #expect(theme.warnings.count == 2 && theme.warnings[0].contains("legacy 0-65535") && theme.warnings[1].contains("feedbackd keeps its default, 0.5"), "\(theme.warnings)")
    }

    /// What feedbackd accepts, this reads: a theme that only names its parent (as two of Debian's
    /// published device themes do), a type it does not know (a Dummy), two feedbacks for one
    /// event (the later kept), a pattern's magnitude past 1 (clamped). Each but the first warns.
    @Test func whatFeedbackdAcceptsIsRead() throws {
        let device = try FeedbackdTheme(json: Data(#"{"name": "$device", "parent-name": "default"}"#.utf8), file: "oneplus,enchilada.json")
        #expect(device.parts.isEmpty && device.parentName == "default" && device.warnings.isEmpty)
        let json = """
            {"name": "lenient", "profiles": [{"name": "full", "feedbacks": [
              {"event-name": "a", "type": "Buzz"},
              {"event-name": "b", "type": "Dummy"},
              {"event-name": "c", "type": "Sound", "effect": "first"},
              {"event-name": "c", "type": "Sound", "effect": "second"},
              {"event-name": "d", "type": "VibraPattern", "magnitudes": [2, -1], "durations": [10, 10]}
            ]}, {"name": "quiet"}]}
            """
        let theme = try FeedbackdTheme(json: Data(json.utf8), file: "lenient.json")
        #expect(theme.skipped == ["full/a: Buzz", "full/b: Dummy"])
        #expect(theme.sound(for: "c", profile: .full) == "second")
        #expect(try #require(theme.vibration(for: "d", profile: .full)).events.map { $0.intensity / gain } == [1])
        #expect(theme.warnings.count == 4, "\(theme.warnings)")
        #expect(theme.parts[.quiet] == [:])
    }

    /// A VibraPattern's zero-magnitude segment is a pause that moves the next one later, as in
    /// feedbackd's own notification-new-generic ([0.25, 0.0, 0.25] over [50, 250, 50] ms); a
    /// rumble's magnitude and pause place and scale each repeat.
    @Test func gapsAndMagnitudesPlaceEachSegment() throws {
        let json = """
            {"name": "gaps", "profiles": [{"name": "full", "feedbacks": [
              {"event-name": "two-pulses", "type": "VibraPattern", "magnitudes": [1, 0, 1], "durations": [100, 200, 100]},
              {"event-name": "generic", "type": "VibraPattern", "magnitudes": [0.25, 0.0, 0.25], "durations": [50, 250, 50]},
              {"event-name": "leading-gap", "type": "VibraPattern", "magnitudes": [0, 0.5], "durations": [30, 20]},
              {"event-name": "soft", "type": "VibraRumble", "duration": 300, "pause": 60, "count": 3, "magnitude": 0.5},
              {"event-name": "crowded", "type": "VibraRumble", "duration": 40, "pause": 60, "count": 3, "magnitude": 0.5}
            ]}]}
            """
        let theme = try FeedbackdTheme(json: Data(json.utf8), file: "gaps.json")
        func spans(_ event: String) throws -> [[Double]] {
            try #require(theme.vibration(for: event, profile: .full)).events.map {
                [($0.time * 1000).rounded(), ($0.duration * 1000).rounded(), ($0.intensity / gain * 1000).rounded() / 1000]
            }
        }
        #expect(try spans("two-pulses") == [[0, 100, 1], [300, 100, 1]])
        #expect(try spans("generic") == [[0, 50, 0.25], [300, 50, 0.25]])
        #expect(try spans("leading-gap") == [[30, 20, 0.5]])
        // Each rumble 300 / 3 - 60 = 40 ms, one every 100 ms; with no room left (40 / 3 - 60 < 0),
        // feedbackd's one rumble of 1000 ms.
        #expect(try spans("soft") == [[0, 40, 0.5], [100, 40, 0.5], [200, 40, 0.5]])
        #expect(try spans("crowded") == [[0, 1000, 0.5]])
        #expect(abs(try #require(theme.vibration(for: "two-pulses", profile: .full)).duration - 0.4) < 1e-9)
    }

    /// A theme over its parent: each part's event replaced by the child's feedback of any type,
    /// the parent's other events kept.
    @Test func aChildReplacesItsParentsFeedbackPartByPart() throws {
        let parent = try FeedbackdTheme(
            json: Data(
                """
                {"name": "default", "profiles": [
                  {"name": "full", "feedbacks": [{"event-name": "message-new-instant", "type": "Sound", "effect": "bell"}]},
                  {"name": "quiet", "feedbacks": [
                    {"event-name": "message-new-instant", "type": "VibraRumble", "duration": 500},
                    {"event-name": "window-close", "type": "VibraRumble", "duration": 25}
                  ]}
                ]}
                """.utf8), file: "default.json")
        let merged = theme.merged(over: parent)
        #expect(merged.name == "kiosk" && merged.files == ["kiosk.json", "default.json"])
        #expect(merged.sound(for: "message-new-instant", profile: .full) == "message-new-instant", "the child's sound")
        #expect(abs((merged.vibration(for: "message-new-instant", profile: .quiet)?.duration ?? 0) - 0.4) < 1e-9, "the child's rumble")
        #expect(abs((merged.vibration(for: "window-close", profile: .quiet)?.duration ?? 0) - 0.025) < 1e-9, "the parent's event kept")
    }

    /// Profiles stack as the theme specification says: full uses every part, quiet its own and
    /// silent's, silent only its own.
    @Test func theLoudestAllowedPartIsPlayed() {
        #expect(theme.vibration(for: "button-pressed", profile: .full) != nil)
        #expect(theme.vibration(for: "button-pressed", profile: .quiet) == nil)
        #expect(theme.vibration(for: "message-new-instant", profile: .full) == theme.vibrations[.quiet]?["message-new-instant"])
        #expect(theme.vibration(for: "x-doorbell", profile: .silent) == nil)
    }

    @Test func errorsNameTheEntry() {
        let cases: [(String, String)] = [
            (#"{"name": "t", "profiles": [{"name": "loud", "feedbacks": []}]}"#, "profiles[0]: 'name' must be full, quiet or silent"),
            (
                #"{"name": "t", "profiles": [{"name": "quiet", "feedbacks": [{"event-name": "b", "type": "VibraRumble", "duration": 40000, "count": 3}]}]}"#,
                "quiet/feedbacks[0] (b): 'duration' must be a number from 0 to 30000"
            ),
            (
                #"{"name": "t", "profiles": [{"name": "full", "feedbacks": [{"event-name": "c", "type": "VibraPattern", "magnitudes": ["x"], "durations": [10]}]}]}"#,
                "needs 'magnitudes' and 'durations'"
            ),
            (
                #"{"name": "t", "profiles": [{"name": "full", "feedbacks": [{"event-name": "d", "type": "VibraRumble", "duration": 10, "magnitude": true}]}]}"#,
                "'magnitude' must be a number"
            ),
            (#"{"name": "t", "profiles": [{"name": "full", "feedbacks": [{"event-name": "e", "type": "Sound"}]}]}"#, "(e): needs 'effect'"),
            (#"{"name": "t", "profiles": {"full": []}}"#, "'profiles' must be a list of objects"),
            (#"{"name": "default", "parent-name": "other", "profiles": []}"#, "the default theme is the root"),
            (#"{"profiles": []}"#, "'name' must be a non-empty string"),
            ("[1, 2]", "not a JSON object"),
            ("{", "not JSON")
        ]
        for (json, expected) in cases {
            #expect {
                _ = try FeedbackdTheme(json: Data(json.utf8), file: "t.json")
            } throws: { error in
                "\(error)".contains(expected) && "\(error)".contains("t.json")
            }
        }
    }

    /// Through the server on the simulated chip: a theme's own event plays its pattern in quiet,
    /// a theme's rumble replaces the built-in feedback, an event the theme keeps for full is not
    /// played in quiet.
    @Test func triggersPlayTheTheme() throws {
        let rig = try EngineRig()
        let server = HapticServer(engine: rig.engine, device: "simulated", globalProfile: .quiet)
        server.setTheme(theme)
        let ends = Locked<[UInt32: FeedbackEndReason]>([:])
        func trigger(_ event: String) -> UInt32 {
            server.trigger(FeedbackTrigger(app: "kiosk", event: event), owner: "test") { id, reason in ends.withLock { $0[id] = reason } }
        }
        let start = rig.clock.now
        let message = trigger("message-new-instant")
        rig.advance(.milliseconds(600))
        #expect(ends.withLock { $0[message] } == .natural)
        func driven(_ from: Double, _ to: Double) -> Bool {
            rig.chip.output.peak(from: start.advanced(by: .secondsClamped(from)), to: start.advanced(by: .secondsClamped(to))) > 0
        }
        #expect(driven(0.02, 0.08) && !driven(0.15, 0.28) && driven(0.32, 0.38), "not two 100 ms buzzes 200 ms apart")
        let press = trigger("button-pressed")
        let doorbell = trigger("x-doorbell")
        rig.advance(.milliseconds(600))
        #expect(ends.withLock { $0[press] } == .notFound, "the theme keeps button-pressed for full")
        #expect(ends.withLock { $0[doorbell] } == .natural)
    }
}
