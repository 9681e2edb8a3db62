// SPDX-License-Identifier: Apache-2.0

import Audio
import Foundation
import Haptics
import HapticsSimulation
import Testing

/// Sound into haptics: impulses at known times over a slow swell.
@Suite("Audio to haptics")
struct AudioToHapticsTests {
    static let impulses = [0.4, 0.9, 1.55, 2.2, 2.71]

    /// Three seconds: a 110 Hz tone swelling from silence to 0.3, and a 2 ms click (0.9, decaying)
    /// at each of `impulses`.
    static func swellWithClicks() -> Sound {
        let rate = 48_000.0
        // Typed one step at a time: Debian's Swift 6.2 gives up on such expressions written whole.
        var mono: [Float] = []
        for index in 0..<144_000 {
            let time: Double = Double(index) / rate
            let level: Double = 0.3 * time / 3
            mono.append(Float(level * sin(2 * Double.pi * 110 * time)))
        }
        for time in impulses {
            let start = Int(time * rate)
            for offset in 0..<96 {
                let sign: Double = offset % 2 == 0 ? 1 : -1
                let decay: Double = exp(-Double(offset) / 30)
                mono[start + offset] += Float(0.9 * decay * sign)
            }
        }
        return Sound(name: "swell", mono: mono)
    }

    @Test func eachImpulseBecomesATransientWithinTenMilliseconds() {
        let pattern = AudioToHaptics().pattern(from: Self.swellWithClicks())
        let transients = pattern.events.filter { $0.type == .hapticTransient }.map(\.time)
        for impulse in Self.impulses {
            #expect(transients.contains { abs($0 - impulse) <= 0.010 }, "no transient within 10 ms of \(impulse) s: \(transients)")
        }
        #expect(transients.count <= Self.impulses.count + 1, "\(transients)")
        let continuous = pattern.events.filter { $0.type == .hapticContinuous }
        #expect(continuous.count == 1 && abs(continuous[0].duration - 3) < 0.01)
        // The intensity curve follows the swell: quiet at the start, loud at the end.
        let intensity = pattern.curves.filter { $0.id == .hapticIntensityControl }
        let first = intensity.first?.points.first?.value ?? 1
        let last = intensity.last?.points.last?.value ?? 0
        #expect(first < 0.2 && last > 0.5, "intensity from \(first) to \(last)")
        #expect(intensity.allSatisfy { $0.points.count <= 16 })
        // An ordinary pattern: it renders and plays.
        let rendered = PatternRenderer().render(pattern)
        #expect(rendered.playedSeconds >= 2.99)
    }

    /// Two clicks exactly `minimumGap` apart are two onsets; closer than it, one. Clicks on the
    /// 5 ms hop, so their frames are exactly the gap apart.
    @Test(arguments: [(0.05, 0.05, 2), (0.045, 0.05, 1), (0.05, 0.06, 1), (0.1, 0.1, 2), (0.095, 0.1, 1)])
    func onsetsExactlyTheMinimumGapApartAreTwo(apart: Double, minimumGap: Double, expected: Int) {
        var mono = [Float](repeating: 0, count: 48_000)
        for time in [0.5, 0.5 + apart] {
            let start = Int((time * 48_000).rounded())
            for offset in 0..<96 {
                let sign: Float = offset % 2 == 0 ? 1 : -1
                mono[start + offset] = Float(0.9 * exp(-Double(offset) / 30)) * sign
            }
        }
        var options = AudioToHaptics.Options()
        options.minimumGap = minimumGap
        let onsets = AudioToHaptics(options: options).onsets(in: Sound(name: "two clicks", mono: mono)).map(\.time)
        #expect(onsets.count == expected, "clicks \(apart) s apart, minimum gap \(minimumGap) s: onsets at \(onsets)")
    }

    @Test func silenceGivesNothingAndSensitivityFindsMore() {
        #expect(AudioToHaptics().pattern(from: Sound(name: "silence", mono: [Float](repeating: 0, count: 48_000))).events.isEmpty)
        var quiet = Self.swellWithClicks()
        // A quieter sixth click at 1.2 s: found only by a more sensitive converter.
        for offset in 0..<96 {
            let decay: Double = exp(-Double(offset) / 30)
            let click = Float(0.12 * decay)
            quiet.samples[2 * (57_600 + offset)] += click
            quiet.samples[2 * (57_600 + offset) + 1] += click
        }
        var strict = AudioToHaptics.Options()
        strict.sensitivity = 0
        var keen = AudioToHaptics.Options()
        keen.sensitivity = 1
        let few = AudioToHaptics(options: strict).onsets(in: quiet).count
        let many = AudioToHaptics(options: keen).onsets(in: quiet).count
        #expect(many > few, "sensitivity 1 found \(many), 0 found \(few)")
    }
}
