// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticEffects
import HardwareAccess

// Auto-calibration, diagnostics, live measurements, the register dump and OTP.
extension DRV2605Driver {
    /// Runs auto-calibration with the configured inputs and returns (and adopts) the results.
    ///
    /// GO is polled with a deadline from AUTO_CAL_TIME; DIAG_RESULT is read only after GO has
    /// cleared; a failed read is an error, never a pass. The chip ends in standby.
    public func calibrate(progress: ((Duration) -> Void)? = nil) throws(DRV2605Error) -> CalibrationValues {
        guard part != nil else { throw .notStarted }
        try ensureEnabled()
        try writeConfiguration(mode: ModeRegister(mode: .autoCalibration), slots: loadedSlots ?? [])
        let maximum: Duration = [.milliseconds(350), .milliseconds(450), .milliseconds(700), .milliseconds(1200)][Int(configuration.autoCalibrationTime & 3)]
        let result = try runRoutine(deadline: maximum + .milliseconds(300), progress: progress)
        let values: CalibrationValues
        do throws(DRV2605Error) {
            guard !result.diagnosticFailed else {
                throw .calibrationFailed("DIAG_RESULT = 1 (the routine did not converge)")
            }
            let file = try readFile(from: .autoCalibrationCompensation, through: .lraOpenLoopPeriod)
            // The resonance: LRA_PERIOD, which the chip updates only while it drives an LRA [DS],
            // read on a short buzz. OL_LRA_PERIOD is not trusted for it: only a forum answer
            // (TI e2e 1120884) says calibration writes it. A part without ROM effects keeps that.
            // Only in closed loop: the chip follows the resonance only with back-EMF feedback, so in
            // open loop LRA_PERIOD measures nothing, and OL_LRA_PERIOD keeps the actuator's
            // datasheet frequency (or a closed-loop measurement saved earlier).
            var period: UInt8?
            if configuration.actuator == .lra, configuration.loop == .closed {
                period = part?.hasROMLibrary == true ? try registersWhileDriving()[.lraResonancePeriod] : file[.lraOpenLoopPeriod] & 0x7F
                if period == 0 { period = nil }
            }
            values = CalibrationValues(
                compensation: file[.autoCalibrationCompensation], backEMF: file[.autoCalibrationBackEMF],
                backEMFGain: file[FeedbackControlRegister.self].backEMFGain, lraPeriod: period)
        } catch {
            try? enterStandby()
            throw error
        }
        // A chip that cannot be put back in standby is reported, not left awake in silence.
        try enterStandby()
        configuration.calibration = values
        return values
    }

    /// The outcome of the chip's actuator diagnostic.
    public enum DiagnosticVerdict: String, Sendable, Equatable {
        /// The actuator is connected and behaves.
        case fine
        /// DIAG_RESULT set without over-current: open circuit, missing actuator or out-of-range back-EMF.
        case openOrOutOfRange
        /// Over-current during the routine: the actuator or its wiring is shorted.
        case shorted
        /// GO never cleared.
        case timedOut
    }

    /// Runs the diagnostic routine (MODE 6) and gives a plain verdict; the chip ends in standby.
    public func diagnose() throws(DRV2605Error) -> DiagnosticVerdict {
        guard part != nil else { throw .notStarted }
        try ensureEnabled()
        // A flag latched by an earlier event would be taken for this run's verdict: cleared first.
        let before = StatusRegister(rawValue: try read(.status))
        if before.overCurrent || before.overTemperature { try clearFaults() }
        try write(.mode, ModeRegister(mode: .diagnostics).rawValue)
        noteStandby(false)
        mode = .diagnostics
        let status: StatusRegister
        do {
            status = try runRoutine(deadline: .milliseconds(1275), progress: nil)
        } catch {
            try? enterStandby()
            if case .timeout = error { return .timedOut }
            throw error
        }
        // A chip that cannot be put back in standby is reported, not left awake in silence.
        try enterStandby()
        if status.overCurrent { return .shorted }
        return status.diagnosticFailed ? .openOrOutOfRange : .fine
    }

    /// Starts the diagnostic or calibration routine and polls GO until it clears. On any failure
    /// (a bus error, the deadline) the routine is cancelled and the chip put in standby, so the
    /// actuator is never left driven.
    func runRoutine(deadline: Duration, progress: ((Duration) -> Void)?) throws(DRV2605Error) -> StatusRegister {
        let start = clock.now
        let end = start.advanced(by: deadline)
        do throws(DRV2605Error) {
            try write(.go, 1)
            while true {
                clock.sleep(until: min(end, clock.now.advanced(by: options.pollInterval * 4)))
                if try !isBusy() { break }
                progress?(clock.now.duration(since: start))
                guard clock.now < end else { throw DRV2605Error.timeout("the \(mode) routine did not finish within \(deadline)") }
            }
            return StatusRegister(rawValue: try read(.status))
        } catch {
            stopQuietly()
            try? enterStandby()
            throw error
        }
    }

    /// Supply voltage from VBAT. The chip updates it only while driving; idle it may read 0.
    public func supplyVolts() throws(DRV2605Error) -> Double {
        ActuatorEquations.supplyVolts(register: try read(.supplyVoltage))
    }

    /// LRA resonance from LRA_PERIOD (valid while driving an LRA in closed loop; nil in open loop).
    public func measuredResonanceHz() throws(DRV2605Error) -> Double? {
        guard configuration.loop == .closed else { return nil }
        return ActuatorEquations.frequency(periodField: try read(.lraResonancePeriod))
    }

    /// Live readouts that the chip only updates while it drives: plays a buzz, reads VBAT and
    /// LRA_PERIOD in one transaction after `settle`, then stops and returns to standby.
    public func measureWhileDriving(settle: Duration = .milliseconds(50)) throws(DRV2605Error) -> (supplyVolts: Double, resonanceHz: Double?) {
        let file = try registersWhileDriving(settle: settle)
        // The chip measures the resonance only in closed loop: in open loop there is none to report.
        let measured = configuration.actuator == .lra && configuration.loop == .closed
        let resonance = measured ? ActuatorEquations.frequency(periodField: file[.lraResonancePeriod]) : nil
        return (ActuatorEquations.supplyVolts(register: file[.supplyVoltage]), resonance)
    }

    /// VBAT and LRA_PERIOD read `settle` into a full-scale drive, then stopped and back in
    /// standby. The drive is ROM effect 47 (Buzz 1 - 100%) where the part has TI's library; a
    /// DRV2604/DRV2604L has none, so it drives full scale through RTP_INPUT instead (the chip
    /// updates both registers in any drive mode [DS]).
    func registersWhileDriving(settle: Duration = .milliseconds(50)) throws(DRV2605Error) -> RegisterFile {
        guard let part else { throw .notStarted }
        if part.hasROMLibrary {
            try play(WaveformSequence(.buzz100))
        } else {
            try beginRealTimePlayback()
            do { try setRealTime(amplitude: 1) } catch {
                stopQuietly()
                throw error
            }
        }
        clock.sleep(for: settle)
        let file: RegisterFile
        do { file = try readFile(from: .supplyVoltage, through: .lraResonancePeriod) } catch {
            stopQuietly()
            throw error
        }
        try stop()
        try enterStandby()
        return file
    }

    /// Registers 0x00–0x22 in one read (note: reading STATUS clears its latched flags).
    public func dumpRegisters() throws(DRV2605Error) -> RegisterFile {
        try readFile(from: .status, through: .lraResonancePeriod)
    }

    /// Burns RATED_VOLTAGE, OD_CLAMP, A_CAL_COMP, A_CAL_BEMF and FEEDBACK_CONTROL (0x16-0x1A)
    /// into the chip's one-time-programmable memory. Irreversible; the caller must have asked the
    /// user. OTP programming needs VDD between 4.0 and 4.4 V [DS]: the supply is measured through
    /// VBAT while driving, unless `supplyVolts` is given, and the burn is refused outside that
    /// range. The chip is then reset, which loads 0x16-0x1A from OTP, and they are read back: a
    /// difference, or OTP_STATUS still 0, throws `.otpNotVerified`. Returns what was read back.
    @discardableResult
    public func programOTP(confirmed: Bool, supplyVolts: Double? = nil) throws(DRV2605Error) -> RegisterFile {
        guard confirmed else { throw .invalidArgument("OTP programming is irreversible and needs explicit confirmation") }
        guard configuration.calibration != nil else { throw .invalidArgument("calibrate before burning OTP") }
        guard let part else { throw .notStarted }
        try ensureEnabled()
        guard !Control4Register(rawValue: try read(.control4)).otpProgrammed else {
            throw .unsupported("this chip's OTP is already programmed (OTP_STATUS = 1); it can be burnt once")
        }
        let volts: Double
        if let supplyVolts { volts = supplyVolts } else { volts = try measureWhileDriving().supplyVolts }
        guard (4.0...4.4).contains(volts) else {
            throw .invalidArgument(
                "burning OTP needs VDD between 4.0 and 4.4 V; the supply measures \(PlainText.decimal(volts, places: 2)) V. Power the board from 4.2 V for the burn")
        }
        // The registers hold exactly what is burnt, then OTP_PROGRAM.
        try writeConfiguration(mode: ModeRegister(mode: .internalTrigger, standby: false), slots: [])
        // The programming procedure (datasheet §7.5.7, as TI's forum quotes it, e2e 478840): 0x1E
        // written 0x01 (OTP_PROGRAM alone), OTP_STATUS read until it says 1, then DEV_RESET. No
        // programming time is published: OTP_STATUS is polled for up to 200 ms (OURS: long and
        // conservative), and the read-back below says whether the burn took. The reset rewrites
        // CONTROL4's other fields, which were 0 for the burn.
        try write(.control4, Control4Register(rawValue: 0x01).rawValue)
        let burnDeadline = clock.now.advanced(by: .milliseconds(200))
        while !Control4Register(rawValue: try read(.control4)).otpProgrammed, clock.now < burnDeadline {
            clock.sleep(for: options.pollInterval)
        }
        try reset()
        let file = try readFile(from: .ratedVoltage, through: .control4)
        let burnt = configuration.registerFile(for: part, slots: [])
        guard file[Control4Register.self].otpProgrammed else {
            throw .otpNotVerified("OTP_STATUS is still 0 after the burn and a reset (the burn needs VDD 4.0-4.4 V)")
        }
        for register in [Register.ratedVoltage, .overdriveClamp, .autoCalibrationCompensation, .autoCalibrationBackEMF, .feedbackControl]
        where file[register] != burnt[register] {
            throw .otpNotVerified(
                "after the burn and a reset, \(register.description) reads \(PlainText.hex(file[register])); \(PlainText.hex(burnt[register])) was burnt (the burn needs VDD 4.0-4.4 V)"
            )
        }
        try writeConfiguration(mode: ModeRegister(mode: .internalTrigger, standby: false), slots: [])
        try enterStandby()
        return file
    }
}
