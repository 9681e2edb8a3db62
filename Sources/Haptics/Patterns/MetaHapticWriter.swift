// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Writes Meta Haptics Studio's `.haptic` (version 1): one amplitude envelope, one frequency
/// envelope, and emphasis points on the amplitude envelope.
///
/// What a pattern holds becomes: the continuous events' intensity under the intensity control
/// (the loudest where several overlap) the amplitude envelope, their sharpness plus the sharpness
/// control the frequency envelope, each transient an emphasis at its time. A `.haptic` read by
/// `PatternFileReader` is written back with the same envelopes and emphasis. What `.haptic` cannot
/// hold (audio events, attack/decay/release shapes, overlapping continuous events) is named in
/// `warnings`, never silently dropped. Built on `JSONEncoder`: any number is checked finite first.
public enum MetaHapticWriter {
    /// A `.haptic` file and what it could not keep.
    public struct Output: Sendable, Equatable {
        /// The file's text.
        public var text: String
        /// What the pattern held that `.haptic` cannot, one line each.
        public var warnings: [String]
    }

    /// The `.haptic` of `pattern`; `source` names where it came from in the metadata.
    public static func write(_ pattern: HapticPattern, source: String = "") throws(AHAPWriter.Failure) -> Output {
        var warnings: [String] = []
        let continuous = pattern.events.filter { $0.type == .hapticContinuous }
        let transients = pattern.events.filter { $0.type == .hapticTransient }
        let audio = pattern.events.filter { !$0.type.isHaptic }
        if !audio.isEmpty { warnings.append("\(audio.count) audio event(s) not kept: .haptic holds no audio") }
        if continuous.contains(where: { $0.attackTime > 0 || $0.decayTime > 0 || $0.releaseTime > 0 }) {
            warnings.append("attack, decay and release times not kept: .haptic has one amplitude envelope (the event's level is kept)")
        }
        let sorted = continuous.sorted { $0.time < $1.time }
        if zip(sorted, sorted.dropFirst()).contains(where: { $1.time < $0.end - 1e-9 }) {
            warnings.append("overlapping continuous events merged: .haptic has one envelope (the louder one is kept)")
        }
        if pattern.parameters.contains(where: { $0.id != .hapticIntensityControl && $0.id != .hapticSharpnessControl && $0.id.rawValue.hasPrefix("Haptic") }) {
            warnings.append("haptic parameters other than intensity and sharpness control not kept")
        }

        // Every instant where the envelopes may bend: event edges, curve points, parameters, transients.
        var times = Set<Double>([0])
        for event in continuous { times.formUnion([event.time, event.end]) }
        for curve in pattern.curves where curve.id == .hapticIntensityControl || curve.id == .hapticSharpnessControl {
            times.formUnion(curve.points.map { curve.time + $0.time })
        }
        for parameter in pattern.parameters { times.insert(parameter.time) }
        for transient in transients { times.insert(transient.time) }
        let end = max(pattern.events.filter(\.type.isHaptic).map(\.end).max() ?? 0, 0)
        let instants = times.filter { $0 >= 0 && $0 <= end }.sorted()

        /// The loudest continuous event playing at `time` (an event's end belongs to the next).
        func playing(at time: Double, before: Bool) -> HapticPattern.Event? {
            continuous.filter { before ? ($0.time < time && time <= $0.end) : ($0.time <= time && time < $0.end) }
                .max { level(of: $0, at: time) < level(of: $1, at: time) }
        }
        func level(of event: HapticPattern.Event, at time: Double) -> Double {
            event.intensity * (event.followsIntensityControl ? pattern.control(.hapticIntensityControl, at: time) : 1)
        }
        /// The sharpness arriving at `time` (`before`: the event that plays up to it, and the control
        /// just before it) or leaving it.
        func frequency(at time: Double, before: Bool) -> Double {
            let event = before ? (playing(at: time, before: true) ?? playing(at: time, before: false)) : (playing(at: time, before: false) ?? playing(at: time, before: true))
            let control = pattern.control(.hapticSharpnessControl, at: before ? time - Self.justBefore : time)
            return min(1, max(0, (event?.sharpness ?? 0.5) + control))
        }

        var amplitude: [AmplitudePoint] = []
        var frequencies: [FrequencyPoint] = []
        for time in instants {
            // A step is two points at the same time: the level arriving, then leaving. Steps come at
            // an event's edge, and where a control curve starts or a dynamic parameter is sent (the
            // control changes there at once), so the level arriving reads the control just before.
            let arriving = playing(at: time, before: true).map { level(of: $0, at: time - Self.justBefore) } ?? 0
            let leaving = playing(at: time, before: false).map { level(of: $0, at: time) } ?? 0
            if !amplitude.isEmpty && abs(arriving - leaving) > 1e-6 { amplitude.append(AmplitudePoint(time: time, amplitude: arriving)) }
            var point = AmplitudePoint(time: time, amplitude: leaving)
            if let transient = transients.last(where: { abs($0.time - time) < 1e-9 }) {
                let strength = transient.intensity * (transient.followsIntensityControl ? pattern.control(.hapticIntensityControl, at: time) : 1)
                point.emphasis = Emphasis(amplitude: max(strength, leaving), frequency: transient.sharpness)
                if transients.filter({ abs($0.time - time) < 1e-9 }).count > 1 {
                    warnings.append("transients at the same time \(time) s merged into one emphasis")
                }
            }
            amplitude.append(point)
            let frequencyArriving = frequency(at: time, before: true)
            let frequencyLeaving = frequency(at: time, before: false)
            if !frequencies.isEmpty && abs(frequencyArriving - frequencyLeaving) > 1e-6 {
                frequencies.append(FrequencyPoint(time: time, frequency: frequencyArriving))
            }
            frequencies.append(FrequencyPoint(time: time, frequency: frequencyLeaving))
        }
        if amplitude.count < 2 { amplitude.append(AmplitudePoint(time: max(end, 0.001), amplitude: 0)) }
        // The frequency envelope ends with the amplitude envelope (the reader's rule).
        let last = amplitude.last?.time ?? 0
        frequencies = frequencies.filter { $0.time <= last }

        let file = File(
            version: Version(major: 1, minor: 0, patch: 0),
            metadata: Metadata(editor: "swift-haptics", source: source, project: "", tags: [], description: ""),
            signals: Signals(continuous: Continuous(envelopes: Envelopes(amplitude: amplitude, frequency: frequencies))))
        for (index, point) in amplitude.enumerated() {
            for (name, value) in [
                ("time", point.time), ("amplitude", point.amplitude), ("emphasis.amplitude", point.emphasis?.amplitude ?? 0), ("emphasis.frequency", point.emphasis?.frequency ?? 0)
            ]
            where !value.isFinite {
                throw AHAPWriter.Failure(path: "signals.continuous.envelopes.amplitude[\(index)].\(name)", value: value)
            }
        }
        for (index, point) in frequencies.enumerated() where !point.time.isFinite || !point.frequency.isFinite {
            throw AHAPWriter.Failure(path: "signals.continuous.envelopes.frequency[\(index)]", value: point.time.isFinite ? point.frequency : point.time)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return Output(text: String(decoding: try encoder.encode(file), as: UTF8.self) + "\n", warnings: Array(Set(warnings)).sorted())
        } catch {
            throw AHAPWriter.Failure(path: "(the pattern)", value: .nan)
        }
    }

    /// How far before an instant "just before" it is read: far below any time a pattern holds, far
    /// above a double's resolution at the length of any pattern.
    private static let justBefore = 1e-12

    private struct File: Encodable {
        var version: Version
        var metadata: Metadata
        var signals: Signals
    }
    private struct Version: Encodable {
        var major: Int
        var minor: Int
        var patch: Int
    }
    private struct Metadata: Encodable {
        var editor: String
        var source: String
        var project: String
        var tags: [String]
        var description: String
    }
    private struct Signals: Encodable { var continuous: Continuous }
    private struct Continuous: Encodable { var envelopes: Envelopes }
    private struct Envelopes: Encodable {
        var amplitude: [AmplitudePoint]
        var frequency: [FrequencyPoint]
    }
    private struct AmplitudePoint: Encodable {
        var time: Double
        var amplitude: Double
        var emphasis: Emphasis?
    }
    private struct Emphasis: Encodable {
        var amplitude: Double
        var frequency: Double
    }
    private struct FrequencyPoint: Encodable {
        var time: Double
        var frequency: Double
    }
}
