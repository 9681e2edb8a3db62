// SPDX-License-Identifier: Apache-2.0

/// The configuration registers start-up sets for an actuator, as read-modify-writes: each field
/// the datasheet asks for per actuator kind is set, every other bit keeps what the chip holds.
///
/// Per kind [DS T36, T37, §5.6.2, §5.7.4, §5.7.18]:
/// - LRA: ACTUATOR_TYPE 0, BEMF_SENSE_EN, FREQ_TRACK_EN, ACCELERATION_EN and RAPID_STOP_EN on,
///   AMP_PID_EN off.
/// - Bar ERM: ACTUATOR_TYPE 1, BEMF_SENSE_EN, ACCELERATION_EN and RAPID_STOP_EN on;
///   FREQ_TRACK_EN is ignored for an ERM, so off; AMP_PID_EN off (the datasheet makes it optional
///   for a large back-EMF, which we do not know).
/// - Coin ERM: ACTUATOR_TYPE 1 and BEMF_SENSE_EN on (the datasheet requires it outside custom
///   waveform mode; Linux's driver leaves it to the device tree and SparkFun's clears it: the
///   datasheet wins), acceleration, rapid stop and the amplitude loop off, V2I_FACTOR_FREEZE and
///   TST_CALIB_IMPEDANCE_DIS on, BEMF_FAULT_LIM 0.
/// - LRA and bar ERM: V2I_FACTOR_FREEZE, TST_CALIB_IMPEDANCE_DIS and BEMF_FAULT_LIM at their
///   reset values (0, 1, 1), so that a coin ERM's configuration left in the chip (a board
///   reconfigured without a power cycle) does not keep the stuck-actuator detection off.
/// - All: MEM_DATA_SIGNED = not ACCELERATION_EN [DS T22], V2I_FACTOR_OFFSET_EN = ACCELERATION_EN
///   [DS §5.7.15; Linux init], EMBEDDED_MODE off (the driver clears faults itself, and reports them).
public struct DA7280Configuration: Sendable, Hashable {
    /// TOP_CFG1.
    public var topConfiguration1: UInt8
    /// TOP_CFG2.
    public var topConfiguration2: UInt8
    /// TOP_CFG4.
    public var topConfiguration4: UInt8
    /// TOP_INT_CFG1.
    public var topInternalConfiguration1: UInt8
    /// TOP_CFG5.
    public var topConfiguration5: UInt8

    /// The registers as the chip holds them.
    public init(topConfiguration1: UInt8, topConfiguration2: UInt8, topConfiguration4: UInt8, topInternalConfiguration1: UInt8, topConfiguration5: UInt8) {
        self.topConfiguration1 = topConfiguration1
        self.topConfiguration2 = topConfiguration2
        self.topConfiguration4 = topConfiguration4
        self.topInternalConfiguration1 = topInternalConfiguration1
        self.topConfiguration5 = topConfiguration5
    }

    /// TOP_CFG1's driver fields for an actuator (see the type's comment).
    public static func topConfiguration1Fields(for kind: DA7280Actuator.Kind) -> DA7280Register.TopConfiguration1 {
        switch kind {
        case .lra: return [.backEMFSense, .frequencyTracking, .acceleration, .rapidStop]
        case .ermBar: return [.ermActuator, .backEMFSense, .acceleration, .rapidStop]
        case .ermCoin: return [.ermActuator, .backEMFSense]
        }
    }

    /// These registers with the fields for `kind` set and every other bit kept.
    public func configured(for kind: DA7280Actuator.Kind) -> DA7280Configuration {
        typealias Register = DA7280Register
        let fields = Self.topConfiguration1Fields(for: kind)
        let acceleration = fields.contains(.acceleration)
        var result = self
        result.topConfiguration1 = topConfiguration1 & ~Register.TopConfiguration1.driverFields.rawValue | fields.rawValue
        let signed = Register.TopConfiguration2.memoryDataSigned.rawValue
        result.topConfiguration2 = topConfiguration2 & ~signed | (acceleration ? 0 : signed)
        let offset = Register.v2iFactorOffsetEnable
        result.topConfiguration5 = topConfiguration5 & ~offset | (acceleration ? offset : 0)
        let owned: Register.TopConfiguration4 = [.v2iFactorFreeze, .calibrationImpedanceDisable]
        if kind == .ermCoin {
            // A coin ERM's back-EMF is too small to use: the V2I factor frozen, no impedance
            // check, no back-EMF fault limit [DS §5.7.18; Linux init].
            result.topConfiguration4 = topConfiguration4 & ~owned.rawValue | owned.rawValue
            result.topInternalConfiguration1 = topInternalConfiguration1 & ~Register.backEMFFaultLimitMask
        } else {
            // The reset values [DS T34, T35]: V2I tracked, impedance calibration off, limit 1.
            result.topConfiguration4 = topConfiguration4 & ~owned.rawValue | Register.TopConfiguration4.calibrationImpedanceDisable.rawValue
            result.topInternalConfiguration1 = topInternalConfiguration1 & ~Register.backEMFFaultLimitMask | 0x01
        }
        return result
    }
}

extension DA7280Configuration {
    /// These registers for an LRA driven at a frequency it is given (LRA_PER) instead of its
    /// tracked resonance: FREQ_TRACK_EN off, and with it ACCELERATION_EN and RAPID_STOP_EN,
    /// which need it [DS §5.4] and which wideband drive wants off too [DS §5.7.5]; then, as for
    /// any configuration without acceleration, MEM_DATA_SIGNED on [DS T22] and
    /// V2I_FACTOR_OFFSET_EN off [DS §5.7.15]. Every other bit is kept.
    public var atFixedFrequency: DA7280Configuration {
        typealias Register = DA7280Register
        let off: Register.TopConfiguration1 = [.frequencyTracking, .acceleration, .rapidStop]
        var result = self
        result.topConfiguration1 = topConfiguration1 & ~off.rawValue
        result.topConfiguration2 = topConfiguration2 | Register.TopConfiguration2.memoryDataSigned.rawValue
        result.topConfiguration5 = topConfiguration5 & ~Register.v2iFactorOffsetEnable
        return result
    }
}

/// What start-up wrote that a power-on reset puts back to other values (`DA7280Driver.checkForReset()`):
/// IRQ_MASK1's SEQ_CONTINUE_M (set by the driver, 0 at reset: seen whatever the actuator),
/// ACTUATOR1-3 and TOP_CFG1-2. FRQ_LRA_PER and CALIB_V2I are left out: the chip's tracking may
/// change what it holds there.
public struct DA7280WrittenConfiguration: Sendable, Hashable {
    /// ACTUATOR1-3: NOMMAX, ABSMAX, IMAX.
    public var actuator: [UInt8]
    /// TOP_CFG1 and TOP_CFG2.
    public var topConfiguration: [UInt8]

    /// What start-up wrote for `actuator` and `configuration`.
    public init(actuator: DA7280ActuatorRegisters, configuration: DA7280Configuration) {
        self.actuator = [actuator.nominalMaximum, actuator.absoluteMaximum, actuator.currentMaximum]
        topConfiguration = [configuration.topConfiguration1, configuration.topConfiguration2]
    }

    /// Whether `bytes`, read from register `first` on (up to TOP_CFG2 at least), still hold it.
    public func matches(_ bytes: [UInt8], from first: UInt8) -> Bool {
        func at(_ register: DA7280Register) -> UInt8? {
            let index = Int(register.rawValue) - Int(first)
            return bytes.indices.contains(index) ? bytes[index] : nil
        }
        guard let mask = at(.irqMask1), mask & DA7280Register.sequenceContinueMask != 0 else { return false }
        return [at(.actuatorNominalMaximum), at(.actuatorAbsoluteMaximum), at(.actuatorCurrentMaximum)] == actuator.map { $0 }
            && [at(.topConfiguration1), at(.topConfiguration2)] == topConfiguration.map { $0 }
    }
}
