// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticEffects
import HardwareAccess

/// The register values computed from an `ActuatorSpecification`.
public struct ActuatorRegisters: Sendable, Hashable {
    public var ratedVoltage: UInt8
    public var overdriveClamp: UInt8
    public var driveTime: UInt8
    /// OL_LRA_PERIOD for an LRA (used in open loop and as calibration's starting point).
    public var lraOpenLoopPeriod: UInt8?
}

/// The datasheet equations (drv2605.md §7), DRV2605L (SLOS854C/D) constants.
///
/// SLOS854C prints the LRA and ERM overdrive-clamp equations swapped (TI e2e 655886); the forms
/// here are the corrected ones. Rated voltage is rounded to the nearest step; a clamp is a limit,
/// so it is rounded down unless within 0.05 of the next step (closer than the constants' accuracy).
public enum ActuatorEquations {
    /// ERM open-loop volts per OD_CLAMP step. UNCONFIRMED: the reference recalls 21.59 mV;
    /// Linux and Zephyr use 5.6 V / 255 = 21.96 mV. Configurable for that reason.
    public static let defaultERMOpenLoopStep = 0.02159

    /// SAMPLE_TIME field (0...3) in seconds.
    public static func sampleTime(_ field: UInt8) -> Double { [150e-6, 200e-6, 250e-6, 300e-6][Int(field & 3)] }
    /// ERM BLANKING/IDISS times for field values 0...3 (seconds).
    public static func ermBlankingOrIdiss(_ field: UInt8) -> Double { [45e-6, 75e-6, 150e-6, 225e-6][Int(field & 3)] }
    /// LRA drive time for a DRIVE_TIME value: 0.5 ms + 0.1 ms a step.
    public static func lraDriveTime(_ field: UInt8) -> Double { (Double(field) * 0.1 + 0.5) / 1000 }
    /// ERM drive time for a DRIVE_TIME value: 1 ms + 0.2 ms a step.
    public static func ermDriveTime(_ field: UInt8) -> Double { (Double(field) * 0.2 + 1.0) / 1000 }

    /// LRA closed-loop RATED_VOLTAGE: V_rms = 20.58 mV × RATED / √(1 − (4·t_sample + 300 µs)·f).
    /// [Source: drivers run on silicon (ESPHome, Trezor); it reproduces a TI forum user's 0x53 for
    /// 2 Vrms at 175 Hz. Not checked against the L datasheet's own text: UNCONFIRMED.]
    public static func lraRatedVoltage(vrms: Double, hz: Double, sampleTimeField: UInt8 = 3) -> Double {
        vrms * lraSampleTerm(hz: hz, sampleTimeField: sampleTimeField).squareRoot() / 0.02058
    }
    /// 1 − (4·t_sample + 300 µs)·f: the closed-loop rated voltage's term (positive for a
    /// resonance the equations can express).
    static func lraSampleTerm(hz: Double, sampleTimeField: UInt8) -> Double { 1 - (4 * sampleTime(sampleTimeField) + 300e-6) * hz }
    /// LRA OD_CLAMP (peak limit, open and closed loop): V = 21.32 mV × OD_CLAMP × √(1 − 800 µs·f).
    /// [Source: Trezor and ESPHome; the older DRV2605 datasheet's 5.44 V / 255 is the same step.
    /// UNCONFIRMED for the L part.]
    public static func lraOverdriveClamp(vrms: Double, hz: Double) -> Double {
        vrms / (0.02132 * (1 - 800e-6 * hz).squareRoot())
    }
    /// The rated voltage a RATED_VOLTAGE value stands for, closed loop at `hz` (the inverse of
    /// `lraRatedVoltage`).
    public static func lraRatedVrms(field: UInt8, hz: Double, sampleTimeField: UInt8 = 3) -> Double? {
        let term = lraSampleTerm(hz: hz, sampleTimeField: sampleTimeField)
        return term > 0 ? 0.02058 * Double(field) / term.squareRoot() : nil
    }
    /// Open loop's full scale for an LRA driven at `hz`: the RMS voltage an OD_CLAMP value
    /// stands for there (the inverse of `lraOverdriveClamp`).
    public static func lraOpenLoopFullScaleVrms(clampField: UInt8, hz: Double) -> Double? {
        let term = 1 - 800e-6 * hz
        return term > 0 ? 0.02132 * Double(clampField) * term.squareRoot() : nil
    }
    /// LRA DRIVE_TIME ≈ half a period: (500/f ms − 0.5 ms) / 0.1 ms.
    public static func lraDriveTimeField(hz: Double) -> Double { 5000 / hz - 5 }
    /// OL_LRA_PERIOD = period / 98.46 µs.
    public static func lraPeriodField(hz: Double) -> Double { 1e6 / (hz * 98.46) }
    /// Frequency from an LRA_PERIOD / OL_LRA_PERIOD value.
    public static func frequency(periodField: UInt8) -> Double? {
        periodField == 0 ? nil : 1e6 / (Double(periodField) * 98.46)
    }
    /// ERM closed-loop RATED_VOLTAGE: V = 21.18 mV × RATED. [Source: community values (0x8D for
    /// 3.0 V); not seen in a TI text: UNCONFIRMED.]
    public static func ermRatedVoltage(volts: Double) -> Double { volts / 0.02118 }
    /// ERM closed-loop OD_CLAMP: V = 21.64 mV × OD_CLAMP × (t_drive − 300 µs) / (t_drive + t_idiss + t_blank).
    /// [Source: a Rust crate and mynewt's notes, with SLOS854C's swapped equations corrected (TI e2e
    /// 655886): UNCONFIRMED constant.]
    public static func ermClosedLoopClamp(volts: Double, driveTimeField: UInt8 = 19, idissField: UInt8 = 1, blankingField: UInt8 = 1) -> Double {
        let drive = ermDriveTime(driveTimeField)
        let factor = (drive - 300e-6) / (drive + ermBlankingOrIdiss(idissField) + ermBlankingOrIdiss(blankingField))
        return volts / (0.02164 * factor)
    }
    /// ERM open-loop OD_CLAMP (full scale): V = step × OD_CLAMP.
    public static func ermOpenLoopClamp(volts: Double, step: Double = defaultERMOpenLoopStep) -> Double { volts / step }
    /// VBAT register to volts: × 5.6 V / 255.
    public static func supplyVolts(register: UInt8) -> Double { Double(register) * 5.6 / 255 }

    static func roundRated(_ value: Double) -> Double { value.rounded() }
    static func roundClamp(_ value: Double) -> Double { (value + 0.05).rounded(.down) }

    /// Computes RATED_VOLTAGE, OD_CLAMP, DRIVE_TIME (and OL_LRA_PERIOD for an LRA), checking that
    /// the fields can express the actuator and that it fits the supply.
    public static func registers(
        for actuator: ActuatorSpecification, loop: LoopMode, supplyVolts: Double = 5.0,
        sampleTimeField: UInt8 = 3, ermOpenLoopStep: Double = defaultERMOpenLoopStep
    ) throws(DRV2605Error) -> ActuatorRegisters {
        func byte(_ value: Double, _ field: String) throws(DRV2605Error) -> UInt8 {
            guard value.isFinite, value >= 1, value <= 255 else {
                throw DRV2605Error.invalidConfiguration(
                    "\(field) would be \(value.isFinite ? PlainText.decimal(value) : "not a number"), outside 1...255: check the actuator voltages")
            }
            return UInt8(value)
        }
        switch actuator {
        case let .lra(rated, maximum, hz):
            guard rated.isFinite, maximum.isFinite, rated > 0, maximum >= rated else {
                throw .invalidConfiguration("LRA voltages must be positive with maximum ≥ rated (rated \(PlainText.number(rated)) Vrms, maximum \(PlainText.number(maximum)) Vrms)")
            }
            guard maximum <= supplyVolts else {
                throw .invalidConfiguration("LRA maximum \(PlainText.number(maximum)) Vrms is above the \(PlainText.number(supplyVolts)) V supply: the output can never exceed VDD")
            }
            let drive = lraDriveTimeField(hz: hz)
            guard hz.isFinite, hz > 0, drive > -0.5, drive < 31.5 else {
                throw .invalidConfiguration("LRA resonance \(PlainText.decimal(hz)) Hz cannot be expressed by DRIVE_TIME (0...31 covers about 139-1000 Hz)")
            }
            let period = lraPeriodField(hz: hz)
            guard period >= 1, period < 127.5 else {
                throw .invalidConfiguration("LRA resonance \(PlainText.decimal(hz)) Hz cannot be expressed by OL_LRA_PERIOD (7 bits: at least 80 Hz)")
            }
            let sampleTerm = lraSampleTerm(hz: hz, sampleTimeField: sampleTimeField)
            guard sampleTerm > 0, 1 - 800e-6 * hz > 0 else {
                throw .invalidConfiguration("LRA resonance \(PlainText.decimal(hz)) Hz is too high for the voltage equations")
            }
            return ActuatorRegisters(
                ratedVoltage: try byte(roundRated(lraRatedVoltage(vrms: rated, hz: hz, sampleTimeField: sampleTimeField)), "RATED_VOLTAGE"),
                overdriveClamp: try byte(roundClamp(lraOverdriveClamp(vrms: maximum, hz: hz)), "OD_CLAMP"),
                driveTime: UInt8(max(0, min(31, drive.rounded()))),
                lraOpenLoopPeriod: UInt8(period.rounded()))
        case let .erm(rated, maximum):
            guard rated.isFinite, maximum.isFinite, rated > 0, maximum >= rated else {
                throw .invalidConfiguration("ERM voltages must be positive with maximum ≥ rated (rated \(PlainText.number(rated)) V, maximum \(PlainText.number(maximum)) V)")
            }
            guard maximum <= supplyVolts else {
                throw .invalidConfiguration("ERM maximum \(PlainText.number(maximum)) V is above the \(PlainText.number(supplyVolts)) V supply: the output can never exceed VDD")
            }
            let clampValue = loop == .closed ? ermClosedLoopClamp(volts: maximum) : ermOpenLoopClamp(volts: maximum, step: ermOpenLoopStep)
            return ActuatorRegisters(
                ratedVoltage: try byte(roundRated(ermRatedVoltage(volts: rated)), "RATED_VOLTAGE"),
                overdriveClamp: try byte(roundClamp(clampValue), "OD_CLAMP"),
                driveTime: 19,
                lraOpenLoopPeriod: nil)
        }
    }
}

#if !hasFeature(Embedded)
    // Saved in board files and calibration records on Linux; firmware has no Codable.
    extension ActuatorRegisters: Codable {}
#endif
