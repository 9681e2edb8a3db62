// SPDX-License-Identifier: Apache-2.0

import Foundation
import Haptics
import Testing

/// AHAPWriter writes valid JSON for any pattern it accepts, and what it writes reads back equal.
@Suite struct AHAPWriterTests {
    static let awkwardPaths = [
        "clap.wav", "say \"hi\".wav", #"C:\sounds\clap.wav"#, "line\nbreak.wav", "tab\there.wav", "nul\u{0}byte.wav",
        "bell\u{7}\u{1B}[0m.wav", "\u{1F}unit.wav", "snare 🥁 ドラム.wav", "rtl \u{202E}vaw.wav", "slash/in/path.wav", "\u{2028}\u{2029}"
    ]

    @Test(arguments: awkwardPaths)
    func anyWaveformPathIsValidJSONAndReadsBackEqual(path: String) throws {
        let pattern = HapticPattern(events: [
            .init(type: .hapticTransient, time: 0, intensity: 0.5, sharpness: 0.25),
            .init(type: .audioCustom, time: 0.1, duration: 0.5, waveformPath: path)
        ])
        let written = try AHAPWriter.write(pattern)
        let json = try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: Any]
        let events = (json?["Pattern"] as? [[String: Any]])?.compactMap { $0["Event"] as? [String: Any] }
        #expect(events?.last?["EventWaveformPath"] as? String == path, "\(written)")
        #expect(try parse(written, curveTimes: .relative).pattern == pattern)
    }

    /// Each event type goes out with its own parameters: an AudioCustom event with its AudioVolume
    /// and AudioPan and the release it was given, none of a haptic event's; the transient beside it
    /// with its intensity, sharpness and envelope. Both read back equal.
    @Test func eachEventTypeIsWrittenWithItsOwnParameters() throws {
        let pattern = HapticPattern(events: [
            .init(type: .hapticTransient, time: 0, intensity: 0.5, sharpness: 0.25),
            .init(
                type: .audioCustom, time: 0.1, duration: 0.5, releaseTime: 0.3, audioParameters: ["AudioVolume": 0.5, "AudioPan": -0.2],
                waveformPath: "tap.wav")
        ])
        let written = try AHAPWriter.write(pattern)
        let json = try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: Any]
        let events = (json?["Pattern"] as? [[String: Any]])?.compactMap { $0["Event"] as? [String: Any] } ?? []
        func parameters(_ event: [String: Any]?) -> [String] {
            ((event?["EventParameters"] as? [[String: Any]]) ?? []).compactMap { $0["ParameterID"] as? String }
        }
        #expect(parameters(events.first) == ["HapticIntensity", "HapticSharpness", "AttackTime", "DecayTime", "ReleaseTime", "Sustained"])
        #expect(parameters(events.last) == ["AudioPan", "AudioVolume", "ReleaseTime"], "\(written)")
        #expect(try parse(written, curveTimes: .relative).pattern == pattern)
    }

    /// Random patterns within AHAP's ranges: written, read back, equal (a fixed seed, so a failure
    /// repeats).
    @Test func randomPatternsRoundTrip() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        for round in 0..<200 {
            var events: [HapticPattern.Event] = []
            for _ in 0..<Int.random(in: 1...12, using: &generator) {
                let transient = Bool.random(using: &generator)
                events.append(
                    .init(
                        type: transient ? .hapticTransient : .hapticContinuous, time: Double.random(in: 0...20, using: &generator),
                        duration: transient ? 0 : Double.random(in: 0.01...5, using: &generator),
                        intensity: Double.random(in: 0...1, using: &generator), sharpness: Double.random(in: 0...1, using: &generator),
                        attackTime: Double.random(in: 0...1, using: &generator), decayTime: Double.random(in: 0...1, using: &generator),
                        releaseTime: Double.random(in: 0...1, using: &generator), sustained: Bool.random(using: &generator)))
            }
            events.sort { $0.time < $1.time }
            var points: [HapticPattern.ParameterCurve.Point] = []
            var time = 0.0
            for _ in 0..<Int.random(in: 2...8, using: &generator) {
                points.append(.init(time: time, value: Double.random(in: 0...1, using: &generator)))
                time += Double.random(in: 0.001...2, using: &generator)
            }
            let pattern = HapticPattern(
                events: events, curves: [.init(id: .hapticIntensityControl, time: Double.random(in: 0...5, using: &generator), points: points)])
            let written = try AHAPWriter.write(pattern)
            let reread = try parse(written, curveTimes: .relative).pattern
            #expect(reread == pattern, "round \(round):\n\(written)")
            if reread != pattern { return }
        }
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func aNumberJSONCannotHoldIsRefusedWithItsPlace(value: Double) {
        let pattern = HapticPattern(events: [
            .init(type: .hapticTransient, time: 0), .init(type: .hapticContinuous, time: 0.5, duration: 1, sharpness: value)
        ])
        #expect(throws: AHAPWriter.Failure.self) { try AHAPWriter.write(pattern) }
        do {
            _ = try AHAPWriter.write(pattern)
        } catch {
            #expect(error.path == "Pattern[1].Event.EventParameters[1].ParameterValue (HapticSharpness)")
            #expect(error.description.contains("must be finite"))
        }
    }
}

/// A small deterministic generator (SplitMix64), so random tests repeat.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
