// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A TCA9548A (or PCA9548A) I2C switch driven from user space: one control byte selects which of
/// its eight downstream channels are connected. Every DRV2605 sits at 0x5A, so several need one.
///
/// Shared by the `MuxChannelBus` handles of its channels, it remembers the selected mask so a
/// channel switch costs one 2-byte write only when the channel really changes. The channels'
/// owners (one haptics engine per chip) may run on different threads, so a channel switch and the
/// transaction behind it happen under one lock. (Where the kernel's i2c-mux-pca954x driver owns
/// the switch, each channel is its own /dev/i2c-N instead.)
public final class TCA9548A: @unchecked Sendable {
    /// The bus the switch is on.
    public let parent: any I2CBus
    /// The switch's address (0x70-0x77).
    public let address: I2CAddress
    private let lock = NSLock()
    /// The channel mask last written; `nil` when unknown (e.g. after an error).
    public private(set) var selectedMask: UInt8?

    /// The switch at `address` on `parent`; nothing is written until a channel is used.
    public init(parent: any I2CBus, address: I2CAddress = .tca9548a) {
        self.parent = parent
        self.address = address
    }

    /// Runs `body` on the parent bus with exactly the channels in `mask` connected, atomically
    /// with respect to the other channels' users.
    public func withChannels<T>(mask: UInt8, _ body: (any I2CBus) throws(I2CError) -> T) throws(I2CError) -> T {
        lock.lock()
        defer { lock.unlock() }
        try select(mask: mask)
        return try body(parent)
    }

    /// Runs `body` with the parent bus while no channel's user holds it (to read a counting
    /// bus's totals between transactions).
    public func withParent<T>(_ body: (any I2CBus) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(parent)
    }

    /// Writes `bytes` to `target` on every channel in `mask` at once: the chips behind those
    /// channels receive the same bytes at the same instant (writes only; a read would collide).
    public func broadcast(to target: I2CAddress, _ bytes: [UInt8], mask: UInt8) throws(I2CError) {
        try withChannels(mask: mask) { (parent: any I2CBus) throws(I2CError) in try parent.write(to: target, bytes) }
    }

    /// Connects exactly the channels in `mask` (bit n = channel n). Callers hold the lock.
    private func select(mask: UInt8) throws(I2CError) {
        guard selectedMask != mask else { return }
        do {
            try parent.write(to: address, [mask])
            selectedMask = mask
        } catch {
            selectedMask = nil
            throw error
        }
    }

    /// A bus for the chips on one channel.
    public func channel(_ channel: Int) -> MuxChannelBus? {
        guard (0...7).contains(channel) else { return nil }
        return MuxChannelBus(mux: self, channel: channel)
    }
}

/// The bus behind one TCA9548A channel: selects the channel before each transaction when needed.
public final class MuxChannelBus: I2CBus {
    /// The switch.
    public let mux: TCA9548A
    /// 0...7.
    public let channel: Int
    init(mux: TCA9548A, channel: Int) {
        self.mux = mux
        self.channel = channel
    }

    /// The channel's bit in the switch's control byte.
    public var mask: UInt8 { UInt8(1) << UInt8(channel) }

    /// Selects the channel if needed, then writes, under the switch's lock.
    public func write(to address: I2CAddress, _ bytes: [UInt8]) throws(I2CError) {
        try mux.withChannels(mask: mask) { (parent: any I2CBus) throws(I2CError) in try parent.write(to: address, bytes) }
    }
    /// Selects the channel if needed, then transfers, under the switch's lock.
    public func writeRead(to address: I2CAddress, _ bytes: [UInt8], count: Int) throws(I2CError) -> [UInt8] {
        try mux.withChannels(mask: mask) { (parent: any I2CBus) throws(I2CError) -> [UInt8] in try parent.writeRead(to: address, bytes, count: count) }
    }
}
