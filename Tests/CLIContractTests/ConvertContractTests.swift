// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

/// `haptic convert`: a sound with clicks at known times over a slow swell becomes a pattern with a
/// transient at each click and a continuous event, which then plays.
@Suite struct ConvertContractTests {
    let haptic: Program
    let scratch: ScratchFolder
    let environment: [String: String]
    let clicks = [0.35, 1.1, 1.62, 2.4]

    init() throws {
        haptic = try Program("haptic")
        scratch = try ScratchFolder()
        environment = [
            "HAPTIC_CALIBRATION_FILE": scratch.file("calibration.json"), "STATE_DIRECTORY": scratch.path, "HAPTIC_BOARD": "", "HAPTICD_SOCKET": ""
        ]
    }

    /// A 16-bit mono WAV at 44.1 kHz (resampled on the way in): a 220 Hz swell and the clicks.
    func writeSound() throws -> String {
        let rate = 44_100.0
        // Typed one step at a time: Debian's Swift 6.2 gives up on such expressions written whole.
        var samples: [Double] = []
        for index in 0..<Int(3 * rate) {
            let time: Double = Double(index) / rate
            let level: Double = 0.25 * time / 3
            samples.append(level * sin(2 * Double.pi * 220 * time))
        }
        for click in clicks {
            for offset in 0..<80 {
                let sign: Double = offset % 2 == 0 ? 1 : -1
                let decay: Double = exp(-Double(offset) / 25)
                samples[Int(click * rate) + offset] += 0.9 * decay * sign
            }
        }
        func le32(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(value).littleEndian, Array.init) }
        var bytes: [UInt8] = Array("RIFF".utf8)
        for field in [le32(36 + samples.count * 2), Array("WAVEfmt ".utf8), le32(16), [1, 0, 1, 0], le32(44_100), le32(88_200), [2, 0, 16, 0], Array("data".utf8)] {
            bytes.append(contentsOf: field)
        }
        bytes.append(contentsOf: le32(samples.count * 2))
        for sample in samples { bytes.append(contentsOf: withUnsafeBytes(of: Int16(max(-1, min(1, sample)) * 32767).littleEndian, Array.init)) }
        let path = scratch.file("clicks.wav")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func clicksBecomeTransientsAndThePatternPlays() throws {
        let output = scratch.file("clicks.ahap")
        // A debug build under qemu-user (CI's arm64 suite) takes far longer than the default minute.
        let run = try haptic.run(["convert", try writeSound(), "-o", output, "--json"], environment: environment, deadline: .seconds(600))
        #expect(run.status == 0, "\(run.stderr)")
        let transients = run.json?["transients"] as? [Double] ?? []
        for click in clicks {
            #expect(transients.contains { abs($0 - click) <= 0.010 }, "no transient within 10 ms of \(click) s: \(transients)")
        }
        #expect(transients.count <= clicks.count + 1, "\(transients)")
        #expect(run.json?["continuousEvents"] as? Int == 1)
        let played = try haptic.run(["pattern", output, "--simulate", "--virtual-time", "--json"], environment: environment)
        #expect(played.status == 0, "\(played.stderr)")
        #expect((played.json?["events"] as? [String: Int])?["HapticTransient"] == transients.count, "\(played.stdout)")
    }

    @Test func aMissingSoundOrAnotherFormatIsRefused() throws {
        let missing = try haptic.run(["convert", scratch.file("none.wav"), "-o", scratch.file("x.ahap")], environment: environment)
        #expect(missing.status == 66, "\(missing.stderr)")
        let format = try haptic.run(["convert", try writeSound(), "-o", scratch.file("x.mp4")], environment: environment, deadline: .seconds(600))
        #expect(format.status == 64, "\(format.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("x.mp4")))
    }

    /// A `.haptic` converted to `.haptic` keeps its emphasis points; to AHAP and back to `.haptic`,
    /// too; an AHAP's audio event is named as not kept in a `.haptic`.
    @Test func hapticFilesRoundTripWithTheirEmphasis() throws {
        let source = scratch.file("in.haptic")
        try """
        {"version": {"major": 1, "minor": 0, "patch": 0},
         "signals": {"continuous": {"envelopes": {
           "amplitude": [{"time": 0, "amplitude": 0.3},
                         {"time": 0.2, "amplitude": 0.6, "emphasis": {"amplitude": 1, "frequency": 0.8}},
                         {"time": 0.45, "amplitude": 0.5, "emphasis": {"amplitude": 0.7, "frequency": 0.2}},
                         {"time": 0.6, "amplitude": 0}],
           "frequency": [{"time": 0, "frequency": 0.4}, {"time": 0.6, "frequency": 0.5}]}}}}
        """.write(toFile: source, atomically: true, encoding: .utf8)
        func emphasis(_ path: String) throws -> [[Double]] {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let points = ((root["signals"] as? [String: Any])?["continuous"] as? [String: Any])?["envelopes"] as? [String: Any]
            return (points?["amplitude"] as? [[String: Any]] ?? []).compactMap { point in
                guard let emphasis = point["emphasis"] as? [String: Double], let time = point["time"] as? Double else { return nil }
                return [time, emphasis["amplitude"] ?? -1, emphasis["frequency"] ?? -1]
            }
        }
        let direct = scratch.file("out.haptic")
        let run = try haptic.run(["convert", source, "-o", direct], environment: environment)
        #expect(run.status == 0 && run.errorLines.isEmpty, "\(run.stderr)")
        #expect(try emphasis(direct) == [[0.2, 1, 0.8], [0.45, 0.7, 0.2]])
        let ahap = scratch.file("via.ahap")
        let back = scratch.file("back.haptic")
        // Through AHAP, where Core Haptics scales transients by the intensity curve: the emphasis
        // comes back at its times and frequencies, at the level AHAP plays it, and the loss is named.
        let toAHAP = try haptic.run(["convert", source, "-o", ahap], environment: environment)
        #expect(toAHAP.status == 0 && toAHAP.stderr.contains("2 emphasis transient(s) play quieter in AHAP"), "\(toAHAP.stderr)")
        #expect(try haptic.run(["convert", ahap, "-o", back], environment: environment).status == 0)
        #expect(try emphasis(back) == [[0.2, 0.6, 0.8], [0.45, 0.5, 0.2]])

        let withAudio = scratch.file("audio.ahap")
        try #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": []}},"#
            .appending(#" {"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "tap.wav", "EventParameters": []}}]}"#)
            .write(toFile: withAudio, atomically: true, encoding: .utf8)
        let warned = try haptic.run(["convert", withAudio, "-o", scratch.file("audio.haptic"), "--json"], environment: environment)
        #expect(warned.status == 0 && warned.stderr.contains("warning: 1 audio event(s) not kept"), "\(warned.stderr)")
        #expect((warned.json?["warnings"] as? [String])?.count == 1, "\(warned.stdout)")
    }
}
