// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Writes AHAP that reads back equal: every event parameter explicit, curve times relative.
///
/// Built on `JSONEncoder`, so any string (a waveform path, a parameter name, with quotes, control
/// characters or any Unicode) is escaped as JSON requires and the file is always valid JSON. A
/// number JSON cannot hold (NaN, infinity) is refused with its place in the file, never written.
public enum AHAPWriter {
    /// A pattern that has no valid AHAP: a value that is not a finite number.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Where in the AHAP file the value would have gone (`Pattern[2].Event.Time`).
        public var path: String
        /// The value.
        public var value: Double

        public var description: String {
            "cannot write AHAP: \(path) is \(value); AHAP (JSON) numbers must be finite. Fix the pattern's value"
        }
    }

    /// The AHAP text of `pattern`, pretty-printed, in AHAP's own field order.
    public static func write(_ pattern: HapticPattern) throws(Failure) -> String {
        var elements: [Element] = []
        for event in pattern.events {
            // Core Haptics scales every event by the intensity control; an event exempt from it
            // (a .haptic emphasis) is written divided by the control, where that fits in 0-1.
            var intensity = event.intensity
            if !event.followsIntensityControl, event.type.isHaptic {
                let control = pattern.control(.hapticIntensityControl, at: event.time)
                if control > 0 { intensity = min(1, intensity / control) }
            }
            // Each event type's own parameters: a haptic event's intensity, sharpness and envelope,
            // always explicit; an audio event's AudioVolume, AudioPan, AudioPitch, AudioBrightness,
            // and the envelope only where it was given (AHAP's defaults are read back the same).
            var parameters: [Value]
            if event.type.isHaptic {
                parameters = [
                    Value(id: "HapticIntensity", value: intensity), Value(id: "HapticSharpness", value: event.sharpness),
                    Value(id: "AttackTime", value: event.attackTime), Value(id: "DecayTime", value: event.decayTime),
                    Value(id: "ReleaseTime", value: event.releaseTime), Value(id: "Sustained", value: event.sustained ? 1 : 0)
                ]
            } else {
                parameters = event.audioParameters.keys.sorted().compactMap { key in event.audioParameters[key].map { Value(id: key, value: $0) } }
                let envelope: [(String, Double, Double)] = [
                    ("AttackTime", event.attackTime, 0), ("DecayTime", event.decayTime, 0), ("ReleaseTime", event.releaseTime, 0),
                    ("Sustained", event.sustained ? 1 : 0, 1)
                ]
                parameters += envelope.filter { $0.1 != $0.2 }.map { Value(id: $0.0, value: $0.1) }
            }
            let duration = event.type != .hapticTransient || event.duration > 0 ? event.duration : nil
            elements.append(
                .event(
                    EventBody(
                        time: event.time, eventType: event.type.rawValue, eventDuration: duration,
                        eventWaveformPath: event.waveformPath, eventWaveformLoopEnabled: event.waveformLoops ? true : nil,
                        eventWaveformUseVolumeEnvelope: event.waveformUsesVolumeEnvelope ? true : nil, eventParameters: parameters)))
        }
        for item in pattern.parameters {
            elements.append(.parameter(ParameterBody(parameterID: item.id.rawValue, time: item.time, parameterValue: item.value)))
        }
        for curve in pattern.curves {
            elements.append(
                .curve(
                    CurveBody(
                        parameterID: curve.id.rawValue, time: curve.time,
                        points: curve.points.map { CurvePoint(time: $0.time, parameterValue: $0.value) })))
        }
        let file = File(version: 1, pattern: elements)
        if let failure = file.firstNonFinite() { throw failure }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(file), as: UTF8.self) + "\n"
        } catch {
            // Only a non-finite number makes JSONEncoder fail here, and those were refused above.
            throw Failure(path: "(the pattern)", value: .nan)
        }
    }

    /// What AHAP cannot hold of `pattern`, one line each: events exempt from the intensity
    /// control (a .haptic's emphasis) louder than the control lets any event be at their time.
    public static func warnings(for pattern: HapticPattern) -> [String] {
        let clipped = pattern.events.filter { event in
            guard !event.followsIntensityControl, event.type.isHaptic else { return false }
            let control = pattern.control(.hapticIntensityControl, at: event.time)
            return control <= 0 || event.intensity / control > 1 + 1e-9
        }
        guard !clipped.isEmpty else { return [] }
        return [
            "\(clipped.count) emphasis transient(s) play quieter in AHAP (at \(clipped.map { String(format: "%.3g", $0.time) }.joined(separator: ", ")) s): Core Haptics scales every event by the intensity curve, which is below their level there"
        ]
    }

    // The file's shape, field by field as AHAP names them.

    private struct File: Encodable {
        var version: Double
        var pattern: [Element]
        enum CodingKeys: String, CodingKey {
            case version = "Version"
            case pattern = "Pattern"
        }

        /// The first value JSON cannot hold, with its path.
        func firstNonFinite() -> Failure? {
            for (index, element) in pattern.enumerated() {
                for (name, value) in element.numbers where !value.isFinite {
                    return Failure(path: "Pattern[\(index)].\(name)", value: value)
                }
            }
            return nil
        }
    }

    private enum Element: Encodable {
        case event(EventBody)
        case parameter(ParameterBody)
        case curve(CurveBody)

        enum CodingKeys: String, CodingKey {
            case event = "Event"
            case parameter = "Parameter"
            case curve = "ParameterCurve"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case let .event(body): try container.encode(body, forKey: .event)
            case let .parameter(body): try container.encode(body, forKey: .parameter)
            case let .curve(body): try container.encode(body, forKey: .curve)
            }
        }

        /// Every number in the element, named by its path below the element.
        var numbers: [(String, Double)] {
            switch self {
            case let .event(body):
                var numbers = [("Event.Time", body.time)]
                if let duration = body.eventDuration { numbers.append(("Event.EventDuration", duration)) }
                for (index, parameter) in body.eventParameters.enumerated() {
                    numbers.append(("Event.EventParameters[\(index)].ParameterValue (\(parameter.id))", parameter.value))
                }
                return numbers
            case let .parameter(body):
                return [("Parameter.Time", body.time), ("Parameter.ParameterValue", body.parameterValue)]
            case let .curve(body):
                var numbers = [("ParameterCurve.Time", body.time)]
                for (index, point) in body.points.enumerated() {
                    numbers += [
                        ("ParameterCurve.ParameterCurveControlPoints[\(index)].Time", point.time),
                        ("ParameterCurve.ParameterCurveControlPoints[\(index)].ParameterValue", point.parameterValue)
                    ]
                }
                return numbers
            }
        }
    }

    private struct EventBody: Encodable {
        var time: Double
        var eventType: String
        var eventDuration: Double?
        var eventWaveformPath: String?
        var eventWaveformLoopEnabled: Bool?
        var eventWaveformUseVolumeEnvelope: Bool?
        var eventParameters: [Value]
        enum CodingKeys: String, CodingKey {
            case time = "Time"
            case eventType = "EventType"
            case eventDuration = "EventDuration"
            case eventWaveformPath = "EventWaveformPath"
            case eventWaveformLoopEnabled = "EventWaveformLoopEnabled"
            case eventWaveformUseVolumeEnvelope = "EventWaveformUseVolumeEnvelope"
            case eventParameters = "EventParameters"
        }
    }

    private struct Value: Encodable {
        var id: String
        var value: Double
        enum CodingKeys: String, CodingKey {
            case id = "ParameterID"
            case value = "ParameterValue"
        }
    }

    private struct ParameterBody: Encodable {
        var parameterID: String
        var time: Double
        var parameterValue: Double
        enum CodingKeys: String, CodingKey {
            case parameterID = "ParameterID"
            case time = "Time"
            case parameterValue = "ParameterValue"
        }
    }

    private struct CurveBody: Encodable {
        var parameterID: String
        var time: Double
        var points: [CurvePoint]
        enum CodingKeys: String, CodingKey {
            case parameterID = "ParameterID"
            case time = "Time"
            case points = "ParameterCurveControlPoints"
        }
    }

    private struct CurvePoint: Encodable {
        var time: Double
        var parameterValue: Double
        enum CodingKeys: String, CodingKey {
            case time = "Time"
            case parameterValue = "ParameterValue"
        }
    }
}
