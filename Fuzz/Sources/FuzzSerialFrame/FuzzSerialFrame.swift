// SPDX-License-Identifier: Apache-2.0

import FuzzSupport
import HardwareAccess

/// The firmware's serial parser (`SerialFrameDecoder`, the code the firmware runs on its command
/// port, built here for Linux) on arbitrary bytes as a noisy line delivers them. A byte 0xFE also
/// stands for a pause of 200 ms before the next (past the frame's pause limit). The decoder never
/// crashes, and every frame it takes is checked again by a second reader written here apart (its
/// own CRC, table-driven): nothing whose CRC, length or shape is wrong is ever taken, so nothing a
/// damaged frame says is ever acted on.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSerialFrame(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    var decoder = SerialFrameDecoder()
    var now: Int64 = 0
    var frameStart: Int?
    var taken = 0
    for (index, byte) in bytes.enumerated() {
        now += byte == 0xFE ? 200_000_000 : 1000
        // Where the frame being read began (a pause drops it before this byte is read).
        let event = decoder.take(byte, atNanoseconds: now)
        if byte == SerialFrame.start { frameStart = index }
        guard case let .frame(id, payload) = event else {
            if byte == SerialFrame.end { frameStart = nil }
            continue
        }
        guard let start = frameStart else { fatalError("a frame taken without a start") }
        let raw = Array(bytes[start...index])
        guard let checked = independentlyRead(raw) else { fatalError("a frame taken that a second reader refuses: \(raw)") }
        precondition(checked.id == id && checked.payload == payload, "read as \(id) \(payload), a second reader says \(checked)")
        frameStart = nil
        taken += 1
    }
    precondition(decoder.skippedBytes <= bytes.count && taken <= bytes.count / 9 + 1, "counts out of bounds")
    return 0
}

/// CRC-16/CCITT-FALSE from a table (the decoder computes it bit by bit).
private let table: [UInt16] = (0..<256).map { index in
    var value = UInt16(index) << 8
    for _ in 0..<8 { value = value & 0x8000 != 0 ? (value << 1) ^ 0x1021 : value << 1 }
    return value
}

private func tableCRC(_ bytes: ArraySlice<UInt8>) -> UInt16 {
    bytes.reduce(0xFFFF) { crc, byte in (crc << 8) ^ table[Int((crc >> 8) ^ UInt16(byte))] }
}

/// `#ID:LEN:PAYLOAD*CRC\n` (a `\r` allowed before the end) read by splitting on its delimiters.
private func independentlyRead(_ raw: [UInt8]) -> (id: UInt16, payload: [UInt8])? {
    guard raw.first == 0x23, raw.last == 0x0A else { return nil }
    var body = raw.dropFirst().dropLast()
    if body.last == 0x0D { body = body.dropLast() }
    let colons = body.indices.filter { body[$0] == 0x3A }
    guard colons.count >= 2 else { return nil }
    let idText = body[body.startIndex..<colons[0]]
    let lengthText = body[(colons[0] + 1)..<colons[1]]
    func value(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }
    guard let id = value(idText), id <= 65535, let length = value(lengthText), length <= SerialFrame.maximumPayload else { return nil }
    let payloadStart = colons[1] + 1
    guard body.endIndex - payloadStart == length + 5, body[payloadStart + length] == 0x2A else { return nil }
    var crc: UInt16 = 0
    for digit in body[(payloadStart + length + 1)...] {
        guard let nibble = Array("0123456789ABCDEF".utf8).firstIndex(of: digit) ?? Array("0123456789abcdef".utf8).firstIndex(of: digit) else { return nil }
        crc = crc << 4 | UInt16(nibble)
    }
    guard tableCRC(body[body.startIndex..<(payloadStart + length)]) == crc else { return nil }
    return (UInt16(id), Array(body[payloadStart..<(payloadStart + length)]))
}

@_cdecl("FuzzSerialFrame_main")
public func fuzzerEntry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in fuzzSerialFrame(data, size) }
}
