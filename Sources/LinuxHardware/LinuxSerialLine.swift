// SPDX-License-Identifier: Apache-2.0

import Foundation
import HardwareAccess

/// A tty as a raw serial line: `/dev/ttyACM0` (a Pico's USB CDC port), `/dev/ttyUSB0`, a pty.
/// Opened raw (no echo, no line editing, no CR/LF translation) at 115200 baud, which USB CDC
/// ignores and a UART bridge uses.
public final class LinuxSerialLine: SerialLine {
    public let name: String
    private let fd: CInt

    /// Opens `path`; the error says whether it is missing or forbidden.
    public init(path: String) throws(SerialError) {
        name = path
        let opened = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
        guard opened >= 0 else { throw Self.error(errno, path, "open") }
        fd = opened
        var settings = termios()
        if tcgetattr(fd, &settings) == 0 {
            cfmakeraw(&settings)
            cfsetspeed(&settings, speed_t(B115200))
            settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
            _ = tcsetattr(fd, TCSANOW, &settings)
        }
        // Only what arrives from now on: a reply left over from an earlier program is not ours.
        _ = tcflush(fd, TCIFLUSH)
    }

    deinit { close(fd) }

    public func write(_ bytes: [UInt8]) throws(SerialError) {
        var sent = 0
        while sent < bytes.count {
            let put = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + sent, bytes.count - sent) }
            if put > 0 {
                sent += put
            } else if errno == EAGAIN || errno == EINTR {
                var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&waiting, 1, 100)
            } else {
                throw Self.error(errno, name, "write")
            }
        }
    }

    public func read(timeout: Duration) throws(SerialError) -> [UInt8] {
        var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(clamping: max(0, timeout.nanoseconds / 1_000_000))
        let ready = poll(&waiting, 1, milliseconds)
        if ready < 0 && errno != EINTR { throw Self.error(errno, name, "poll") }
        guard ready > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 512)
        let got = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, 512) }
        if got > 0 { return Array(buffer[0..<got]) }
        if got == 0 || waiting.revents & Int16(POLLHUP) != 0 { throw SerialError(.disconnected, port: name, detail: "the port hung up") }
        if errno == EAGAIN || errno == EINTR { return [] }
        throw Self.error(errno, name, "read")
    }

    static func error(_ number: CInt, _ path: String, _ operation: String) -> SerialError {
        let message = "\(operation): \(String(cString: strerror(number))) (errno \(number))"
        switch number {
        case ENOENT, ENODEV, ENXIO: return SerialError(.noSuchPort, port: path, detail: message)
        case EACCES, EPERM: return SerialError(.permissionDenied, port: path, detail: message)
        case EIO, EPIPE: return SerialError(.disconnected, port: path, detail: message)
        default: return SerialError(.other, port: path, detail: message)
        }
    }
}
