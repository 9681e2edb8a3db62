// SPDX-License-Identifier: Apache-2.0

/// A JSON value with where it came from, for error messages that point into the file. Shared
/// (package access) with the service, whose messages it reads without Foundation's decoder.
package indirect enum JSONValue: Sendable, Equatable {
    case object([(key: String, value: JSONValue)], line: Int)
    case array([JSONValue], line: Int)
    case string(String, line: Int)
    case number(Double, line: Int)
    case bool(Bool, line: Int)
    case null(line: Int)

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case let (.object(a, _), .object(b, _)): return a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        case let (.array(a, _), .array(b, _)): return a == b
        case let (.string(a, _), .string(b, _)): return a == b
        case let (.number(a, _), .number(b, _)): return a == b
        case let (.bool(a, _), .bool(b, _)): return a == b
        case (.null, .null): return true
        default: return false
        }
    }

    package var line: Int {
        switch self {
        case let .object(_, line), let .array(_, line), let .string(_, line), let .number(_, line), let .bool(_, line): return line
        case let .null(line): return line
        }
    }

    /// The member named `key` (the last one if repeated), for objects.
    package subscript(key: String) -> JSONValue? {
        guard case let .object(members, _) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    package var typeName: String {
        switch self {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        }
    }
}

/// Malformed JSON, with the line and column of the problem.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String
    public var description: String { "line \(line), column \(column): \(message)" }
}

/// A JSON reader that accepts what real haptic files contain — trailing commas before `]` or `}` —
/// and is strict about everything else, reporting the line and column of the first problem.
/// Nesting and size are bounded so a hostile file cannot exhaust the stack or memory.
///
/// Small on purpose: hapticd reads every request with it, and a request that comes after the
/// daemon has been idle finds its code out of the caches (Foundation's decoder took 55 µs for
/// one then, against 4 µs back to back, in `haptic-bench`).
package struct LenientJSONReader {
    static let maximumDepth = 64
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var allowsTrailingCommas = true

    /// The value `bytes` hold; `allowsTrailingCommas: false` reads strict JSON.
    package static func parse(_ bytes: [UInt8], allowsTrailingCommas: Bool = true) throws(JSONSyntaxError) -> JSONValue {
        var reader = LenientJSONReader(bytes: bytes)
        reader.allowsTrailingCommas = allowsTrailingCommas
        reader.skipByteOrderMark()
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.error("unexpected text after the JSON value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(line: line, column: index - lineStart + 1, message: message)
    }

    private mutating func skipByteOrderMark() {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            index = 3
            lineStart = 3
        }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D: index += 1
            case 0x0A:
                index += 1
                line += 1
                lineStart = index
            default: return
            }
        }
    }

    private mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < LenientJSONReader.maximumDepth else { throw error("nested more than \(LenientJSONReader.maximumDepth) levels deep") }
        guard index < bytes.count else { throw error("unexpected end of file") }
        let startLine = line
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var members: [(key: String, value: JSONValue)] = []
            var afterComma = false
            skipWhitespace()
            while true {
                guard index < bytes.count else { throw error("unexpected end of file inside an object") }
                if bytes[index] == UInt8(ascii: "}"), allowsTrailingCommas || !afterComma {
                    index += 1
                    break
                }
                guard bytes[index] == UInt8(ascii: "\"") else { throw error("expected a quoted key or '}'") }
                let key = try string()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after the key \"\(key)\"") }
                index += 1
                skipWhitespace()
                members.append((key, try value(depth: depth + 1)))
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of file inside an object") }
                afterComma = bytes[index] == UInt8(ascii: ",")
                if afterComma {
                    index += 1
                    skipWhitespace()  // a trailing comma before '}' is accepted (unless strict)
                } else if bytes[index] != UInt8(ascii: "}") {
                    throw error("expected ',' or '}' in an object")
                }
            }
            return .object(members, line: startLine)
        case UInt8(ascii: "["):
            index += 1
            var elements: [JSONValue] = []
            var afterComma = false
            skipWhitespace()
            while true {
                guard index < bytes.count else { throw error("unexpected end of file inside an array") }
                if bytes[index] == UInt8(ascii: "]"), allowsTrailingCommas || !afterComma {
                    index += 1
                    break
                }
                elements.append(try value(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of file inside an array") }
                afterComma = bytes[index] == UInt8(ascii: ",")
                if afterComma {
                    index += 1
                    skipWhitespace()  // a trailing comma before ']' is accepted (unless strict)
                } else if bytes[index] != UInt8(ascii: "]") {
                    throw error("expected ',' or ']' in an array")
                }
            }
            return .array(elements, line: startLine)
        case UInt8(ascii: "\""):
            return .string(try string(), line: startLine)
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true, line: startLine)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false, line: startLine)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null(line: startLine)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try number(), line: startLine)
        default:
            throw error("unexpected character '\(Character(Unicode.Scalar(bytes[index])))'")
        }
    }

    private mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let expected = Array(word.utf8)
        guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw error("expected '\(word)'")
        }
        index += expected.count
    }

    private mutating func number() throws(JSONSyntaxError) -> Double {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        var digits = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            index += 1
            digits += 1
        }
        guard digits > 0 else { throw error("a number needs digits") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var fraction = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                index += 1
                fraction += 1
            }
            guard fraction > 0 else { throw error("a number needs digits after the decimal point") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            var exponent = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                index += 1
                exponent += 1
            }
            guard exponent > 0 else { throw error("a number needs digits in its exponent") }
        }
        // A whole number of up to 15 digits is exact as a Double: read without a string.
        if index - start <= 15, !bytes[start..<index].contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }) {
            var whole = 0
            for byte in bytes[start..<index] where byte != UInt8(ascii: "-") { whole = whole * 10 + Int(byte - UInt8(ascii: "0")) }
            return Double(bytes[start] == UInt8(ascii: "-") ? -whole : whole)
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error("the number \(text) is out of range") }
        return value
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        index += 1  // opening quote
        // Most strings have no escapes: taken whole, without building them byte by byte.
        var end = index
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 { end += 1 }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            defer { index = end + 1 }
            return String(decoding: bytes[index..<end], as: UTF8.self)
        }
        var scalars: [UInt8] = []
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw error("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    guard index + 4 <= bytes.count, let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
                        throw error("bad \\u escape")
                    }
                    index += 4
                    var scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                    // A character beyond the first plane comes as a pair of escapes (UTF-16).
                    if (0xD800...0xDBFF).contains(code), index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u"),
                        let low = UInt32(String(decoding: bytes[index + 2..<index + 6], as: UTF8.self), radix: 16),
                        (0xDC00...0xDFFF).contains(low)
                    {
                        index += 6
                        scalar = Unicode.Scalar(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)) ?? "\u{FFFD}"
                    }
                    scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw error("unknown escape '\\\(Character(Unicode.Scalar(escape)))'")
                }
            case 0x00...0x1F:
                throw error("control character in a string")
            default:
                scalars.append(byte)
            }
        }
    }
}
