// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// The DA7280's registers this stack uses, each declared once with its address (Dialog/Renesas
/// DA7280 datasheet register map; the same addresses as Linux's `da7280` driver and SparkFun's
/// library, which were run on the chip). Fields are the nested option sets and constants below.
public enum DA7280Register: UInt8, CaseIterable, Sendable, CustomStringConvertible {
    /// CHIP_REV: 0xBA on a DA7280 (minor revision B in the high nibble, major A in the low).
    case chipRevision = 0x00
    /// IRQ_EVENT1: latched events, cleared by writing 1 to a bit (`Event`).
    case irqEvent1 = 0x03
    /// IRQ_EVENT_WARNING_DIAG: why E_WARNING was raised (drive limited, memory type, over-temperature warning).
    case irqEventWarningDiagnostics = 0x04
    /// IRQ_EVENT_SEQ_DIAG: why E_SEQ_FAULT was raised (PWM, memory, sequence id).
    case irqEventSequenceDiagnostics = 0x05
    /// IRQ_STATUS1: the conditions now (same bit layout as IRQ_EVENT1), not latched.
    case irqStatus1 = 0x06
    /// IRQ_MASK1: 1 masks an event from the nIRQ pin (the event still latches).
    case irqMask1 = 0x07
    /// CIF_I2C1: I2C_WR_MODE (bit 7, 0 = auto-increment, the reset value's choice) [DS T26].
    case controlInterfaceI2C1 = 0x08
    /// FRQ_LRA_PER_H: the LRA's resonant period, bits 14:7, in 1.33332 µs steps.
    case lraPeriodHigh = 0x0A
    /// FRQ_LRA_PER_L: the period's bits 6:0.
    case lraPeriodLow = 0x0B
    /// ACTUATOR1: ACTUATOR_NOMMAX, the nominal (rated) drive voltage, 23.4 mV a step.
    case actuatorNominalMaximum = 0x0C
    /// ACTUATOR2: ACTUATOR_ABSMAX, the absolute maximum drive voltage, 23.4 mV a step.
    case actuatorAbsoluteMaximum = 0x0D
    /// ACTUATOR3: ACTUATOR_IMAX[4:0], the current limit, 28.6 mA + 7.2 mA a step.
    case actuatorCurrentMaximum = 0x0E
    /// CALIB_V2I_H: the voltage-to-current factor's high byte (from the actuator's impedance).
    case calibrationV2IHigh = 0x0F
    /// CALIB_V2I_L: the factor's low byte.
    case calibrationV2ILow = 0x10
    /// TOP_CFG1: actuator type and the drive loops (`TopConfiguration1`).
    case topConfiguration1 = 0x13
    /// TOP_CFG2: FULL_BRAKE_THR[3:0], MEM_DATA_SIGNED (bit 4).
    case topConfiguration2 = 0x14
    /// TOP_CFG4: TST_CALIB_IMPEDANCE_DIS (bit 6), V2I_FACTOR_FREEZE (bit 7).
    case topConfiguration4 = 0x16
    /// TOP_INT_CFG1: BEMF_FAULT_LIM[1:0], the back-EMF level below which the actuator counts as stuck.
    case topInternalConfiguration1 = 0x17
    /// TOP_CTL1: OPERATION_MODE[2:0], STANDBY_EN (bit 3), SEQ_START (bit 4) (`TopControl1`).
    case topControl1 = 0x22
    /// TOP_CTL2: OVERRIDE_VAL, the drive level in DRO mode.
    case topControl2 = 0x23
    /// SEQ_CTL1: SEQ_CONTINUE (bit 0), WAVEGEN_MODE (bit 1), FREQ_WAVEFORM_TIMEBASE (bit 2) [DS T48].
    case sequenceControl1 = 0x24
    /// SEQ_CTL2: PS_SEQ_ID[3:0], PS_SEQ_LOOP[7:4] for waveform-memory playback.
    case sequenceControl2 = 0x28
    /// MEM_CTL1: where user waveform memory starts (read-only).
    case memoryControl1 = 0x2C
    /// MEM_CTL2: WAV_MEM_LOCK (bit 7): 1 lets the waveform memory be written.
    case memoryControl2 = 0x2D
    /// TOP_CFG5: V2I_FACTOR_OFFSET_EN (bit 0).
    case topConfiguration5 = 0x6E
    /// IRQ_MASK2: ADC_SAT_M (bit 7).
    case irqMask2 = 0x83

    public var description: String {
        switch self {
        case .chipRevision: return "CHIP_REV"
        case .irqEvent1: return "IRQ_EVENT1"
        case .irqEventWarningDiagnostics: return "IRQ_EVENT_WARNING_DIAG"
        case .irqEventSequenceDiagnostics: return "IRQ_EVENT_SEQ_DIAG"
        case .irqStatus1: return "IRQ_STATUS1"
        case .irqMask1: return "IRQ_MASK1"
        case .controlInterfaceI2C1: return "CIF_I2C1"
        case .lraPeriodHigh: return "FRQ_LRA_PER_H"
        case .lraPeriodLow: return "FRQ_LRA_PER_L"
        case .actuatorNominalMaximum: return "ACTUATOR1"
        case .actuatorAbsoluteMaximum: return "ACTUATOR2"
        case .actuatorCurrentMaximum: return "ACTUATOR3"
        case .calibrationV2IHigh: return "CALIB_V2I_H"
        case .calibrationV2ILow: return "CALIB_V2I_L"
        case .topConfiguration1: return "TOP_CFG1"
        case .topConfiguration2: return "TOP_CFG2"
        case .topConfiguration4: return "TOP_CFG4"
        case .topInternalConfiguration1: return "TOP_INT_CFG1"
        case .topControl1: return "TOP_CTL1"
        case .topControl2: return "TOP_CTL2"
        case .sequenceControl1: return "SEQ_CTL1"
        case .sequenceControl2: return "SEQ_CTL2"
        case .memoryControl1: return "MEM_CTL1"
        case .memoryControl2: return "MEM_CTL2"
        case .topConfiguration5: return "TOP_CFG5"
        case .irqMask2: return "IRQ_MASK2"
        }
    }

    /// What CHIP_REV reads on a DA7280.
    public static let da7280Revision: UInt8 = 0xBA

    /// IRQ_EVENT1 and IRQ_STATUS1's bits.
    public struct Event: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// E_SEQ_CONTINUE: a waveform-memory sequence wants its next part.
        public static let sequenceContinue = Event(rawValue: 1 << 0)
        /// E_UVLO: the supply fell below the under-voltage lock-out (in IRQ_STATUS1: VBAT is fine).
        public static let underVoltage = Event(rawValue: 1 << 1)
        /// E_SEQ_DONE: a waveform-memory sequence ended.
        public static let sequenceDone = Event(rawValue: 1 << 2)
        /// E_OVERTEMP_CRIT: critical over-temperature: the output stage was shut down.
        public static let overTemperatureCritical = Event(rawValue: 1 << 3)
        /// E_SEQ_FAULT: a sequence could not play (see IRQ_EVENT_SEQ_DIAG).
        public static let sequenceFault = Event(rawValue: 1 << 4)
        /// E_WARNING: see IRQ_EVENT_WARNING_DIAG.
        public static let warning = Event(rawValue: 1 << 5)
        /// E_ACTUATOR_FAULT: no back-EMF where it was expected: the actuator is open, stuck or missing.
        public static let actuatorFault = Event(rawValue: 1 << 6)
        /// E_OC_FAULT: over-current: a short, or an actuator of too low impedance.
        public static let overCurrent = Event(rawValue: 1 << 7)
        /// The events after which the chip stops driving and waits, idle, until they are cleared
        /// (datasheet §5.6.6: bits 7, 6, 4, 3 and 1).
        public static let stopsDriving: Event = [.overTemperatureCritical, .actuatorFault, .overCurrent, .sequenceFault, .underVoltage]
    }

    /// TOP_CFG1's bits.
    public struct TopConfiguration1: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// AMP_PID_EN: the amplitude loop.
        public static let amplitudePID = TopConfiguration1(rawValue: 1 << 0)
        /// RAPID_STOP_EN: active braking at the end of a drive.
        public static let rapidStop = TopConfiguration1(rawValue: 1 << 1)
        /// ACCELERATION_EN: the chip overdrives to start and brakes to stop; OVERRIDE_VAL is then 0...0x7F.
        public static let acceleration = TopConfiguration1(rawValue: 1 << 2)
        /// FREQ_TRACK_EN: the drive follows the LRA's resonance.
        public static let frequencyTracking = TopConfiguration1(rawValue: 1 << 3)
        /// BEMF_SENSE_EN: back-EMF sensing (actuator-fault detection, the loops).
        public static let backEMFSense = TopConfiguration1(rawValue: 1 << 4)
        /// ACTUATOR_TYPE: 0 LRA, 1 ERM.
        public static let ermActuator = TopConfiguration1(rawValue: 1 << 5)
        /// EMBEDDED_MODE: the chip clears its own faults [DS §5.7.7]; this driver clears them
        /// itself (and reports them), so it keeps the bit 0.
        public static let embeddedMode = TopConfiguration1(rawValue: 1 << 7)
        /// The fields this driver sets (bit 6 is not ours: a read-modify-write keeps it).
        public static let driverFields: TopConfiguration1 = [
            .amplitudePID, .rapidStop, .acceleration, .frequencyTracking, .backEMFSense, .ermActuator, .embeddedMode
        ]
    }

    /// TOP_CFG2's field this driver sets; FULL_BRAKE_THR (bits 3:0) is kept [DS T32].
    public struct TopConfiguration2: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// MEM_DATA_SIGNED: waveform-memory amplitudes are signed; must be the opposite of
        /// ACCELERATION_EN, or the chip raises E_MEM_TYPE [DS T22].
        public static let memoryDataSigned = TopConfiguration2(rawValue: 1 << 4)
    }

    /// TOP_CFG4's fields [DS T34]; the rest is kept.
    public struct TopConfiguration4: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// TST_CALIB_IMPEDANCE_DIS: no impedance measurement at the start of a drive (coin ERM).
        public static let calibrationImpedanceDisable = TopConfiguration4(rawValue: 1 << 6)
        /// V2I_FACTOR_FREEZE: the chip does not track the V2I factor (coin ERM).
        public static let v2iFactorFreeze = TopConfiguration4(rawValue: 1 << 7)
    }

    /// TOP_INT_CFG1's BEMF_FAULT_LIM (bits 1:0); bit 7 (FRQ_LOCKED_LIM's, reset 0x81) is kept [DS T35].
    public static let backEMFFaultLimitMask: UInt8 = 0x03

    /// TOP_CFG5's V2I_FACTOR_OFFSET_EN (bit 0): on with acceleration, off without [DS §5.7.15, Linux init].
    public static let v2iFactorOffsetEnable: UInt8 = 1 << 0

    /// CIF_I2C1's I2C_WR_MODE (bit 7): 1 is page mode, where a burst does not move on to the next
    /// register; 0 (auto-increment) is what every burst of the driver needs [DS T26].
    public static let i2cWriteModePage: UInt8 = 1 << 7

    /// SEQ_CTL1's fields (bits 2:0): FREQ_WAVEFORM_TIMEBASE, WAVEGEN_MODE, SEQ_CONTINUE [DS T48].
    public static let sequenceControl1DriverFields: UInt8 = 0x07

    /// IRQ_MASK1's SEQ_CONTINUE_M (bit 0): the driver masks it (it never continues a sequence, and
    /// polls rather than using nIRQ), so a chip that reads it clear was reset (its reset value is 0).
    public static let sequenceContinueMask: UInt8 = 1 << 0

    /// IRQ_EVENT_WARNING_DIAG's causes of E_WARNING [DS T22].
    public enum Warning: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// E_OVERTEMP_WARN: the die passed the warning temperature (105 °C); it still drives.
        case overTemperature = 0x08
        /// E_MEM_TYPE: the waveform memory's data type does not match ACCELERATION_EN.
        case memoryType = 0x10
        /// E_LIM_DRIVE_ACC: acceleration asked for more than ABSMAX; the drive was limited.
        case driveLimitedInAcceleration = 0x40
        /// E_LIM_DRIVE: the drive asked for more than the chip may give; it was limited.
        case driveLimited = 0x80

        /// Every cause.
        public static var all: [Warning] { allCases }

        public var description: String {
            switch self {
            case .overTemperature: return "over-temperature warning (E_OVERTEMP_WARN)"
            case .memoryType: return "waveform memory type mismatch (E_MEM_TYPE)"
            case .driveLimitedInAcceleration: return "drive limited during acceleration (E_LIM_DRIVE_ACC)"
            case .driveLimited: return "drive limited (E_LIM_DRIVE)"
            }
        }
    }

    /// TOP_CTL1's fields.
    public struct TopControl1: Sendable, Hashable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// A value with `mode`, STANDBY_EN and SEQ_START as given.
        public init(mode: OperationMode, standbyEnabled: Bool, sequenceStart: Bool = false) {
            rawValue = mode.rawValue | (standbyEnabled ? Self.standbyEnableBit : 0) | (sequenceStart ? Self.sequenceStartBit : 0)
        }
        static let standbyEnableBit: UInt8 = 1 << 3
        static let sequenceStartBit: UInt8 = 1 << 4
        /// OPERATION_MODE (an unknown value reads as inactive).
        public var mode: OperationMode { OperationMode(rawValue: rawValue & 0x07) ?? .inactive }
        /// STANDBY_EN: 1 takes the chip from IDLE (its low-power state) to STANDBY, ready to drive.
        public var standbyEnabled: Bool { rawValue & Self.standbyEnableBit != 0 }
        /// SEQ_START: starts the waveform-memory sequence in RTWM mode.
        public var sequenceStart: Bool { rawValue & Self.sequenceStartBit != 0 }
    }

    /// OPERATION_MODE.
    public enum OperationMode: UInt8, Sendable, CaseIterable {
        /// Not driving.
        case inactive = 0
        /// Direct register override: TOP_CTL2 sets the drive level (the stream).
        case directRegisterOverride = 1
        /// PWM on GPI0 sets the drive level.
        case pwm = 2
        /// Register-triggered waveform memory: SEQ_START plays PS_SEQ_ID.
        case registerTriggeredWaveform = 3
        /// Edge-triggered waveform memory: the GPI pins play sequences.
        case edgeTriggeredWaveform = 4
    }
}

extension I2CAddress {
    /// The DA7280's usual address, 0x4A (SparkFun's Qwiic Haptic Driver; Linux's driver takes
    /// whatever the device tree says).
    public static let da7280 = I2CAddress(rawValue: 0x4A)!
}
