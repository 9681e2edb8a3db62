// SPDX-License-Identifier: Apache-2.0

import HardwareAccess
import Testing

/// The serial link's frames as both ends rely on them: what was sent is what is taken, noise and
/// cut frames are skipped without losing the next frame, and no damaged frame is ever taken.
@Suite struct SerialFrameTests {
    /// Feeds `bytes` one at a time, `spacing` nanoseconds apart; returns what they completed.
    private func decode(_ bytes: [UInt8], spacing: Int64 = 1000, decoder: inout SerialFrameDecoder, from start: Int64 = 0) -> [SerialFrameDecoder.Event] {
        var events: [SerialFrameDecoder.Event] = []
        for (index, byte) in bytes.enumerated() {
            if let event = decoder.take(byte, atNanoseconds: start + Int64(index) * spacing) { events.append(event) }
        }
        return events
    }

    private func decode(_ bytes: [UInt8]) -> [SerialFrameDecoder.Event] {
        var decoder = SerialFrameDecoder()
        return decode(bytes, decoder: &decoder)
    }

    @Test func theChecksumIsCRC16CCITTFalse() {
        // The catalogue's check value: CRC-16/CCITT-FALSE of "123456789" is 0x29B1.
        #expect(SerialFrame.crc16(Array("123456789".utf8)) == 0x29B1)
        #expect(
            SerialFrame.encode(id: 7, payload: Array("play click".utf8)) == Array("#7:10:play click".utf8)
                + SerialFrame.trailer(crc: SerialFrame.crc16(Array("7:10:play click".utf8))))
    }

    @Test func whatIsSentIsWhatIsTaken() {
        let payloads = ["ok play impact-heavy 40", "", "upload 0 1 2 3 * 4", String(repeating: "9", count: SerialFrame.maximumPayload)]
        for (index, payload) in payloads.enumerated() {
            let id = UInt16([1, 0, 65535, 42][index])
            #expect(decode(SerialFrame.encode(id: id, payload: Array(payload.utf8))) == [.frame(id: id, payload: Array(payload.utf8))])
        }
        // A terminal's carriage return before the line end is allowed.
        var withReturn = SerialFrame.encode(id: 3, payload: Array("ping".utf8))
        withReturn.insert(0x0D, at: withReturn.count - 1)
        #expect(decode(withReturn) == [.frame(id: 3, payload: Array("ping".utf8))])
    }

    /// Every single-bit error in a frame, and every byte replaced by another, is refused or
    /// leaves nothing taken: never a frame that is not the one sent.
    @Test func noDamagedFrameIsTaken() {
        let sent = SerialFrame.encode(id: 12, payload: Array("play vibration-default".utf8))
        var damaged = 0
        for index in sent.indices {
            for bit in 0..<8 {
                var bytes = sent
                bytes[index] ^= 1 << bit
                let events = decode(bytes + SerialFrame.encode(id: 13, payload: Array("ping".utf8)))
                let frames = events.filter { if case .frame = $0 { true } else { false } }
                #expect(frames == [.frame(id: 13, payload: Array("ping".utf8))], "byte \(index) bit \(bit): \(events)")
                damaged += 1
            }
        }
        #expect(damaged == sent.count * 8)
    }

    @Test func noiseBetweenFramesIsSkipped() {
        var decoder = SerialFrameDecoder()
        let noise: [UInt8] = [0x00, 0xFF, 0x0A, 0x0D, 0x2A, 0x3A, 0x31, 0x0A, 0x7E]
        let events = decode(noise + SerialFrame.encode(id: 5, payload: Array("stop".utf8)) + noise, decoder: &decoder)
        #expect(events == [.frame(id: 5, payload: Array("stop".utf8))])
        #expect(decoder.skippedBytes == noise.count * 2)
    }

    /// A frame cut short (its rest lost) is not glued to the next: the next `#` starts afresh.
    @Test func aCutFrameIsDroppedAndTheNextTaken() {
        let first = SerialFrame.encode(id: 1, payload: Array("play click".utf8))
        let second = SerialFrame.encode(id: 2, payload: Array("stop".utf8))
        #expect(decode(Array(first.prefix(8)) + second) == [.refused(.cut), .frame(id: 2, payload: Array("stop".utf8))])
    }

    /// A frame that pauses longer than the limit is dropped when its next byte comes, and that
    /// byte is read as a fresh start.
    @Test func aFrameThatPausesTooLongIsDropped() {
        var decoder = SerialFrameDecoder()
        let frame = SerialFrame.encode(id: 9, payload: Array("play click".utf8))
        #expect(decode(Array(frame.prefix(6)), decoder: &decoder).isEmpty)
        let late = SerialFrame.partialTimeoutNanoseconds + 6000
        #expect(decode(Array(frame.dropFirst(6)), decoder: &decoder, from: late) == [.refused(.timedOut)])
        #expect(decode(frame, decoder: &decoder, from: late * 2) == [.frame(id: 9, payload: Array("play click".utf8))])
        // Within the limit, the same pause is nothing.
        var patient = SerialFrameDecoder()
        #expect(decode(Array(frame.prefix(6)), decoder: &patient).isEmpty)
        #expect(decode(Array(frame.dropFirst(6)), decoder: &patient, from: SerialFrame.partialTimeoutNanoseconds - 1000) == [.frame(id: 9, payload: Array("play click".utf8))])
    }

    @Test func aWrongLengthOrShapeIsRefused() {
        func framed(_ inner: String) -> [UInt8] {
            let body = Array(inner.utf8)
            return [SerialFrame.start] + body + SerialFrame.trailer(crc: SerialFrame.crc16(body))
        }
        #expect(decode(framed("1:5:stop")) == [.refused(.length)])
        #expect(decode(framed("1:3:stop")) == [.refused(.length)])
        #expect(decode(framed("1:999:stop")) == [.refused(.length)])
        #expect(decode(framed("65536:4:stop")) == [.refused(.shape)])
        #expect(decode(framed("x:4:stop")) == [.refused(.shape)])
        #expect(decode(framed("1:4stop")) == [.refused(.shape)])
        var badHex = framed("1:4:stop")
        badHex[badHex.count - 2] = 0x47
        #expect(decode(badHex) == [.refused(.shape)])
        // Digits between the payload's end and its CRC: the frame is longer than LEN says, though
        // its last four digits are the right CRC.
        var padded = framed("1:4:stop")
        padded.insert(contentsOf: Array("00".utf8), at: padded.count - 5)
        #expect(decode(padded) == [.refused(.length)])
        let tooLong = [SerialFrame.start] + [UInt8](repeating: 0x31, count: SerialFrame.maximumFrame + 10) + [SerialFrame.end]
        #expect(decode(tooLong) == [.refused(.tooLong)])
    }

    /// A payload holding the frame's own delimiters is sent with them replaced, so it cannot
    /// split itself.
    @Test func aPayloadCannotSplitItsFrame() {
        #expect(decode(SerialFrame.encode(id: 4, payload: Array("a#b\nc".utf8))) == [.frame(id: 4, payload: Array("a?b?c".utf8))])
    }
}
