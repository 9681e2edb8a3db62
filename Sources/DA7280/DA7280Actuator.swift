// SPDX-License-Identifier: Apache-2.0

import HapticChip

/// An actuator as the DA7280 is told about it: the datasheet values its ACTUATOR1-3,
/// CALIB_V2I and FRQ_LRA_PER registers are computed from. The chip measures and tracks the rest
/// (impedance drift, the resonance while driving) itself.
public struct DA7280Actuator: Sendable, Hashable {
    /// LRA, or an ERM of either shape (a coin ERM has no back-EMF the loops can use).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case lra
        case ermBar = "erm-bar"
        case ermCoin = "erm-coin"
    }

    public var kind: Kind
    /// The rated drive voltage (RMS for an LRA): what full scale in DRO mode drives.
    public var nominalVolts: Double
    /// The most the actuator may ever see (the chip's overdrive limit).
    public var absoluteMaximumVolts: Double
    /// The actuator's current limit, in mA (the chip's over-current threshold is set from it).
    public var maximumCurrentMilliamps: Double
    /// The coil's DC resistance, in ohms.
    public var impedanceOhms: Double
    /// An LRA's resonant frequency (nil for an ERM).
    public var resonantHz: Double?

    /// An actuator from its datasheet values.
    public init(
        kind: Kind, nominalVolts: Double, absoluteMaximumVolts: Double, maximumCurrentMilliamps: Double, impedanceOhms: Double,
        resonantHz: Double? = nil
    ) {
        self.kind = kind
        self.nominalVolts = nominalVolts
        self.absoluteMaximumVolts = absoluteMaximumVolts
        self.maximumCurrentMilliamps = maximumCurrentMilliamps
        self.impedanceOhms = impedanceOhms
        self.resonantHz = resonantHz
    }

    /// The LRA on SparkFun's Qwiic Haptic Driver (ROB-17590), with the values SparkFun's own
    /// library configures it with: 2.106 V nominal, 2.26 V maximum, 165.4 mA, 13.8 Ω, 170 Hz.
    public static let sparkFunQwiicLRA = DA7280Actuator(
        kind: .lra, nominalVolts: 2.106, absoluteMaximumVolts: 2.26, maximumCurrentMilliamps: 165.4, impedanceOhms: 13.8,
        resonantHz: 170)

    /// One of the actuator's values, as `problem` names it.
    public enum Value: Sendable, Hashable {
        case nominalVolts, absoluteMaximumVolts, maximumCurrent, impedance, resonance
    }

    /// The first value the chip cannot take and why (nil: the chip can drive this actuator):
    /// the voltages within the 8-bit registers (at most 5.967 V, the absolute maximum at least
    /// the nominal; an ERM's are often equal), the current within IMAX's 28.6-251.8 mA, the
    /// impedance within the 4-50 Ω outside which the chip raises E_ACTUATOR_FAULT [DS T7, §5.7.14],
    /// and an LRA's resonance within the 50-300 Hz the chip tracks [DS §5.6.2, §5.3].
    public var problem: (value: Value, text: String)? {
        guard nominalVolts.isFinite, nominalVolts > 0, nominalVolts <= DA7280Equations.maximumVolts else {
            return (.nominalVolts, "nominal voltage \(nominalVolts) V is outside 0-\(DA7280Equations.maximumVolts) V")
        }
        guard absoluteMaximumVolts.isFinite, absoluteMaximumVolts >= nominalVolts, absoluteMaximumVolts <= DA7280Equations.maximumVolts else {
            return (
                .absoluteMaximumVolts,
                "absolute maximum \(absoluteMaximumVolts) V must be at least the nominal \(nominalVolts) V and at most \(DA7280Equations.maximumVolts) V"
            )
        }
        guard maximumCurrentMilliamps.isFinite, DA7280Equations.currentMaximumField(milliamps: maximumCurrentMilliamps) != nil else {
            return (.maximumCurrent, "current limit \(maximumCurrentMilliamps) mA is outside 28.6-251.8 mA")
        }
        guard impedanceOhms.isFinite, impedanceOhms >= 4, impedanceOhms <= 50 else {
            return (.impedance, "impedance \(impedanceOhms) Ω is outside the 4-50 Ω the DA7280 drives (its actuator fault)")
        }
        if kind == .lra {
            guard let hz = resonantHz, hz.isFinite, hz > 50, hz < 300 else {
                return (.resonance, "an LRA needs its resonant frequency, between 50 and 300 Hz (got \(resonantHz.map { "\($0) Hz" } ?? "none"))")
            }
        }
        return nil
    }

    /// The register values, or why the actuator cannot be driven by this chip.
    public func registers() throws(HapticChipError) -> DA7280ActuatorRegisters {
        if let problem { throw .invalidConfiguration("DA7280 actuator: \(problem.text)") }
        guard let imax = DA7280Equations.currentMaximumField(milliamps: maximumCurrentMilliamps) else {
            throw .invalidConfiguration("DA7280 actuator: current limit \(maximumCurrentMilliamps) mA is outside 28.6-251.8 mA")
        }
        var period: UInt16?
        if kind == .lra, let hz = resonantHz { period = DA7280Equations.lraPeriodField(hz: hz) }
        return DA7280ActuatorRegisters(
            nominalMaximum: DA7280Equations.voltageField(volts: nominalVolts),
            absoluteMaximum: DA7280Equations.voltageField(volts: absoluteMaximumVolts),
            currentMaximum: imax,
            v2iFactor: DA7280Equations.v2iFactor(impedanceOhms: impedanceOhms, currentMaximumField: imax),
            lraPeriod: period)
    }
}

/// What `DA7280Actuator.registers()` computed.
public struct DA7280ActuatorRegisters: Sendable, Hashable {
    /// ACTUATOR_NOMMAX.
    public var nominalMaximum: UInt8
    /// ACTUATOR_ABSMAX.
    public var absoluteMaximum: UInt8
    /// ACTUATOR_IMAX (0...31).
    public var currentMaximum: UInt8
    /// CALIB_V2I_FACTOR (high byte in CALIB_V2I_H).
    public var v2iFactor: UInt16
    /// The 15-bit LRA_PER (nil for an ERM: the registers keep the chip's value).
    public var lraPeriod: UInt16?

    /// Where `burst()` starts: FRQ_LRA_PER_H for an LRA; ACTUATOR1 for an ERM, whose period
    /// register keeps the chip's back-EMF sampling rate (reset 0x21/0x4F, about 174 Hz, within
    /// the 300 Hz an ERM may be sampled at [DS T36]).
    public var burstStart: DA7280Register { lraPeriod == nil ? .actuatorNominalMaximum : .lraPeriodHigh }

    /// The registers from `burstStart` to CALIB_V2I_L in order (FRQ_LRA_PER_H/L for an LRA,
    /// ACTUATOR1-3, CALIB_V2I_H/L): one write.
    public func burst() -> [UInt8] {
        let period = lraPeriod.map(DA7280Equations.periodBytes) ?? []
        return period + [nominalMaximum, absoluteMaximum, currentMaximum, UInt8(v2iFactor >> 8), UInt8(v2iFactor & 0xFF)]
    }
}

/// The DA7280 datasheet's equations, as Linux's `da7280` driver and SparkFun's library apply them
/// on the chip.
public enum DA7280Equations {
    /// Volts per ACTUATOR_NOMMAX/ABSMAX step.
    public static let voltsPerStep = 0.0234
    /// The highest voltage the registers hold (255 steps; Linux refuses 6 V and above).
    public static let maximumVolts = 5.967
    /// Seconds per FRQ_LRA_PER step.
    public static let periodStep = 1.33332e-6
    /// FRQ_LRA_PER_H/L after reset, 0x21/0x4F (about 174 Hz) [DS T27-T28]; Linux's driver
    /// writes 0x39/0x32 (about 102 Hz) when the device tree gives no frequency [Linux
    /// parse_properties], which is not the chip's reset value.
    public static let resetLRAPeriod: UInt16 = 0x21 << 7 | 0x4F

    /// ACTUATOR_NOMMAX/ABSMAX for `volts` [DS §5.6.2 eq. 1-2: V / 23.4 mV]: the step at or
    /// below it, so that the chip never drives more than the actuator's rating (the nearest step
    /// can land above it: 2.26 V would become 2.2698 V). Linux adds one step [Linux
    /// parse_properties]; the datasheet's rating wins.
    public static func voltageField(volts: Double) -> UInt8 {
        UInt8(max(1, min(255, (volts / voltsPerStep + 1e-9).rounded(.down))))
    }
    /// The voltage a NOMMAX/ABSMAX value stands for.
    public static func volts(field: UInt8) -> Double { Double(field) * voltsPerStep }
    /// ACTUATOR_IMAX for a current limit: I = 28.6 mA + 7.2 mA × IMAX, rounded down (a limit),
    /// nil outside 28.6...251.8 mA.
    public static func currentMaximumField(milliamps: Double) -> UInt8? {
        let steps = ((milliamps - 28.6) / 7.2 + 1e-9).rounded(.down)
        guard steps >= 0, steps <= 31 else { return nil }
        return UInt8(steps)
    }
    /// CALIB_V2I_FACTOR = Z × (IMAX + 4) / 1.6104.
    public static func v2iFactor(impedanceOhms: Double, currentMaximumField: UInt8) -> UInt16 {
        UInt16(min(65535, (impedanceOhms * Double(currentMaximumField + 4) / 1.6104).rounded(.down)))
    }
    /// LRA_PER = 1 / (f × 1.33332 µs), 15 bits.
    public static func lraPeriodField(hz: Double) -> UInt16 {
        UInt16(min(0x7FFF, (1 / (hz * periodStep)).rounded()))
    }
    /// FRQ_LRA_PER_H and FRQ_LRA_PER_L for a 15-bit LRA_PER: PER[14:7], PER[6:0] [DS eq. 8-9].
    public static func periodBytes(_ period: UInt16) -> [UInt8] {
        [UInt8(truncatingIfNeeded: period >> 7), UInt8(period & 0x7F)]
    }
    /// The frequency a LRA_PER value stands for.
    public static func frequency(periodField: UInt16) -> Double? {
        periodField == 0 ? nil : 1 / (Double(periodField) * periodStep)
    }
    /// The OVERRIDE_VAL that drives the rated (nominal) voltage. With ACCELERATION_EN, 0x7F is
    /// 100 % of NOMMAX [DS §5.2.4, T47]; without it (a coin ERM), 0x7F is 100 % of ABSMAX [DS
    /// §5.9.1, T37], so full scale is 127 × NOMMAX / ABSMAX, rounded down: never past the
    /// rating.
    public static func overrideFullScale(nominalMaximum: UInt8, absoluteMaximum: UInt8, acceleration: Bool) -> UInt8 {
        guard !acceleration, absoluteMaximum > 0 else { return 127 }
        return UInt8(min(127, (127 * Double(min(nominalMaximum, absoluteMaximum)) / Double(absoluteMaximum)).rounded(.down)))
    }

    /// OVERRIDE_VAL for a drive level 0...1 of the rated voltage, `fullScale` being the value
    /// for 1 (`overrideFullScale`); negative levels are 0: with acceleration on, the chip brakes
    /// by itself.
    public static func overrideValue(level: Double, fullScale: UInt8 = 127) -> UInt8 {
        guard level.isFinite, level > 0 else { return 0 }
        let top = min(fullScale, 127)
        return UInt8(min(Double(top), (level * Double(top)).rounded()))
    }
}
