// SPDX-License-Identifier: Apache-2.0

/// The frame of the serial link between a host and the project's firmware, one line a frame:
///
///     #ID:LEN:PAYLOAD*CRC\n
///
/// - `#` starts a frame. Bytes before it are noise and are skipped, and a `#` inside a frame
///   starts a new one (no payload holds `#` or a line end), so a receiver finds the next frame
///   after garbage on the wire or a frame cut short.
/// - ID: the request's number, decimal, 1...65535, which its answer repeats; 0 for what the
///   firmware sends unasked (`done NAME`, `error playback ...`, `hello ...`).
/// - LEN: the payload's length in bytes, decimal, at most `maximumPayload`; PAYLOAD: a command or
///   an answer (docs/firmware.md lists them).
/// - CRC: CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, as XMODEM's but for the
///   start) of the bytes from ID to the end of PAYLOAD, four hexadecimal digits. It finds every
///   error of one to three bits and every burst up to 16 bits long in a frame of this size.
///
/// A frame whose CRC, length or shape is wrong is refused whole: nothing in it is trusted, its ID
/// included. Shared by the firmware (Embedded Swift: bytes, not `Character`s, so that the
/// standard library's Unicode tables stay out of the image) and the host's `FirmwareDevice`.
public enum SerialFrame {
    /// `#`, the start of every frame.
    public static let start: UInt8 = 0x23
    /// The line end, the end of every frame.
    public static let end: UInt8 = 0x0A
    /// The longest payload.
    public static let maximumPayload = 512
    /// The longest frame between its `#` and its line end: ID (5 digits), LEN (3), two colons,
    /// the payload, `*` and the CRC (4), and a carriage return a terminal may add.
    public static let maximumFrame = 5 + 3 + 2 + maximumPayload + 5 + 1
    /// How long a frame may pause between two of its bytes before what arrived of it is dropped:
    /// a sender writes a frame at once (the longest takes 46 ms at 115200 baud), so a frame that
    /// stops half way was cut, and its rest must not be glued to the next.
    public static let partialTimeoutNanoseconds: Int64 = 100_000_000

    /// CRC-16/CCITT-FALSE of `bytes`, continuing from `crc` (0xFFFF to begin).
    public static func crc16<Bytes: Sequence<UInt8>>(_ bytes: Bytes, continuing crc: UInt16 = 0xFFFF) -> UInt16 {
        var value = crc
        for byte in bytes {
            value ^= UInt16(byte) << 8
            for _ in 0..<8 { value = value & 0x8000 != 0 ? (value << 1) ^ 0x1021 : value << 1 }
        }
        return value
    }

    /// `ID:LEN:`, the part of a frame before its payload that the CRC covers (the `#` is not).
    public static func header(id: UInt16, length: Int) -> [UInt8] {
        decimal(Int(id)) + [0x3A] + decimal(length) + [0x3A]
    }

    /// `*CRC` and the line end.
    public static func trailer(crc: UInt16) -> [UInt8] {
        let digits: [UInt8] = Array("0123456789ABCDEF".utf8)
        return [0x2A, digits[Int(crc >> 12)], digits[Int(crc >> 8 & 0xF)], digits[Int(crc >> 4 & 0xF)], digits[Int(crc & 0xF)], end]
    }

    /// The whole frame of `payload` (at most `maximumPayload` bytes; a `#` or a line end in it,
    /// which no command or answer holds, is sent as `?`, so that it cannot split the frame).
    public static func encode(id: UInt16, payload: [UInt8]) -> [UInt8] {
        let safe = payload.map { $0 == start || $0 == end || $0 == 0x0D ? 0x3F : $0 }
        let head = header(id: id, length: safe.count)
        return [start] + head + safe + trailer(crc: crc16(safe, continuing: crc16(head)))
    }

    static func decimal(_ value: Int) -> [UInt8] {
        var digits: [UInt8] = []
        var rest = max(0, value)
        repeat {
            digits.append(0x30 + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        return digits.reversed()
    }
}

/// Why a frame was refused. Nothing of a refused frame is acted on.
public enum SerialFrameRefusal: Sendable, Equatable {
    /// Its CRC does not match its bytes: damaged on the way.
    case checksum
    /// Its payload is not LEN bytes long (bytes lost or added).
    case length
    /// Not `ID:LEN:PAYLOAD*CRC`, or a field out of range.
    case shape
    /// Longer than any frame can be.
    case tooLong
    /// Cut short: the next frame's `#` came before its line end.
    case cut
    /// Cut short: it paused longer than `SerialFrame.partialTimeoutNanoseconds`.
    case timedOut

    /// One word for it, as the firmware's `error bad-frame WORD` says it.
    public var word: String {
        switch self {
        case .checksum: return "checksum"
        case .length: return "length"
        case .shape: return "shape"
        case .tooLong: return "too-long"
        case .cut: return "cut"
        case .timedOut: return "timed-out"
        }
    }
}

/// Finds frames in the bytes a serial line delivers, however they are split, skipping noise.
public struct SerialFrameDecoder: Sendable {
    /// What a byte completed.
    public enum Event: Sendable, Equatable {
        /// A sound frame: its ID and payload.
        case frame(id: UInt16, payload: [UInt8])
        /// A frame refused, and why.
        case refused(SerialFrameRefusal)
    }

    private var buffer: [UInt8] = []
    private var inFrame = false
    private var lastByte: Int64 = 0
    /// Bytes seen outside any frame (noise, or the rest of a frame refused as too long).
    public private(set) var skippedBytes = 0

    public init() {}

    /// Takes the next byte, arrived at `nanoseconds` on any monotonic clock; returns what it
    /// completed, if anything. A frame that paused too long is refused before the byte is taken.
    public mutating func take(_ byte: UInt8, atNanoseconds nanoseconds: Int64) -> Event? {
        var timedOut = false
        if inFrame && nanoseconds - lastByte > SerialFrame.partialTimeoutNanoseconds {
            inFrame = false
            buffer.removeAll(keepingCapacity: true)
            timedOut = true
        }
        lastByte = nanoseconds
        if byte == SerialFrame.start {
            let cut = inFrame
            inFrame = true
            buffer.removeAll(keepingCapacity: true)
            if timedOut { return .refused(.timedOut) }
            return cut ? .refused(.cut) : nil
        }
        guard inFrame else {
            skippedBytes += 1
            return timedOut ? .refused(.timedOut) : nil
        }
        if byte == SerialFrame.end {
            inFrame = false
            defer { buffer.removeAll(keepingCapacity: true) }
            return Self.parse(buffer)
        }
        guard buffer.count < SerialFrame.maximumFrame else {
            inFrame = false
            buffer.removeAll(keepingCapacity: true)
            skippedBytes += 1
            return .refused(.tooLong)
        }
        buffer.append(byte)
        return nil
    }

    /// `ID:LEN:PAYLOAD*CRC` (a carriage return after it allowed) as a frame, or why not.
    static func parse(_ bytes: [UInt8]) -> Event {
        var index = 0
        func number(maximumDigits: Int) -> Int? {
            var value = 0
            var digits = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                value = value * 10 + Int(bytes[index] - 0x30)
                digits += 1
                index += 1
                if digits > maximumDigits { return nil }
            }
            guard digits > 0, index < bytes.count, bytes[index] == 0x3A else { return nil }
            index += 1
            return value
        }
        guard let id = number(maximumDigits: 5), id <= 65535, let length = number(maximumDigits: 3) else { return .refused(.shape) }
        guard length <= SerialFrame.maximumPayload else { return .refused(.length) }
        let payloadEnd = index + length
        var end = bytes.count
        if end > 0 && bytes[end - 1] == 0x0D { end -= 1 }
        guard payloadEnd + 5 == end, bytes[payloadEnd] == 0x2A else { return .refused(.length) }
        var crc: UInt16 = 0
        for byte in bytes[(payloadEnd + 1)..<end] {
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: return .refused(.shape)
            }
            crc = crc << 4 | UInt16(digit)
        }
        guard SerialFrame.crc16(bytes[..<payloadEnd]) == crc else { return .refused(.checksum) }
        return .frame(id: UInt16(id), payload: Array(bytes[index..<payloadEnd]))
    }
}
