// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Meta Haptics Studio `.haptic` v1: amplitude and frequency envelopes with emphasis transients.
/// The amplitude envelope becomes a continuous event under an intensity curve, the frequency
/// envelope a sharpness curve, and each emphasis a transient.
enum MetaHapticReader {
    static func read(_ root: JSONValue, reader: PathReader, limits: PatternFileLimits) throws(PatternFileError) -> PatternDocument {
        var warnings: [String] = []
        _ = try reader.object(root, "(top level)")
        let version = try reader.object(root["version"], "version")
        let major = try reader.number(root["version"]?["major"], "version.major")
        guard major == 1 else { throw reader.fail("version.major", root["version"]?["major"], "is \(major); only version 1 is supported") }
        _ = version
        let envelopes = root["signals"]?["continuous"]?["envelopes"]
        _ = try reader.object(envelopes, "signals.continuous.envelopes")
        let amplitudeList = try reader.array(envelopes?["amplitude"], "signals.continuous.envelopes.amplitude")
        guard amplitudeList.count >= 2 else {
            throw reader.fail("signals.continuous.envelopes.amplitude", envelopes?["amplitude"], "needs at least 2 points")
        }
        guard amplitudeList.count <= limits.maximumElements else {
            throw reader.fail("signals.continuous.envelopes.amplitude", envelopes?["amplitude"], "has \(amplitudeList.count) points; the limit is \(limits.maximumElements)")
        }
        var amplitude: [HapticPattern.ParameterCurve.Point] = []
        var transients: [HapticPattern.Event] = []
        var previous = -Double.infinity
        for (index, point) in amplitudeList.enumerated() {
            let path = "signals.continuous.envelopes.amplitude[\(index)]"
            let time = try reader.time(point["time"], "\(path).time", limit: limits.maximumPatternSeconds)
            guard time >= previous else { throw reader.fail("\(path).time", point["time"], "goes back in time (\(time) after \(previous))") }
            previous = time
            let value = try reader.number(point["amplitude"], "\(path).amplitude")
            guard (0...1).contains(value) else { throw reader.fail("\(path).amplitude", point["amplitude"], "is \(value); amplitudes are 0-1") }
            amplitude.append(.init(time: time, value: value))
            if let emphasis = point["emphasis"] {
                let emphasisAmplitude = try reader.number(emphasis["amplitude"], "\(path).emphasis.amplitude")
                let frequency = try reader.number(emphasis["frequency"], "\(path).emphasis.frequency")
                if emphasisAmplitude < value { warnings.append("\(path).emphasis.amplitude is below the envelope (\(emphasisAmplitude) < \(value))") }
                // The emphasis has its own amplitude: exempt from the envelope's intensity control.
                transients.append(
                    .init(
                        type: .hapticTransient, time: time, intensity: min(1, max(0, emphasisAmplitude)),
                        sharpness: min(1, max(0, frequency)), followsIntensityControl: false))
            }
        }
        var frequency: [HapticPattern.ParameterCurve.Point] = []
        if let frequencyList = envelopes?["frequency"] {
            previous = -Double.infinity
            for (index, point) in try reader.array(frequencyList, "signals.continuous.envelopes.frequency").enumerated() {
                let path = "signals.continuous.envelopes.frequency[\(index)]"
                let time = try reader.time(point["time"], "\(path).time", limit: limits.maximumPatternSeconds)
                guard time >= previous else { throw reader.fail("\(path).time", point["time"], "goes back in time") }
                previous = time
                let value = try reader.number(point["frequency"], "\(path).frequency")
                guard (0...1).contains(value) else { throw reader.fail("\(path).frequency", point["frequency"], "is \(value); frequencies are 0-1") }
                frequency.append(.init(time: time, value: value))
            }
            if let last = frequency.last?.time, let end = amplitude.last?.time, last > end {
                throw reader.fail("signals.continuous.envelopes.frequency", frequencyList, "runs past the amplitude envelope's end (\(last) > \(end) s)")
            }
        }
        let start = amplitude.first?.time ?? 0
        let end = amplitude.last?.time ?? 0
        var events = transients
        var curves: [HapticPattern.ParameterCurve] = []
        if end > start {
            var remaining = end - start
            var eventStart = start
            while remaining > 0 {
                let length = min(remaining, limits.maximumContinuousSeconds)
                events.append(.init(type: .hapticContinuous, time: eventStart, duration: length, intensity: 1, sharpness: frequency.isEmpty ? 0.5 : 0))
                eventStart += length
                remaining -= length
            }
            curves.append(.init(id: .hapticIntensityControl, time: start, points: amplitude.map { .init(time: $0.time - start, value: $0.value) }))
            if let first = frequency.first {
                curves.append(.init(id: .hapticSharpnessControl, time: first.time, points: frequency.map { .init(time: $0.time - first.time, value: $0.value) }))
            }
        }
        return PatternDocument(pattern: HapticPattern(events: events, curves: curves), format: .metaHaptic, curveTimes: .relative, warnings: warnings)
    }
}
