// SPDX-License-Identifier: Apache-2.0

import DRV2605
import HapticChip
import HapticEffects
import HardwareAccess
import HardwareSimulation

/// A register-accurate DRV2605 family chip on a virtual (or real) clock, as an `I2CBus`.
///
/// It models the chip from the register map up, not the driver's expectations: reset defaults
/// per part, read-only and clear-on-read bits, auto-increment bursts, self-clearing GO and
/// DEV_RESET, GO held for the effects and waits, standby, EN, IN/TRIG, real-time playback,
/// auto-calibration and diagnostics from an actuator model, and injected faults. It records every
/// transaction with its time and what the actuator was driven with. Time is evaluated lazily:
/// each transaction first brings the chip up to `clock.now`.
public final class SimulatedDRV2605: I2CBus {
    /// A fault to inject into one transaction.
    public enum InjectedFault: Sendable, Equatable {
        /// The transaction fails with this kind (NACK, EIO, …) and has no effect.
        case fail(I2CError.Kind)
        /// The transaction takes effect (a write lands, a read clears what it clears) but the
        /// master sees this error, as when the acknowledge of the last byte is lost. A driver that
        /// assumes a failed write changed nothing leaves the chip in whatever state it wrote.
        case ackLost(I2CError.Kind)
    }

    /// The time the chip lives in (a `VirtualClock` in tests).
    public let clock: any HapticClock
    /// Its behaviour where the datasheet is silent.
    public var options: Options
    /// The actuator on its outputs: resonance, back-EMF, shorts and opens for diagnostics.
    public var actuator: SimulatedActuator

    /// Registers 0x00–0x22.
    public private(set) var registers: RegisterFile
    /// Every transaction, with its time and outcome.
    public private(set) var trace: [BusTransaction] = []
    /// Keep the trace (on by default; benchmarks turn it off).
    public var keepsTrace = true
    /// What the actuator was driven with.
    public private(set) var output = ActuatorRecord()
    /// Transactions seen so far (the index the next one will have).
    public private(set) var transactionCount = 0
    /// Whether OTP was burnt.
    public private(set) var otpProgrammed = false
    /// What OTP holds for 0x16-0x1A once burnt: a reset loads it.
    public private(set) var otpValues: [UInt8] = []

    // Fault injection.
    private var faultsByIndex: [Int: InjectedFault] = [:]
    /// GO never clears (a stuck chip).
    public var goStuck = false
    /// The chip is gone from the bus: every transaction NACKs.
    public var disconnected = false
    /// Calibration reports failure even with a good actuator.
    public var calibrationFails = false

    // Pins.
    /// EN's level (high when no EN line was made).
    public internal(set) var enablePin = true
    /// IN/TRIG's level.
    public private(set) var triggerPin = false

    // Internal state.
    private enum Activity {
        case idle
        case sequence(end: ClockInstant)
        case routine(OperatingMode, end: ClockInstant)
    }
    private var activity: Activity = .idle
    private var resetUntil: ClockInstant?
    private var readyAt: ClockInstant = .zero

    /// A chip at its reset values, powered, with `actuator` on its outputs.
    public init(clock: any HapticClock, actuator: SimulatedActuator = .typicalLRA, options: Options = Options()) {
        self.clock = clock
        self.actuator = actuator
        self.options = options
        registers = options.part.resetValues
    }

    // MARK: - Test and fault controls

    /// Makes transaction number `index` (counting from 0 since creation) fail.
    public func injectFault(_ fault: InjectedFault, atTransaction index: Int) { faultsByIndex[index] = fault }
    /// Makes the next transaction fail.
    public func injectFaultOnNextTransaction(_ fault: InjectedFault) { faultsByIndex[transactionCount] = fault }
    /// Forgets injected faults that have not fired.
    public func clearFaults() { faultsByIndex.removeAll() }
    /// Latches OC_DETECT and stops the output, as the chip does on a short.
    public func raiseOverCurrent() { latchFault(\.overCurrent) }
    /// Latches OVER_TEMP and stops the output.
    public func raiseOverTemperature() { latchFault(\.overTemperature) }
    /// Resets the chip now (a brown-out): every register back to its default, output stopped.
    public func resetNow() {
        advance()
        completeReset(at: clock.now)
    }
    /// Forgets the transactions recorded so far.
    public func clearTrace() { trace.removeAll(keepingCapacity: true) }
    /// Forgets what the actuator was driven with so far.
    public func clearOutput() { output.clear() }

    /// The EN pin. Low stops the output; high again clears the fault latches
    /// (`shutdownClearsFaults`), and with `registersSurviveShutdown` off resets every register.
    public func setEnablePin(_ high: Bool) {
        advance()
        let now = clock.now
        if enablePin && !high { stopOutput(at: now) }
        if !enablePin && high && !options.registersSurviveShutdown { registers = options.part.resetValues }
        if !enablePin && high && options.shutdownClearsFaults {
            registers[StatusRegister.self].overCurrent = false
            registers[StatusRegister.self].overTemperature = false
        }
        enablePin = high
    }

    /// The IN/TRIG pin: in edge mode a rising edge starts (or, while GO is set, cancels) the
    /// sequence; in level mode GO follows the pin.
    public func setTriggerPin(_ high: Bool) {
        advance()
        let rising = high && !triggerPin
        let falling = !high && triggerPin
        triggerPin = high
        switch registers[ModeRegister.self].mode {
        case .externalEdgeTrigger where rising:
            if goSet { stopOutput(at: clock.now) } else { startGo(at: clock.now) }
        case .externalLevelTrigger:
            if rising && !goSet { startGo(at: clock.now) }
            if falling && goSet { stopOutput(at: clock.now) }
        default: break
        }
    }

    /// Brings the chip's state up to `clock.now` (done before every transaction).
    public func advance() {
        let now = clock.now
        if let until = resetUntil, now >= until {
            resetUntil = nil
            completeReset(at: until)
        }
        switch activity {
        case .idle: break
        case let .sequence(end):
            if now >= end && !goStuck { finishGo(at: end) }
        case let .routine(kind, end):
            if now >= end && !goStuck { finishRoutine(kind, at: end) }
        }
    }

    // MARK: - I2CBus

    /// A register write (auto-incrementing from the first byte's register), with its effects.
    public func write(to address: I2CAddress, _ bytes: [UInt8]) throws(I2CError) {
        let (now, lostAcknowledge) = try beginTransaction(.write, address, bytes)
        record(BusTransaction(time: now, kind: .write, address: address, written: bytes, read: [], error: lostAcknowledge?.kind))
        if let start = bytes.first {
            for (offset, value) in bytes.dropFirst().enumerated() {
                guard Int(start) + offset <= Int(Register.last),
                    let register = Register(rawValue: start + UInt8(offset))
                else { break }
                writeRegister(register, value, at: now)
            }
        }
        if let lostAcknowledge { throw lostAcknowledge }
    }

    /// A register read (auto-incrementing), with the clear-on-read STATUS bits cleared.
    public func writeRead(to address: I2CAddress, _ bytes: [UInt8], count: Int) throws(I2CError) -> [UInt8] {
        let (now, lostAcknowledge) = try beginTransaction(.writeRead, address, bytes)
        let start = Int(bytes.last ?? 0)
        var result: [UInt8] = []
        result.reserveCapacity(count)
        for offset in 0..<count {
            let address = start + offset
            result.append(address <= Int(Register.last) ? registers[address: UInt8(address)] ?? 0 : 0)
            if address == Int(Register.status.rawValue) {
                registers[.status] &= ~options.statusClearedOnRead
            }
        }
        record(BusTransaction(time: now, kind: .writeRead, address: address, written: bytes, read: result, error: lostAcknowledge?.kind))
        if let lostAcknowledge { throw lostAcknowledge }
        return result
    }

    /// Brings the chip up to now, numbers the transaction and fails it if a fault says so. An
    /// `.ackLost` fault is returned instead, to be thrown once the transaction has taken effect.
    private func beginTransaction(_ kind: BusTransaction.Kind, _ address: I2CAddress, _ bytes: [UInt8]) throws(I2CError) -> (ClockInstant, I2CError?) {
        advance()
        let now = clock.now
        let index = transactionCount
        transactionCount += 1
        let operation = kind == .write ? "write to \(address)" : "read from \(address)"
        if case let .ackLost(lostKind)? = faultsByIndex[index], !disconnected, address == options.address, resetUntil == nil {
            faultsByIndex[index] = nil
            return (
                now,
                I2CError(
                    lostKind, errno: nil, operation: operation, address: address,
                    detail: "injected fault at transaction \(index): it took effect, its acknowledge was lost")
            )
        }
        if let error = transactionError(index: index, address: address, operation: operation) {
            record(BusTransaction(time: now, kind: kind, address: address, written: bytes, read: [], error: error.kind))
            throw error
        }
        return (now, nil)
    }

    // MARK: - Register semantics

    private var goSet: Bool { registers[GoRegister.self].go }
    /// The sequence playing was started by a GO write (not by IN/TRIG).
    private var startedByGoWrite = false
    private var standby: Bool { registers[ModeRegister.self].standby }
    /// The drive RTP_INPUT asks for under the current format and loop (`ChipModel.realTimeDrive`).
    private var realTimeDrive: Double {
        let control3 = registers[Control3Register.self]
        let isLRA = registers[FeedbackControlRegister.self].isLRA
        return ChipModel.realTimeDrive(
            input: registers[.realTimePlaybackInput], unsigned: control3.unsignedRTP,
            openLoop: isLRA ? control3.lraOpenLoop : control3.ermOpenLoop,
            bidirectional: registers[Control2Register.self].bidirectionalInput)
    }

    private func writeRegister(_ register: Register, _ value: UInt8, at now: ClockInstant) {
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
        default:
            registers[register] = value
        }
    }

    private func writeMode(_ mode: ModeRegister, at now: ClockInstant) {
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

    private func refreshRealTimeOutput(at now: ClockInstant) {
        let mode = registers[ModeRegister.self]
        guard mode.mode == .realTimePlayback, !mode.standby, enablePin, actuator.connected else {
            if case .idle = activity { output.set(0, at: now) }
            return
        }
        output.set(realTimeDrive, at: max(now, readyAt))
        registers[.supplyVoltage] = vbatReading
        if realTimeDrive != 0 { measureResonance() }
    }

    /// LRA_PERIOD while driving, in any drive mode: measured only in LRA mode, from an LRA that
    /// moves, in closed loop (ChipModel).
    private func measureResonance() {
        let closedLoop = !registers[Control3Register.self].lraOpenLoop || !ChipModel.lraPeriodOnlyInClosedLoop
        if actuator.type == .lra && actuator.connected && !actuator.shorted && registers[FeedbackControlRegister.self].isLRA && closedLoop {
            registers[.lraResonancePeriod] = periodField
        }
    }

    private var vbatReading: UInt8 { ChipModel.supplyReading(volts: actuator.supplyVolts) }

    private func startGo(at now: ClockInstant) {
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

    private func playSequence(from start: ClockInstant) {
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

    private var periodField: UInt8 { ChipModel.periodField(hz: actuator.resonantHz) }

    /// GO cleared by the end of the sequence: the planned drive already ends at zero.
    private func finishGo(at time: ClockInstant) {
        registers[GoRegister.self].go = false
        activity = .idle
        if options.part == .drv2605 && options.nonLPartLosesSequenceRegisters && startedByGoWrite {
            registers[.mode] = 0
            registers[.librarySelection] = 0
            registers[.waveformSequence1] = 0
        }
    }

    /// GO cleared early (a GO = 0 write, a second edge, standby, EN low, a reset): drive stops now.
    private func stopOutput(at now: ClockInstant) {
        registers[GoRegister.self].go = false
        activity = .idle
        output.set(0, at: now)
    }

    private func finishRoutine(_ kind: OperatingMode, at time: ClockInstant) {
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

    private func completeReset(at time: ClockInstant) {
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

    private func latchFault(_ flag: WritableKeyPath<StatusRegister, Bool>) {
        advance()
        registers[StatusRegister.self][keyPath: flag] = true
        stopOutput(at: clock.now)
    }

    private func transactionError(index: Int, address: I2CAddress, operation: String) -> I2CError? {
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

    private func record(_ transaction: BusTransaction) {
        if keepsTrace { trace.append(transaction) }
    }
}
