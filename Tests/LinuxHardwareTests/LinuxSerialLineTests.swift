// SPDX-License-Identifier: Apache-2.0

import Foundation
import HardwareAccess
import Testing

@testable import LinuxHardware

/// The real tty code against a pseudo-terminal: what the firmware's USB serial port looks like to
/// the program.
@Suite struct LinuxSerialLineTests {
    /// A pty pair: the far end's file descriptor and the near end's path.
    func pseudoTerminal() throws -> (far: CInt, path: String) {
        let far = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(far >= 0)
        var unlock: CInt = 0
        var number: CUnsignedInt = 0
        let calls = LiveSystemCalls.shared
        try #require(calls.ioctl(far, request: 0x4004_5431, pointer: &unlock) == 0)  // TIOCSPTLCK
        try #require(calls.ioctl(far, request: 0x8004_5430, pointer: &number) == 0)  // TIOCGPTN
        return (far, "/dev/pts/\(number)")
    }

    @Test func bytesGoBothWaysRaw() throws {
        let (far, path) = try pseudoTerminal()
        defer { close(far) }
        let line = try LinuxSerialLine(path: path)
        try line.write(Array("play success\n".utf8))
        var buffer = [UInt8](repeating: 0, count: 64)
        let got = read(far, &buffer, 64)
        // Raw: the line end is not turned into CR LF, nothing is echoed.
        #expect(Array(buffer[0..<max(0, got)]) == Array("play success\n".utf8))
        let answer = Array("ok play success 190\r\n".utf8)
        #expect(write(far, answer, answer.count) == answer.count)
        var received: [UInt8] = []
        for _ in 0..<10 where received.count < answer.count { received += try line.read(timeout: .milliseconds(200)) }
        #expect(received == answer)
    }

    @Test func nothingArrivingIsAnEmptyReadAfterTheTimeout() throws {
        let (far, path) = try pseudoTerminal()
        defer { close(far) }
        let line = try LinuxSerialLine(path: path)
        let start = ContinuousClock.now
        #expect(try line.read(timeout: .milliseconds(100)).isEmpty)
        #expect(ContinuousClock.now - start >= .milliseconds(90))
    }

    @Test func aMissingPortSaysSo() {
        do {
            _ = try LinuxSerialLine(path: "/dev/ttyACM-no-such-port")
            Issue.record("opened a port that does not exist")
        } catch {
            #expect(error.kind == .noSuchPort)
            #expect(error.description.contains("ls /dev/ttyACM"))
        }
    }
}
