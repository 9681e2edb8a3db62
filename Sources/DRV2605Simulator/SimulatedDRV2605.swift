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
    public internal(set) var registers: RegisterFile
    /// Every transaction, with its time and outcome.
    public internal(set) var trace: [BusTransaction] = []
    /// Keep the trace (on by default; benchmarks turn it off).
    public var keepsTrace = true
    /// What the actuator was driven with.
    public internal(set) var output = ActuatorRecord()
    /// Transactions seen so far (the index the next one will have).
    public internal(set) var transactionCount = 0
    /// Whether OTP was burnt.
    public internal(set) var otpProgrammed = false
    /// What OTP holds for 0x16-0x1A once burnt: a reset loads it.
    public internal(set) var otpValues: [UInt8] = []

    // Fault injection.
    var faultsByIndex: [Int: InjectedFault] = [:]
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
    public internal(set) var triggerPin = false

    // Internal state.
    enum Activity {
        case idle
        case sequence(end: ClockInstant)
        case routine(OperatingMode, end: ClockInstant)
    }
    var activity: Activity = .idle
    var resetUntil: ClockInstant?
    var readyAt: ClockInstant = .zero

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
    func beginTransaction(_ kind: BusTransaction.Kind, _ address: I2CAddress, _ bytes: [UInt8]) throws(I2CError) -> (ClockInstant, I2CError?) {
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

    /// The sequence playing was started by a GO write (not by IN/TRIG).
    var startedByGoWrite = false
}
