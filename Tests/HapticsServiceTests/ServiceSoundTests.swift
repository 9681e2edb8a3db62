// SPDX-License-Identifier: Apache-2.0

import Audio
import Foundation
import Haptics
import HapticsService
import HapticsSimulation
import HardwareAccess
import Testing

/// hapticd's themed sounds: heard for a client whose profile is full, not for quiet or silent.
@Suite struct ServiceSoundTests {
    func theme(_ root: String) throws -> SoundTheme {
        let directory = root + "/share/sounds/freedesktop/stereo"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "[Sound Theme]\nDirectories=stereo\n".write(toFile: root + "/share/sounds/freedesktop/index.theme", atomically: true, encoding: .utf8)
        let tap = try WAVFileOutput(path: directory + "/complete.wav", origin: .zero)
        try tap.write([Int16](repeating: 0x6000, count: 960))
        try tap.close(drainTimeout: .zero)
        return SoundTheme(environment: ["XDG_DATA_HOME": root + "/none", "XDG_DATA_DIRS": root + "/share", "LANG": "C"])
    }

    /// A server at `profile` on the simulated chip, 10 ms into the virtual clock, whose sounds (the
    /// test's own theme) are recorded on that clock into the WAV file it returns.
    func soundServer(profile: FeedbackProfile) throws -> (EngineRig, SoundEngine, String, HapticServer) {
        let rig = try EngineRig()
        rig.clock.advance(by: .milliseconds(10))
        let root = NSTemporaryDirectory() + "hapticd-sound-\(UUID().uuidString.prefix(8))"
        let soundTheme = try theme(root)
        let recording = root + "/timeline.wav"
        let engine = try SoundEngine(output: try WAVFileOutput(path: recording, origin: .zero), clock: rig.clock)
        var options = HapticServer.Options()
        options.sounds = FeedbackSounds(engine: engine, theme: soundTheme)
        return (rig, engine, recording, HapticServer(engine: rig.engine, device: "simulated", options: options, globalProfile: profile))
    }

    /// When the recording (a 48 kHz stereo WAV of the sound engine's timeline) first gets loud
    /// (a tenth of full scale), in seconds from its start; nil when it never does.
    func firstHeard(_ recording: String) throws -> Double? {
        let samples = try Data(contentsOf: URL(fileURLWithPath: recording)).dropFirst(44)
        let loud = stride(from: samples.startIndex, to: samples.endIndex - 1, by: 2).first {
            abs(Int32(Int16(bitPattern: UInt16(samples[$0]) | UInt16(samples[$0 + 1]) << 8))) >= 3277
        }
        return loud.map { Double(($0 - samples.startIndex) / 4) / 48_000 }
    }

    @Test(arguments: [FeedbackProfile.full, .quiet])
    func aSuccessSoundsOnlyWhenTheProfileIsFull(profile: FeedbackProfile) throws {
        let (rig, engine, recording, server) = try soundServer(profile: profile)
        defer { try? FileManager.default.removeItem(atPath: (recording as NSString).deletingLastPathComponent) }
        var request = ServiceRequest(.play)
        request.feedback = "success"
        request.importance = .notification  // played in quiet too
        let asked = rig.clock.now
        let reply = server.handle(request, from: HapticServer.Client(id: 1, app: "kiosk", uid: 1000))
        #expect(reply.ok && reply.outcome == "played")
        rig.clock.advance(by: .milliseconds(600))
        try engine.finish()
        let go = try #require(rig.chip.trace.first { $0.written == [0x0C, 0x01] && $0.time >= asked }?.time.seconds)
        let loud = try firstHeard(recording)
        if profile == .full {
            let heard = try #require(loud)
            #expect(abs(heard - go) < 0.001)
        } else {
            #expect(loud == nil)
            #expect(go - asked.seconds < 0.005, "a quiet profile's haptic waited for a sound")
        }
    }

    /// A theme's `Sound` plays with its event at full, the vibration of the quieter part felt as
    /// the sound is heard; at quiet the vibration alone, at once.
    @Test(arguments: [FeedbackProfile.full, .quiet])
    func aThemesSoundIsHeardWithItsVibration(profile: FeedbackProfile) throws {
        let (rig, engine, recording, server) = try soundServer(profile: profile)
        defer { try? FileManager.default.removeItem(atPath: (recording as NSString).deletingLastPathComponent) }
        server.setTheme(
            try FeedbackdTheme(
                json: Data(
                    """
                    {"name": "t", "profiles": [
                      {"name": "full", "feedbacks": [{"event-name": "x-done", "type": "Sound", "effect": "complete"}]},
                      {"name": "quiet", "feedbacks": [{"event-name": "x-done", "type": "VibraRumble", "duration": 100}]}
                    ]}
                    """.utf8)))
        let asked = rig.clock.now
        let ended = Locked<FeedbackEndReason?>(nil)
        _ = server.trigger(FeedbackTrigger(app: "kiosk", event: "x-done"), owner: "test") { _, reason in ended.withLock { $0 = reason } }
        rig.clock.advance(by: .milliseconds(600))
        try engine.finish()
        #expect(ended.withLock { $0 } == .natural)
        let driven = try #require(rig.chip.output.bursts(from: asked, to: rig.clock.now).first, "the rumble did not play")
        let loud = try firstHeard(recording)
        if profile == .full {
            let heard = try #require(loud, "the theme's sound was not heard")
            #expect(abs(heard - driven.start.seconds) < 0.002, "heard at \(heard) s, felt at \(driven.start.seconds) s")
        } else {
            #expect(loud == nil, "a full part's sound at quiet")
            #expect(driven.start.duration(since: asked) < .milliseconds(5))
        }
    }

    /// An app's `sound-file` hint is heard only at a full profile, as feedbackd plays it: not when
    /// the phone is quiet or silent, nor when the app's own profile hint asks for quiet.
    @Test(arguments: [(FeedbackProfile.full, FeedbackProfile?.none, true), (.quiet, nil, false), (.silent, nil, false), (.full, .quiet, false)])
    func anAppsSoundFileIsHeardOnlyAtFull(global: FeedbackProfile, hint: FeedbackProfile?, heard: Bool) throws {
        let (rig, engine, recording, server) = try soundServer(profile: global)
        let root = (recording as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: root) }
        let file = root + "/share/sounds/freedesktop/stereo/complete.wav"
        let trigger = FeedbackTrigger(app: "chat", event: "message-new-instant", profile: hint, soundFile: file)
        _ = server.trigger(trigger, owner: "test") { _, _ in }
        rig.clock.advance(by: .milliseconds(600))
        try engine.finish()
        let loud = try firstHeard(recording)
        #expect((loud != nil) == heard, "global \(global), hint \(String(describing: hint)): heard at \(String(describing: loud))")
    }
}
