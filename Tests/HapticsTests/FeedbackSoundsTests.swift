// SPDX-License-Identifier: Apache-2.0

import Audio
import Foundation
import Haptics
import HapticsSimulation
import HardwareAccess
import Testing

/// A 10 ms tap at 48 kHz, loud from its first sample (its onset is exact), written to `path`.
func writeTap(_ path: String) throws {
    let output = try WAVFileOutput(path: path, origin: .zero)
    try output.write([Int16](repeating: 0x6000, count: 960))
    try output.close(drainTimeout: .zero)
}

/// A freedesktop theme in a scratch directory whose `complete` is a tap, and a sound engine on
/// `clock` recording to a WAV (sample 0 at instant 0).
func tapTheme(clock: VirtualClock) throws -> (theme: SoundTheme, engine: SoundEngine, recording: String) {
    let root = NSTemporaryDirectory() + "haptics-theme-\(UUID().uuidString.prefix(8))"
    let directory = root + "/share/sounds/freedesktop/stereo"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try "[Sound Theme]\nName=Default\nDirectories=stereo\n\n[stereo]\nOutputProfile=stereo\n"
        .write(toFile: root + "/share/sounds/freedesktop/index.theme", atomically: true, encoding: .utf8)
    try writeTap(directory + "/complete.wav")
    let theme = SoundTheme(environment: ["XDG_DATA_HOME": root + "/none", "XDG_DATA_DIRS": root + "/share", "LANG": "C"])
    let recording = root + "/timeline.wav"
    return (theme, try SoundEngine(output: try WAVFileOutput(path: recording, origin: .zero), clock: clock), recording)
}

/// Seconds of the first recorded frame at a tenth of full scale, at or after `seconds`.
func recordedOnset(_ path: String, after seconds: Double = 0) throws -> Double? {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    var index = 44 + Int(seconds * 48_000) * 4
    while index + 1 < data.count {
        if abs(Int32(Int16(bitPattern: UInt16(data[index]) | UInt16(data[index + 1]) << 8))) >= 3277 { return Double((index - 44) / 4) / 48_000 }
        index += 2
    }
    return nil
}

@Suite("Feedback sounds")
struct FeedbackSoundsTests {
    @Test func aGeneratorsSuccessIsFeltWhenItsSoundIsHeard() throws {
        let rig = try EngineRig()
        rig.clock.advance(by: .milliseconds(10))
        let (theme, engine, recording) = try tapTheme(clock: rig.clock)
        let generator = NotificationFeedbackGenerator(engine: rig.engine)
        generator.sounds = FeedbackSounds(engine: engine, theme: theme)
        let called = rig.clock.now
        generator.notificationOccurred(.success)
        // Nothing on the chip yet but the preparation: the haptic waits for its sound.
        #expect(!rig.chip.trace.contains { $0.written == [0x0C, 0x01] && $0.time >= called })
        rig.clock.advance(by: .milliseconds(600))
        try engine.finish()
        let go = try #require(rig.chip.trace.first { $0.written == [0x0C, 0x01] && $0.time >= called }?.time.seconds)
        let heard = try #require(try recordedOnset(recording))
        #expect(abs(heard - go) < 0.001)
        #expect(abs(go - called.seconds - engine.leadTime.secondsDouble) < 0.001)
    }

    @Test func aFeedbackWithoutAThemedSoundPlaysAtOnceAndOffMeansOff() throws {
        let rig = try EngineRig()
        rig.clock.advance(by: .milliseconds(10))
        let (theme, engine, recording) = try tapTheme(clock: rig.clock)
        let sounds = FeedbackSounds(engine: engine, theme: theme)
        #expect(FeedbackKind.impact(.heavy).themeSound == nil)
        #expect(sounds.placeAhead(.impact(.heavy)) == nil)
        sounds.isOn = false
        #expect(sounds.placeAhead(.success) == nil)
        sounds.isOn = true
        #expect(sounds.placeAhead(.success) != nil)
        rig.clock.advance(by: .milliseconds(100))
        try engine.finish()
        #expect(try recordedOnset(recording) != nil)
    }
}
