// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticEffects

/// All of a chip's registers (0x00–0x22) as one value, addressed through `Register` and the typed
/// register values, so a register's address and its bit layout are each spelled once (in
/// `Register` and its `RegisterValue`) however the file is used.
///
/// One type serves every place that holds a whole chip's state: the parts' reset values, the
/// driver's start-up image, the simulated chip's registers and what `dump`/`status` read back.
///
///     var file = Part.drv2605L.resetValues
///     file[ModeRegister.self].standby = false
///     file[.ratedVoltage] = 0x53
public struct RegisterFile: Sendable, Hashable {
    /// The bytes from 0x00 to `Register.last`, in address order.
    public var bytes: [UInt8] { storage }
    /// Inlinable (as every accessor here), so that the simulator and the bench, in other modules,
    /// index the array directly instead of calling across the module boundary per register.
    @usableFromInline var storage: [UInt8]

    /// Every register zero.
    @inlinable public init() { storage = [UInt8](repeating: 0, count: RegisterFile.count) }

    /// A file holding `bytes` read in one auto-incrementing burst from `first` on (the whole chip
    /// when `first` is STATUS). Registers outside the burst are zero and bytes past the last
    /// register are ignored, so a short or long read can never index out of range.
    @inlinable public init(bytes: [UInt8], from first: Register = .status) {
        self.init()
        let start = Int(first.rawValue)
        for (offset, byte) in bytes.prefix(RegisterFile.count - start).enumerated() { storage[start + offset] = byte }
    }

    /// How many registers the family has (0x00–0x22).
    public static let count = Int(Register.last) + 1

    /// One register's byte.
    @inlinable public subscript(register: Register) -> UInt8 {
        get { storage[Int(register.rawValue)] }
        set { storage[Int(register.rawValue)] = newValue }
    }

    /// One register as its typed value: `file[ModeRegister.self].standby`.
    @inlinable public subscript<Value: RegisterValue>(type: Value.Type) -> Value {
        get { Value(rawValue: self[Value.register]) }
        set { self[Value.register] = newValue.rawValue }
    }

    /// The byte at a bus address, for the one place that has only an address: a bus write or
    /// read the simulated chip receives. `nil` past the last register.
    @inlinable public subscript(address address: UInt8) -> UInt8? {
        Int(address) < storage.count ? storage[Int(address)] : nil
    }

    /// Stores `values` from `address` on, as an auto-incrementing burst write lands on a device
    /// that is only registers (no side effects); bytes past the last register are dropped.
    @inlinable public mutating func store<Values: Collection<UInt8>>(_ values: Values, from address: UInt8) {
        var index = Int(address)
        for value in values {
            guard index < storage.count else { return }
            storage[index] = value
            index += 1
        }
    }

    /// What an auto-incrementing burst read of `count` bytes from `address` returns; past the
    /// last register, zeros.
    @inlinable public func read(from address: UInt8, count: Int) -> [UInt8] {
        (0..<max(0, count)).map { offset in
            let index = Int(address) + offset
            return index < storage.count ? storage[index] : 0
        }
    }

    /// The bytes of `first...last`, as one burst writes or reads them.
    @inlinable public func bytes(from first: Register, through last: Register) -> [UInt8] {
        Array(storage[Int(first.rawValue)...Int(last.rawValue)])
    }

    /// The eight waveform-sequencer slots (WAV_FRM_SEQ1–8), in order.
    @inlinable public var waveformSlots: [UInt8] {
        get { bytes(from: .waveformSequence1, through: .waveformSequence8) }
        set {
            for index in 0..<8 {
                self[Register.waveformSequence(index)] = index < newValue.count ? newValue[index] : 0
            }
        }
    }
}

extension Register {
    /// WAV_FRM_SEQ`index + 1` for `index` in 0..<8: the sequencer's slot `index`.
    public static func waveformSequence(_ index: Int) -> Register {
        precondition((0..<8).contains(index), "the sequencer has eight slots")
        return Register(rawValue: Register.waveformSequence1.rawValue + UInt8(index))!
    }
}
