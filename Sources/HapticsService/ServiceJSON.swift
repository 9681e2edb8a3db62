// SPDX-License-Identifier: Apache-2.0

import Haptics

/// A message on `hapticd`'s socket, written as and read from one JSON object.
///
/// Written and read here, member by member, rather than by Foundation's `JSONEncoder` and
/// `JSONDecoder`: a request usually comes after the daemon has been idle, with its code out of
/// the caches, and there Foundation's coders took 92 µs to encode a play request and 55 µs to
/// decode it (`haptic-bench`, against 3 and 4 µs back to back), most of what the socket added to
/// a feedback's latency. Members are written in alphabetical order, as before; unknown members
/// are ignored, so a newer client's additions reach an older daemon harmlessly.
protocol ServiceMessage: Sendable {
    /// Writes the message's members. Throws only for a number JSON cannot hold (NaN, infinity).
    func write(to object: inout JSONObjectWriter) throws(ServiceFrame.FrameError)
    /// Reads a message from a JSON object, saying which member is wrong when one is.
    init(_ object: JSONObjectReader) throws(ServiceFrame.FrameError)
}

extension ServiceRequest: ServiceMessage {
    func write(to object: inout JSONObjectWriter) throws(ServiceFrame.FrameError) {
        try object.add("after", after)
        object.add("app", app)
        try object.add("attackTime", attackTime)
        try object.add("decayTime", decayTime)
        object.add("effect", effect)
        object.add("event", event)
        object.add("feedback", feedback)
        object.add("id", id)
        object.add("importance", importance)
        object.add("important", important)
        try object.add("intensity", intensity)
        object.add("mix", mix)
        object.add("op", op)
        object.add("pattern", pattern)
        object.add("profile", profile)
        try object.add("releaseTime", releaseTime)
        object.add("scope", scope)
        object.add("sequence", sequence)
        try object.add("sharpness", sharpness)
        object.add("timeout", timeout)
        object.add("trigger", trigger)
        object.add("version", version)
    }

    init(_ object: JSONObjectReader) throws(ServiceFrame.FrameError) {
        self.init(try object.required("op", object.choice("op")), version: try object.required("version", object.integer("version")))
        id = try object.integer("id")
        app = try object.string("app")
        feedback = try object.string("feedback")
        intensity = try object.number("intensity")
        event = try object.string("event")
        effect = try object.integer("effect")
        sequence = try object.string("sequence")
        pattern = try object.string("pattern")
        importance = try object.choice("importance")
        important = try object.bool("important")
        mix = try object.bool("mix")
        profile = try object.choice("profile")
        scope = try object.choice("scope")
        timeout = try object.integer("timeout")
        trigger = try object.integer("trigger")
        sharpness = try object.number("sharpness")
        attackTime = try object.number("attackTime")
        decayTime = try object.number("decayTime")
        releaseTime = try object.number("releaseTime")
        after = try object.number("after")
    }
}

extension ServiceReply: ServiceMessage {
    func write(to object: inout JSONObjectWriter) throws(ServiceFrame.FrameError) {
        object.add("endReason", endReason)
        object.add("ended", ended)
        object.add("error", error)
        object.add("id", id)
        object.add("ok", ok)
        object.add("outcome", outcome)
        try object.add("playedSeconds", playedSeconds)
        object.add("reason", reason)
        if let status { try object.add("status", status) }
        object.add("trigger", trigger)
        object.add("version", version)
    }

    init(_ object: JSONObjectReader) throws(ServiceFrame.FrameError) {
        self.init(
            id: try object.integer("id"), ok: try object.required("ok", object.bool("ok")), outcome: try object.string("outcome"),
            reason: try object.string("reason"), error: try object.choice("error"))
        version = try object.required("version", object.integer("version"))
        playedSeconds = try object.number("playedSeconds")
        status = try object.object("status").map { (status) throws(ServiceFrame.FrameError) in try ServiceStatus(status) }
        trigger = try object.integer("trigger")
        ended = try object.integer("ended")
        endReason = try object.string("endReason")
    }
}

extension ServiceStatus: ServiceMessage {
    func write(to object: inout JSONObjectWriter) throws(ServiceFrame.FrameError) {
        object.add("actuator", actuator)
        object.add("appProfile", appProfile)
        try object.add("awakeSeconds", awakeSeconds)
        object.add("clients", clients)
        object.add("device", device)
        object.add("dropped", dropped)
        object.add("globalProfile", globalProfile)
        object.add("go", go)
        object.add("part", part)
        object.add("played", played)
        object.add("playing", playing)
        object.add("power", power)
        object.add("standby", standby)
    }

    init(_ object: JSONObjectReader) throws(ServiceFrame.FrameError) {
        self.init(
            device: try object.required("device", object.string("device")), part: try object.required("part", object.string("part")),
            actuator: try object.required("actuator", object.string("actuator")),
            standby: try object.required("standby", object.bool("standby")), go: try object.required("go", object.bool("go")),
            power: try object.required("power", object.string("power")),
            globalProfile: try object.required("globalProfile", object.choice("globalProfile")), appProfile: try object.choice("appProfile"),
            clients: try object.required("clients", object.integer("clients")), playing: try object.string("playing"),
            played: try object.required("played", object.integer("played")), dropped: try object.required("dropped", object.integer("dropped")),
            awakeSeconds: try object.required("awakeSeconds", object.number("awakeSeconds")))
    }
}

/// Writes one JSON object, a member at a time, into one buffer; members whose value is nil are
/// left out. Framed, the buffer starts with the 4 bytes of the length, filled in at the end: a
/// message costs one allocation.
struct JSONObjectWriter {
    private var bytes: [UInt8] = []
    private let framed: Bool
    private var members = 0

    init(framed: Bool) {
        self.framed = framed
        bytes.reserveCapacity(256)
        if framed { bytes.append(contentsOf: repeatElement(0, count: 4)) }
        bytes.append(UInt8(ascii: "{"))
    }

    private mutating func key(_ name: StaticString) {
        if members > 0 { bytes.append(UInt8(ascii: ",")) }
        members += 1
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func escaped(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(byte)
    }

    mutating func add(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): escaped(byte)
            case 0x0A: escaped(UInt8(ascii: "n"))
            case 0x0D: escaped(UInt8(ascii: "r"))
            case 0x09: escaped(UInt8(ascii: "t"))
            case 0x00..<0x20:
                escaped(UInt8(ascii: "u"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(hexDigit(byte >> 4))
                bytes.append(hexDigit(byte & 0xF))
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private func hexDigit(_ value: UInt8) -> UInt8 { value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10 }

    mutating func add<Integer: BinaryInteger>(_ name: StaticString, _ value: Integer?) {
        guard let value else { return }
        key(name)
        // Digits written in place, last first, without a String in between.
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let first = bytes.count
        var rest = value.magnitude
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        bytes[first...].reverse()
    }

    mutating func add(_ name: StaticString, _ value: Double?) throws(ServiceFrame.FrameError) {
        guard let value else { return }
        guard value.isFinite else { throw .malformed("'\(name)' is \(value), which JSON cannot carry") }
        key(name)
        bytes.append(contentsOf: value.description.utf8)
    }

    mutating func add(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        key(name)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    mutating func add<Choice: RawRepresentable>(_ name: StaticString, _ value: Choice?) where Choice.RawValue == String {
        add(name, value?.rawValue)
    }

    /// A member whose value is a message of its own (an object).
    mutating func add(_ name: StaticString, _ message: some ServiceMessage) throws(ServiceFrame.FrameError) {
        key(name)
        var inner = JSONObjectWriter(framed: false)
        try message.write(to: &inner)
        bytes.append(contentsOf: inner.finish())
    }

    /// The object (after its frame's length, when framed).
    consuming func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        if framed {
            let length = UInt32(bytes.count - 4)
            bytes[0] = UInt8(length >> 24)
            bytes[1] = UInt8((length >> 16) & 0xFF)
            bytes[2] = UInt8((length >> 8) & 0xFF)
            bytes[3] = UInt8(length & 0xFF)
        }
        return bytes
    }
}

/// Reads the members of one JSON object (strict JSON), each by its expected type; a member that
/// is null reads as absent, one of another type is an error naming it.
///
/// A flat object whose strings have no escapes (every request `haptic` and the bindings send)
/// is scanned in place (`FlatJSONScanner`); anything else, including every malformed message,
/// goes through the full reader, which also words the errors.
struct JSONObjectReader {
    /// A member's value.
    enum Member {
        case string(String)
        case number(Double)
        case bool(Bool)
        case null
        /// An object or an array, as the full reader read it.
        case nested(JSONValue)

        var typeName: String {
            switch self {
            case .string: return "a string"
            case .number: return "a number"
            case .bool: return "a boolean"
            case .null: return "null"
            case let .nested(value): return value.typeName
            }
        }
    }

    private let members: [(key: String, value: Member)]
    /// Integers are read through a Double: exact up to 2^53, as in JavaScript.
    private static let largestExactInteger = 9_007_199_254_740_992.0

    /// Reads `payload`; `scansFlatObjects: false` always takes the full reader (for tests that
    /// hold the two paths to the same answers).
    init(_ payload: [UInt8], scansFlatObjects: Bool = true) throws(ServiceFrame.FrameError) {
        if scansFlatObjects, let members = FlatJSONScanner.members(of: payload) {
            self.init(members: members)
            return
        }
        let root: JSONValue
        do {
            root = try LenientJSONReader.parse(payload, allowsTrailingCommas: false)
        } catch {
            throw .malformed("\(error)")
        }
        guard case let .object(members, _) = root else { throw .malformed("a message is a JSON object, not \(root.typeName)") }
        self.init(json: members)
    }

    private init(members: [(key: String, value: Member)]) { self.members = members }

    private init(json members: [(key: String, value: JSONValue)]) {
        self.init(
            members: members.map { member in
                switch member.value {
                case let .string(text, _): return (member.key, .string(text))
                case let .number(number, _): return (member.key, .number(number))
                case let .bool(flag, _): return (member.key, .bool(flag))
                case .null: return (member.key, .null)
                case .object, .array: return (member.key, .nested(member.value))
                }
            })
    }

    private func value(_ key: String) -> Member? {
        guard let value = members.last(where: { $0.key == key })?.value else { return nil }
        if case .null = value { return nil }
        return value
    }

    private func wrongType(_ key: String, _ expected: String, _ found: Member) -> ServiceFrame.FrameError {
        .malformed("'\(key)': expected \(expected), found \(found.typeName)")
    }

    /// `value`, or the error a client sees when a member every message of its kind has is absent.
    func required<Value>(_ key: String, _ value: Value?) throws(ServiceFrame.FrameError) -> Value {
        guard let value else { throw .malformed("the field '\(key)' is missing") }
        return value
    }

    func string(_ key: String) throws(ServiceFrame.FrameError) -> String? {
        guard let value = value(key) else { return nil }
        guard case let .string(text) = value else { throw wrongType(key, "a string", value) }
        return text
    }

    func number(_ key: String) throws(ServiceFrame.FrameError) -> Double? {
        guard let value = value(key) else { return nil }
        guard case let .number(number) = value else { throw wrongType(key, "a number", value) }
        return number
    }

    func integer<Integer: BinaryInteger>(_ key: String) throws(ServiceFrame.FrameError) -> Integer? {
        guard let number = try number(key) else { return nil }
        guard number.rounded() == number, abs(number) <= Self.largestExactInteger, let integer = Integer(exactly: number) else {
            throw .malformed("'\(key)': expected an integer from \(Integer.self), not \(number)")
        }
        return integer
    }

    func bool(_ key: String) throws(ServiceFrame.FrameError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case let .bool(flag) = value else { throw wrongType(key, "true or false", value) }
        return flag
    }

    func choice<Choice: RawRepresentable & CaseIterable>(_ key: String) throws(ServiceFrame.FrameError) -> Choice?
    where Choice.RawValue == String {
        guard let name = try string(key) else { return nil }
        guard let choice = Choice(rawValue: name) else {
            throw .malformed("'\(key)': '\(name)' is not one of " + Choice.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return choice
    }

    func object(_ key: String) throws(ServiceFrame.FrameError) -> JSONObjectReader? {
        guard let value = value(key) else { return nil }
        guard case let .nested(.object(members, _)) = value else { throw wrongType(key, "an object", value) }
        return JSONObjectReader(json: members)
    }
}
