// SPDX-License-Identifier: Apache-2.0

import Foundation
import Haptics
import Testing

/// Meta's `.haptic` written: a `.haptic` comes back with its envelopes and its emphasis, an AHAP
/// pattern becomes one envelope with its transients as emphasis, and what `.haptic` cannot hold
/// is named.
@Suite struct MetaHapticWriterTests {
    /// A `.haptic` of the test's own: a swell with one emphasis and a rising frequency.
    let original = """
        {"version": {"major": 1, "minor": 0, "patch": 0},
         "signals": {"continuous": {"envelopes": {
           "amplitude": [{"time": 0, "amplitude": 0.2},
                         {"time": 0.1, "amplitude": 0.5, "emphasis": {"amplitude": 0.9, "frequency": 0.7}},
                         {"time": 0.3, "amplitude": 0.4},
                         {"time": 0.5, "amplitude": 0}],
           "frequency": [{"time": 0, "frequency": 0.3}, {"time": 0.5, "frequency": 0.6}]}}}}
        """

    private func read(_ text: String) throws -> HapticPattern {
        try PatternFileReader.parse(Array(text.utf8), file: "t.haptic", isMeta: true).pattern
    }

    private func emphasis(_ pattern: HapticPattern) -> [[Double]] {
        pattern.events.filter { $0.type == .hapticTransient }.map { [$0.time, $0.intensity, $0.sharpness] }
    }

    /// What the envelopes give at a few instants: intensity × control, sharpness + control.
    private func levels(_ pattern: HapticPattern, at times: [Double]) -> [[Double]] {
        times.map { time in
            let event = pattern.events.first { $0.type == .hapticContinuous && $0.time <= time && time < $0.end }
            let amplitude = (event?.intensity ?? 0) * pattern.control(.hapticIntensityControl, at: time)
            let frequency = (event?.sharpness ?? 0) + pattern.control(.hapticSharpnessControl, at: time)
            return [(amplitude * 1000).rounded() / 1000, (frequency * 1000).rounded() / 1000]
        }
    }

    @Test func aHapticFileKeepsItsEmphasisAndEnvelopes() throws {
        let first = try read(original)
        let written = try MetaHapticWriter.write(first, source: "t.haptic")
        #expect(written.warnings.isEmpty, "\(written.warnings)")
        let again = try read(written.text)
        #expect(emphasis(again) == [[0.1, 0.9, 0.7]], "\(emphasis(again))")
        let instants = [0.05, 0.1, 0.2, 0.35, 0.45]
        #expect(levels(again, at: instants) == levels(first, at: instants), "\(levels(again, at: instants)) against \(levels(first, at: instants))")
        #expect(try MetaHapticWriter.write(again).text == written.text.replacingOccurrences(of: "\"t.haptic\"", with: "\"\""), "not stable")
    }

    /// A control that changes at once (a curve starting partway, a dynamic parameter sent) is a
    /// step in the envelopes, not a ramp from the previous instant: the studio's download once
    /// ramped a buzz from 0.14 down to the curve's level over 0.43 s where the pattern held 0.14
    /// and stepped. Read back, the file plays what the pattern plays, millisecond by millisecond.
    @Test func aControlThatStartsPartwayIsAStep() throws {
        let pattern = HapticPattern(
            events: [.init(type: .hapticContinuous, time: 0.07, duration: 0.5, intensity: 0.14, sharpness: 0.25)],
            parameters: [.init(id: .hapticSharpnessControl, time: 0.3, value: 0.5)],
            curves: [.init(id: .hapticIntensityControl, time: 0.5, points: [.init(time: 0, value: 0.519), .init(time: 0.5, value: 0.519)])])
        let written = try MetaHapticWriter.write(pattern)
        let again = try read(written.text)
        // Every millisecond but those at the steps themselves (0.07, 0.3, 0.5, 0.57 s); the
        // frequency where something plays (elsewhere nothing is felt, and the file holds the
        // neighbouring event's).
        let instants = (0..<600).map { Double($0) / 1000 + 0.0005 }
        let read: [[Double]] = levels(again, at: instants)
        let expected: [[Double]] = levels(pattern, at: instants)
        let mismatched: [Double] = instants.indices.filter { index in
            let amplitudeDiffers = read[index][0] != expected[index][0]
            let frequencyDiffers = expected[index][0] > 0 && read[index][1] != expected[index][1]
            return amplitudeDiffers || frequencyDiffers
        }.map { instants[$0] }
        #expect(mismatched.isEmpty, "differs at \(mismatched.prefix(3)) s")
        #expect(levels(again, at: [0.4995, 0.5005]) == [[0.14, 0.75], [0.073, 0.75]], "the step at the curve's start")
        #expect(levels(again, at: [0.2995, 0.3005]) == [[0.14, 0.25], [0.14, 0.75]], "the step at the parameter")
    }

    /// An AHAP pattern: a continuous event becomes the envelope (zero around it), a transient an
    /// emphasis at its time; audio and attack are named as not kept.
    @Test func anAHAPPatternBecomesOneEnvelopeWithEmphasis() throws {
        let pattern = HapticPattern(events: [
            .init(type: .hapticContinuous, time: 0.2, duration: 0.4, intensity: 0.8, sharpness: 0.6, attackTime: 0.05),
            .init(type: .hapticTransient, time: 0.4, intensity: 1, sharpness: 0.3),
            .init(type: .audioCustom, time: 0, duration: 0.5, intensity: 1, waveformPath: "click.wav")
        ])
        let written = try MetaHapticWriter.write(pattern)
        #expect(written.warnings.contains { $0.contains("1 audio event(s) not kept") })
        #expect(written.warnings.contains { $0.contains("attack, decay and release") })
        let back = try read(written.text)
        #expect(emphasis(back) == [[0.4, 1, 0.3]])
        #expect(levels(back, at: [0.1, 0.3, 0.5, 0.7]).map { $0[0] } == [0, 0.8, 0.8, 0])
    }

    /// An event exempt from the intensity curve (a .haptic's emphasis) is written to AHAP divided
    /// by the curve, so Core Haptics plays it at its level; one the curve cannot let through is named.
    @Test func anEmphasisIsWrittenToAHAPAtTheLevelItPlays() throws {
        func pattern(emphasis: Double) -> HapticPattern {
            HapticPattern(
                events: [
                    .init(type: .hapticContinuous, time: 0, duration: 1, intensity: 1),
                    .init(type: .hapticTransient, time: 0.5, intensity: emphasis, sharpness: 0.4, followsIntensityControl: false)
                ],
                curves: [.init(id: .hapticIntensityControl, time: 0, points: [.init(time: 0, value: 0.5), .init(time: 1, value: 0.5)])])
        }
        let fits = pattern(emphasis: 0.4)
        #expect(AHAPWriter.warnings(for: fits).isEmpty)
        let back = try PatternFileReader.parse(Array(try AHAPWriter.write(fits).utf8), file: "t.ahap").pattern
        let transient = try #require(back.events.first { $0.type == .hapticTransient })
        #expect(abs(transient.intensity * back.control(.hapticIntensityControl, at: 0.5) - 0.4) < 1e-9, "plays at \(transient.intensity) × 0.5")
        #expect(AHAPWriter.warnings(for: pattern(emphasis: 0.9)).first?.contains("1 emphasis transient(s) play quieter in AHAP (at 0.5 s)") == true)
    }

    /// Any source name is written as valid JSON and read back equal.
    @Test func anyStringIsValidJSON() throws {
        let name = "quote \" tab \t backslash \\ bell \u{07} é"
        let written = try MetaHapticWriter.write(try read(original), source: name)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(written.text.utf8)) as? [String: Any])
        #expect((object["metadata"] as? [String: Any])?["source"] as? String == name)
    }

    @Test func aNonFiniteValueIsRefusedWithItsPlace() {
        let pattern = HapticPattern(events: [.init(type: .hapticContinuous, time: 0, duration: 1, intensity: .nan)])
        #expect {
            _ = try MetaHapticWriter.write(pattern)
        } throws: { error in
            "\(error)".contains("signals.continuous.envelopes.amplitude")
        }
    }
}
