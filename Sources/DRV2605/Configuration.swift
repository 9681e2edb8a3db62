// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticEffects

/// Everything start-up writes to the chip: actuator, loop, library, voltages and timings.
///
/// Built from an `ActuatorSpecification` (the usual way) or field by field. `validate(for:)`
/// rejects combinations that make the actuator weak or silent — above all a library that does
/// not fit the actuator, the first cause of "too weak / my LRA does not vibrate".
public struct DRV2605Configuration: Sendable, Hashable {
    /// ERM or LRA (N_ERM_LRA).
    public var actuator: ActuatorType
    /// Closed loop (back-EMF feedback) or open loop.
    public var loop: LoopMode
    /// The ROM library (LIBRARY_SEL); it must fit the actuator.
    public var library: EffectLibrary
    /// RATED_VOLTAGE: full-scale drive in closed loop, from the actuator's rated voltage.
    public var ratedVoltage: UInt8
    /// OD_CLAMP: the most the chip will ever apply, from the actuator's maximum voltage.
    public var overdriveClamp: UInt8
    /// DRIVE_TIME, 0...31.
    public var driveTime: UInt8
    /// FB_BRAKE_FACTOR 0...7 (2 = 3×, TI's calibration recommendation).
    public var brakeFactor: UInt8
    /// LOOP_GAIN 0...3 (2 = high, TI's calibration recommendation).
    public var loopGain: UInt8
    /// SAMPLE_TIME 0...3 (3 = 300 µs).
    public var sampleTime: UInt8
    /// BLANKING_TIME, 4 bits on the L parts (2 on the others).
    public var blankingTime: UInt8
    /// IDISS_TIME, 4 bits on the L parts (2 on the others).
    public var idissTime: UInt8
    /// AUTO_CAL_TIME 0...3 (3 = 1000–1200 ms, TI's recommendation).
    public var autoCalibrationTime: UInt8
    /// ZC_DET_TIME 0...3.
    public var zeroCrossingTime: UInt8
    /// OL_LRA_PERIOD (7 bits).
    public var lraOpenLoopPeriod: UInt8
    /// Real-time playback values are unsigned (0...255) rather than signed (-127...127).
    public var unsignedRealTimeInput: Bool
    /// BIDIR_INPUT: in closed loop, whether RTP/PWM inputs below mid-scale brake.
    public var bidirectionalInput: Bool
    /// PLAYBACK_INTERVAL 1 ms instead of 5 ms (shortens ROM effects; L parts).
    public var oneMillisecondPlaybackInterval: Bool
    /// Saved auto-calibration results, restored at start-up.
    public var calibration: CalibrationValues?

    /// Defaults for an actuator class: the library made for it, closed loop (ERM library A
    /// excepted), TI's recommended calibration inputs, and the chip's default voltages until an
    /// `ActuatorSpecification` provides real ones.
    public init(actuator: ActuatorType, library: EffectLibrary? = nil, loop: LoopMode? = nil) {
        self.actuator = actuator
        let chosenLibrary = library ?? (actuator == .lra ? .lra : .ermB)
        self.library = chosenLibrary
        self.loop = loop ?? (chosenLibrary == .ermA ? .open : .closed)
        ratedVoltage = 0x3E
        overdriveClamp = 0x8C
        driveTime = 0x13  // the chip default; an ActuatorSpecification computes the real one
        brakeFactor = 2
        loopGain = 2
        sampleTime = 3
        blankingTime = 1
        idissTime = 1
        autoCalibrationTime = 3
        zeroCrossingTime = 0
        lraOpenLoopPeriod = 0x33
        unsignedRealTimeInput = false
        bidirectionalInput = true
        oneMillisecondPlaybackInterval = false
        calibration = nil
    }

    /// A configuration whose voltages and timings come from the actuator's datasheet values.
    public init(
        _ specification: ActuatorSpecification, library: EffectLibrary? = nil, loop: LoopMode? = nil,
        supplyVolts: Double = 5.0
    ) throws(DRV2605Error) {
        self.init(actuator: specification.type, library: library, loop: loop)
        let registers = try ActuatorEquations.registers(
            for: specification, loop: self.loop, supplyVolts: supplyVolts,
            sampleTimeField: sampleTime)
        ratedVoltage = registers.ratedVoltage
        overdriveClamp = registers.overdriveClamp
        driveTime = registers.driveTime
        if let period = registers.lraOpenLoopPeriod { lraOpenLoopPeriod = period }
    }

    /// Checks the configuration against the part; throws with the field and the allowed values.
    public func validate(for part: Part) throws(DRV2605Error) {
        guard let fit = library.actuator else {
            if part.hasROMLibrary {
                throw .invalidConfiguration("library 'empty' plays nothing on a \(part); choose LRA for an LRA or A-F for an ERM")
            }
            return try validateFields(part)
        }
        if part.hasROMLibrary && fit != actuator {
            throw .invalidConfiguration("\(library) is for an \(fit) but the actuator is an \(actuator): an LRA needs the LRA library; an ERM one of libraries A-F")
        }
        if library == .ermF && part != .drv2605L {
            throw .unsupported("\(library) exists only on the DRV2605L; this chip is a \(part)")
        }
        if library == .ermA && loop == .closed {
            throw .invalidConfiguration("ERM library A has built-in overdrive and must run open loop (set loop to open, or choose libraries B-F for closed loop)")
        }
        try validateFields(part)
    }

    private func validateFields(_ part: Part) throws(DRV2605Error) {
        func check(_ value: UInt8, _ limit: UInt8, _ name: String) throws(DRV2605Error) {
            guard value <= limit else { throw .invalidConfiguration("\(name) is \(value); allowed 0...\(limit)") }
        }
        try check(driveTime, 31, "DRIVE_TIME")
        try check(brakeFactor, 7, "FB_BRAKE_FACTOR")
        try check(loopGain, 3, "LOOP_GAIN")
        try check(sampleTime, 3, "SAMPLE_TIME")
        try check(blankingTime, part.isLowVoltage ? 15 : 3, "BLANKING_TIME")
        try check(idissTime, part.isLowVoltage ? 15 : 3, "IDISS_TIME")
        try check(autoCalibrationTime, 3, "AUTO_CAL_TIME")
        try check(zeroCrossingTime, 3, "ZC_DET_TIME")
        try check(lraOpenLoopPeriod, 127, "OL_LRA_PERIOD")
        if let calibration { try check(calibration.backEMFGain, 3, "BEMF_GAIN") }
    }

    // MARK: - Register images

    /// FEEDBACK_CONTROL as start-up writes it.
    public var feedbackControl: FeedbackControlRegister {
        var value = FeedbackControlRegister(rawValue: 0)
        value.isLRA = actuator == .lra
        value.brakeFactor = brakeFactor
        value.loopGain = loopGain
        value.backEMFGain = calibration?.backEMFGain ?? 2
        return value
    }
    /// CONTROL1 as start-up writes it.
    public var control1: Control1Register {
        var value = Control1Register(rawValue: 0x80)
        value.driveTime = driveTime
        return value
    }
    /// CONTROL2 as start-up writes it.
    public var control2: Control2Register {
        var value = Control2Register(rawValue: 0)
        value.bidirectionalInput = bidirectionalInput
        value.brakeStabilizer = true
        value.sampleTime = sampleTime
        value.blankingTimeLow = blankingTime & 3
        value.idissTimeLow = idissTime & 3
        return value
    }
    /// CONTROL3 as start-up writes it.
    public var control3: Control3Register {
        var value = Control3Register(rawValue: 0)
        value.noiseGateThreshold = 2
        value.ermOpenLoop = actuator == .erm && loop == .open
        value.lraOpenLoop = actuator == .lra && loop == .open
        value.unsignedRTP = unsignedRealTimeInput
        return value
    }
    /// CONTROL4 as start-up writes it.
    public var control4: Control4Register {
        var value = Control4Register(rawValue: 0)
        value.zeroCrossingTime = zeroCrossingTime
        value.autoCalibrationTime = autoCalibrationTime
        return value
    }
    /// CONTROL5 as start-up writes it (L parts).
    public var control5: Control5Register {
        var value = Control5Register(rawValue: 0x80)
        value.oneMillisecondInterval = oneMillisecondPlaybackInterval
        value.blankingTimeHigh = blankingTime >> 2
        value.idissTimeHigh = idissTime >> 2
        return value
    }

    /// The chip's registers as start-up leaves them: the part's reset values with this
    /// configuration applied and `slots` in the sequencer.
    public func registerFile(for part: Part, slots: [UInt8]) -> RegisterFile {
        var file = part.resetValues
        file[.realTimePlaybackInput] = 0
        file[LibrarySelectionRegister.self] = LibrarySelectionRegister(library: library)
        file.waveformSlots = slots
        file[.go] = 0
        file[.overdriveTimeOffset] = 0
        file[.sustainTimeOffsetPositive] = 0
        file[.sustainTimeOffsetNegative] = 0
        file[.brakeTimeOffset] = 0
        file[.ratedVoltage] = ratedVoltage
        file[.overdriveClamp] = overdriveClamp
        if let calibration {
            file[.autoCalibrationCompensation] = calibration.compensation
            file[.autoCalibrationBackEMF] = calibration.backEMF
        }
        file[FeedbackControlRegister.self] = feedbackControl
        file[Control1Register.self] = control1
        file[Control2Register.self] = control2
        file[Control3Register.self] = control3
        file[Control4Register.self] = control4
        file[Control5Register.self] = control5
        file[.lraOpenLoopPeriod] = calibration?.lraPeriod ?? lraOpenLoopPeriod
        return file
    }

    /// Register values from RTP_INPUT (0x02) up to the part's last configuration register: with
    /// the MODE byte in front, the single start-up burst.
    public func registerImage(for part: Part, slots: [UInt8]) -> [UInt8] {
        registerFile(for: part, slots: slots).bytes(from: .realTimePlaybackInput, through: part.lastConfigurationRegister)
    }
}

/// The results of auto-calibration: what is saved and written back at the next start-up.
public struct CalibrationValues: Sendable, Hashable {
    /// A_CAL_COMP: compensation coefficient = 1 + value / 255.
    public var compensation: UInt8
    /// A_CAL_BEMF: back-EMF = value / 255 × 1.22 V / BEMF_GAIN.
    public var backEMF: UInt8
    /// BEMF_GAIN, 0...3.
    public var backEMFGain: UInt8
    /// For an LRA: the period calibration found (OL_LRA_PERIOD / LRA_PERIOD units of 98.46 µs).
    public var lraPeriod: UInt8?

    /// Values read back after calibration, or restored from a saved file.
    public init(compensation: UInt8, backEMF: UInt8, backEMFGain: UInt8, lraPeriod: UInt8? = nil) {
        self.compensation = compensation
        self.backEMF = backEMF
        self.backEMFGain = backEMFGain
        self.lraPeriod = lraPeriod
    }

    /// The LRA resonance implied by `lraPeriod`.
    public var resonantHz: Double? { lraPeriod.flatMap { ActuatorEquations.frequency(periodField: $0) } }
}

#if !hasFeature(Embedded)
    // Saved in board files and calibration records on Linux; firmware has no Codable.
    extension DRV2605Configuration: Codable {}
    extension CalibrationValues: Codable {}
#endif
