// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HardwareAccess

/// A Dialog (Renesas) DA7280 haptic driver on I2C, as the engine's `HapticChipDriver`.
///
/// Start-up reads CHIP_REV (0xBA), stops whatever the chip was doing, writes the actuator
/// (FRQ_LRA_PER, ACTUATOR1-3 and CALIB_V2I in one burst), the drive loops (TOP_CFG1) and clears
/// the latched events, leaving the chip in IDLE, its low-power state. The stream is the chip's
/// direct register override (DRO): OPERATION_MODE 1 and the level in TOP_CTL2, one two-byte
/// write per level. The chip's waveform memory is not used yet: every feedback streams.
///
/// Power: the DA7280 has no enable pin; `standby` is IDLE (STANDBY_EN 0), `ready` is STANDBY
/// (STANDBY_EN 1), the chip's name for ready-to-drive. Not thread-safe: the engine serializes.
public final class DA7280Driver: HapticChipDriver {
    /// Timings.
    public struct Options: Sendable {
        /// From IDLE to ready. Not in our notes of the datasheet: ours, generous.
        public var wakeDelay: Duration = .milliseconds(1)
        /// How often the engine reads the events while something plays.
        public var pollInterval: Duration = .milliseconds(10)
        /// The chip's defaults.
        public init() {}
    }

    /// The bus the chip is on.
    public let bus: any I2CBus
    /// Its address (0x4A on SparkFun's board).
    public let address: I2CAddress
    /// What it drives.
    public let actuator: DA7280Actuator
    public let clock: any HapticClock
    public let options: Options

    public private(set) var power: HapticPowerState = .standby
    public private(set) var readyInstant: ClockInstant
    /// The DA7280 has no enable pin: standby (IDLE) is its lowest state.
    public var canShutDown: Bool { false }
    public private(set) var isStreaming = false
    public var pollInterval: Duration { options.pollInterval }
    /// Not detected on this chip yet.
    public private(set) var resetsDetected = 0
    public private(set) var suppressedErrors = 0
    /// The events read at the last status, kept for people (`lastEvents.description`).
    public private(set) var lastEvents: DA7280Register.Event = []
    private var started = false
    private var lastOverride: UInt8 = 0
    /// OVERRIDE_VAL for level 1: the rated voltage (`DA7280Equations.overrideFullScale`).
    public private(set) var overrideFullScale: UInt8 = 127

    /// A driver for the chip at `address` on `bus`; nothing is sent before `start()`.
    public init(bus: any I2CBus, address: I2CAddress = .da7280, actuator: DA7280Actuator, clock: any HapticClock, options: Options = Options()) {
        self.bus = bus
        self.address = address
        self.actuator = actuator
        self.clock = clock
        self.options = options
        readyInstant = clock.now
    }

    /// Checks the chip is a DA7280, stops it, configures the actuator and leaves it in IDLE.
    /// Throws `unknownDevice` for anything else at the address and `invalidConfiguration` for an
    /// actuator the chip cannot drive (before anything is written).
    public func start() throws(HapticChipError) {
        let registers = try actuator.registers()
        let revision = try read(.chipRevision, count: 1)[0]
        guard revision == DA7280Register.da7280Revision else {
            throw .unknownDevice(
                "CHIP_REV reads 0x\(hex(revision)) at \(address) (a DA7280 reads 0x\(hex(DA7280Register.da7280Revision))); "
                    + "a DRV2605 answers at 0x5A, not here")
        }
        try write(.topControl1, [0])
        try write(.lraPeriodHigh, registers.burst())
        try write(.topConfiguration1, [Self.topConfiguration1(for: actuator.kind).rawValue])
        if actuator.kind == .ermCoin {
            // A coin ERM gives no usable back-EMF: freeze the V2I factor, skip the impedance
            // check, and no back-EMF fault limit (as Linux's driver does for it).
            try write(.topConfiguration4, [0xC0])
            try write(.topInternalConfiguration1, [0])
        }
        try write(.irqEvent1, [0xFF])
        overrideFullScale = DA7280Equations.overrideFullScale(
            nominalMaximum: registers.nominalMaximum, absoluteMaximum: registers.absoluteMaximum,
            acceleration: Self.topConfiguration1(for: actuator.kind).contains(.acceleration))
        power = .standby
        isStreaming = false
        lastOverride = 0
        started = true
    }

    /// TOP_CFG1 for an actuator: an LRA with back-EMF sensing, resonance tracking, acceleration
    /// and rapid stop; a bar ERM without the tracking; a coin ERM with none of them.
    public static func topConfiguration1(for kind: DA7280Actuator.Kind) -> DA7280Register.TopConfiguration1 {
        switch kind {
        case .lra: return [.backEMFSense, .frequencyTracking, .acceleration, .rapidStop]
        case .ermBar: return [.ermActuator, .backEMFSense, .acceleration, .rapidStop]
        case .ermCoin: return [.ermActuator]
        }
    }

    // MARK: - Power

    public func wake() throws(HapticChipError) {
        try requireStarted()
        guard power != .ready else { return }
        try write(.topControl1, [DA7280Register.TopControl1(mode: .inactive, standbyEnabled: true).rawValue])
        power = .ready
        readyInstant = clock.now.advanced(by: options.wakeDelay)
    }

    public func enterStandby() throws(HapticChipError) {
        try requireStarted()
        try write(.topControl1, [0])
        power = .standby
        isStreaming = false
    }

    /// Standby: there is no enable pin to go lower.
    public func shutdown() throws(HapticChipError) { try enterStandby() }

    // MARK: - Stopping

    /// OPERATION_MODE inactive first (the drive stops), then the override level to zero, in one
    /// transaction (TOP_CTL1 and TOP_CTL2 are neighbours).
    public func stop() throws(HapticChipError) {
        try requireStarted()
        let control = DA7280Register.TopControl1(mode: .inactive, standbyEnabled: power == .ready)
        try write(.topControl1, [control.rawValue, 0])
        lastOverride = 0
        isStreaming = false
    }

    public func stopQuietly() {
        guard started else { return }
        do {
            try write(.topControl1, [0, 0])
            power = .standby
        } catch {
            suppressedErrors += 1
            do { try write(.topControl1, [0]) } catch { suppressedErrors += 1 }
            power = .standby
        }
        lastOverride = 0
        isStreaming = false
    }

    // MARK: - The stream (DRO)

    /// DRO mode with STANDBY_EN and a zero level, in one transaction.
    public func beginRealTimePlayback() throws(HapticChipError) {
        try requireStarted()
        let waking = power != .ready
        try write(.topControl1, [DA7280Register.TopControl1(mode: .directRegisterOverride, standbyEnabled: true).rawValue, 0])
        if waking { readyInstant = clock.now.advanced(by: options.wakeDelay) }
        power = .ready
        lastOverride = 0
        isStreaming = true
    }

    /// TOP_CTL2 = the level × `overrideFullScale` (level 1 is the rated voltage: 0x7F with
    /// acceleration, 127 × NOMMAX / ABSMAX without; negative levels drive 0: the chip's own rapid
    /// stop brakes). A level the chip already has is not written again.
    public func setRealTime(amplitude: Double) throws(HapticChipError) {
        guard isStreaming else { throw .invalidArgument("setRealTime outside real-time playback: call beginRealTimePlayback() first") }
        let value = DA7280Equations.overrideValue(level: amplitude, fullScale: overrideFullScale)
        guard value != lastOverride else { return }
        try write(.topControl2, [value])
        lastOverride = value
    }

    /// Inactive and zero level in one transaction, IDLE too when `standby`.
    public func endRealTimePlayback(standby: Bool) throws(HapticChipError) {
        try requireStarted()
        try write(.topControl1, [DA7280Register.TopControl1(mode: .inactive, standbyEnabled: !standby).rawValue, 0])
        if standby { power = .standby }
        lastOverride = 0
        isStreaming = false
    }

    // MARK: - Status

    /// IRQ_EVENT1 through IRQ_STATUS1 in one read. Nothing plays by itself on this driver yet
    /// (no waveform memory), so `playing` is false; the faults are the latched events that hold
    /// the chip idle until cleared (over-current, actuator, critical over-temperature, sequence
    /// and under-voltage: datasheet §5.6.6), and E_WARNING is a warning: the chip still drives.
    public func playbackStatus() throws(HapticChipError) -> HapticChipStatus {
        try requireStarted()
        let bytes = try read(.irqEvent1, count: 4)
        let events = DA7280Register.Event(rawValue: bytes[0])
        lastEvents = events
        return HapticChipStatus(
            playing: false, overCurrent: events.contains(.overCurrent), overTemperature: events.contains(.overTemperatureCritical),
            actuatorFault: events.contains(.actuatorFault), underVoltage: events.contains(.underVoltage),
            sequenceFault: events.contains(.sequenceFault), warning: events.contains(.warning))
    }

    /// Inactive and IDLE first (so a fault does not fire again at once, as Linux's driver does),
    /// then the latched events cleared by writing 1s. The configuration is not lost on a fault.
    public func clearFaults() throws(HapticChipError) {
        try requireStarted()
        try write(.topControl1, [0, 0])
        try write(.irqEvent1, [0xFF])
        power = .standby
        isStreaming = false
        lastOverride = 0
    }

    public func finishPlayback() throws(HapticChipError) {}

    /// TOP_CTL1 and TOP_CTL2 as the chip has them.
    public func readBack() throws(HapticChipError) -> HapticChipReadBack {
        try requireStarted()
        let bytes = try read(.topControl1, count: 2)
        let control = DA7280Register.TopControl1(rawValue: bytes[0])
        let driving = control.mode != .inactive && (control.mode != .directRegisterOverride || bytes[1] != 0)
        return HapticChipReadBack(
            standby: !control.standbyEnabled, driving: driving,
            details: [
                "operationMode": .int(Int(control.mode.rawValue)), "standbyEnabled": .bool(control.standbyEnabled),
                "overrideValue": .int(Int(bytes[1]))
            ])
    }

    // MARK: - Bus

    private func requireStarted() throws(HapticChipError) {
        guard started else { throw .notStarted }
    }

    private func write(_ register: DA7280Register, _ values: [UInt8]) throws(HapticChipError) {
        do { try bus.write(to: address, [register.rawValue] + values) } catch { throw .bus(error) }
    }

    private func read(_ register: DA7280Register, count: Int) throws(HapticChipError) -> [UInt8] {
        let bytes: [UInt8]
        do { bytes = try bus.writeRead(to: address, [register.rawValue], count: count) } catch { throw .bus(error) }
        guard bytes.count == count else {
            throw .bus(I2CError(.busError, operation: "read of \(register)", address: address, detail: "got \(bytes.count) of \(count) bytes"))
        }
        return bytes
    }

    private func hex(_ value: UInt8) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return text.count == 1 ? "0" + text : text
    }
}
