// SPDX-License-Identifier: Apache-2.0

/// Text helpers without Foundation, so the chip drivers' messages and name tables are the same
/// code on Linux and in firmware (Embedded Swift has no Foundation, so no `String(format:)`,
/// `contains(_:)` for strings, `range(of:)` or `trimmingCharacters(in:)`).
public enum PlainText {
    /// "0x0A": a byte as two upper-case hexadecimal digits after "0x" (printf's "0x%02X").
    public static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count < 2 ? "0" : "") + digits
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
            text += "." + String(repeating: "0", count: places - fraction.count) + fraction
        }
        return text
    }
}

extension String {
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
        var bytes = Array(utf8)
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
        bytes = result
        return String(decoding: bytes, as: UTF8.self)
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
