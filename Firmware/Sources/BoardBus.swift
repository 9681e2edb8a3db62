// SPDX-License-Identifier: Apache-2.0

import Board
import HardwareAccess

/// The board's own I2C controller (on a Pico, I2C0 on GP4/GP5) as the driver's bus.
final class BoardBus: I2CBus {
    func write(to address: I2CAddress, _ bytes: [UInt8]) throws(I2CError) {
        let result = bytes.withUnsafeBufferPointer { board_i2c_transfer(address.rawValue, $0.baseAddress, $0.count, nil, 0) }
        try Self.check(result, "write to \(address)", address)
    }

    func writeRead(to address: I2CAddress, _ bytes: [UInt8], count: Int) throws(I2CError) -> [UInt8] {
        var read = [UInt8](repeating: 0, count: count)
        let result = bytes.withUnsafeBufferPointer { written in
            read.withUnsafeMutableBufferPointer { board_i2c_transfer(address.rawValue, written.baseAddress, written.count, $0.baseAddress, count) }
        }
        try Self.check(result, "read from \(address)", address)
        return read
    }

    /// The board layer's result as the bus error the driver reports.
    static func check(_ result: Int32, _ operation: String, _ address: I2CAddress) throws(I2CError) {
        switch result {
        case 0: return
        case 1: throw I2CError(.noAcknowledge, operation: operation, bus: "i2c0", address: address)
        default: throw I2CError(.busError, operation: operation, bus: "i2c0", address: address, detail: "the bus is stuck (SDA held low)")
        }
    }
}
