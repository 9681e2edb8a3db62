// SPDX-License-Identifier: Apache-2.0

/// The fast path for reading a request: the members of a flat JSON object (strings, numbers,
/// true, false, null) scanned in place, without building a tree.
///
/// It reads only what it can read exactly: strings without escapes or control characters,
/// whole numbers and decimals of up to 15 digits without an exponent (read exactly, as a
/// correctly rounded division by a power of ten). On anything else (an escape, a nested value,
/// an exponent, a syntax error) it gives up and returns nil, and the full reader
/// (`LenientJSONReader`) reads the message and words any error. A request after the daemon has
/// been idle meets this code out of the caches: the less of it there is, the sooner the chip is
/// driven (the bench's `requestDecodeAfter40msMicroseconds`).
enum FlatJSONScanner {
    /// Exact powers of ten: a whole number of up to 15 digits divided by one of them is the
    /// correctly rounded value of the decimal.
    private static let powersOfTen: [Double] = (0...15).map { exponent in (0..<exponent).reduce(1.0) { value, _ in value * 10 } }

    /// The members of the object `bytes` hold, in order; nil when the scanner does not read it.
    static func members(of bytes: [UInt8]) -> [(key: String, value: JSONObjectReader.Member)]? {
        var index = 0
        var members: [(key: String, value: JSONObjectReader.Member)] = []
        members.reserveCapacity(8)

        func skipWhitespace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 { index += 1 }
        }
        func string() -> String? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            let start = index + 1
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                guard bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 else { return nil }
                end += 1
            }
            guard end < bytes.count else { return nil }
            index = end + 1
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }
        func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
            index += count
            return true
        }
        func number() -> Double? {
            let negative = bytes[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            var mantissa = 0
            var digits = 0
            var fractionDigits = 0
            var seenPoint = false
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "."), !seenPoint, digits > 0 {
                    seenPoint = true
                } else if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                    // Past 15 digits the value is not exact (and would soon overflow): give up.
                    guard digits < 15 else { return nil }
                    mantissa = mantissa * 10 + Int(byte - UInt8(ascii: "0"))
                    digits += 1
                    if seenPoint { fractionDigits += 1 }
                } else {
                    break
                }
                index += 1
            }
            guard digits > 0, !seenPoint || fractionDigits > 0 else { return nil }
            let value = Double(mantissa) / powersOfTen[fractionDigits]
            return negative ? -value : value
        }

        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
        } else {
            while true {
                skipWhitespace()
                guard let key = string() else { return nil }
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                skipWhitespace()
                guard index < bytes.count else { return nil }
                let value: JSONObjectReader.Member
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard let text = string() else { return nil }
                    value = .string(text)
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    guard let number = number() else { return nil }
                    value = .number(number)
                case UInt8(ascii: "t"):
                    guard literal("true") else { return nil }
                    value = .bool(true)
                case UInt8(ascii: "f"):
                    guard literal("false") else { return nil }
                    value = .bool(false)
                case UInt8(ascii: "n"):
                    guard literal("null") else { return nil }
                    value = .null
                default:
                    return nil
                }
                members.append((key, value))
                skipWhitespace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    break
                }
                guard bytes[index] == UInt8(ascii: ",") else { return nil }
                index += 1
            }
        }
        skipWhitespace()
        return index == bytes.count ? members : nil
    }
}
