// SPDX-License-Identifier: Apache-2.0

import DA7280
import HardwareAccess
import HardwareSimulation

/// A DA7280 on a virtual (or real) clock, as an `I2CBus`: the register file with its reset
/// values, read-only and write-one-to-clear registers, auto-incrementing bursts, the DRO drive,
/// the waveform memory played in RTWM, an actuator that can be shorted or open, and a supply that
/// can sag below the under-voltage lock-out (the chip latches the fault and stays idle until it
/// is cleared). The rules are `DA7280Model`'s. It records every transaction and what the actuator
/// was driven with.
public final class SimulatedDA7280: I2CBus {
    /// The time the chip lives in.
    public let clock: any HapticClock
    /// Where it answers (0x4A unless the board says otherwise).
    public let address: I2CAddress
    /// The 256 registers.
    public private(set) var registers: [UInt8] = DA7280Model.resetValues
    /// Every transaction, with its time and outcome.
    public private(set) var trace: [BusTransaction] = []
    /// Keep the trace (on by default; benchmarks turn it off).
    public var keepsTrace = true
    /// What the actuator was driven with.
    public private(set) var output = ActuatorRecord()
    /// The actuator's coil is shorted: driving it latches over-current.
    public var actuatorShorted = false
    /// The actuator is disconnected: driving it (with back-EMF sensing) latches an actuator fault.
    public var actuatorOpen = false
    /// The chip is gone from the bus: every transaction NACKs.
    public var disconnected = false
    /// VDD. Below `DA7280Model.underVoltageLockoutVolts` the chip latches E_UVLO, shows it in
    /// IRQ_STATUS1 and stops driving until the event is cleared (with the supply back up).
    public var supplyVolts = 3.3 {
        didSet { applySupply(at: clock.now) }
    }

    /// When the sequence the waveform memory plays ends (nil: none plays).
    public private(set) var sequenceEnd: ClockInstant?

    /// The level changes of the last sequence SEQ_START began (milliseconds from its start,
    /// fractions of NOMMAX, as `DA7280Model.sequencePlayback` gives them); empty when the last
    /// start faulted. The kernel fixture's `sequence_timeline` shows the same.
    public private(set) var lastSequence: [(milliseconds: Double, level: Double)] = []

    /// A chip just powered on, at `address`.
    public init(clock: any HapticClock, address: I2CAddress = .da7280) {
        self.clock = clock
        self.address = address
    }

    /// The chip latches `events` as its own monitors would (a supply sag, heat, a sequence it
    /// could not play): each is set in IRQ_EVENT1, and one that stops the drive
    /// (`DA7280Register.Event.stopsDriving`) holds the chip idle until it is cleared (datasheet §5.6.6).
    public func raise(_ events: DA7280Register.Event) {
        registers[Int(DA7280Register.irqEvent1.rawValue)] |= events.rawValue
        haltSequenceOnFault(at: clock.now)
        if sequenceEnd == nil { output.set(drive, at: clock.now) }
    }

    /// A power-on reset, as a brown-out or a re-plug makes one: every register, the waveform
    /// memory among them, back to its power-on value, and the drive stopped [DS §5.1].
    public func powerOnReset() {
        registers = DA7280Model.resetValues
        sequenceEnd = nil
        output.set(0, at: clock.now)
    }

    /// What the outputs drive now, in volts: `drive` times the NOMMAX the chip holds now (a reset
    /// chip's is its power-on 0x5A, 2.106 V, whatever the actuator is rated for).
    public var driveVolts: Double { drive * Double(self[.actuatorNominalMaximum]) * DA7280Equations.voltsPerStep }

    /// What IRQ_EVENT_WARNING_DIAG says caused E_WARNING (`raise(.warning)`): the chip's own
    /// monitors set it; a write cannot [DS T22].
    public func setWarningDiagnosis(_ causes: UInt8) {
        registers[Int(DA7280Register.irqEventWarningDiagnostics.rawValue)] = causes
    }

    /// A register by name.
    public subscript(register: DA7280Register) -> UInt8 { registers[Int(register.rawValue)] }

    /// The drive the registers ask for now, in units of the rated voltage (`DA7280Model.drive`).
    public var drive: Double { DA7280Model.drive(registers) }

    // MARK: - I2CBus

    /// A write from the first byte's register on (auto-increment), each byte by the model's rules.
    public func write(to address: I2CAddress, _ bytes: [UInt8]) throws(I2CError) {
        let now = clock.now
        try check(address, .write, bytes, at: now)
        record(BusTransaction(time: now, kind: .write, address: address, written: bytes, read: [], error: nil))
        finishSequence(at: now)
        guard let start = bytes.first else { return }
        let control = DA7280Register.TopControl1(rawValue: self[.topControl1])
        for (offset, value) in bytes.dropFirst().enumerated() {
            let index = Int(start) + offset
            guard index < registers.count else { break }
            DA7280Model.write(value, to: UInt8(index), in: &registers)
        }
        applySupply(at: now)
        applySequenceControl(from: control, at: now)
        update(at: now)
    }

    /// A read from the register written first (auto-increment).
    public func writeRead(to address: I2CAddress, _ bytes: [UInt8], count: Int) throws(I2CError) -> [UInt8] {
        let now = clock.now
        try check(address, .writeRead, bytes, at: now)
        finishSequence(at: now)
        let start = Int(bytes.last ?? 0)
        let result = (0..<count).map { start + $0 < registers.count ? registers[start + $0] : 0 }
        record(BusTransaction(time: now, kind: .writeRead, address: address, written: bytes, read: result, error: nil))
        return result
    }

    // MARK: - Behaviour

    /// E_SEQ_DONE once the playing sequence's time is over [DS T21]; SEQ_START stays as written
    /// (ours: no source says the chip clears it).
    private func finishSequence(at now: ClockInstant) {
        guard let end = sequenceEnd, now >= end else { return }
        sequenceEnd = nil
        registers[Int(DA7280Register.irqEvent1.rawValue)] |= DA7280Register.Event.sequenceDone.rawValue
    }

    /// SEQ_START rising in RTWM plays PS_SEQ_ID from the waveform memory (`DA7280Model.sequencePlayback`),
    /// warning E_MEM_TYPE first when the data type does not match (`DA7280Model.memoryTypeMismatch`),
    /// or latches E_SEQ_FAULT with its diagnosis; leaving RTWM or clearing SEQ_START stops it [DS §5.6.5].
    private func applySequenceControl(from old: DA7280Register.TopControl1, at now: ClockInstant) {
        let control = DA7280Register.TopControl1(rawValue: self[.topControl1])
        let running = control.mode == .registerTriggeredWaveform && control.sequenceStart
        if sequenceEnd != nil, !running {
            sequenceEnd = nil
            output.set(0, at: now)
        }
        let wasRunning = old.mode == .registerTriggeredWaveform && old.sequenceStart
        guard running, !wasRunning, DA7280Register.Event(rawValue: self[.irqEvent1]).isDisjoint(with: .stopsDriving) else { return }
        if DA7280Model.memoryTypeMismatch(registers) {
            registers[Int(DA7280Register.irqEvent1.rawValue)] |= DA7280Register.Event.warning.rawValue
            registers[Int(DA7280Register.irqEventWarningDiagnostics.rawValue)] |= DA7280Register.Warning.memoryType.rawValue
        }
        switch DA7280Model.sequencePlayback(registers) {
        case let .success(playback):
            lastSequence = playback.changes
            output.plan(playback.changes.map { ActuatorRecord.Sample(time: now.advanced(by: .microseconds(Int64(($0.milliseconds * 1000).rounded()))), level: $0.level) })
            sequenceEnd = now.advanced(by: .microseconds(Int64((playback.milliseconds * 1000).rounded())))
        case let .failure(fault):
            lastSequence = []
            registers[Int(DA7280Register.irqEvent1.rawValue)] |= DA7280Register.Event.sequenceFault.rawValue
            registers[Int(DA7280Register.irqEventSequenceDiagnostics.rawValue)] |= fault.diagnosis
        }
    }

    /// A fault holds the chip idle: a playing sequence stops [DS §5.6.6].
    private func haltSequenceOnFault(at now: ClockInstant) {
        guard sequenceEnd != nil, !DA7280Register.Event(rawValue: self[.irqEvent1]).isDisjoint(with: .stopsDriving) else { return }
        sequenceEnd = nil
        output.set(0, at: now)
    }

    /// Applies the drive the registers now ask for, and a fault if the actuator has one.
    private func update(at now: ClockInstant) {
        haltSequenceOnFault(at: now)
        if sequenceEnd != nil {
            // The memory drives: an actuator fault shows as soon as it does.
            let fault = DA7280Model.faultEvent(
                actuatorShorted: actuatorShorted, actuatorOpen: actuatorOpen,
                backEMFSense: DA7280Register.TopConfiguration1(rawValue: self[.topConfiguration1]).contains(.backEMFSense))
            guard !fault.isEmpty else { return }
            registers[Int(DA7280Register.irqEvent1.rawValue)] |= fault.rawValue
            registers[Int(DA7280Register.irqStatus1.rawValue)] |= fault.rawValue
            haltSequenceOnFault(at: now)
            return
        }
        var level = drive
        let fault = DA7280Model.faultEvent(
            actuatorShorted: actuatorShorted, actuatorOpen: actuatorOpen,
            backEMFSense: DA7280Register.TopConfiguration1(rawValue: self[.topConfiguration1]).contains(.backEMFSense))
        if level != 0, !fault.isEmpty {
            registers[Int(DA7280Register.irqEvent1.rawValue)] |= fault.rawValue
            registers[Int(DA7280Register.irqStatus1.rawValue)] |= fault.rawValue
            level = 0
        } else if level != 0 {
            registers[Int(DA7280Register.irqStatus1.rawValue)] &= ~DA7280Model.actuatorConditions.rawValue
        }
        output.set(level, at: now, hz: DA7280Model.driveHz(registers))
    }

    /// E_UVLO latched and shown in IRQ_STATUS1 while VDD is below the lock-out; the status bit
    /// follows the supply, the event stays until it is cleared.
    private func applySupply(at now: ClockInstant) {
        let status = Int(DA7280Register.irqStatus1.rawValue)
        if supplyVolts < DA7280Model.underVoltageLockoutVolts {
            registers[status] |= DA7280Register.Event.underVoltage.rawValue
            registers[Int(DA7280Register.irqEvent1.rawValue)] |= DA7280Register.Event.underVoltage.rawValue
        } else {
            registers[status] &= ~DA7280Register.Event.underVoltage.rawValue
        }
        haltSequenceOnFault(at: now)
        if sequenceEnd == nil { output.set(drive, at: now, hz: DA7280Model.driveHz(registers)) }
    }

    private func check(_ address: I2CAddress, _ kind: BusTransaction.Kind, _ bytes: [UInt8], at now: ClockInstant) throws(I2CError) {
        guard disconnected || address != self.address else { return }
        let error = I2CError(
            .noAcknowledge, operation: kind == .write ? "write to \(address)" : "read from \(address)", address: address,
            detail: disconnected ? "the simulated DA7280 is disconnected" : "no simulated device at this address")
        record(BusTransaction(time: now, kind: kind, address: address, written: bytes, read: [], error: error.kind))
        throw error
    }

    private func record(_ transaction: BusTransaction) {
        if keepsTrace { trace.append(transaction) }
    }
}
