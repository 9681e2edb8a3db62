// SPDX-License-Identifier: Apache-2.0

/// A serial port, raw: bytes out, bytes in with a deadline. What a haptics controller on a
/// microcontroller (the project's firmware, over USB CDC or a UART) is reached through.
public protocol SerialLine: AnyObject {
    /// The port, for messages ("/dev/ttyACM0").
    var name: String { get }
    /// Writes every byte (blocking until the port took them).
    func write(_ bytes: [UInt8]) throws(SerialError)
    /// The bytes that arrive within `timeout`: at least one, or none when the time passed.
    func read(timeout: Duration) throws(SerialError) -> [UInt8]
}

/// What went wrong on a serial port, with what to do about it.
public struct SerialError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: String, Sendable, Equatable {
        /// No such device: the board is unplugged or the path is wrong.
        case noSuchPort
        /// The process may not open the port.
        case permissionDenied
        /// The port stopped working (unplugged while open, hung up).
        case disconnected
        /// Another failure; the errno says which.
        case other
    }
    public var kind: Kind
    /// The port.
    public var port: String
    /// What was being done, and the system's message when there is one.
    public var detail: String

    public init(_ kind: Kind, port: String, detail: String) {
        self.kind = kind
        self.port = port
        self.detail = detail
    }

    /// What to check or do.
    public var hint: String {
        switch kind {
        case .noSuchPort: return "plug the board in and check the path: 'ls /dev/ttyACM* /dev/ttyUSB*' lists USB serial ports"
        case .permissionDenied: return "add the user to the dialout group (sudo usermod -aG dialout $USER, then log in again)"
        case .disconnected: return "the board went away: check the cable, then reset the board"
        case .other: return "see the system error above"
        }
    }

    public var description: String { "serial port \(port): \(kind.rawValue): \(detail). Hint: \(hint)" }
}
