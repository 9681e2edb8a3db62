// SPDX-License-Identifier: Apache-2.0

/// Text helpers without Foundation, so the chip drivers' messages and name tables are the same
/// code on Linux and in firmware (Embedded Swift has no Foundation, so no `String(format:)`,
/// `contains(_:)` for strings, `range(of:)` or `trimmingCharacters(in:)`).
public enum PlainText {
    /// "0x0A": a byte as two upper-case hexadecimal digits after "0x" (printf's "0x%02X").
    public static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.utf8.count < 2 ? "0" : "") + digits
    }

    /// `value` with `places` digits after the point, rounded half away from zero ("%.2f" but for
    /// exact halves); "nan" or "inf" for those.
    public static func decimal(_ value: Double, places: Int = 0) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        var scale = 1.0
        for _ in 0..<max(0, places) { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e18 else { return value < 0 ? "-huge" : "huge" }
        let units = Int64(scaled)
        let whole = units / Int64(scale)
        var text = (value < 0 && units != 0 ? "-" : "") + String(whole)
        if places > 0 {
            let fraction = String(units % Int64(scale))
            text += "." + String(repeating: "0", count: places - fraction.utf8.count) + fraction
        }
        return text
    }
}

extension PlainText {
    /// `value` as Swift prints a double with at most three decimals ("2.0", "2.5", "175.0",
    /// "0.125"): up to three places, trailing zeros dropped but one kept.
    public static func number(_ value: Double) -> String {
        var text = decimal(value, places: 3)
        guard value.isFinite else { return text }
        while text.endsWith("0") && !text.endsWith(".0") { text = String(decoding: Array(text.utf8).dropLast(), as: UTF8.self) }
        return text
    }

    /// The whole numbers written in `text` with ASCII digits, in order ("Strong Click 1 - 100%":
    /// 1, 100).
    public static func integers(in text: String) -> [Int] {
        var numbers: [Int] = []
        var current: Int?
        for byte in text.utf8 {
            if byte >= 0x30 && byte <= 0x39 {
                let (value, overflow) = (current ?? 0).multipliedReportingOverflow(by: 10)
                current = overflow ? Int.max : value &+ Int(byte - 0x30)
            } else if let number = current {
                numbers.append(number)
                current = nil
            }
        }
        if let number = current { numbers.append(number) }
        return numbers
    }
}

/// Byte-wise (UTF-8) string operations. The names, tables and commands they serve are ASCII, and
/// the standard library's Unicode-aware versions would pull its Unicode tables (tens of KiB) into
/// firmware.
extension String {
    /// Whether both strings are the same bytes.
    public func sameBytes(as other: String) -> Bool { utf8.elementsEqual(other.utf8) }

    /// Whether the string starts with `prefix`, byte for byte.
    public func beginsWith(_ prefix: String) -> Bool { utf8.starts(with: prefix.utf8) }

    /// Whether the string ends with `suffix`, byte for byte.
    public func endsWith(_ suffix: String) -> Bool { utf8.reversed().starts(with: suffix.utf8.reversed()) }

    /// A–Z made a–z; every other byte kept.
    public func asciiLowercased() -> String { shiftingASCII(from: 0x41, through: 0x5A, by: 0x20) }

    /// a–z made A–Z; every other byte kept.
    public func asciiUppercased() -> String { shiftingASCII(from: 0x61, through: 0x7A, by: 0xE0) }

    /// Bytes `low...high` moved by `offset` (wrapping), the rest kept: one loop for both cases.
    private func shiftingASCII(from low: UInt8, through high: UInt8, by offset: UInt8) -> String {
        var bytes = Array(utf8)
        for index in bytes.indices where bytes[index] >= low && bytes[index] <= high { bytes[index] &+= offset }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `other` occurs in this string, comparing UTF-8 bytes.
    public func hasSubstring(_ other: String) -> Bool { firstOffset(of: other) != nil }

    /// The text before the first `separator`, or `nil` when there is none.
    public func prefix(before separator: String) -> String? {
        guard let offset = firstOffset(of: separator) else { return nil }
        return String(decoding: Array(utf8)[..<offset], as: UTF8.self)
    }

    /// Every occurrence of `other` removed.
    public func removingEvery(_ other: String) -> String {
        let needle = Array(other.utf8)
        guard !needle.isEmpty else { return self }
        let bytes = Array(utf8)
        var result: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if index + needle.count <= bytes.count, bytes[index..<index + needle.count].elementsEqual(needle) {
                index += needle.count
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Without spaces and tabs at either end.
    public func trimmingSpaces() -> String {
        let bytes = Array(utf8)
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// The byte offset of the first `other` in this string's UTF-8.
    private func firstOffset(of other: String) -> Int? {
        let haystack = Array(utf8)
        let needle = Array(other.utf8)
        guard !needle.isEmpty else { return 0 }
        guard needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
