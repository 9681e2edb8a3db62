// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// The far end of the serial link as Firmware/'s `SerialPort` speaks it, for the test doubles of
/// a firmware: commands decoded from the host's frames (each checked as the firmware checks it),
/// answers framed with the command's ID, and what the firmware says unasked with ID 0.
struct FirmwareFrames {
    private var decoder = SerialFrameDecoder()

    /// The commands (ID, payload) in `bytes` the host wrote; a refused frame is answered as the
    /// firmware answers it, `error bad-frame WORD` with ID 0, in `refusals`.
    mutating func commands(in bytes: [UInt8], refusals: inout [UInt8]) -> [(id: UInt16, text: String)] {
        var found: [(id: UInt16, text: String)] = []
        for byte in bytes {
            switch decoder.take(byte, atNanoseconds: 0) {
            case let .frame(id, payload)?: found.append((id, String(decoding: payload, as: UTF8.self)))
            case let .refused(reason)?: refusals += Self.unasked("error bad-frame \(reason.word): not acted on")
            case nil: break
            }
        }
        return found
    }

    /// `answer` to the command `id`: with ID 0 when it is something the firmware says unasked
    /// (a `done`, an `error playback` or `error link-lost`, a `hello`), as Firmware/ sends those
    /// from outside the command's answer.
    static func answer(_ answer: String, to id: UInt16) -> [UInt8] {
        let unasked = ["done ", "error playback ", "error link-lost ", "hello "].contains { answer.hasPrefix($0) }
        return unasked ? Self.unasked(answer) : SerialFrame.encode(id: id, payload: Array(answer.utf8))
    }

    /// A frame the firmware sends on its own (ID 0).
    static func unasked(_ text: String) -> [UInt8] { SerialFrame.encode(id: 0, payload: Array(text.utf8)) }
}
