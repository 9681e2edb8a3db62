// SPDX-License-Identifier: Apache-2.0

import Audio
import DRV2605
import DRV2605Simulator
import Foundation
import HapticChip
import HapticEffects
import Haptics
import HapticsSimulation
import HardwareAccess
import Testing

/// Sounds recorded on the virtual clock (`WAVFileOutput`, sample 0 at instant 0) against the
/// simulated chip's bus trace: a sound and a haptic designed together must start together.
@Suite("Sound with haptics")
struct SoundWithHapticsTests {
    func recording() -> String {
        let directory = NSTemporaryDirectory() + "haptics-sound-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory + "/timeline.wav"
    }

    /// Instants of the GO writes (`W [0C 01]`) in the trace, in seconds.
    func goWrites(_ chip: SimulatedDRV2605) -> [Double] {
        chip.trace.filter { $0.kind == .write && $0.written == [0x0C, 0x01] }.map(\.time.seconds)
    }

    let click = Sound(name: "click", mono: [Float](repeating: 0.8, count: 480))

    @Test func aSoundNoteAndAnImpactStartTogether() throws {
        let rig = try EngineRig()
        rig.clock.advance(by: .milliseconds(10))
        let path = recording()
        let sounds = try SoundEngine(output: try WAVFileOutput(path: path, origin: .zero), clock: rig.clock)
        let player = SequencePlayer(
            engine: rig.engine, notes: [.sound(click), .feedback(.impact(.heavy)), .wait(0.4), .sound(click), .feedback(.success)], sounds: sounds)
        #expect(player.startDelay == sounds.leadTime)
        player.start()
        #expect(player.runToCompletion(limit: .seconds(5)) == .finished)
        try sounds.finish()
        let gos = goWrites(rig.chip)
        #expect(gos.count == 2)
        let first = try #require(try recordedOnset(path))
        let second = try #require(try recordedOnset(path, after: first + 0.1))
        #expect(abs(first - gos[0]) < 0.001)
        #expect(abs(second - gos[1]) < 0.001)
        #expect(abs(second - first - 0.4) < 0.001)
        #expect(sounds.report.lateStarts == 0)
    }

    @Test func anAudioCustomEventBesideATransientStartsWithIt() throws {
        let directory = NSTemporaryDirectory() + "haptics-ahap-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory + "/sounds", withIntermediateDirectories: true)
        try writeTap(directory + "/sounds/tap.wav")
        let text = """
            {"Version": 1, "Pattern": [
              {"Event": {"Time": 0.3, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}]}},
              {"Event": {"Time": 0.3, "EventType": "AudioCustom", "EventWaveformPath": "sounds/tap.wav",
                         "EventParameters": [{"ParameterID": "AudioVolume", "ParameterValue": 0.5}]}}
            ]}
            """
        try text.write(toFile: directory + "/p.ahap", atomically: true, encoding: .utf8)
        let document = try PatternFileReader.read(path: directory + "/p.ahap")
        let track = try PatternSoundTrack(document: document.pattern, file: directory + "/p.ahap")
        #expect(track.cues.count == 1)
        #expect(track.cues[0].volume == 0.5)
        let rig = try EngineRig()
        rig.clock.advance(by: .milliseconds(10))
        let path = recording()
        let sounds = try SoundEngine(output: try WAVFileOutput(path: path, origin: .zero), clock: rig.clock)
        var renderer = PatternRenderer()
        renderer.playsAudio = true
        let rendered = renderer.render(document.pattern)
        #expect(rendered.warnings.allSatisfy { !$0.contains("audio") })
        let player = PatternPlayer(engine: rig.engine, pattern: rendered, soundTrack: track, sounds: sounds)
        let startedAt = rig.clock.now.seconds
        player.start()
        #expect(player.runToCompletion(limit: .seconds(5)) == .finished)
        try sounds.finish()
        let go = try #require(goWrites(rig.chip).first)
        let heard = try #require(try recordedOnset(path))
        #expect(abs(heard - go) < 0.001)
        #expect(abs(go - (startedAt + sounds.leadTime.secondsDouble + 0.3)) < 0.001)
    }

    /// Every onset in the recording (a tap is 20 ms long), in seconds.
    func recordedOnsets(_ path: String) throws -> [Double] {
        var onsets: [Double] = []
        while let onset = try recordedOnset(path, after: (onsets.last ?? -0.03) + 0.03) { onsets.append(onset) }
        return onsets
    }

    /// How a player's time is moved while it plays.
    enum TimeTransform: String, CaseIterable, Sendable {
        case rateBeforeStart, rateWhilePlaying, pauseAndResume, seekBack, loop
    }

    /// A pattern whose taps are felt and heard together (a transient and an `AudioCustom` of a
    /// tap at 0.2, 1.0 and 1.6 s), played under each of the player's time transforms at
    /// playback rate 2: every sound must start with its GO on the virtual clock, and both at the
    /// instants the transform puts them (pattern seconds ÷ rate).
    @Test(arguments: TimeTransform.allCases)
    func soundsFollowEveryTimeTransformWithTheHaptics(transform: TimeTransform) throws {
        let directory = NSTemporaryDirectory() + "haptics-rate-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try writeTap(directory + "/tap.wav")
        let taps = [0.2, 1.0, 1.6].map { time in
            """
            {"Event": {"Time": \(time), "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}]}},
            {"Event": {"Time": \(time), "EventType": "AudioCustom", "EventWaveformPath": "tap.wav"}}
            """
        }
        try #"{"Version": 1, "Pattern": [\#(taps.joined(separator: ",\n"))]}"#.write(toFile: directory + "/p.ahap", atomically: true, encoding: .utf8)
        let document = try PatternFileReader.read(path: directory + "/p.ahap")
        let track = try PatternSoundTrack(document: document.pattern, file: directory + "/p.ahap")
        let rig = try EngineRig()
        rig.clock.advance(by: .milliseconds(10))
        let path = recording()
        let sounds = try SoundEngine(output: try WAVFileOutput(path: path, origin: .zero), clock: rig.clock)
        let lead = sounds.leadTime.secondsDouble
        #expect(lead < 0.1, "the instants below assume sounds placed 0.1 s ahead are on time")
        var renderer = PatternRenderer()
        renderer.playsAudio = true
        let rendered = renderer.render(document.pattern)
        #expect(rendered.mode == .rom && rendered.hits.count == 3)
        let player = PatternPlayer(engine: rig.engine, pattern: rendered, soundTrack: track, sounds: sounds)
        let at = rig.clock.now.seconds + lead
        func advance(_ seconds: Double) { rig.clock.advance(by: .secondsClamped(seconds)) }
        let expected: [Double]
        switch transform {
        case .rateBeforeStart:
            player.playbackRate = 2
            player.start()
            expected = [0.1, 0.5, 0.8].map { at + $0 }
        case .rateWhilePlaying:
            player.start()
            advance(lead + 0.6)  // at 0.6 s of the pattern, the first tap played
            player.playbackRate = 2
            expected = [at + 0.2, at + 0.6 + 0.2, at + 0.6 + 0.5]
        case .pauseAndResume:
            player.playbackRate = 2
            player.start()
            advance(lead + 0.3)  // at 0.6 s of the pattern
            player.pause()
            advance(1)
            let resumed = rig.clock.now.seconds + lead
            player.resume()
            expected = [at + 0.1, resumed + 0.2, resumed + 0.5]
        case .seekBack:
            player.playbackRate = 2
            player.start()
            advance(lead + 0.6)  // at 1.2 s of the pattern: two taps played
            player.seek(to: 0)
            expected = [at + 0.1, at + 0.5, at + 0.6 + 0.1, at + 0.6 + 0.5, at + 0.6 + 0.8]
        case .loop:
            player.playbackRate = 2
            player.loopEnabled = true
            player.loopEnd = 1.2
            player.start()
            advance(lead + 1.15)  // looped at 1.2 s of the pattern (0.6 s), stopped before the third pass
            player.stop()
            expected = [0.1, 0.5, 0.7, 1.1].map { at + $0 }
        }
        if transform != .loop { #expect(player.runToCompletion(limit: .seconds(5)) == .finished) }
        advance(1)
        try sounds.finish()
        let gos = goWrites(rig.chip)
        let heard = try recordedOnsets(path)
        let format = { (times: [Double]) in times.map { String(format: "%.3f", $0 - at) }.joined(separator: " ") }
        #expect(gos.count == expected.count && zip(gos, expected).allSatisfy { abs($0 - $1) < 0.001 }, "GO at \(format(gos)), expected \(format(expected)) (s after the start)")
        #expect(heard.count == expected.count && zip(heard, expected).allSatisfy { abs($0 - $1) < 0.001 }, "heard at \(format(heard)), expected \(format(expected))")
        #expect(sounds.report.lateStarts == 0)
    }

    @Test func cancellingASequenceStopsItsSoundsWithinAFade() throws {
        let rig = try EngineRig()
        let path = recording()
        let sounds = try SoundEngine(output: try WAVFileOutput(path: path, origin: .zero), clock: rig.clock)
        let long = Sound(name: "long", mono: [Float](repeating: 0.5, count: 96_000))
        let player = SequencePlayer(engine: rig.engine, notes: [.sound(long), .feedback(.vibration(.default))], sounds: sounds)
        player.start()
        rig.clock.advance(by: .milliseconds(300))
        player.cancel()
        let cancelledAt = rig.clock.now.seconds
        try sounds.finish()
        #expect(player.outcome == .cancelled)
        // Frames already made (the lead time's worth) are heard; then a 5 ms fade, then silence
        // to the end of what would have played.
        let after = try recordedOnset(path, after: cancelledAt + sounds.leadTime.secondsDouble + 0.0055)
        #expect(after == nil)
        #expect(try recordedOnset(path) != nil)
        rig.engine.runDueWork()
        #expect(rig.chip.output.level(at: rig.clock.now) == 0)
    }

    @Test func withoutASoundEngineSoundNotesAreCountedAsUnplayed() throws {
        let rig = try EngineRig()
        let player = SequencePlayer(engine: rig.engine, notes: [.sound(click), .feedback(.selection), .sound(click)])
        #expect(player.unplayedSounds == 2)
        #expect(player.startDelay == .zero)
    }

    @Test func soundNotesParseByThemeNameAndPath() throws {
        var asked: [String] = []
        let notes = try SequenceNote.parse(
            "sound complete, impact-heavy, sound /tmp/a.wav, sound off", loadPattern: { _ in HapticPattern(events: []) },
            loadSound: {
                asked.append($0)
                return $0 == "off" ? nil : Sound(name: $0, mono: [0.1])
            })
        #expect(asked == ["complete", "/tmp/a.wav", "off"])
        #expect(notes.count == 3)
        #expect(throws: SequenceParseError.self) { try SequenceNote.parse("sound", loadPattern: { _ in HapticPattern(events: []) }) }
    }
}
