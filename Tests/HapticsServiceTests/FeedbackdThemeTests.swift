// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import Foundation
import Haptics
import HapticsService
import HapticsSimulation
import HardwareAccess
import Testing

/// A theme of the test's own in feedbackd's JSON format: a rumble that repeats, a periodic with a
/// fade-in, a pattern, entries hapticd does not play, and events placed in different parts.
private let themeJSON = """
    {
      "name": "kiosk",
      "profiles": [
        {"name": "full", "feedbacks": [
          {"event-name": "button-pressed", "type": "VibraPattern", "magnitudes": [0.8], "durations": [30]},
          {"event-name": "message-new-instant", "type": "Sound", "effect": "message-new-instant"}
        ]},
        {"name": "quiet", "feedbacks": [
          {"event-name": "message-new-instant", "type": "VibraRumble", "duration": 100, "pause": 200, "count": 2},
          {"event-name": "x-doorbell", "type": "VibraPeriodic", "duration": 400, "magnitude": 16384,
           "fade-in-level": 0, "fade-in-time": 200}
        ]},
        {"name": "silent", "feedbacks": [
          {"event-name": "x-doorbell", "type": "Led", "color": "blue"}
        ]}
      ]
    }
    """

@Suite struct FeedbackdThemeTests {
    let theme: FeedbackdTheme

    init() throws {
        theme = try FeedbackdTheme(json: Data(themeJSON.utf8), file: "kiosk.json")
    }

    @Test func vibrationTypesBecomePatterns() throws {
        #expect(theme.name == "kiosk")
        let rumble = try #require(theme.vibrations[.quiet]?["message-new-instant"])
        let times = rumble.events.map(\.time)
        #expect(times.count == 2 && abs(times[0]) < 1e-9 && abs(times[1] - 0.3) < 1e-9, "\(times)")
        #expect(rumble.events.allSatisfy { abs($0.duration - 0.1) < 1e-9 && $0.intensity == 1 })
        let doorbell = try #require(theme.vibrations[.quiet]?["x-doorbell"])
        // Periodic at half strength (16384 of 0x7FFF), rising from 0 over 200 ms (absolute levels).
        #expect(abs(doorbell.duration - 0.4) < 1e-9)
        #expect(abs((doorbell.events.first?.intensity ?? 0) - 0.0625) < 0.01, "\(doorbell.events.first.map(\.intensity) ?? -1)")
        #expect(doorbell.events.filter { $0.time >= 0.2 }.allSatisfy { abs($0.intensity - 0.5) < 0.001 })
        let press = try #require(theme.vibrations[.full]?["button-pressed"])
        #expect(press.events.count == 1 && press.events[0].intensity == 0.8 && abs(press.events[0].duration - 0.03) < 1e-9)
        #expect(Set(theme.skipped) == ["full/message-new-instant: Sound", "silent/x-doorbell: Led"])
    }

    /// A VibraPattern's zero-magnitude segment is a pause that moves the next one later, as in
    /// feedbackd's own notification-new-generic ([0.25, 0.0, 0.25] over [50, 250, 50] ms); a
    /// rumble's magnitude (0-0xFFFF) and pause place and scale each repeat.
    @Test func gapsAndMagnitudesPlaceEachSegment() throws {
        let json = """
            {"profiles": [{"name": "full", "feedbacks": [
              {"event-name": "two-pulses", "type": "VibraPattern", "magnitudes": [1, 0, 1], "durations": [100, 200, 100]},
              {"event-name": "generic", "type": "VibraPattern", "magnitudes": [0.25, 0.0, 0.25], "durations": [50, 250, 50]},
              {"event-name": "leading-gap", "type": "VibraPattern", "magnitudes": [0, 0.5], "durations": [30, 20]},
              {"event-name": "soft", "type": "VibraRumble", "duration": 40, "pause": 60, "count": 3, "magnitude": 32768}
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
            (#"{"profiles": [{"name": "loud", "feedbacks": []}]}"#, "profiles[0]"),
            (#"{"profiles": [{"name": "full", "feedbacks": [{"event-name": "a", "type": "VibraRumble"}]}]}"#, "full/feedbacks[0] (a): needs 'duration'"),
            (#"{"profiles": [{"name": "quiet", "feedbacks": [{"event-name": "b", "type": "VibraRumble", "duration": 20000, "count": 3}]}]}"#, "plays over 30 s"),
            (#"{"profiles": [{"name": "full", "feedbacks": [{"event-name": "c", "type": "VibraPattern", "magnitudes": [2], "durations": [10]}]}]}"#, "magnitudes are 0 to 1"),
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
