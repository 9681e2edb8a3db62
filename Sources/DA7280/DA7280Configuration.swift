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
        if kind == .ermCoin {
            // A coin ERM's back-EMF is too small to use: the V2I factor frozen, no impedance
            // check, no back-EMF fault limit [DS §5.7.18; Linux init].
            let coin: Register.TopConfiguration4 = [.v2iFactorFreeze, .calibrationImpedanceDisable]
            result.topConfiguration4 = topConfiguration4 | coin.rawValue
            result.topInternalConfiguration1 = topInternalConfiguration1 & ~Register.backEMFFaultLimitMask
        }
        return result
    }
}
