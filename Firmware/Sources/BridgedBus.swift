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
final class BridgedBus: I2CBus {
    let clock: BoardClock
    /// How long the host may take to answer before the transaction is a bus error.
    var answerDeadline: Duration = .milliseconds(500)

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
        // Stamped when the driver asked: the chip model sees the time the transaction began.
        let micros = UInt64(board_micros())
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

        let deadline = clock.now.advanced(by: answerDeadline)
        var header: [UInt8] = []
        var data: [UInt8] = []
        while header.count < 3 || data.count < Int(header[2]) {
            let next = board_serial_read(1)
            if next < 0 {
                guard clock.now < deadline else {
                    throw I2CError(.busError, operation: operation, bus: "bridge", address: address, detail: "the host's chip model did not answer within \(answerDeadline.nanoseconds / 1_000_000) ms")
                }
                continue
            }
            let byte = UInt8(truncatingIfNeeded: next)
            if header.isEmpty && byte != 0xB5 { continue }
            if header.count < 3 { header.append(byte) } else { data.append(byte) }
        }
        switch header[1] {
        case 0: return data
        case 1: throw I2CError(.noAcknowledge, operation: operation, bus: "bridge", address: address)
        default: throw I2CError(.busError, operation: operation, bus: "bridge", address: address, detail: "the host's chip model reported a bus error")
        }
    }
}
