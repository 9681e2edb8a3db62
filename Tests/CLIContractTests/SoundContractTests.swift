// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

/// What `haptic` promises about sound: a sound note and an impact recorded together land
/// together (the WAV's sample 0 is time 0 of the trace), themed names resolve, and each bad input
/// has its own exit with the chip left in standby.
@Suite struct SoundContractTests {
    let haptic: Program
    let scratch: ScratchFolder
    let environment: [String: String]

    init() throws {
        haptic = try Program("haptic")
        scratch = try ScratchFolder()
        environment = [
            "HAPTIC_CALIBRATION_FILE": scratch.file("calibration.json"), "STATE_DIRECTORY": scratch.path, "HAPTIC_BOARD": "", "HAPTICD_SOCKET": ""
        ]
    }

    /// A 16-bit mono WAV whose first sample is already loud (its onset is exact).
    func tap(_ name: String, claimedBytes: Int? = nil) throws -> String {
        func le32(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(value).littleEndian, Array.init) }
        // One piece at a time: a long `+` chain of arrays is slow to type-check (and too slow for some compilers).
        var bytes: [UInt8] = Array("RIFF".utf8)
        for field in [le32(36 + 960), Array("WAVEfmt ".utf8), le32(16), [1, 0, 1, 0], le32(48_000), le32(96_000), [2, 0, 16, 0], Array("data".utf8)] {
            bytes.append(contentsOf: field)
        }
        bytes.append(contentsOf: le32(claimedBytes ?? 960))
        for _ in 0..<480 { bytes += [0x00, 0x60] }
        let path = scratch.file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Seconds of the first recorded frame at a tenth of full scale at or after `from`.
    func onset(_ path: String, from: Double = 0, threshold: Int32 = 3277) throws -> Double? {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var index = 44 + Int(from * 48_000) * 4
        while index + 1 < data.count {
            if abs(Int32(Int16(bitPattern: UInt16(data[index]) | UInt16(data[index + 1]) << 8))) >= threshold { return Double((index - 44) / 4) / 48_000 }
            index += 2
        }
        return nil
    }

    /// Times of the GO writes in a `--trace` (on stderr) after the chip was opened: a first
    /// start-up calibrates, with GO writes of its own, before it says so ("auto-calibrated").
    func goTimes(_ trace: String) -> [Double] {
        let lines = trace.split(separator: "\n")
        let opened = lines.lastIndex { $0.contains("auto-calibrated") } ?? 0
        return lines[opened...].filter { $0.hasSuffix("W 0x5A [0C 01]") }.compactMap { line in
            line.split(separator: " ").dropFirst().first.flatMap { Double($0) }
        }
    }

    @Test func aSoundNoteAndAnImpactAreRecordedTogether() throws {
        let sound = try tap("tap.wav")
        let recording = scratch.file("timeline.wav")
        let run = try haptic.run(
            ["sequence", "sound \(sound), impact-heavy, wait 0.5, sound \(sound), success", "--simulate", "--virtual-time", "--trace", "--audio-output", "wav:" + recording],
            environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let gos = goTimes(run.stderr)
        #expect(gos.count == 2, "\(run.stderr)")
        let first = try #require(try onset(recording))
        let second = try #require(try onset(recording, from: first + 0.1))
        #expect(abs(first - gos[0]) < 0.001, "sound at \(first) s, GO at \(gos[0]) s")
        #expect(abs(second - gos[1]) < 0.001, "sound at \(second) s, GO at \(gos[1]) s")
        #expect(run.stdout.contains("0 late start(s)"), "\(run.stdout)")
    }

    @Test func jsonReportsTheCompensationOnlyWhenSoundPlayed() throws {
        let recording = scratch.file("complete.wav")
        let withSound = try haptic.run(
            ["sequence", "sound complete, success", "--simulate", "--virtual-time", "--json", "--audio-output", "wav:" + recording], environment: environment)
        #expect(withSound.status == 0, "\(withSound.stderr)")
        let audio = try #require(withSound.json?["audio"] as? [String: Any], "\(withSound.stdout)")
        #expect(audio["compensationSeconds"] as? Double == 0.015)
        #expect(audio["underruns"] as? Int == 0)
        #expect(try onset(recording) != nil)
        let without = try haptic.run(["sequence", "success", "--simulate", "--virtual-time", "--json"], environment: environment)
        #expect(without.status == 0)
        #expect(without.json?["audio"] == nil)
    }

    @Test func playWithSoundUsesTheThemedSound() throws {
        let recording = scratch.file("play.wav")
        let run = try haptic.run(
            ["play", "warning", "--sound", "--simulate", "--virtual-time", "--trace", "--audio-output", "wav:" + recording], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let go = try #require(goTimes(run.stderr).first)
        let heard = try #require(try onset(recording, threshold: 100))
        // dialog-warning.oga begins quietly: its onset is after the GO, never before it.
        #expect(heard >= go - 0.001 && heard < go + 0.2, "sound at \(heard) s, GO at \(go) s")
    }

    @Test func aMissingSoundExits66NamingIt() throws {
        let run = try haptic.run(["sequence", "impact-heavy, sound /nonexistent/boom.wav", "--simulate", "--virtual-time"], environment: environment)
        #expect(run.status == 66)
        #expect(run.errorLines.count == 1 && run.stderr.contains("/nonexistent/boom.wav"), "\(run.stderr)")
        let named = try haptic.run(["sequence", "sound no-such-theme-sound", "--simulate", "--virtual-time"], environment: environment)
        #expect(named.status == 66 && named.stderr.contains("no-such-theme-sound"), "\(named.stderr)")
    }

    @Test func aCorruptOrTruncatedSoundExits65NamingIt() throws {
        let truncated = try tap("cut.wav", claimedBytes: 96_000)
        let run = try haptic.run(["sequence", "sound \(truncated), success", "--simulate", "--virtual-time"], environment: environment)
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("cut.wav") && run.stderr.contains("truncated"), "\(run.stderr)")
        let junk = scratch.file("junk.wav")
        try Data(repeating: 0x5A, count: 2000).write(to: URL(fileURLWithPath: junk))
        let bad = try haptic.run(["sequence", "sound \(junk)", "--simulate", "--virtual-time"], environment: environment)
        #expect(bad.status == 65 && bad.stderr.contains("junk.wav"), "\(bad.stderr)")
    }

    @Test func anAbsentAudioDeviceExits69AndLeavesTheChipInStandby() throws {
        let run = try haptic.run(
            ["sequence", "sound complete, impact-heavy", "--simulate", "--virtual-time", "--trace", "--audio-device", "hw:97,0"], environment: environment)
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.errorLines.last?.contains("audio device 'hw:97,0'") == true, "\(run.stderr)")
        let writes = run.stderr.split(separator: "\n").filter { $0.contains("W 0x5A") }
        #expect(writes.last?.hasSuffix("[01 40]") == true, "\(run.stderr)")
        #expect(goTimes(run.stderr).isEmpty, "a GO was written:\n\(run.stderr)")
    }

    @Test func anUnwritableRecordingExits73() throws {
        let run = try haptic.run(["sequence", "sound complete", "--simulate", "--virtual-time", "--audio-output", "wav:/nonexistent/dir/x.wav"], environment: environment)
        #expect(run.status == 73, "\(run.stderr)")
    }

    @Test func aPatternPlaysItsAudioEventsAndNoAudioLeavesThemOut() throws {
        let directory = scratch.file("pattern")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        _ = try tap("pattern/tap.wav")
        let ahap = directory + "/p.ahap"
        try """
        {"Version": 1, "Pattern": [
          {"Event": {"Time": 0.3, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}]}},
          {"Event": {"Time": 0.3, "EventType": "AudioCustom", "EventWaveformPath": "tap.wav"}}
        ]}
        """.write(toFile: ahap, atomically: true, encoding: .utf8)
        let recording = scratch.file("pattern.wav")
        let run = try haptic.run(["pattern", ahap, "--simulate", "--virtual-time", "--trace", "--audio-output", "wav:" + recording], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stdout.contains("not played"), "\(run.stdout)")
        let go = try #require(goTimes(run.stderr).first)
        let heard = try #require(try onset(recording))
        #expect(abs(heard - go) < 0.001, "sound at \(heard) s, GO at \(go) s")
        let quiet = try haptic.run(["pattern", ahap, "--simulate", "--virtual-time", "--no-audio"], environment: environment)
        #expect(quiet.status == 0)
        #expect(quiet.stdout.contains("1 audio event(s) not played"), "\(quiet.stdout)")
        try FileManager.default.removeItem(atPath: directory + "/tap.wav")
        // Asked for audio (an output named): a missing sound fails before anything plays.
        let missing = try haptic.run(["pattern", ahap, "--simulate", "--virtual-time", "--audio-output", "wav:" + recording], environment: environment)
        #expect(missing.status == 66 && missing.stderr.contains("tap.wav"), "\(missing.stderr)")
        // Not asked for: the haptics play, and a warning says which sound was missing.
        let unasked = try haptic.run(["pattern", ahap, "--simulate", "--virtual-time", "--json"], environment: environment)
        #expect(unasked.status == 0, "\(unasked.stderr)")
        let warnings = unasked.json?["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("1 audio event(s) not played") && $0.contains("tap.wav") }, "\(warnings)")
    }

    /// Without an audio output named, a pattern whose device cannot be opened (here ALSA's default
    /// made a card that does not exist) plays its haptics and says its sounds were not played.
    @Test func aPatternWithoutAnAudioDevicePlaysItsHapticsAndSaysSo() throws {
        let directory = scratch.file("quiet")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        _ = try tap("quiet/tap.wav")
        let ahap = directory + "/p.ahap"
        try """
        {"Version": 1, "Pattern": [
          {"Event": {"Time": 0, "EventType": "HapticTransient"}},
          {"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "tap.wav"}}
        ]}
        """.write(toFile: ahap, atomically: true, encoding: .utf8)
        let configuration = scratch.file("asound.conf")
        try "pcm.!default { type hw card 97 }\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        var noCard = environment
        noCard["ALSA_CONFIG_PATH"] = configuration
        let run = try haptic.run(["pattern", ahap, "--simulate", "--virtual-time", "--json"], environment: noCard)
        #expect(run.status == 0, "\(run.stderr)")
        let warnings = run.json?["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("audio event(s) not played") && $0.contains("'default'") }, "\(warnings)")
        #expect((run.json?["final"] as? [String: Any])?["standby"] as? Bool == true)
        let named = try haptic.run(["pattern", ahap, "--simulate", "--virtual-time", "--audio-device", "default"], environment: noCard)
        #expect(named.status == 69, "\(named.stderr)")
    }
}
