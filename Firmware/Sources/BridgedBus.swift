// SPDX-License-Identifier: Apache-2.0

import Board
import HardwareAccess

/// The test image's bus: every transaction goes out on serial port 1 to the chip model on the
/// host (`drv2605-model serve`), which answers it, and is also clocked out on the board's own I2C
/// controller, so that QEMU's I2C trace shows what this image's controller code puts on the wire.
/// QEMU has no DRV2605, so the answers (ID, STATUS, GO) come from the project's chip model.
///
/// A frame: 0xB5, 'W' or 'R', the address, the written count, the read count, the firmware's
/// time in microseconds (8 bytes, little-endian), then the written bytes. The answer: 0xB5, a
/// status (0 ok, 1 not acknowledged, 2 bus error), the read count, the bytes read.
///
/// The host answers in its own time: a millisecond, or ten when the machine is busy, where a
/// real bus takes the transaction's bits at 400 kHz. The clock is charged the real bus's time and
/// the rest is left out (`BoardClock.leaveOut`), so the image's timing does not depend on the host.
final class BridgedBus: I2CBus {
    let clock: BoardClock
    /// How long the host may take to answer before the transaction is a bus error: a host model
    /// that is gone is reported, not waited for. Seconds, not the real bus's microseconds: the
    /// answer's time is left out of the image's clock, so only a dead model is ever this late,
    /// and a loaded machine is not (a cold CI run, making the arm64 root under qemu-user beside the
    /// firmware test, once took over 500 ms for a just-started model's first answer).
    var answerDeadline: Duration = .milliseconds(5_000)

    init(clock: BoardClock) { self.clock = clock }

    func write(to address: I2CAddress, _ bytes: [UInt8]) throws(I2CError) {
        _ = try transfer(address, bytes, count: 0)
    }

    func writeRead(to address: I2CAddress, _ bytes: [UInt8], count: Int) throws(I2CError) -> [UInt8] {
        try transfer(address, bytes, count: count)
    }

    private func transfer(_ address: I2CAddress, _ bytes: [UInt8], count: Int) throws(I2CError) -> [UInt8] {
        let operation = count == 0 ? "write to \(address)" : "read from \(address)"
        guard bytes.count <= 255, count <= 255 else {
            throw I2CError(.invalidRequest, operation: operation, detail: "a bridged transaction carries at most 255 bytes each way")
        }
        // Stamped when the driver asked: the chip model sees the time the transaction began, on
        // the firmware's clock.
        let micros = UInt64(clock.now.nanoseconds / 1000)
        // The wire first: the board's controller clocks the same transaction (its answers are
        // not the chip's and are dropped).
        var mirrored = [UInt8](repeating: 0, count: count)
        _ = bytes.withUnsafeBufferPointer { written in
            mirrored.withUnsafeMutableBufferPointer { board_i2c_transfer(address.rawValue, written.baseAddress, written.count, $0.baseAddress, count) }
        }
        var frame: [UInt8] = [0xB5, count == 0 ? 0x57 : 0x52, address.rawValue, UInt8(bytes.count), UInt8(count)]
        for shift in stride(from: 0, to: 64, by: 8) { frame.append(UInt8(truncatingIfNeeded: micros >> UInt64(shift))) }
        frame += bytes
        frame.withUnsafeBufferPointer { board_serial_write(1, $0.baseAddress, $0.count) }

        let sent = clock.timer
        let deadline = sent.advanced(by: answerDeadline)
        var header: [UInt8] = []
        var data: [UInt8] = []
        while header.count < 3 || data.count < Int(header[2]) {
            let next = board_serial_read(1)
            if next < 0 {
                guard clock.timer < deadline else {
                    throw I2CError(.busError, operation: operation, bus: "bridge", address: address, detail: "the host's chip model did not answer within \(answerDeadline.nanoseconds / 1_000_000) ms")
                }
                continue
            }
            let byte = UInt8(truncatingIfNeeded: next)
            if header.isEmpty && byte != 0xB5 { continue }
            if header.count < 3 { header.append(byte) } else { data.append(byte) }
        }
        clock.leaveOut(nanoseconds: clock.timer.nanoseconds - sent.nanoseconds - Self.wireNanoseconds(writing: bytes.count, reading: count))
        switch header[1] {
        case 0: return data
        case 1: throw I2CError(.noAcknowledge, operation: operation, bus: "bridge", address: address)
        default: throw I2CError(.busError, operation: operation, bus: "bridge", address: address, detail: "the host's chip model reported a bus error")
        }
    }

    /// A transaction's time on a 400 kHz bus: nine clocks (eight bits and the acknowledge) for
    /// the address and each byte, the address again after a repeated start for a read, and a
    /// clock each for the start, the repeated start and the stop.
    static func wireNanoseconds(writing written: Int, reading read: Int) -> Int64 {
        let frames = 1 + written + (read > 0 ? 1 + read : 0)
        let clocks = 9 * frames + (read > 0 ? 3 : 2)
        return Int64(clocks) * 2_500
    }
}
