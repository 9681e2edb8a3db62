// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// A sequence note the firmware does not play.
public enum FirmwareSequenceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A pattern or sound note (`kind`): the board plays feedback, effects and waits.
    case notOnTheBoard(note: Int, kind: String)
    /// A feedback note below full intensity: the firmware plays the table's plans as they are.
    case fullIntensityOnly(note: Int, feedback: String)

    public var description: String {
        switch self {
        case let .notOnTheBoard(note, kind):
            return
                "note \(note) is a \(kind) note: a sequence on the firmware has feedback, effects and waits only. Hint: play it through hapticd (--socket), which serves the board with patterns and sequences"
        case let .fullIntensityOnly(note, feedback):
            return "note \(note) plays \(feedback) below full intensity: the firmware plays feedback at full intensity only. Hint: leave the intensity out"
        }
    }
}

/// Why a request to the firmware failed.
public enum FirmwareDeviceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The serial line failed.
    case link(SerialError)
    /// Nothing (or nothing sensible) came back in time.
    case noAnswer(port: String, waitingFor: String)
    /// A frame was damaged on the line, one way or the other: what the request did is unknown,
    /// and it is not sent again (a command acted on must not run twice).
    case garbled(port: String, detail: String)
    /// The firmware refused: `kind` is its error kind (unknown-feedback, chip, link-lost, ...).
    case refused(kind: String, message: String)

    public var description: String {
        switch self {
        case let .link(error): return error.description
        case let .noAnswer(port, what):
            return
                "no answer from the firmware on \(port) while waiting for \(what). Hint: check that the board runs the haptics firmware (its serial port prints 'hello haptics-firmware' at reset) and that no other program has the port open"
        case let .garbled(port, detail):
            return
                "the serial line on \(port) damaged a frame: \(detail). Hint: noise on the line; check the cable (short, shielded, its ground connected) and the baud rate, and that no other program writes to the port"
        case let .refused(kind, message):
            let hint: String
            switch kind {
            case "chip", "playback": hint = "the firmware could not drive its chip: check the chip's wiring to the board (SDA, SCL, power), then reset the board"
            case "link-lost": hint = "the firmware stopped the actuator because the host went quiet; send 'watchdog MS' with a longer time, or 'ping' while a long pattern plays"
            case "unknown-feedback": hint = "'haptic play --help' lists the feedbacks"
            default: hint = "the firmware may be older or newer than this program: update both"
            }
            return "the firmware refused (\(kind)): \(message). Hint: \(hint)"
        }
    }
}
