// SPDX-License-Identifier: Apache-2.0

import Board
import HardwareAccess

/// Serial port 0, where commands arrive and answers leave, one `SerialFrame` each: a frame's CRC
/// and length are checked before anything in it is read, noise between frames is skipped, and a
/// frame cut short is dropped rather than glued to the next.
struct SerialPort {
    private var decoder = SerialFrameDecoder()

    /// What arrived: a command and the ID its answer repeats, or a frame refused (answered
    /// `error bad-frame WORD` with ID 0: nothing of it, its ID included, is trusted).
    enum Input {
        case command(id: UInt16, text: String)
        case refused(SerialFrameRefusal)
    }

    /// Whether any byte arrived in this call (the link watchdog's sign of life: noise counts
    /// too, as a host that still writes).
    private(set) var heardFrom = false

    /// The ID the frames sent now carry: the command's being answered, 0 for what the firmware
    /// says unasked (`done`, `error playback`, `error link-lost`, `hello`).
    var replyID: UInt16 = 0

    /// Bytes skipped outside frames since reset.
    var skippedBytes: Int { decoder.skippedBytes }

    mutating func poll(nanoseconds: Int64) -> Input? {
        heardFrom = false
        while true {
            let next = board_serial_read(0)
            if next < 0 { return nil }
            heardFrom = true
            switch decoder.take(UInt8(truncatingIfNeeded: next), atNanoseconds: nanoseconds) {
            case let .frame(id, payload)?: return .command(id: id, text: String(decoding: payload, as: UTF8.self))
            case let .refused(reason)?: return .refused(reason)
            case nil: continue
            }
        }
    }

    /// Sends `parts` one after the other as one frame with `replyID`. Parts rather than one
    /// interpolated string: each interpolation compiles to its own code, and flash is counted.
    /// A payload past `SerialFrame.maximumPayload` is cut there.
    func send(_ parts: String...) {
        var length = 0
        for part in parts { length += part.utf8.count }
        let sent = min(length, SerialFrame.maximumPayload)
        let header = SerialFrame.header(id: replyID, length: sent)
        var crc = SerialFrame.crc16(header)
        var start = SerialFrame.start
        board_serial_write(0, &start, 1)
        header.withUnsafeBufferPointer { board_serial_write(0, $0.baseAddress, $0.count) }
        var left = sent
        for part in parts where left > 0 {
            var text = part
            text.withUTF8 { bytes in
                let count = min(bytes.count, left)
                let taken = UnsafeBufferPointer(rebasing: bytes[0..<count])
                crc = SerialFrame.crc16(taken, continuing: crc)
                board_serial_write(0, taken.baseAddress, count)
                left -= count
            }
        }
        let trailer = SerialFrame.trailer(crc: crc)
        trailer.withUnsafeBufferPointer { board_serial_write(0, $0.baseAddress, $0.count) }
    }
}
