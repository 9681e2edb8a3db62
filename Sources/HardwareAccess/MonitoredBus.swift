// SPDX-License-Identifier: Apache-2.0

import Foundation

/// One bus transaction as it happened, for `--trace` and for tests.
public struct BusTransaction: Sendable, Equatable, CustomStringConvertible {
    /// A plain write, or a write then a repeated-start read.
    public enum Kind: String, Sendable { case write, writeRead }
    /// When it started, on the bus's clock.
    public var time: ClockInstant
    public var kind: Kind
    /// The 7-bit device address.
    public var address: I2CAddress
    /// The bytes written (the register first, for register devices).
    public var written: [UInt8]
    /// The bytes read back (empty for a write).
    public var read: [UInt8]
    /// `nil` on success.
    public var error: I2CError.Kind?

    /// A transaction as a bus (or a simulator) saw it.
    public init(time: ClockInstant, kind: Kind, address: I2CAddress, written: [UInt8], read: [UInt8], error: I2CError.Kind?) {
        self.time = time
        self.kind = kind
        self.address = address
        self.written = written
        self.read = read
        self.error = error
    }

    /// Bytes on the wire, address bytes counted.
    public var wireBytes: Int {
        kind == .write
            ? I2CWire.writeBytes(payload: written.count)
            : I2CWire.writeReadBytes(written: written.count, read: read.count)
    }

    /// One trace line: `  12.000100  W 0x5A [0C 01]`, reads with `-> [..]`, failures with `ERROR`.
    public var description: String {
        let hex = { (bytes: [UInt8]) in bytes.map { String(format: "%02X", $0) }.joined(separator: " ") }
        var text = String(format: "%10.6f  ", time.seconds)
        switch kind {
        case .write: text += "W \(address) [\(hex(written))]"
        case .writeRead: text += "R \(address) [\(hex(written))] -> [\(hex(read))]"
        }
        if let error { text += "  ERROR \(error)" }
        return text
    }
}

/// Totals of bus traffic: what `--json` reports as `bus.transactions` and `bus.bytes`.
public struct BusCounters: Sendable, Equatable {
    /// Transactions attempted.
    public var transactions = 0
    /// Bytes on the wire, address bytes counted (what bus time is computed from).
    public var wireBytes = 0
    /// Transactions that failed.
    public var errors = 0
    /// All zero.
    public init() {}
    /// The traffic of two buses together.
    public static func + (lhs: BusCounters, rhs: BusCounters) -> BusCounters {
        var result = BusCounters()
        result.transactions = lhs.transactions + rhs.transactions
        result.wireBytes = lhs.wireBytes + rhs.wireBytes
        result.errors = lhs.errors + rhs.errors
        return result
    }

    /// The traffic between two readings.
    public static func - (lhs: BusCounters, rhs: BusCounters) -> BusCounters {
        var result = BusCounters()
        result.transactions = lhs.transactions - rhs.transactions
        result.wireBytes = lhs.wireBytes - rhs.wireBytes
        result.errors = lhs.errors - rhs.errors
        return result
    }
}

/// Wraps any bus, counting transactions and wire bytes and optionally handing each transaction
/// to an observer (the CLI's `--trace`). Counting costs two integer additions per transaction.
public final class MonitoredBus: I2CBus {
    /// The bus being counted.
    public let base: any I2CBus
    /// The totals so far.
    public private(set) var counters = BusCounters()
    private let clock: any HapticClock
    /// Called after each transaction; `nil` for no tracing (the default, and the fast path).
    public var observer: ((BusTransaction) -> Void)?
    /// When set, every transaction is also kept here (tests and `--json` use it).
    public var keepsLog = false
    /// The kept transactions (see `keepsLog`).
    public private(set) var log: [BusTransaction] = []

    /// Counts `base`'s traffic, timing it on `clock`.
    public init(_ base: any I2CBus, clock: any HapticClock, observer: ((BusTransaction) -> Void)? = nil) {
        self.base = base
        self.clock = clock
        self.observer = observer
    }

    /// Forgets the kept transactions (the counters stay).
    public func clearLog() { log.removeAll(keepingCapacity: true) }

    /// `base`'s write, counted and observed.
    public func write(to address: I2CAddress, _ bytes: [UInt8]) throws(I2CError) {
        counters.transactions += 1
        counters.wireBytes += I2CWire.writeBytes(payload: bytes.count)
        do {
            try base.write(to: address, bytes)
            record(.write, address, bytes, [], nil)
        } catch {
            counters.errors += 1
            record(.write, address, bytes, [], error.kind)
            throw error
        }
    }

    /// `base`'s combined transfer, counted and observed.
    public func writeRead(to address: I2CAddress, _ bytes: [UInt8], count: Int) throws(I2CError) -> [UInt8] {
        counters.transactions += 1
        counters.wireBytes += I2CWire.writeReadBytes(written: bytes.count, read: count)
        do {
            let result = try base.writeRead(to: address, bytes, count: count)
            record(.writeRead, address, bytes, result, nil)
            return result
        } catch {
            counters.errors += 1
            record(.writeRead, address, bytes, [], error.kind)
            throw error
        }
    }

    @inline(__always)
    private func record(_ kind: BusTransaction.Kind, _ address: I2CAddress, _ written: [UInt8], _ read: [UInt8], _ error: I2CError.Kind?) {
        guard observer != nil || keepsLog else { return }
        let transaction = BusTransaction(time: clock.now, kind: kind, address: address, written: written, read: read, error: error)
        if keepsLog { log.append(transaction) }
        observer?(transaction)
    }
}
