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
        environment = ["HAPTIC_CALIBRATION_FILE": scratch.file("calibration.json"), "HAPTIC_BOARD": "", "HAPTICD_SOCKET": ""]
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
        let format = try haptic.run(["convert", try writeSound(), "-o", scratch.file("x.haptic")], environment: environment, deadline: .seconds(600))
        #expect(format.status == 64, "\(format.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("x.ahap")))
    }
}
