// SPDX-License-Identifier: Apache-2.0

/// A 7-bit I2C target address.
///
/// A distinct type so that a register number can never be passed where an address is wanted.
public struct I2CAddress: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt8
    /// Accepts 0x03...0x77, the range I2C leaves for ordinary targets; `nil` otherwise.
    public init?(rawValue: UInt8) {
        guard (0x03...0x77).contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }
    public init?(_ value: Int) {
        guard let byte = UInt8(exactly: value) else { return nil }
        self.init(rawValue: byte)
    }
    /// Internal constructor for compile-time constants already known to be valid.
    init(unchecked value: UInt8) { rawValue = value }

    /// The DRV2605/DRV2605L/DRV2604(L) address. It is fixed: the chip has no address pins.
    public static let drv2605 = I2CAddress(unchecked: 0x5A)
    /// The first address of a TCA9548A I2C switch (A2..A0 = 000).
    public static let tca9548a = I2CAddress(unchecked: 0x70)

    public var description: String { "0x" + String(rawValue, radix: 16, uppercase: true) }
    public static func < (lhs: I2CAddress, rhs: I2CAddress) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The one capability a register-level driver needs from an I2C bus.
///
/// Modelled on Rust's embedded-hal: drivers are generic over this tiny protocol, so the same
/// driver runs on `/dev/i2c-N`, on the simulated chip and on an expectation mock. A bus is a
/// handle to shared hardware, hence a class; it is not required to be thread-safe — whoever owns
/// it serializes access (the haptics engine does).
public protocol I2CBus: AnyObject {
    /// One write transaction: START, address+W, `bytes`, STOP.
    ///
    /// For register devices the first byte is the register and the rest are data written to it
    /// and the registers after it (auto-increment), so a burst write is one call.
    func write(to address: I2CAddress, _ bytes: [UInt8]) throws(I2CError)

    /// One combined transaction: START, address+W, `bytes`, REPEATED START, address+R,
    /// `count` bytes read, STOP. A register read is `writeRead(to:[register], count:)`.
    func writeRead(to address: I2CAddress, _ bytes: [UInt8], count: Int) throws(I2CError) -> [UInt8]

    // The register helpers below are requirements (with default implementations) rather than
    // plain extension methods, so that calls through `any I2CBus` dispatch through the witness
    // table: Embedded Swift cannot call a protocol extension's generic method on an existential.

    /// Reads `count` consecutive registers starting at `register`, in one transaction.
    func readRegisters(_ register: UInt8, count: Int, at address: I2CAddress) throws(I2CError) -> [UInt8]
    /// Reads one register.
    func readRegister(_ register: UInt8, at address: I2CAddress) throws(I2CError) -> UInt8
    /// Writes `values` to `register` and the registers after it, in one transaction.
    func writeRegisters(_ register: UInt8, _ values: [UInt8], at address: I2CAddress) throws(I2CError)
}

extension I2CBus {
    /// Reads `count` consecutive registers starting at `register`, in one transaction.
    public func readRegisters(_ register: UInt8, count: Int, at address: I2CAddress) throws(I2CError) -> [UInt8] {
        try writeRead(to: address, [register], count: count)
    }
    /// Reads one register.
    public func readRegister(_ register: UInt8, at address: I2CAddress) throws(I2CError) -> UInt8 {
        let bytes = try writeRead(to: address, [register], count: 1)
        guard let first = bytes.first else {
            throw I2CError(
                .busError, operation: "read of register 0x\(String(register, radix: 16))", address: address,
                detail: "the bus returned no data")
        }
        return first
    }
    /// Writes `values` to `register` and the registers after it, in one transaction.
    public func writeRegisters(_ register: UInt8, _ values: [UInt8], at address: I2CAddress) throws(I2CError) {
        try write(to: address, [register] + values)
    }
}

/// Wire cost of I2C transactions, counted the way a logic analyser would.
public enum I2CWire {
    /// Bytes clocked on the wire by a write: the address byte plus the payload.
    public static func writeBytes(payload: Int) -> Int { 1 + payload }
    /// Bytes clocked by a combined write-then-read: two address bytes, the written and the read bytes.
    public static func writeReadBytes(written: Int, read: Int) -> Int { 2 + written + read }
    /// Time on the wire at `clockHz`: 9 clocks a byte (8 bits and ACK), plus START/STOP and
    /// repeated-START overhead (about one clock each) and the bus-free time between transactions.
    public static func seconds(wireBytes: Int, transactions: Int, clockHz: Double) -> Double {
        let clocks = Double(wireBytes * 9 + transactions * 2)
        let busFree = clockHz > 100_000 ? 1.3e-6 : 4.7e-6
        return clocks / clockHz + Double(transactions) * busFree
    }
}

/// Bus paths as people write them: a bare number N is `/dev/i2c-N`, anything else is a path.
/// One rule for the Linux bus, board files and simulated boards, so calibration keys agree.
public enum I2CBusPath {
    /// "1" → "/dev/i2c-1"; "/dev/i2c-3" unchanged.
    public static func resolve(_ pathOrNumber: String) -> String {
        if let number = Int(pathOrNumber), number >= 0 { return "/dev/i2c-\(number)" }
        return pathOrNumber
    }
}
