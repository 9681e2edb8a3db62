// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import DRV2605
import DRV2605Simulator
import Foundation
import HapticChip
import HapticEffects
import HardwareAccess

extension ChipModelCommand {
    /// `drv2605-model serve`: the chip model at the far end of a firmware image's bus bridge
    /// (Firmware/Sources/BridgedBus.swift). QEMU's boards have no DRV2605, so the test image sends
    /// each I2C transaction over its second serial port; this answers it from the simulated
    /// DRV2605L, on a virtual clock set to the firmware's own time stamp in each frame, and
    /// writes every transaction to `--trace`.
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Answer a firmware image's bridged I2C transactions from the simulated DRV2605L.",
            discussion: "Connects to the Unix socket QEMU serves the image's bridge port on, and runs until the image goes away.")
        @Option(help: "The Unix socket of the image's bridge serial port (QEMU's -chardev socket,server=on).") var connect: String
        @Option(help: "Write each transaction here, one a line: firmware microseconds, W or R, address, bytes (and the answer).") var trace: String?
        @Flag(help: "End each trace line with host=MICROSECONDS: when the transaction reached this program, on the host's monotonic clock (real-time figures).")
        var hostTimes = false
        @Option(help: "Seconds to keep trying to connect.") var connectTimeout: Double = 10
        @Option(help: "The actuator wired to the simulated chip: lra (the typical 175 Hz coin LRA) or erm (the typical ERM).")
        var actuator: String = "lra"

        func run() throws {
            guard let type = ActuatorType(rawValue: actuator) else { throw ValidationError("--actuator is lra or erm, not '\(actuator)'") }
            let fd = try Self.connect(to: connect, within: connectTimeout)
            defer { close(fd) }
            let clock = VirtualClock()
            let chip = SimulatedDRV2605(clock: clock, actuator: type == .lra ? .typicalLRA : .typicalERM)
            let traceHandle: FileHandle? = try trace.map { path in
                _ = FileManager.default.createFile(atPath: path, contents: nil)
                guard let handle = FileHandle(forWritingAtPath: path) else { throw ValidationError("cannot write \(path)") }
                return handle
            }
            var transactions = 0
            while let header = Self.read(fd, count: 13) {
                guard header[0] == 0xB5, header[1] == 0x57 || header[1] == 0x52 else {
                    throw ValidationError("bridge: a frame starting \(header.prefix(2).map { PlainText.hex($0) }) is not a transaction; the image and this tool disagree")
                }
                let micros = header[5..<13].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                guard let written = Self.read(fd, count: Int(header[3])), let address = I2CAddress(rawValue: header[2]) else { break }
                let count = Int(header[4])
                clock.advance(to: ClockInstant(nanoseconds: Int64(micros) * 1000))
                var answer: [UInt8] = []
                var status: UInt8 = 0
                do {
                    if header[1] == 0x57 { try chip.write(to: address, written) } else { answer = try chip.writeRead(to: address, written, count: count) }
                } catch {
                    status = error.kind == .noAcknowledge ? 1 : 2
                }
                transactions += 1
                let bytes = written.map { Self.hex($0) }.joined(separator: " ")
                var line = "\(micros) \(header[1] == 0x57 ? "W" : "R") \(Self.hex(address.rawValue)) [\(bytes)]"
                if header[1] == 0x52 { line += " -> [\(answer.map { Self.hex($0) }.joined(separator: " "))]" }
                if status != 0 { line += status == 1 ? " NACK" : " ERROR" }
                if hostTimes {
                    var now = timespec()
                    clock_gettime(CLOCK_MONOTONIC, &now)
                    line += " host=\(Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000)"
                }
                traceHandle?.write(Data((line + "\n").utf8))
                // The reply carries as many bytes as were asked for, zeros after a failure.
                let padded = answer + [UInt8](repeating: 0, count: max(0, count - answer.count))
                guard Self.write(fd, [0xB5, status, UInt8(count)] + padded) else { break }
            }
            try traceHandle?.close()
            print("bridge: \(transactions) transactions answered")
        }

        static func hex(_ byte: UInt8) -> String { String(PlainText.hex(byte).dropFirst(2)) }

        static func connect(to path: String, within seconds: Double) throws -> Int32 {
            let deadline = Date().addingTimeInterval(seconds)
            while true {
                let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
                guard fd >= 0 else { throw ValidationError("socket: errno \(errno)") }
                var address = sockaddr_un()
                address.sun_family = sa_family_t(AF_UNIX)
                let pathBytes = Array(path.utf8)
                guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw ValidationError("socket path too long: \(path)") }
                withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                    for (index, byte) in pathBytes.enumerated() { buffer[index] = byte }
                }
                let result = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
                }
                if result == 0 { return fd }
                close(fd)
                guard Date() < deadline else { throw ValidationError("cannot connect to \(path) (errno \(errno)): is QEMU running with the bridge port on it?") }
                usleep(20_000)
            }
        }

        /// Exactly `count` bytes, or nil at the end of the stream.
        static func read(_ fd: Int32, count: Int) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: count)
            var filled = 0
            while filled < count {
                let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, count - filled) }
                if got < 0 && errno == EINTR { continue }
                guard got > 0 else { return nil }
                filled += got
            }
            return bytes
        }

        static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
            var sent = 0
            while sent < bytes.count {
                let put = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + sent, bytes.count - sent) }
                if put < 0 && errno == EINTR { continue }
                guard put > 0 else { return false }
                sent += put
            }
            return true
        }
    }
}
