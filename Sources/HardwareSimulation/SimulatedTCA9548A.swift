// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// A simulated TCA9548A with devices on its channels: a write of one byte to the switch's address
/// sets the channel mask; other transactions reach every device on a selected channel that has
/// that address (writes to all of them, as on the wire; a read needs exactly one answering device).
public final class SimulatedTCA9548A: I2CBus {
    /// The switch's own address (0x70-0x77).
    public let address: I2CAddress
    public private(set) var mask: UInt8 = 0
    /// Devices by channel (0...7).
    public private(set) var channels: [[any I2CBus]] = Array(repeating: [], count: 8)
    /// Every mask written, in order (tests check selection bytes and ordering).
    public private(set) var maskWrites: [UInt8] = []

    /// A switch at `address` with nothing attached and no channel selected (its power-on state).
    public init(address: I2CAddress = .tca9548a) { self.address = address }

    /// Puts `device` on `channel` (0...7; others are ignored, as the switch has no such channel).
    public func attach(_ device: any I2CBus, channel: Int) {
        guard (0...7).contains(channel) else { return }
        channels[channel].append(device)
    }

    private var selectedDevices: [any I2CBus] {
        (0..<8).filter { mask & (1 << UInt8($0)) != 0 }.flatMap { channels[$0] }
    }

    /// A one-byte write to the switch sets the channel mask; any other write reaches every
    /// device with that address on the selected channels.
    public func write(to address: I2CAddress, _ bytes: [UInt8]) throws(I2CError) {
        if address == self.address {
            guard bytes.count == 1 else {
                throw I2CError(.busError, operation: "write to \(address)", address: address, detail: "the TCA9548A takes one control byte")
            }
            mask = bytes[0]
            maskWrites.append(bytes[0])
            return
        }
        var acknowledged = false
        var firstError: I2CError?
        for device in selectedDevices {
            do {
                try device.write(to: address, bytes)
                acknowledged = true
            } catch {
                if error.kind != .noAcknowledge, firstError == nil { firstError = error }
            }
        }
        if let firstError { throw firstError }
        guard acknowledged else {
            throw I2CError(.noAcknowledge, operation: "write to \(address)", address: address, detail: "no device on the selected channels (mask 0x\(String(mask, radix: 16)))")
        }
    }

    /// A read of the switch returns its mask; any other read is answered by the selected devices
    /// at that address (several answering at once: the wired AND of their bytes).
    public func writeRead(to address: I2CAddress, _ bytes: [UInt8], count: Int) throws(I2CError) -> [UInt8] {
        if address == self.address { return [mask] }
        var answers: [[UInt8]] = []
        for device in selectedDevices {
            if let answer = try? device.writeRead(to: address, bytes, count: count) { answers.append(answer) }
        }
        guard let first = answers.first else {
            throw I2CError(.noAcknowledge, operation: "read from \(address)", address: address, detail: "no device on the selected channels (mask 0x\(String(mask, radix: 16)))")
        }
        // Several devices answering at once drive the open-drain bus together: a wired AND.
        return answers.dropFirst().reduce(first) { result, answer in zip(result, answer).map { $0 & $1 } }
    }
}
