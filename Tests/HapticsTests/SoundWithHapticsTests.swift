// SPDX-License-Identifier: Apache-2.0

import Audio
import DRV2605
import DRV2605Simulator
import Foundation
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
