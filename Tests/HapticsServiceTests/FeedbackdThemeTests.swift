// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import Foundation
import Haptics
import HapticsService
import HapticsSimulation
import HardwareAccess
import Testing

/// A theme of the test's own in feedbackd 0.8's JSON format: a rumble that repeats, a periodic
/// with a fade-in, a pattern, a sound, an LED, and events placed in different parts.
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
          {"event-name": "message-new-instant", "type": "VibraRumble", "duration": 100, "pause": 200, "count": 2},
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

    init() throws {
        theme = try FeedbackdTheme(json: Data(themeJSON.utf8), file: "kiosk.json")
    }

    @Test func entriesBecomePatternsAndSounds() throws {
        #expect(theme.name == "kiosk" && theme.parentName == "default")
        let rumble = try #require(theme.vibrations[.quiet]?["message-new-instant"])
        let times = rumble.events.map(\.time)
        #expect(times.count == 2 && abs(times[0]) < 1e-9 && abs(times[1] - 0.3) < 1e-9, "\(times)")
        #expect(rumble.events.allSatisfy { abs($0.duration - 0.1) < 1e-9 && $0.intensity == 1 })
        let doorbell = try #require(theme.vibrations[.quiet]?["x-doorbell"])
        // Periodic at half strength, rising from 0.125 over 200 ms (ff-memless's absolute levels,
        // in ff-memless's steps: the first one sampled a step into the attack).
        #expect(abs(doorbell.duration - 0.4) < 1e-9)
        let first = doorbell.events.first?.intensity ?? 0
        #expect(first > 0.125 && first < 0.2, "\(first)")
        #expect(doorbell.events.filter { $0.time >= 0.2 }.allSatisfy { abs($0.intensity - 0.5) < 0.001 })
        let press = try #require(theme.vibrations[.full]?["button-pressed"])
        #expect(press.events.count == 1 && press.events[0].intensity == 0.8 && abs(press.events[0].duration - 0.03) < 1e-9)
        #expect(theme.sound(for: "message-new-instant", profile: .full) == "message-new-instant")
        #expect(theme.sound(for: "message-new-instant", profile: .quiet) == nil, "a full part's sound at quiet")
        #expect(theme.skipped == ["silent/x-doorbell: Led"])
        #expect(theme.events == ["button-pressed", "message-new-instant", "x-doorbell"])
        #expect(theme.warnings.isEmpty)
    }

    /// feedbackd's device uploads a periodic effect whose zero or absent fade-in level is the
    /// magnitude and whose zero fade-in time is the duration: no fade unless a level is given.
    @Test func aPeriodicWithoutAFadeInLevelIsFlat() throws {
        let json = """
            {"name": "flat", "profiles": [{"name": "quiet", "feedbacks": [
              {"event-name": "ring", "type": "VibraPeriodic", "magnitude": 0.5, "duration": 1000},
              {"event-name": "zero", "type": "VibraPeriodic", "magnitude": 0.5, "duration": 500, "fade-in-level": 0, "fade-in-time": 200},
              {"event-name": "slow", "type": "VibraPeriodic", "magnitude": 1.0, "duration": 400, "fade-in-level": 0.5}
            ]}]}
            """
        let theme = try FeedbackdTheme(json: Data(json.utf8), file: "flat.json")
        for event in ["ring", "zero"] {
            let pattern = try #require(theme.vibration(for: event, profile: .quiet))
            #expect(pattern.events.allSatisfy { abs($0.intensity - 0.5) < 1e-6 }, "\(event): \(pattern.events.map(\.intensity))")
        }
        // A level without a time rises over the whole duration.
        let slow = try #require(theme.vibration(for: "slow", profile: .quiet))
        let late = slow.events.filter { $0.time >= 0.3 }.map(\.intensity)
        let first = slow.events.first?.intensity ?? 0
        #expect(first > 0.5 && first < 0.6 && late.allSatisfy { $0 > 0.8 && $0 < 1 }, "\(slow.events.map(\.intensity))")
    }

    /// Themes for feedbackd before 0.8 give 0-0xFFFF integers: a value above 1 is read that way,
    /// as feedbackd reads it, and named in a warning; 0.0-1.0 is read as it is.
    @Test func legacyIntegerMagnitudesAreToldApart() throws {
        let json = """
            {"name": "old", "profiles": [{"name": "quiet", "feedbacks": [
              {"event-name": "ring", "type": "VibraPeriodic", "magnitude": 32767, "duration": 100},
              {"event-name": "tap", "type": "VibraRumble", "magnitude": 13107, "duration": 50},
              {"event-name": "one", "type": "VibraRumble", "magnitude": 1, "duration": 50}
            ]}]}
            """
        let theme = try FeedbackdTheme(json: Data(json.utf8), file: "old.json")
        func peak(_ event: String) throws -> Double { try #require(theme.vibration(for: event, profile: .quiet)).events.map(\.intensity).max() ?? 0 }
        #expect(abs(try peak("ring") - 0.5) < 1e-4)
        #expect(abs(try peak("tap") - 0.2) < 1e-4)
        #expect(try peak("one") == 1)
        #expect(theme.warnings.count == 2 && theme.warnings.allSatisfy { $0.contains("legacy 0-65535") }, "\(theme.warnings)")
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
              {"event-name": "soft", "type": "VibraRumble", "duration": 40, "pause": 60, "count": 3, "magnitude": 0.5}
            ]}]}
            """
        let theme = try FeedbackdTheme(json: Data(json.utf8), file: "gaps.json")
        func spans(_ event: String) throws -> [[Double]] {
            try #require(theme.vibration(for: event, profile: .full)).events.map {
                [($0.time * 1000).rounded(), ($0.duration * 1000).rounded(), ($0.intensity * 1000).rounded() / 1000]
            }
        }
        #expect(try spans("two-pulses") == [[0, 100, 1], [300, 100, 1]])
        #expect(try spans("generic") == [[0, 50, 0.25], [300, 50, 0.25]])
        #expect(try spans("leading-gap") == [[30, 20, 0.5]])
        #expect(try spans("soft") == [[0, 40, 0.5], [100, 40, 0.5], [200, 40, 0.5]])
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
            (#"{"name": "t", "profiles": [{"name": "full", "feedbacks": [{"event-name": "a", "type": "VibraRumble"}]}]}"#, "full/feedbacks[0] (a): needs 'duration'"),
            (#"{"name": "t", "profiles": [{"name": "quiet", "feedbacks": [{"event-name": "b", "type": "VibraRumble", "duration": 20000, "count": 3}]}]}"#, "plays over 30 s"),
            (
                #"{"name": "t", "profiles": [{"name": "full", "feedbacks": [{"event-name": "c", "type": "VibraPattern", "magnitudes": [2], "durations": [10]}]}]}"#,
                "'magnitudes' are 0.0 to 1.0"
            ),
            (
                #"{"name": "t", "profiles": [{"name": "full", "feedbacks": [{"event-name": "d", "type": "VibraRumble", "duration": 10, "magnitude": true}]}]}"#,
                "'magnitude' must be a number"
            ),
            (#"{"name": "t", "profiles": [{"name": "full", "feedbacks": [{"event-name": "e", "type": "Sound"}]}]}"#, "(e): needs 'effect'"),
            (#"{"name": "t", "profiles": [{"name": "full", "feedbacks": [{"event-name": "f", "type": "Buzz"}]}]}"#, "'type' Buzz is none of"),
            (
                #"{"name": "t", "profiles": [{"name": "full", "feedbacks": [{"event-name": "g", "type": "Sound", "effect": "a"}, {"event-name": "g", "type": "Sound", "effect": "b"}]}]}"#,
                "a second feedback for the event"
            ),
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
