// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticEffects

/// The DRV2605/DRV2605L register addresses (datasheet register map, 0x00–0x22).
public enum Register: UInt8, CaseIterable, Sendable, CustomStringConvertible {
    case status = 0x00
    case mode = 0x01
    case realTimePlaybackInput = 0x02
    case librarySelection = 0x03
    case waveformSequence1 = 0x04, waveformSequence2, waveformSequence3, waveformSequence4
    case waveformSequence5, waveformSequence6, waveformSequence7, waveformSequence8
    case go = 0x0C
    case overdriveTimeOffset = 0x0D
    case sustainTimeOffsetPositive = 0x0E
    case sustainTimeOffsetNegative = 0x0F
    case brakeTimeOffset = 0x10
    case audioToVibeControl = 0x11
    case audioToVibeMinimumInput = 0x12
    case audioToVibeMaximumInput = 0x13
    case audioToVibeMinimumDrive = 0x14
    case audioToVibeMaximumDrive = 0x15
    case ratedVoltage = 0x16
    case overdriveClamp = 0x17
    case autoCalibrationCompensation = 0x18
    case autoCalibrationBackEMF = 0x19
    case feedbackControl = 0x1A
    case control1 = 0x1B
    case control2 = 0x1C
    case control3 = 0x1D
    case control4 = 0x1E
    case control5 = 0x1F
    case lraOpenLoopPeriod = 0x20
    case supplyVoltage = 0x21
    case lraResonancePeriod = 0x22

    /// The bytes of one write of `value` to this register (the register address, then the value),
    /// for writes that do not go through a driver: a GO broadcast through a multiplexer to
    /// several chips at once is `Register.go.write(1)`.
    public func write(_ value: UInt8) -> [UInt8] { [rawValue, value] }

    /// The datasheet's short name, as `i2cdump`-style output and traces print it.
    public var description: String {
        switch self {
        case .status: return "STATUS"
        case .mode: return "MODE"
        case .realTimePlaybackInput: return "RTP_INPUT"
        case .librarySelection: return "LIBRARY_SEL"
        case .waveformSequence1, .waveformSequence2, .waveformSequence3, .waveformSequence4,
            .waveformSequence5, .waveformSequence6, .waveformSequence7, .waveformSequence8:
            return "WAV_FRM_SEQ\(rawValue - 3)"
        case .go: return "GO"
        case .overdriveTimeOffset: return "ODT"
        case .sustainTimeOffsetPositive: return "SPT"
        case .sustainTimeOffsetNegative: return "SNT"
        case .brakeTimeOffset: return "BRT"
        case .audioToVibeControl: return "ATH_CONTROL"
        case .audioToVibeMinimumInput: return "ATH_MIN_INPUT"
        case .audioToVibeMaximumInput: return "ATH_MAX_INPUT"
        case .audioToVibeMinimumDrive: return "ATH_MIN_DRIVE"
        case .audioToVibeMaximumDrive: return "ATH_MAX_DRIVE"
        case .ratedVoltage: return "RATED_VOLTAGE"
        case .overdriveClamp: return "OD_CLAMP"
        case .autoCalibrationCompensation: return "A_CAL_COMP"
        case .autoCalibrationBackEMF: return "A_CAL_BEMF"
        case .feedbackControl: return "FEEDBACK_CONTROL"
        case .control1: return "CONTROL1"
        case .control2: return "CONTROL2"
        case .control3: return "CONTROL3"
        case .control4: return "CONTROL4"
        case .control5: return "CONTROL5"
        case .lraOpenLoopPeriod: return "OL_LRA_PERIOD"
        case .supplyVoltage: return "VBAT"
        case .lraResonancePeriod: return "LRA_PERIOD"
        }
    }

    /// The last register address.
    public static let last: UInt8 = 0x22
}

/// A typed view of one 8-bit register: fields are bit ranges of `rawValue`, in the style of
/// swift-mmio's register structs, so the driver never spells a mask twice.
public protocol RegisterValue: Hashable, Sendable {
    static var register: Register { get }
    var rawValue: UInt8 { get set }
    init(rawValue: UInt8)
}

extension RegisterValue {
    @inline(__always)
    func field(_ bits: ClosedRange<Int>) -> UInt8 {
        let width = bits.count
        let mask: UInt8 = width >= 8 ? 0xFF : UInt8((1 << width) - 1)
        return (rawValue >> UInt8(bits.lowerBound)) & mask
    }
    @inline(__always)
    mutating func setField(_ bits: ClosedRange<Int>, _ value: UInt8) {
        let width = bits.count
        let mask: UInt8 = width >= 8 ? 0xFF : UInt8((1 << width) - 1)
        rawValue = (rawValue & ~(mask << UInt8(bits.lowerBound))) | ((value & mask) << UInt8(bits.lowerBound))
    }
    @inline(__always)
    func flag(_ bit: Int) -> Bool { rawValue & (1 << UInt8(bit)) != 0 }
    @inline(__always)
    mutating func setFlag(_ bit: Int, _ on: Bool) {
        if on { rawValue |= 1 << UInt8(bit) } else { rawValue &= ~(1 << UInt8(bit)) }
    }
}

/// STATUS (0x00), read-only. DIAG_RESULT, OVER_TEMP and OC_DETECT clear when read.
public struct StatusRegister: RegisterValue {
    /// The register this value is read from and written to.
    public static let register = Register.status
    /// The byte on the bus.
    public var rawValue: UInt8
    /// The value of a byte read from, or to be written to, the chip.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// DEVICE_ID, bits 7..5.
    public var deviceID: UInt8 { field(5...7) }
    /// DIAG_RESULT: 1 = the last calibration or diagnostic failed. Valid only after GO cleared.
    public var diagnosticFailed: Bool {
        get { flag(3) }
        set { setFlag(3, newValue) }
    }
    /// FB_STS (DRV2605/DRV2604 only; reserved on the L parts).
    public var feedbackStatus: Bool { flag(2) }
    /// OVER_TEMP: the chip got too hot and shut its output down.
    public var overTemperature: Bool {
        get { flag(1) }
        set { setFlag(1, newValue) }
    }
    /// OC_DETECT: the load drew too much current (a shorted actuator) and the output was shut down.
    public var overCurrent: Bool {
        get { flag(0) }
        set { setFlag(0, newValue) }
    }
}

/// The eight operating modes of MODE[2:0].
public enum OperatingMode: UInt8, CaseIterable, Sendable, CustomStringConvertible {
    case internalTrigger = 0
    case externalEdgeTrigger = 1
    case externalLevelTrigger = 2
    case pwmOrAnalogInput = 3
    case audioToVibe = 4
    case realTimePlayback = 5
    case diagnostics = 6
    case autoCalibration = 7

    public var description: String {
        switch self {
        case .internalTrigger: return "internal trigger"
        case .externalEdgeTrigger: return "external trigger (edge)"
        case .externalLevelTrigger: return "external trigger (level)"
        case .pwmOrAnalogInput: return "PWM/analog input"
        case .audioToVibe: return "audio-to-vibe"
        case .realTimePlayback: return "real-time playback"
        case .diagnostics: return "diagnostics"
        case .autoCalibration: return "auto-calibration"
        }
    }
}

/// MODE (0x01): DEV_RESET, STANDBY and the operating mode.
public struct ModeRegister: RegisterValue {
    /// The register this value is read from and written to.
    public static let register = Register.mode
    /// The byte on the bus.
    public var rawValue: UInt8
    /// The value of a byte read from, or to be written to, the chip.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// MODE with these fields and the rest zero.
    public init(mode: OperatingMode, standby: Bool = false, reset: Bool = false) {
        rawValue = 0
        self.mode = mode
        self.standby = standby
        self.deviceReset = reset
    }
    /// DEV_RESET: writing 1 resets every register; the chip clears it when done.
    public var deviceReset: Bool {
        get { flag(7) }
        set { setFlag(7, newValue) }
    }
    /// STANDBY: 1 = software standby (low power), 0 = ready.
    public var standby: Bool {
        get { flag(6) }
        set { setFlag(6, newValue) }
    }
    /// MODE[2:0]; every value is defined, so this never fails.
    public var mode: OperatingMode {
        get { OperatingMode(rawValue: field(0...2)) ?? .internalTrigger }
        set { setField(0...2, newValue.rawValue) }
    }
}

/// LIBRARY_SEL (0x03): HI_Z and the ROM library.
public struct LibrarySelectionRegister: RegisterValue {
    /// The register this value is read from and written to.
    public static let register = Register.librarySelection
    /// The byte on the bus.
    public var rawValue: UInt8
    /// The value of a byte read from, or to be written to, the chip.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// LIBRARY_SEL with these fields and the rest zero.
    public init(library: EffectLibrary, highImpedance: Bool = false) {
        rawValue = 0
        self.library = library
        self.highImpedance = highImpedance
    }
    /// HI_Z: the output driver in true high impedance (the chip must be enabled).
    public var highImpedance: Bool {
        get { flag(4) }
        set { setFlag(4, newValue) }
    }
    /// LIBRARY_SEL[2:0]: which ROM library shapes the effects.
    public var library: EffectLibrary {
        get { EffectLibrary(rawValue: field(0...2)) ?? .empty }
        set { setField(0...2, newValue.rawValue) }
    }
}

/// FEEDBACK_CONTROL (0x1A).
public struct FeedbackControlRegister: RegisterValue {
    /// The register this value is read from and written to.
    public static let register = Register.feedbackControl
    /// The byte on the bus.
    public var rawValue: UInt8
    /// The value of a byte read from, or to be written to, the chip.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// N_ERM_LRA: 1 = LRA.
    public var isLRA: Bool {
        get { flag(7) }
        set { setFlag(7, newValue) }
    }
    /// FB_BRAKE_FACTOR, 0...7 (7 = braking off).
    public var brakeFactor: UInt8 {
        get { field(4...6) }
        set { setField(4...6, newValue) }
    }
    /// LOOP_GAIN, 0...3.
    public var loopGain: UInt8 {
        get { field(2...3) }
        set { setField(2...3, newValue) }
    }
    /// BEMF_GAIN, 0...3; written by auto-calibration.
    public var backEMFGain: UInt8 {
        get { field(0...1) }
        set { setField(0...1, newValue) }
    }
}
