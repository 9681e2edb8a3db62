// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// An I2C bus that expects an exact, ordered list of transactions — for tests that pin bytes.
///
/// In the style of Rust's embedded-hal-mock: each expectation names the transaction and what to
/// answer (data or an error). A transaction that differs from the next expectation is recorded as
/// a mismatch and fails with `.invalidRequest`; `verify()` reports mismatches and unused
/// expectations, so a test cannot pass while the driver did something else.
public final class ExpectationBus: I2CBus {
    /// One transaction the device code must make, and what the "device" answers.
    public enum Expectation: Equatable, Sendable, CustomStringConvertible {
        case write(I2CAddress, [UInt8], fail: I2CError.Kind? = nil)
        case writeRead(I2CAddress, [UInt8], response: [UInt8], fail: I2CError.Kind? = nil)

        /// As a test failure prints it: `write 0x5A [c 1]`.
        public var description: String {
            let hex = { (bytes: [UInt8]) in bytes.map { String($0, radix: 16) }.joined(separator: " ") }
            switch self {
            case let .write(address, bytes, fail):
                return "write \(address) [\(hex(bytes))]" + (fail.map { " -> \($0)" } ?? "")
            case let .writeRead(address, bytes, response, fail):
                return "writeRead \(address) [\(hex(bytes))] -> " + (fail.map { "\($0)" } ?? "[\(hex(response))]")
            }
        }
    }

    /// Every expectation, used or not, in order.
    public private(set) var expectations: [Expectation]
    /// How many have been met so far.
    public private(set) var used = 0
    /// What went differently from the expectations, one line each.
    public private(set) var mismatches: [String] = []

    /// A bus that expects exactly `expectations`, in this order.
    public init(_ expectations: [Expectation]) { self.expectations = expectations }

    /// Adds expectations after the ones already given.
    public func expect(_ more: [Expectation]) { expectations += more }

    /// Checked against the next expectation; answered as it says.
    public func write(to address: I2CAddress, _ bytes: [UInt8]) throws(I2CError) {
        guard used < expectations.count else {
            mismatches.append("unexpected write \(address) \(bytes) after all \(expectations.count) expectations")
            throw I2CError(.invalidRequest, operation: "write to \(address)", detail: "not expected")
        }
        let expected = expectations[used]
        used += 1
        guard case let .write(expectedAddress, expectedBytes, fail) = expected,
            expectedAddress == address, expectedBytes == bytes
        else {
            mismatches.append("transaction \(used - 1): expected \(expected), got write \(address) \(bytes)")
            throw I2CError(.invalidRequest, operation: "write to \(address)", detail: "not the expected transaction")
        }
        if let fail { throw I2CError(fail, operation: "write to \(address)", address: address, detail: "injected by ExpectationBus") }
    }

    /// Checked against the next expectation; answered with its response or its error.
    public func writeRead(to address: I2CAddress, _ bytes: [UInt8], count: Int) throws(I2CError) -> [UInt8] {
        guard used < expectations.count else {
            mismatches.append("unexpected writeRead \(address) \(bytes) after all \(expectations.count) expectations")
            throw I2CError(.invalidRequest, operation: "read from \(address)", detail: "not expected")
        }
        let expected = expectations[used]
        used += 1
        guard case let .writeRead(expectedAddress, expectedBytes, response, fail) = expected,
            expectedAddress == address, expectedBytes == bytes, response.count == count || fail != nil
        else {
            mismatches.append("transaction \(used - 1): expected \(expected), got writeRead \(address) \(bytes) count \(count)")
            throw I2CError(.invalidRequest, operation: "read from \(address)", detail: "not the expected transaction")
        }
        if let fail { throw I2CError(fail, operation: "read from \(address)", address: address, detail: "injected by ExpectationBus") }
        return response
    }

    /// Problems found: mismatched transactions, then expectations never used. Empty means the
    /// code under test did exactly what was expected.
    public func verify() -> [String] {
        var problems = mismatches
        if used < expectations.count {
            problems.append("\(expectations.count - used) expectation(s) not used, first: \(expectations[used])")
        }
        return problems
    }
}
