// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// Wraps any bus and fails chosen transactions, counted from zero, in the two ways real buses fail:
/// the transaction never reached the device, or it reached it and its acknowledge was lost. For
/// fault matrices that hit every transaction of an operation in turn, whatever sits behind the bus
/// (a simulated chip, a multiplexer and its chips).
public final class FaultInjectingBus: I2CBus {
    /// The two ways a transaction fails on a real bus.
    public enum Fault: Sendable, Equatable, CustomStringConvertible {
        /// Nothing reached the device; the caller sees this error.
        case lost(I2CError.Kind)
        /// The transaction took effect (a write landed, a read cleared what it clears); the caller
        /// still sees this error, as when the last byte's acknowledge is lost.
        case acknowledgeLost(I2CError.Kind)

        /// "lost (busError)", "landed, acknowledge lost (noAcknowledge)".
        public var description: String {
            switch self {
            case let .lost(kind): return "lost (\(kind))"
            case let .acknowledgeLost(kind): return "landed, acknowledge lost (\(kind))"
            }
        }
    }

    /// The bus behind.
    public let wrapped: any I2CBus
    /// Transactions seen so far: the index the next one will have.
    public private(set) var count = 0
    /// The indices whose fault has fired, in order.
    public private(set) var fired: [Int] = []
    private var faults: [Int: Fault] = [:]

    /// `wrapped`, with no fault planned.
    public init(_ wrapped: any I2CBus) { self.wrapped = wrapped }

    /// Fails transaction `index` (absolute, as `count` numbers them) with `fault`.
    public func inject(_ fault: Fault, at index: Int) { faults[index] = fault }
    /// Forgets planned faults that have not fired.
    public func clearFaults() { faults.removeAll() }

    /// `wrapped`'s write, or the planned fault.
    public func write(to address: I2CAddress, _ bytes: [UInt8]) throws(I2CError) {
        let fault = next()
        switch fault {
        case let .lost(kind)?:
            throw injected(kind, "write to \(address)", landed: false)
        case let .acknowledgeLost(kind)?:
            try? wrapped.write(to: address, bytes)
            throw injected(kind, "write to \(address)", landed: true)
        case nil:
            try wrapped.write(to: address, bytes)
        }
    }

    /// `wrapped`'s transfer, or the planned fault.
    public func writeRead(to address: I2CAddress, _ bytes: [UInt8], count: Int) throws(I2CError) -> [UInt8] {
        let fault = next()
        switch fault {
        case let .lost(kind)?:
            throw injected(kind, "read from \(address)", landed: false)
        case let .acknowledgeLost(kind)?:
            _ = try? wrapped.writeRead(to: address, bytes, count: count)
            throw injected(kind, "read from \(address)", landed: true)
        case nil:
            return try wrapped.writeRead(to: address, bytes, count: count)
        }
    }

    private func next() -> Fault? {
        let index = count
        count += 1
        guard let fault = faults.removeValue(forKey: index) else { return nil }
        fired.append(index)
        return fault
    }

    private func injected(_ kind: I2CError.Kind, _ operation: String, landed: Bool) -> I2CError {
        I2CError(
            kind, errno: nil, operation: operation, address: nil,
            detail: "injected at transaction \(count - 1)" + (landed ? " after it took effect" : ""))
    }
}
