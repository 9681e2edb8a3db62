// SPDX-License-Identifier: Apache-2.0

import DRV2605
import HapticChip
import HapticEffects
import HardwareAccess
import HardwareSimulation

/// What the simulated chip does with each register written: modes, GO and its sequence, the
/// routines (auto-calibration, diagnostics), resets, faults, and the transaction record.
extension SimulatedDRV2605 {

    var goSet: Bool { registers[GoRegister.self].go }
    var standby: Bool { registers[ModeRegister.self].standby }
    /// The drive RTP_INPUT asks for under the current format and loop (`ChipModel.realTimeDrive`).
    var realTimeDrive: Double {
        let control3 = registers[Control3Register.self]
        let isLRA = registers[FeedbackControlRegister.self].isLRA
        return ChipModel.realTimeDrive(
            input: registers[.realTimePlaybackInput], unsigned: control3.unsignedRTP,
            openLoop: isLRA ? control3.lraOpenLoop : control3.ermOpenLoop,
            bidirectional: registers[Control2Register.self].bidirectionalInput)
    }

    func writeRegister(_ register: Register, _ value: UInt8, at now: ClockInstant) {
        if register != .mode && options.ignoresWritesInStandby && standby { return }
        switch register {
        case .status, .supplyVoltage, .lraResonancePeriod:
            return  // read-only
        case .mode:
            writeMode(ModeRegister(rawValue: value), at: now)
        case .realTimePlaybackInput:
            registers[.realTimePlaybackInput] = value
            refreshRealTimeOutput(at: now)
        case .go:
            if GoRegister(rawValue: value).go {
                if !goSet {
                    startGo(at: now)
                    startedByGoWrite = true
                }
            } else if goSet {
                stopOutput(at: now)
            }
        case .control4:
            // OTP_STATUS is the chip's to say; OTP_PROGRAM burns and reads back as 0.
            var written = Control4Register(rawValue: value)
            let millivolts = Int((actuator.supplyVolts * 1000).rounded())
            let burn = written.otpProgram && !otpProgrammed && ChipModel.otpSupplyMillivolts.contains(millivolts)
            written.otpProgram = false
            if burn {
                otpProgrammed = true
                otpValues = ChipModel.otpRegisters.map { registers[address: $0] ?? 0 }
            }
            written.otpProgrammed = otpProgrammed
            registers[Control4Register.self] = written
        case .control3, .lraOpenLoopPeriod, .overdriveClamp, .ratedVoltage:
            // The loop, the open-loop period and the voltages change a stream's drive at once.
            registers[register] = value
            refreshRealTimeOutput(at: now)
        default:
            registers[register] = value
        }
    }

    func writeMode(_ mode: ModeRegister, at now: ClockInstant) {
        let old = registers[ModeRegister.self]
        if mode.deviceReset {
            stopOutput(at: now)
            registers[ModeRegister.self] = mode
            resetUntil = now.advanced(by: options.resetDuration)
            return
        }
        registers[ModeRegister.self] = mode
        if old.standby && !mode.standby { readyAt = now.advanced(by: options.wakeDelay) }
        if mode.standby || mode.mode != old.mode {
            if goSet { stopOutput(at: now) }
        }
        refreshRealTimeOutput(at: now)
    }

    func refreshRealTimeOutput(at now: ClockInstant) {
        let mode = registers[ModeRegister.self]
        guard mode.mode == .realTimePlayback, !mode.standby, enablePin, actuator.connected else {
            if case .idle = activity { output.set(0, at: now) }
            return
        }
        let drive = openLoopDrive
        output.set(realTimeDrive, at: max(now, readyAt), hz: drive?.hz, rating: drive?.rating ?? 1)
        registers[.supplyVoltage] = vbatReading
        if realTimeDrive != 0 { measureResonance() }
    }

    /// An LRA in open loop: driven at OL_LRA_PERIOD's frequency, its full scale OD_CLAMP's
    /// open-loop voltage there as a share of the rated voltage RATED_VOLTAGE stands for at the
    /// actuator's resonance (the datasheet's voltage equations, `ActuatorEquations`); nil in
    /// closed loop (at resonance, full scale the rating) and for an ERM.
    var openLoopDrive: (hz: Double, rating: Double)? {
        guard actuator.type == .lra, registers[FeedbackControlRegister.self].isLRA, registers[Control3Register.self].lraOpenLoop,
            let hz = ActuatorEquations.frequency(periodField: registers[.lraOpenLoopPeriod] & 0x7F),
            let full = ActuatorEquations.lraOpenLoopFullScaleVrms(clampField: registers[.overdriveClamp], hz: hz),
            let rated = ActuatorEquations.lraRatedVrms(field: registers[.ratedVoltage], hz: actuator.resonantHz, sampleTimeField: registers[Control2Register.self].sampleTime),
            rated > 0
        else { return nil }
        return (hz, full / rated)
    }

    /// LRA_PERIOD while driving, in any drive mode: measured only in LRA mode, from an LRA that
    /// moves, in closed loop (ChipModel).
    func measureResonance() {
        let closedLoop = !registers[Control3Register.self].lraOpenLoop || !ChipModel.lraPeriodOnlyInClosedLoop
        if actuator.type == .lra && actuator.connected && !actuator.shorted && registers[FeedbackControlRegister.self].isLRA && closedLoop {
            registers[.lraResonancePeriod] = periodField
        }
    }

    var vbatReading: UInt8 { ChipModel.supplyReading(volts: actuator.supplyVolts) }

    func startGo(at now: ClockInstant) {
        startedByGoWrite = false
        guard enablePin, !standby else { return }
        let mode = registers[ModeRegister.self].mode
        let start = max(now, readyAt)
        registers[GoRegister.self].go = true
        switch ChipModel.goActions[Int(mode.rawValue & 7)] {
        case .diagnostics:
            activity = .routine(.diagnostics, end: start.advanced(by: options.diagnosticsDuration))
            if actuator.connected && !actuator.shorted { output.plan([.init(time: start, level: 0.3), .init(time: start.advanced(by: options.diagnosticsDuration), level: 0)]) }
        case .calibration:
            let length = options.calibrationDurations[Int(registers[Control4Register.self].autoCalibrationTime & 3)]
            activity = .routine(.autoCalibration, end: start.advanced(by: length))
            if actuator.connected && !actuator.shorted { output.plan([.init(time: start, level: 1), .init(time: start.advanced(by: length), level: 0)]) }
        case .nothing:
            registers[GoRegister.self].go = false  // GO has no meaning here
        case .sequence:
            playSequence(from: start)
        }
    }

    func playSequence(from start: ClockInstant) {
        let library = registers[LibrarySelectionRegister.self].library
        let fast =
            options.oneMillisecondIntervalShortensEffects && options.part.isLowVoltage
            && registers[Control5Register.self].oneMillisecondInterval
        let tick: Duration = fast ? .milliseconds(1) : .milliseconds(5)
        var time = start
        var planned: [ActuatorRecord.Sample] = []
        for byte in registers.waveformSlots {
            if byte == 0 { break }
            if byte & 0x80 != 0 {
                planned.append(.init(time: time, level: 0))
                time = time.advanced(by: .milliseconds(Int(byte & 0x7F) * 10))
                continue
            }
            guard let effect = Effect(rawValue: byte) else {
                continue  // 124-127: nothing in ROM
            }
            var duration = Duration.milliseconds(ChipModel.effectMilliseconds(effect.rawValue)) * max(0.01, options.effectLengthScale)
            if fast { duration = duration / ChipModel.oneMillisecondIntervalSpeedUp }
            let audible = options.part.hasROMLibrary && library != .empty && actuator.connected && !actuator.shorted
            let levels = EffectEnvelope.levels(for: effect, duration: duration, tick: tick)
            for (index, level) in levels.enumerated() {
                planned.append(.init(time: time.advanced(by: tick * index), level: audible ? level : 0))
            }
            time = time.advanced(by: duration)
        }
        planned.append(.init(time: time, level: 0))
        output.plan(planned)
        activity = .sequence(end: time)
        if actuator.shorted { latchFault(\.overCurrent) }
        registers[.supplyVoltage] = vbatReading
        measureResonance()
    }

    var periodField: UInt8 { ChipModel.periodField(hz: actuator.resonantHz) }

    /// GO cleared by the end of the sequence: the planned drive already ends at zero.
    func finishGo(at time: ClockInstant) {
        registers[GoRegister.self].go = false
        activity = .idle
        if options.part == .drv2605 && options.nonLPartLosesSequenceRegisters && startedByGoWrite {
            registers[.mode] = 0
            registers[.librarySelection] = 0
            registers[.waveformSequence1] = 0
        }
    }

    /// GO cleared early (a GO = 0 write, a second edge, standby, EN low, a reset): drive stops now.
    func stopOutput(at now: ClockInstant) {
        registers[GoRegister.self].go = false
        activity = .idle
        output.set(0, at: now)
    }

    func finishRoutine(_ kind: OperatingMode, at time: ClockInstant) {
        registers[GoRegister.self].go = false
        activity = .idle
        let healthy = actuator.connected && !actuator.shorted
        var status = registers[StatusRegister.self]
        status.diagnosticFailed = false
        if actuator.shorted { status.overCurrent = true }
        if kind == .autoCalibration {
            let converges = healthy && !calibrationFails && actuator.type == (registers[FeedbackControlRegister.self].isLRA ? .lra : .erm)
            if converges {
                // Deterministic, plausible results derived from the actuator and the inputs.
                let results = ChipModel.calibrationResults(ratedVoltage: registers[.ratedVoltage], lra: actuator.type == .lra)
                registers[.autoCalibrationCompensation] = results.compensation
                registers[.autoCalibrationBackEMF] = results.backEMF
                registers[FeedbackControlRegister.self].backEMFGain = results.gain
                if actuator.type == .lra {
                    if options.calibrationWritesOpenLoopPeriod { registers[.lraOpenLoopPeriod] = min(127, periodField) }
                    registers[.lraResonancePeriod] = periodField
                }
            } else {
                status.diagnosticFailed = true
            }
        } else {
            if !healthy { status.diagnosticFailed = true }
        }
        registers[StatusRegister.self] = status
    }

    func completeReset(at time: ClockInstant) {
        stopOutput(at: time)
        let kept = registers[.status] & options.statusKeptByReset
        registers = options.part.resetValues
        registers[.status] |= kept
        registers[Control4Register.self].otpProgrammed = otpProgrammed
        for (address, value) in zip(ChipModel.otpRegisters, otpValues) {
            if let register = Register(rawValue: address) { registers[register] = value }
        }
        resetUntil = nil
    }

    func latchFault(_ flag: WritableKeyPath<StatusRegister, Bool>) {
        advance()
        registers[StatusRegister.self][keyPath: flag] = true
        stopOutput(at: clock.now)
    }

    func transactionError(index: Int, address: I2CAddress, operation: String) -> I2CError? {
        if let fault = faultsByIndex.removeValue(forKey: index), case let .fail(kind) = fault {
            return I2CError(kind, errno: nil, operation: operation, address: address, detail: "injected fault at transaction \(index)")
        }
        if disconnected || address != options.address {
            return I2CError(.noAcknowledge, operation: operation, address: address, detail: "no simulated device at \(address)")
        }
        if resetUntil != nil && options.nacksDuringReset {
            return I2CError(.noAcknowledge, operation: operation, address: address, detail: "the chip is resetting")
        }
        return nil
    }

    func record(_ transaction: BusTransaction) {
        if keepsTrace { trace.append(transaction) }
    }
}
