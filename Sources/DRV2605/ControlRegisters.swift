// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticEffects

/// CONTROL1 (0x1B).
public struct Control1Register: RegisterValue {
    /// The register this value is read from and written to.
    public static let register = Register.control1
    /// The byte on the bus.
    public var rawValue: UInt8
    /// The value of a byte read from, or to be written to, the chip.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// STARTUP_BOOST: higher loop gain during overdrive, for a quicker transient response.
    public var startupBoost: Bool {
        get { flag(7) }
        set { setFlag(7, newValue) }
    }
    /// AC_COUPLE: a common-mode voltage on the analog input, for AC-coupled audio sources.
    public var acCouple: Bool {
        get { flag(5) }
        set { setFlag(5, newValue) }
    }
    /// DRIVE_TIME, 0...31.
    public var driveTime: UInt8 {
        get { field(0...4) }
        set { setField(0...4, newValue) }
    }
}

/// CONTROL2 (0x1C).
public struct Control2Register: RegisterValue {
    /// The register this value is read from and written to.
    public static let register = Register.control2
    /// The byte on the bus.
    public var rawValue: UInt8
    /// The value of a byte read from, or to be written to, the chip.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// BIDIR_INPUT: the input is read around mid-scale instead of as 0...full scale (what the
    /// lower half does depends on the loop mode: see drv2605.md and the datasheet).
    public var bidirectionalInput: Bool {
        get { flag(7) }
        set { setFlag(7, newValue) }
    }
    /// BRAKE_STABILIZER: lower loop gain near the end of braking, for stability.
    public var brakeStabilizer: Bool {
        get { flag(6) }
        set { setFlag(6, newValue) }
    }
    /// SAMPLE_TIME, 0...3 (150, 200, 250, 300 µs).
    public var sampleTime: UInt8 {
        get { field(4...5) }
        set { setField(4...5, newValue) }
    }
    /// BLANKING_TIME[1:0].
    public var blankingTimeLow: UInt8 {
        get { field(2...3) }
        set { setField(2...3, newValue) }
    }
    /// IDISS_TIME[1:0].
    public var idissTimeLow: UInt8 {
        get { field(0...1) }
        set { setField(0...1, newValue) }
    }
}

/// CONTROL3 (0x1D).
public struct Control3Register: RegisterValue {
    /// The register this value is read from and written to.
    public static let register = Register.control3
    /// The byte on the bus.
    public var rawValue: UInt8
    /// The value of a byte read from, or to be written to, the chip.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// NG_THRESH, 0...3: the noise gate for PWM and analog input.
    public var noiseGateThreshold: UInt8 {
        get { field(6...7) }
        set { setField(6...7, newValue) }
    }
    /// ERM_OPEN_LOOP: drive an ERM without back-EMF feedback.
    public var ermOpenLoop: Bool {
        get { flag(5) }
        set { setFlag(5, newValue) }
    }
    /// SUPPLY_COMP_DIS: no compensation for the supply voltage.
    public var supplyCompensationDisabled: Bool {
        get { flag(4) }
        set { setFlag(4, newValue) }
    }
    /// DATA_FORMAT_RTP: 1 = unsigned.
    public var unsignedRTP: Bool {
        get { flag(3) }
        set { setFlag(3, newValue) }
    }
    /// LRA_DRIVE_MODE: update the LRA drive amplitude twice per cycle instead of once.
    public var lraDriveTwicePerCycle: Bool {
        get { flag(2) }
        set { setFlag(2, newValue) }
    }
    /// N_PWM_ANALOG: the IN/TRIG pin is an analog input rather than PWM.
    public var analogInput: Bool {
        get { flag(1) }
        set { setFlag(1, newValue) }
    }
    /// LRA_OPEN_LOOP: drive an LRA at OL_LRA_PERIOD without resonance tracking.
    public var lraOpenLoop: Bool {
        get { flag(0) }
        set { setFlag(0, newValue) }
    }
}

/// CONTROL4 (0x1E).
public struct Control4Register: RegisterValue {
    /// The register this value is read from and written to.
    public static let register = Register.control4
    /// The byte on the bus.
    public var rawValue: UInt8
    /// The value of a byte read from, or to be written to, the chip.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// ZC_DET_TIME (L parts).
    public var zeroCrossingTime: UInt8 {
        get { field(6...7) }
        set { setField(6...7, newValue) }
    }
    /// AUTO_CAL_TIME, 0...3 (150–350, 250–450, 500–700, 1000–1200 ms).
    public var autoCalibrationTime: UInt8 {
        get { field(4...5) }
        set { setField(4...5, newValue) }
    }
    /// OTP_STATUS, read-only: 1 = OTP has been burnt.
    public var otpProgrammed: Bool {
        get { flag(2) }
        set { setFlag(2, newValue) }
    }
    /// OTP_PROGRAM: burns 0x16–0x1A. Irreversible.
    public var otpProgram: Bool {
        get { flag(0) }
        set { setFlag(0, newValue) }
    }
}

/// CONTROL5 (0x1F, DRV2605L/DRV2604L).
public struct Control5Register: RegisterValue {
    /// The register this value is read from and written to.
    public static let register = Register.control5
    /// The byte on the bus.
    public var rawValue: UInt8
    /// The value of a byte read from, or to be written to, the chip.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// AUTO_OL_CNT, 0...3: failed resonance detections before falling back to open loop.
    public var autoOpenLoopAttempts: UInt8 {
        get { field(6...7) }
        set { setField(6...7, newValue) }
    }
    /// LRA_AUTO_OPEN_LOOP: fall back to open loop when resonance tracking fails.
    public var lraAutoOpenLoop: Bool {
        get { flag(5) }
        set { setFlag(5, newValue) }
    }
    /// PLAYBACK_INTERVAL: 1 = 1 ms, 0 = 5 ms.
    public var oneMillisecondInterval: Bool {
        get { flag(4) }
        set { setFlag(4, newValue) }
    }
    /// BLANKING_TIME[3:2].
    public var blankingTimeHigh: UInt8 {
        get { field(2...3) }
        set { setField(2...3, newValue) }
    }
    /// IDISS_TIME[3:2].
    public var idissTimeHigh: UInt8 {
        get { field(0...1) }
        set { setField(0...1, newValue) }
    }
}

/// GO (0x0C): set to start the sequencer (or calibration, diagnostics); the chip clears it when
/// the sequence ends, and clearing it stops playback.
public struct GoRegister: RegisterValue {
    /// The register this value is read from and written to.
    public static let register = Register.go
    /// The raw byte.
    public var rawValue: UInt8
    /// Wraps a raw byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// GO, bit 0.
    public var go: Bool {
        get { flag(0) }
        set { setFlag(0, newValue) }
    }
}

#if !hasFeature(Embedded)
    // Saved in board files and calibration records on Linux; firmware has no Codable.
    extension OperatingMode: Codable {}
#endif
