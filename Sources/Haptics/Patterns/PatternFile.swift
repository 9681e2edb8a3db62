// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A problem in a pattern file: malformed JSON (with line and column) or a field that is wrong
/// (with its JSON path, e.g. `Pattern[3].Event.EventDuration`). Nothing of such a file is played.
public struct PatternFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file's name.
    public var file: String
    /// The JSON path of the field, or empty for syntax and size problems.
    public var path: String
    /// Where a syntax problem is, when it is one.
    public var line: Int?
    public var column: Int?
    /// What is wrong, in words.
    public var message: String

    /// One line, as compilers print errors: `file:line:column: path: message`.
    public var description: String {
        var text = "\(file)"
        if let line { text += ":\(line)" + (column.map { ":\($0)" } ?? "") }
        text += ": "
        if !path.isEmpty { text += "\(path): " }
        return text + message
    }
}

/// A pattern read from a file, with what the reader had to decide or could not honour.
public struct PatternDocument: Sendable, Equatable {
    /// Apple's AHAP, or Meta Haptics Studio's `.haptic`.
    public enum Format: String, Sendable { case ahap, metaHaptic }
    /// How ParameterCurve control-point times were read.
    public enum CurveTimes: String, Sendable {
        /// Relative to the curve's own Time, as Apple documents.
        case relative
        /// Absolute (pattern) times, as some exporters write them.
        case absolute
    }
    /// The pattern, in Core Haptics' model whatever the file's format.
    public var pattern: HapticPattern
    /// Which format the file was.
    public var format: Format
    /// How curve times were read (decided from the file unless asked for).
    public var curveTimes: CurveTimes
    /// Lenient choices and losses: unknown keys ignored, values clamped, limits applied.
    public var warnings: [String]
}

/// Limits on what a pattern file may contain, so a hostile or broken file fails clearly instead
/// of exhausting memory or time.
public struct PatternFileLimits: Sendable {
    /// The file's size (16 MiB).
    public var maximumBytes = 16 << 20
    /// Events, parameters and curves together.
    public var maximumElements = 100_000
    /// Control points in one curve.
    public var maximumControlPoints = 4_096
    /// Core Haptics' limit for a haptic continuous event.
    public var maximumContinuousSeconds = 30.0
    /// The latest time anything may happen.
    public var maximumPatternSeconds = 600.0
    /// The limits above.
    public init() {}
}

/// Reads and writes AHAP (Apple Haptic and Audio Pattern) files and reads Meta Haptics Studio
/// `.haptic` v1 files.
///
/// Lenient where real files are (trailing commas, events out of time order, missing parameters
/// taking defaults, unknown keys ignored, integer Version); strict where a file is broken, with
/// the JSON path of the problem.
public enum PatternFileReader {
    /// How to read curve control-point times.
    public enum CurveTimeOption: String, Sendable {
        /// Relative unless every curve that starts after 0 has its first point at the curve's own
        /// Time (what exporters writing absolute times produce).
        case automatic
        case relative
        case absolute
    }

    /// Reads an AHAP file, or a Meta `.haptic` file when the name ends in `.haptic`, within `limits`.
    public static func read(path: String, curveTimes: CurveTimeOption = .automatic, limits: PatternFileLimits = .init()) throws(PatternFileError) -> PatternDocument {
        let name = (path as NSString).lastPathComponent
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        if let size = attributes?[.size] as? Int, size > limits.maximumBytes {
            throw PatternFileError(file: name, path: "", message: "the file is \(size) bytes; the limit is \(limits.maximumBytes)")
        }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw PatternFileError(file: name, path: "", message: "cannot be read (\(error.localizedDescription))")
        }
        return try parse(Array(data), file: name, isMeta: path.lowercased().hasSuffix(".haptic"), curveTimes: curveTimes, limits: limits)
    }

    /// Parses file contents; `.haptic` content is recognised by its `signals` key as well.
    public static func parse(
        _ bytes: [UInt8], file: String, isMeta: Bool? = nil, curveTimes: CurveTimeOption = .automatic,
        limits: PatternFileLimits = .init()
    ) throws(PatternFileError) -> PatternDocument {
        guard bytes.count <= limits.maximumBytes else {
            throw PatternFileError(file: file, path: "", message: "the file is \(bytes.count) bytes; the limit is \(limits.maximumBytes)")
        }
        let root: JSONValue
        do { root = try LenientJSONReader.parse(bytes) } catch {
            throw PatternFileError(file: file, path: "", line: error.line, column: error.column, message: "malformed JSON: \(error.message)")
        }
        let reader = PathReader(file: file)
        if isMeta == true || (isMeta == nil && root["signals"] != nil) {
            return try MetaHapticReader.read(root, reader: reader, limits: limits)
        }
        return try AHAPReader.read(root, reader: reader, option: curveTimes, limits: limits)
    }
}

/// Typed access to JSON values with errors that carry the JSON path and line.
struct PathReader {
    let file: String

    func fail(_ path: String, _ value: JSONValue?, _ message: String) -> PatternFileError {
        PatternFileError(file: file, path: path, line: value?.line, column: nil, message: message)
    }
    func object(_ value: JSONValue?, _ path: String) throws(PatternFileError) -> [(key: String, value: JSONValue)] {
        guard let value else { throw fail(path, nil, "is missing") }
        guard case let .object(members, _) = value else { throw fail(path, value, "must be an object, not \(value.typeName)") }
        return members
    }
    func array(_ value: JSONValue?, _ path: String) throws(PatternFileError) -> [JSONValue] {
        guard let value else { throw fail(path, nil, "is missing") }
        guard case let .array(elements, _) = value else { throw fail(path, value, "must be an array, not \(value.typeName)") }
        return elements
    }
    func number(_ value: JSONValue?, _ path: String) throws(PatternFileError) -> Double {
        guard let value else { throw fail(path, nil, "is missing") }
        guard case let .number(number, _) = value else { throw fail(path, value, "must be a number, not \(value.typeName)") }
        return number
    }
    func optionalNumber(_ value: JSONValue?, _ path: String) throws(PatternFileError) -> Double? {
        guard let value else { return nil }
        return try number(value, path)
    }
    /// A boolean (absent: false); AHAP files from some tools write 0 and 1.
    func flag(_ value: JSONValue?, _ path: String) throws(PatternFileError) -> Bool {
        switch value {
        case .none: return false
        case let .bool(flag, _): return flag
        case let .number(number, _): return number != 0
        case let .some(other): throw fail(path, other, "must be true or false, not \(other.typeName)")
        }
    }
    func string(_ value: JSONValue?, _ path: String) throws(PatternFileError) -> String {
        guard let value else { throw fail(path, nil, "is missing") }
        guard case let .string(text, _) = value else { throw fail(path, value, "must be a string, not \(value.typeName)") }
        return text
    }
    func time(_ value: JSONValue?, _ path: String, limit: Double) throws(PatternFileError) -> Double {
        let time = try number(value, path)
        guard time >= 0 else { throw fail(path, value, "is negative (\(time)); times start at 0") }
        guard time <= limit else { throw fail(path, value, "is \(time) s; patterns are limited to \(limit) s") }
        return time
    }
}

/// AHAP: `{ "Version": 1.0, "Pattern": [ { "Event": {…} }, { "Parameter": {…} }, { "ParameterCurve": {…} } ] }`.
enum AHAPReader {
    static let eventParameterIDs: Set<String> = [
        "HapticIntensity", "HapticSharpness", "AttackTime", "DecayTime", "ReleaseTime",
        "Sustained", "AudioVolume", "AudioPan", "AudioPitch", "AudioBrightness"
    ]

    static func read(
        _ root: JSONValue, reader: PathReader, option: PatternFileReader.CurveTimeOption,
        limits: PatternFileLimits
    ) throws(PatternFileError) -> PatternDocument {
        var warnings: [String] = []
        let top = try reader.object(root, "(top level)")
        if let version = root["Version"] {
            guard case .number = version else { throw reader.fail("Version", version, "must be a number, not \(version.typeName)") }
        } else {
            warnings.append("Version is missing; read as version 1")
        }
        for (key, _) in top where !["Version", "Pattern", "Metadata"].contains(key) {
            warnings.append("unknown top-level key \(key) ignored")
        }
        let elements = try reader.array(root["Pattern"], "Pattern")
        guard elements.count <= limits.maximumElements else {
            throw reader.fail("Pattern", root["Pattern"], "has \(elements.count) elements; the limit is \(limits.maximumElements)")
        }
        var events: [HapticPattern.Event] = []
        var parameters: [HapticPattern.Parameter] = []
        var curves: [HapticPattern.ParameterCurve] = []
        var clamped = 0
        func clamp(_ value: Double, _ range: ClosedRange<Double>) -> Double {
            if value < range.lowerBound || value > range.upperBound { clamped += 1 }
            return min(range.upperBound, max(range.lowerBound, value))
        }
        for (index, element) in elements.enumerated() {
            let path = "Pattern[\(index)]"
            let members = try reader.object(element, path)
            for (key, value) in members {
                let elementPath = "\(path).\(key)"
                switch key {
                case "Event":
                    _ = try reader.object(value, elementPath)
                    let typeName = try reader.string(value["EventType"], "\(elementPath).EventType")
                    guard let type = HapticPattern.EventType(rawValue: typeName) else {
                        throw reader.fail(
                            "\(elementPath).EventType", value["EventType"],
                            "unknown event type '\(typeName)' (allowed: \(HapticPattern.EventType.allCases.map(\.rawValue).joined(separator: ", ")))")
                    }
                    let time = try value["Time"] == nil ? 0 : reader.time(value["Time"], "\(elementPath).Time", limit: limits.maximumPatternSeconds)
                    var duration = try reader.optionalNumber(value["EventDuration"], "\(elementPath).EventDuration") ?? 0
                    guard duration >= 0 else {
                        throw reader.fail("\(elementPath).EventDuration", value["EventDuration"], "is negative (\(duration))")
                    }
                    if type == .hapticContinuous || type == .audioContinuous {
                        guard value["EventDuration"] != nil else {
                            throw reader.fail("\(elementPath).EventDuration", value, "is missing; a \(typeName) event needs a duration")
                        }
                        if type == .hapticContinuous, duration > limits.maximumContinuousSeconds {
                            warnings.append("\(elementPath): continuous event of \(duration) s shortened to Core Haptics' \(limits.maximumContinuousSeconds) s limit")
                            duration = limits.maximumContinuousSeconds
                        }
                    }
                    var event = HapticPattern.Event(type: type, time: time, duration: duration)
                    if let parameterList = value["EventParameters"] {
                        for (parameterIndex, parameter) in try reader.array(parameterList, "\(elementPath).EventParameters").enumerated() {
                            let parameterPath = "\(elementPath).EventParameters[\(parameterIndex)]"
                            let id = try reader.string(parameter["ParameterID"], "\(parameterPath).ParameterID")
                            let number = try reader.number(parameter["ParameterValue"], "\(parameterPath).ParameterValue")
                            switch id {
                            case "HapticIntensity": event.intensity = clamp(number, 0...1)
                            case "HapticSharpness": event.sharpness = clamp(number, 0...1)
                            case "AttackTime": event.attackTime = clamp(number, 0...1)
                            case "DecayTime": event.decayTime = clamp(number, 0...1)
                            case "ReleaseTime": event.releaseTime = clamp(number, 0...1)
                            case "Sustained": event.sustained = number != 0
                            case "AudioVolume", "AudioBrightness": event.audioParameters[id] = clamp(number, 0...1)
                            case "AudioPan", "AudioPitch": event.audioParameters[id] = clamp(number, -1...1)
                            default: warnings.append("\(parameterPath): unknown parameter \(id) ignored")
                            }
                        }
                    }
                    if let path = value["EventWaveformPath"] { event.waveformPath = try reader.string(path, "\(elementPath).EventWaveformPath") }
                    event.waveformLoops = try reader.flag(value["EventWaveformLoopEnabled"], "\(elementPath).EventWaveformLoopEnabled")
                    event.waveformUsesVolumeEnvelope = try reader.flag(
                        value["EventWaveformUseVolumeEnvelope"], "\(elementPath).EventWaveformUseVolumeEnvelope")
                    events.append(event)
                case "Parameter":
                    guard let (id, time) = try dynamicParameter(value, elementPath, reader, limits, &warnings) else { continue }
                    let number = try reader.number(value["ParameterValue"], "\(elementPath).ParameterValue")
                    parameters.append(.init(id: id, time: time, value: clamp(number, id.range)))
                case "ParameterCurve":
                    guard let (id, time) = try dynamicParameter(value, elementPath, reader, limits, &warnings) else { continue }
                    let pointList = try reader.array(value["ParameterCurveControlPoints"], "\(elementPath).ParameterCurveControlPoints")
                    guard pointList.count <= limits.maximumControlPoints else {
                        throw reader.fail(
                            "\(elementPath).ParameterCurveControlPoints", value["ParameterCurveControlPoints"],
                            "has \(pointList.count) points; the limit is \(limits.maximumControlPoints)")
                    }
                    if pointList.count > 16 { warnings.append("\(elementPath): \(pointList.count) control points; Core Haptics takes 16 per curve") }
                    var points: [HapticPattern.ParameterCurve.Point] = []
                    for (pointIndex, point) in pointList.enumerated() {
                        let pointPath = "\(elementPath).ParameterCurveControlPoints[\(pointIndex)]"
                        let pointTime = try reader.time(point["Time"], "\(pointPath).Time", limit: limits.maximumPatternSeconds)
                        let number = try reader.number(point["ParameterValue"], "\(pointPath).ParameterValue")
                        points.append(.init(time: pointTime, value: clamp(number, id.range)))
                    }
                    if zip(points, points.dropFirst()).contains(where: { $0.time > $1.time }) {
                        warnings.append("\(elementPath): control points out of time order were sorted")
                        points.sort { $0.time < $1.time }
                    }
                    curves.append(.init(id: id, time: time, points: points))
                default:
                    warnings.append("\(elementPath): unknown element \(key) ignored")
                }
            }
        }
        if clamped > 0 { warnings.append("\(clamped) value(s) outside their range were clamped") }
        if zip(events, events.dropFirst()).contains(where: { $0.time > $1.time }) {
            warnings.append("events out of time order were sorted")
        }
        // Curve control-point times: relative (Apple) or absolute (some exporters).
        let startedLate = curves.filter { $0.time > 0 && !$0.points.isEmpty }
        let looksAbsolute = !startedLate.isEmpty && startedLate.allSatisfy { abs(($0.points.first?.time ?? -1) - $0.time) < 1e-6 }
        let convention: PatternDocument.CurveTimes
        switch option {
        case .relative: convention = .relative
        case .absolute: convention = .absolute
        case .automatic: convention = looksAbsolute ? .absolute : .relative
        }
        if convention == .absolute {
            curves = curves.map { curve in
                var shifted = curve
                shifted.points = curve.points.map { .init(time: max(0, $0.time - curve.time), value: $0.value) }
                return shifted
            }
            if option == .automatic {
                warnings.append(
                    "curve control-point times look absolute (each curve's first point is at the curve's Time); read as absolute. Use --curve-times relative to override")
            }
        }
        return PatternDocument(
            pattern: HapticPattern(events: events, parameters: parameters, curves: curves),
            format: .ahap, curveTimes: convention, warnings: warnings)
    }
}

extension AHAPReader {
    /// The ParameterID and Time shared by Parameter and ParameterCurve elements; `nil` (with a
    /// warning) for an ID this reader does not know, which is ignored like any unknown key.
    static func dynamicParameter(
        _ value: JSONValue, _ path: String, _ reader: PathReader, _ limits: PatternFileLimits,
        _ warnings: inout [String]
    ) throws(PatternFileError) -> (HapticPattern.ParameterID, Double)? {
        _ = try reader.object(value, path)
        let idName = try reader.string(value["ParameterID"], "\(path).ParameterID")
        guard let id = HapticPattern.ParameterID(rawValue: idName) else {
            warnings.append("\(path).ParameterID: unknown dynamic parameter \(idName) ignored")
            return nil
        }
        let time = try value["Time"] == nil ? 0 : reader.time(value["Time"], "\(path).Time", limit: limits.maximumPatternSeconds)
        return (id, time)
    }
}
