// SPDX-License-Identifier: Apache-2.0

import Audio
import Foundation
import HardwareAccess
import Testing

@Suite("Sound files")
struct SoundFileTests {
    @Test func aMonoWAVIsDecodedOnBothChannels() throws {
        let path = temporaryDirectory() + "/mono.wav"
        try writeWAV(path, rate: 48_000, channels: 1, samples: [0, 16384, -16384, 8192])
        let sound = try Sound.decode(path: path)
        #expect(sound.frameCount == 4)
        #expect(sound.samples == [0, 0, 0.5, 0.5, -0.5, -0.5, 0.25, 0.25])
    }

    @Test func aStereoFileAtAnotherRateIsResampledTo48k() throws {
        let path = temporaryDirectory() + "/stereo.wav"
        let frames = 22_050
        var samples: [Int16] = []
        for index in 0..<frames {
            samples.append(Int16(8000 * sin(2 * Double.pi * 440 * Double(index) / 22_050)))
            samples.append(0)
        }
        try writeWAV(path, rate: 22_050, channels: 2, samples: samples)
        let sound = try Sound.decode(path: path)
        #expect(abs(sound.frameCount - 48_000) <= 2)
        #expect(abs(sound.duration - 1) < 0.001)
        let right = stride(from: 1, to: sound.samples.count, by: 2).map { abs(sound.samples[$0]) }.max() ?? 1
        #expect(right < 0.001)
    }

    @Test func aTruncatedFileIsRefusedNamingIt() throws {
        let path = temporaryDirectory() + "/cut.wav"
        try writeWAV(path, rate: 48_000, channels: 1, samples: [Int16](repeating: 1000, count: 100), claimedFrames: 48_000)
        #expect {
            try Sound.decode(path: path)
        } throws: { error in
            guard case let .soundTruncated(named, _) = error as? AudioError else { return false }
            return named == path
        }
    }

    @Test func noiseIsUnreadableAndAMissingFileIsNotFound() throws {
        let path = temporaryDirectory() + "/noise.wav"
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }).write(to: URL(fileURLWithPath: path))
        #expect {
            try Sound.decode(path: path)
        } throws: { error in
            if case .soundUnreadable(path, _) = error as? AudioError { return true }
            return false
        }
        #expect(throws: AudioError.soundNotFound("/nonexistent/x.wav")) { try Sound.decode(path: "/nonexistent/x.wav") }
        #expect(AudioError.soundNotFound("x").description.contains("freedesktop"))
    }

    @Test func theRecordingIsRenamedIntoPlaceOnlyWhenClosed() throws {
        let path = temporaryDirectory() + "/rec.wav"
        let output = try WAVFileOutput(path: path, origin: .zero)
        try output.write([100, -100, 200, -200])
        #expect(!FileManager.default.fileExists(atPath: path))
        try output.close(drainTimeout: .zero)
        #expect(try readWAVSamples(path) == [100, -100, 200, -200])
        #expect(!FileManager.default.fileExists(atPath: path + ".partial"))
        #expect(throws: AudioError.self) { try WAVFileOutput(path: "/nonexistent-dir/rec.wav", origin: .zero) }
    }

    @Test func aToneHasItsPitchAndRampsInAndOut() {
        let tone = ToneSynthesizer().tone(duration: 0.5, volume: 1, pitch: 1, brightness: 0)
        #expect(tone.frameCount == 24_000)
        #expect(tone.samples[0] == 0)
        #expect(abs(tone.samples[2 * 23_999]) < 0.01)
        // 880 Hz: 440 rising zero crossings in 0.5 s.
        let left = stride(from: 0, to: tone.samples.count, by: 2).map { tone.samples[$0] }
        let rising = zip(left, left.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        #expect(abs(rising - 440) <= 1)
    }
}

@Suite("Sound theme")
struct SoundThemeTests {
    /// A base directory with theme `test` (inheriting `base`), and the environment naming it.
    func themes() throws -> (root: String, environment: [String: String]) {
        let root = temporaryDirectory()
        let data = root + "/share/sounds"
        func file(_ path: String, _ text: String = "") throws {
            try FileManager.default.createDirectory(atPath: ((data + "/" + path) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: data + "/" + path, atomically: true, encoding: .utf8)
        }
        try file("test/index.theme", "[Sound Theme]\nName=Test\nInherits=base\nDirectories=stereo,5.1\n\n[stereo]\nOutputProfile=stereo\n\n[5.1]\nOutputProfile=5.1\n")
        try file("test/stereo/dialog-warning.oga")
        try file("test/de/stereo/dialog-warning.oga")
        try file("test/5.1/dialog-warning.oga")
        try file("test/stereo/bell.disabled")
        try file("base/index.theme", "[Sound Theme]\nName=Base\nDirectories=stereo\n\n[stereo]\nOutputProfile=stereo\n")
        try file("base/stereo/message.wav")
        try file("freedesktop/index.theme", "[Sound Theme]\nName=Default\nDirectories=stereo\n\n[stereo]\nOutputProfile=stereo\n")
        try file("freedesktop/stereo/complete.oga")
        try file("freedesktop/stereo/bell.oga")
        try file("lonely.wav")
        return (data, ["XDG_DATA_HOME": root + "/nowhere", "XDG_DATA_DIRS": root + "/share", "HAPTIC_SOUND_THEME": "test", "LANG": "C"])
    }

    @Test func theThemeThenWhatItInheritsThenFreedesktop() throws {
        let (data, environment) = try themes()
        let theme = SoundTheme(environment: environment)
        #expect(theme.lookup("dialog-warning") == .file(data + "/test/stereo/dialog-warning.oga"))
        #expect(theme.lookup("message") == .file(data + "/base/stereo/message.wav"))
        #expect(theme.lookup("complete") == .file(data + "/freedesktop/stereo/complete.oga"))
        #expect(theme.lookup("nothing-like-it") == nil)
    }

    @Test func aLongerNameFallsBackPartByPartAndDisabledWins() throws {
        let (data, environment) = try themes()
        let theme = SoundTheme(environment: environment)
        #expect(theme.lookup("dialog-warning-battery-low") == .file(data + "/test/stereo/dialog-warning.oga"))
        // The theme's own .disabled comes before freedesktop's bell.
        #expect(theme.lookup("bell") == .disabled)
        #expect(try theme.load("bell") == nil)
        #expect(theme.lookup("lonely") == .file(data + "/lonely.wav"))
    }

    @Test func theLocaleAndTheOutputProfileChooseTheDirectory() throws {
        let (data, base) = try themes()
        var environment = base
        environment["LANG"] = "de_DE.UTF-8"
        #expect(SoundTheme(environment: environment).lookup("dialog-warning") == .file(data + "/test/de/stereo/dialog-warning.oga"))
        #expect(SoundTheme(outputProfile: "5.1", environment: base).lookup("dialog-warning") == .file(data + "/test/5.1/dialog-warning.oga"))
        #expect(SoundTheme(outputProfile: "5.1", environment: base).lookup("message") == .file(data + "/base/stereo/message.wav"))
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/sounds/freedesktop/stereo/complete.oga"), "sound-theme-freedesktop is not installed"))
    func debiansFreedesktopThemeDecodes() throws {
        let theme = SoundTheme(environment: ["XDG_DATA_HOME": "/nonexistent", "XDG_DATA_DIRS": "/usr/share", "LANG": "C"])
        #expect(theme.lookup("complete") == .file("/usr/share/sounds/freedesktop/stereo/complete.oga"))
        let sound = try #require(try Sound.load("complete", theme: theme))
        #expect(sound.duration > 0.5 && sound.duration < 3)
        #expect(sound.onsetFrame() != nil)
        #expect(throws: AudioError.soundNotFound("no-such-sound-name")) { try Sound.load("no-such-sound-name", theme: theme) }
    }
}
