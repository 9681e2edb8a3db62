// SPDX-License-Identifier: Apache-2.0

import Board

/// Serial port 0, where commands arrive as text lines and answers leave as text lines.
struct SerialPort {
    /// The longest command line; a longer one is refused whole.
    static let lineLimit = 240
    private var pending: [UInt8] = []
    private var overlong = false

    /// A complete line when one has arrived (without its end), or nil; `.overlong` for a line
    /// that did not fit.
    enum Input {
        case line(String)
        case overlong
    }

    /// Whether any byte arrived in this call (the link watchdog's sign of life).
    private(set) var heardFrom = false

    mutating func poll() -> Input? {
        heardFrom = false
        while true {
            let next = board_serial_read(0)
            if next < 0 { return nil }
            heardFrom = true
            let byte = UInt8(truncatingIfNeeded: next)
            if byte == 0x0A || byte == 0x0D {
                defer {
                    pending.removeAll()
                    overlong = false
                }
                if overlong { return .overlong }
                if pending.isEmpty { continue }
                return .line(String(decoding: pending, as: UTF8.self))
            }
            if pending.count >= Self.lineLimit { overlong = true } else { pending.append(byte) }
        }
    }

    /// Sends `parts` one after the other, then a line end. Parts rather than one interpolated
    /// string: each interpolation compiles to its own code, and flash is counted.
    func send(_ parts: String...) {
        for part in parts {
            var text = part
            text.withUTF8 { board_serial_write(0, $0.baseAddress, $0.count) }
        }
        var end: UInt8 = 0x0A
        board_serial_write(0, &end, 1)
    }
}
