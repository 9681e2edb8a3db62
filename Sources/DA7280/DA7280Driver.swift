// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HardwareAccess

/// A Dialog (Renesas) DA7280 haptic driver on I2C, as the engine's `HapticChipDriver`.
///
/// Start-up (`start()`) checks the chip and its supply, writes the actuator and sets the fields
/// the datasheet asks for per actuator kind by read-modify-write, and clears the latched events,
/// leaving the chip in IDLE, its low-power state. The stream is the chip's direct register
/// override (DRO): the first level, then OPERATION_MODE 1, then one two-byte write per level.
/// Feedbacks given in `Options.storedFeedbacks` are written into the chip's waveform memory at
/// start-up and played from there (RTWM: the sequence selected at prepare, one write to
/// trigger); patterns and everything the memory does not hold stream.
///
/// Sources are tagged: [DS §/T] the DA7280 datasheet rev 3.0, [Linux] its `da7280` driver,
/// [SparkFun] SparkFun's Arduino library; where they disagree the datasheet wins.
///
/// Power: the DA7280 has no enable pin; `standby` is IDLE (STANDBY_EN 0), `ready` is STANDBY
/// (STANDBY_EN 1), the chip's name for ready-to-drive. Not thread-safe: the engine serializes.
public final class DA7280Driver: HapticChipDriver {
    /// Timings.
    public struct Options: Sendable {
        /// From IDLE to ready: the datasheet gives about 0.75 ms from a request in IDLE to the
        /// drive, 0.15 ms from STANDBY [DS T8]; 1 ms covers it.
        public var wakeDelay: Duration = .milliseconds(1)
        /// How often the engine reads the events while something plays.
        public var pollInterval: Duration = .milliseconds(10)
        /// Feedbacks to keep in the chip's waveform memory, most wanted first: start-up writes
        /// as many as it holds (`DA7280StoredFeedbacks`), and each then plays on one trigger.
        /// Empty: nothing is written there and every feedback streams.
        public var storedFeedbacks: [(name: String, envelope: DriveEnvelope)] = []
        /// The chip's defaults.
        public init() {}
    }

    /// What stops the chip from another process after this one died (`ChipClaim.stopWrites`, a
    /// dead-man guard's): TOP_CTL1 and TOP_CTL2 zero in one write (inactive, IDLE, no override).
    public static let stopWrites: [[UInt8]] = [[DA7280Register.topControl1.rawValue, 0, 0]]

    /// The bus the chip is on.
    public let bus: any I2CBus
    /// Its address (0x4A on SparkFun's board).
    public let address: I2CAddress
    /// What it drives.
    public let actuator: DA7280Actuator
    public let clock: any HapticClock
    public let options: Options

    public internal(set) var power: HapticPowerState = .standby
    public internal(set) var readyInstant: ClockInstant
    /// The DA7280 has no enable pin: standby (IDLE) is its lowest state.
    public var canShutDown: Bool { false }
    public internal(set) var isStreaming = false
    public var pollInterval: Duration { options.pollInterval }
    /// Power-on resets (a brown-out, the board re-plugged) found behind the driver's back and
    /// repaired: the configuration and waveform memory written again before the next drive
    /// (`checkForReset()`).
    public internal(set) var resetsDetected = 0
    /// Warnings the chip raised (E_WARNING, by its diagnosis: drive limited, over-temperature
    /// warning, memory data type mismatch), each counted once when read and cleared.
    public internal(set) var warningsSeen: [DA7280Register.Warning: Int] = [:]
    public internal(set) var suppressedErrors = 0
    /// The events read at the last status, kept for people (`lastEvents.description`).
    public internal(set) var lastEvents: DA7280Register.Event = []
    /// IRQ_EVENT_WARNING_DIAG and IRQ_EVENT_SEQ_DIAG at the last status: why E_WARNING or
    /// E_SEQ_FAULT was raised (cleared with them).
    public internal(set) var lastWarningDiagnosis: UInt8 = 0
    public internal(set) var lastSequenceDiagnosis: UInt8 = 0
    var started = false
    /// DRO mode is on (the stream's first level was written).
    var driving = false
    var lastOverride: UInt8 = 0
    /// What start-up wrote that a power-on reset changes back (`checkForReset()` compares what it
    /// reads with it); nil before start-up.
    var written: DA7280WrittenConfiguration?
    /// The configuration registers start-up wrote (nil before it): what a stream at a fixed
    /// frequency changes and gives back (`setDriveFrequency`).
    var configured: DA7280Configuration?
    /// The actuator registers start-up wrote (nil before it).
    var writtenActuator: DA7280ActuatorRegisters?
    /// The frequency the stream is driven at with tracking off (nil: tracking, at resonance).
    var fixedFrequency: Double?
    /// The level the stream was last asked for (before any making up for the frequency).
    var lastAmplitude = 0.0
    /// The actuator's rated drive-frequency band (`driveFrequencyBand`), worked out once: the
    /// actuator is fixed, and the band is asked for at every update of a sharp stream.
    let ratedBand: DriveFrequencyBand?
    /// OVERRIDE_VAL for level 1: the rated voltage (`DA7280Equations.overrideFullScale`).
    public internal(set) var overrideFullScale: UInt8 = 127
    /// What start-up wrote into the waveform memory (nil: nothing, see `memoryNote`).
    public internal(set) var stored: DA7280StoredFeedbacks?
    /// Why the waveform memory holds nothing of ours, when `storedFeedbacks` asked for some.
    public internal(set) var memoryNote: String?
    /// `stored`'s sequences by the levels of their clips at one tick length (`storedWaveform`).
    var storedLevels: (tick: Duration, table: [[Double]: Int])?
    /// PS_SEQ_ID as last written (nil: unknown).
    var selectedSequence: Int?
    /// TOP_CTL1 is RTWM with STANDBY_EN: one write of SEQ_START plays the selected sequence.
    var armed = false
    /// A sequence was started and has not been finished.
    var memoryPlaying = false

    /// A driver for the chip at `address` on `bus`; nothing is sent before `start()`.
    public init(bus: any I2CBus, address: I2CAddress = .da7280, actuator: DA7280Actuator, clock: any HapticClock, options: Options = Options()) {
        self.bus = bus
        self.address = address
        self.actuator = actuator
        self.clock = clock
        self.options = options
        readyInstant = clock.now
        ratedBand = Self.resonantResponse(of: actuator).map { DriveFrequencyBand.rated($0) }
    }

    /// Checks the chip is a DA7280 with a supply above its under-voltage lock-out, stops it,
    /// configures the actuator and leaves it in IDLE. Throws `unknownDevice` for anything else
    /// at the address, `underVoltage` when IRQ_STATUS1 says VDD is below the lock-out now, and
    /// `invalidConfiguration` for an actuator the chip cannot drive (before anything is written).
    ///
    /// The transactions: CHIP_REV read; IRQ_EVENT1 to IRQ_STATUS1 read; TOP_CTL1 = 0 (every
    /// field of it is this driver's); the actuator in one burst (from FRQ_LRA_PER for an LRA,
    /// from ACTUATOR1 for an ERM, whose period register keeps the chip's back-EMF sampling rate
    /// [DS T36]); TOP_CFG1 to TOP_INT_CFG1 read, and written back with the actuator's fields
    /// changed (`DA7280Configuration`); TOP_CFG5 likewise; the waveform memory, when
    /// `Options.storedFeedbacks` names feedbacks (`writeWaveformMemory()`: MEM_CTL1-2 read, the
    /// image in one burst); the latched events cleared by writing 1s to IRQ_EVENT1 (a
    /// read-modify-write there would clear them all anyway [DS T21]).
    public func start() throws(HapticChipError) {
        let registers = try actuator.registers()
        let revision = try read(.chipRevision, count: 1)[0]
        guard revision == DA7280Register.da7280Revision else {
            throw .unknownDevice(
                "CHIP_REV reads 0x\(hex(revision)) at \(address) (a DA7280 reads 0x\(hex(DA7280Register.da7280Revision))); "
                    + "a DRV2605 answers at 0x5A, not here")
        }
        let events = try read(.irqEvent1, count: 4)
        lastEvents = DA7280Register.Event(rawValue: events[0])
        if DA7280Register.Event(rawValue: events[3]).contains(.underVoltage) { throw .underVoltage }
        try configure(registers)
        power = .standby
        isStreaming = false
        driving = false
        lastOverride = 0
        armed = false
        memoryPlaying = false
        started = true
    }

    /// Everything start-up writes, from an inactive chip to the latched events cleared: the same
    /// after a power-on reset. Every bit the driver relies on is written; read-modify-write only
    /// where a register holds bits it does not own.
    ///
    /// - TOP_CTL1 = 0: every field of it is the driver's.
    /// - IRQ_MASK1's SEQ_CONTINUE_M set: the mark a reset clears (`DA7280WrittenConfiguration`).
    /// - CIF_I2C1's I2C_WR_MODE made 0 (auto-increment) if it is not, before the first burst:
    ///   in page mode every burst below would land in one register.
    /// - The actuator in one burst, then TOP_CFG1-TOP_INT_CFG1 and TOP_CFG5 by
    ///   `DA7280Configuration`, SEQ_CTL1's three fields cleared (memory timebase 5.44 ms, no
    ///   custom waveform generator, no SEQ_CONTINUE), the waveform memory, IRQ_EVENT1 cleared.
    func configure(_ registers: DA7280ActuatorRegisters) throws(HapticChipError) {
        try write(.topControl1, [0])
        let interfaceAndMask = try read(.irqMask1, count: 2)  // IRQ_MASK1, CIF_I2C1
        let mask = interfaceAndMask[0] | DA7280Register.sequenceContinueMask
        // IRQ_MASK1 alone first: a page-mode chip takes a one-byte write as well as any.
        if mask != interfaceAndMask[0] { try write(.irqMask1, [mask]) }
        if interfaceAndMask[1] & DA7280Register.i2cWriteModePage != 0 {
            try write(.controlInterfaceI2C1, [interfaceAndMask[1] & ~DA7280Register.i2cWriteModePage])
        }
        try write(registers.burstStart, registers.burst())
        let held = try read(.topConfiguration1, count: 5)  // TOP_CFG1, TOP_CFG2, TOP_CFG3, TOP_CFG4, TOP_INT_CFG1
        let fifth = try read(.topConfiguration5, count: 1)[0]
        let old = DA7280Configuration(
            topConfiguration1: held[0], topConfiguration2: held[1], topConfiguration4: held[3], topInternalConfiguration1: held[4],
            topConfiguration5: fifth)
        let new = old.configured(for: actuator.kind)
        try write(.topConfiguration1, [new.topConfiguration1, new.topConfiguration2])
        if new.topConfiguration4 != old.topConfiguration4 || new.topInternalConfiguration1 != old.topInternalConfiguration1 {
            try write(.topConfiguration4, [new.topConfiguration4, new.topInternalConfiguration1])
        }
        if new.topConfiguration5 != old.topConfiguration5 { try write(.topConfiguration5, [new.topConfiguration5]) }
        let sequence = try read(.sequenceControl1, count: 1)[0]
        if sequence & DA7280Register.sequenceControl1DriverFields != 0 {
            try write(.sequenceControl1, [sequence & ~DA7280Register.sequenceControl1DriverFields])
        }
        try writeWaveformMemory()
        try write(.irqEvent1, [0xFF])
        written = DA7280WrittenConfiguration(actuator: registers, configuration: new)
        configured = new
        writtenActuator = registers
        fixedFrequency = nil
        overrideFullScale = DA7280Equations.overrideFullScale(
            nominalMaximum: registers.nominalMaximum, absoluteMaximum: registers.absoluteMaximum,
            acceleration: DA7280Configuration.topConfiguration1Fields(for: actuator.kind).contains(.acceleration))
    }

    // MARK: - Resets

    /// Reads IRQ_MASK1 through TOP_CFG2 (one transaction) and, when what start-up wrote there is
    /// not what the chip holds (`DA7280WrittenConfiguration`), takes the chip for reset (a brown-out puts them
    /// back to 0x5A/0x78/0x17 and 0x1E/0x01: an LRA rated below 2.1 V would be driven at the
    /// reset NOMMAX, with acceleration on) and restores it (`restoreAfterReset()`). Run before
    /// every drive starts: a stream's start, a wake, arming the waveform memory. Returns whether
    /// it restored.
    @discardableResult
    public func checkForReset() throws(HapticChipError) -> Bool {
        try requireStarted()
        guard let written else { return false }
        let first = DA7280Register.irqMask1.rawValue
        let bytes = try read(.irqMask1, count: Int(DA7280Register.topConfiguration2.rawValue - first) + 1)
        guard !written.matches(bytes, from: first) else { return false }
        try restoreAfterReset()
        return true
    }

    /// Writes the whole configuration and the waveform memory again after a power-on reset, and
    /// returns to the power state the driver had the chip in (a stream in progress continues: its
    /// next level enters DRO mode again). Counted in `resetsDetected`.
    public func restoreAfterReset() throws(HapticChipError) {
        resetsDetected += 1
        let wasReady = power == .ready
        let wasStreaming = isStreaming
        try configure(try actuator.registers())
        power = .standby
        driving = false
        lastOverride = 0
        armed = false
        memoryPlaying = false
        isStreaming = false
        if wasReady {
            try write(.topControl1, [DA7280Register.TopControl1(mode: .inactive, standbyEnabled: true).rawValue])
            power = .ready
            readyInstant = clock.now.advanced(by: options.wakeDelay)
        }
        isStreaming = wasStreaming
    }

    // MARK: - Power

    public func wake() throws(HapticChipError) {
        try requireStarted()
        guard power != .ready else { return }
        try checkForReset()
        guard power != .ready else { return }
        try write(.topControl1, [DA7280Register.TopControl1(mode: .inactive, standbyEnabled: true).rawValue])
        power = .ready
        armed = false
        readyInstant = clock.now.advanced(by: options.wakeDelay)
    }

    public func enterStandby() throws(HapticChipError) {
        try requireStarted()
        try write(.topControl1, [0])
        power = .standby
        isStreaming = false
        try restoreTracking()
        armed = false
        memoryPlaying = false
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
        lastAmplitude = 0
        driving = false
        armed = false
        memoryPlaying = false
        isStreaming = false
        try restoreTracking()
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
        do { try restoreTracking() } catch { suppressedErrors += 1 }
        lastAmplitude = 0
        lastOverride = 0
        driving = false
        armed = false
        memoryPlaying = false
        isStreaming = false
    }

    // MARK: - The stream (DRO)

    /// Ready (STANDBY_EN) for the stream; DRO mode itself waits for the first level, which is
    /// written before the mode [DS §5.9.1: OVERRIDE_VAL first, then OPERATION_MODE = 1].
    public func beginRealTimePlayback() throws(HapticChipError) {
        try requireStarted()
        try checkForReset()
        if power != .ready {
            try write(.topControl1, [DA7280Register.TopControl1(mode: .inactive, standbyEnabled: true).rawValue])
            readyInstant = clock.now.advanced(by: options.wakeDelay)
        }
        power = .ready
        lastOverride = 0
        driving = false
        armed = false
        memoryPlaying = false
        isStreaming = true
    }

    /// TOP_CTL2 = the level × `overrideFullScale` (level 1 is the rated voltage: 0x7F with
    /// acceleration, 127 × NOMMAX / ABSMAX without; negative levels drive 0: the chip's own rapid
    /// stop brakes). The first level of a stream is written, then DRO mode; after that one
    /// write a level, and a level the chip already has is not written again.
    public func setRealTime(amplitude: Double) throws(HapticChipError) {
        guard isStreaming else { throw .invalidArgument("setRealTime outside real-time playback: call beginRealTimePlayback() first") }
        lastAmplitude = amplitude
        let level = fixedFrequency.map { hz in resonantResponse.map { $0.drive(for: amplitude, at: hz) } ?? 0 } ?? amplitude
        let value = DA7280Equations.overrideValue(level: level, fullScale: overrideFullScale)
        if !driving {
            try write(.topControl2, [value])
            try write(.topControl1, [DA7280Register.TopControl1(mode: .directRegisterOverride, standbyEnabled: true).rawValue])
            driving = true
            lastOverride = value
            return
        }
        guard value != lastOverride else { return }
        try write(.topControl2, [value])
        lastOverride = value
    }

    /// Inactive and zero level in one transaction, IDLE too when `standby`.
    public func endRealTimePlayback(standby: Bool) throws(HapticChipError) {
        try requireStarted()
        try write(.topControl1, [DA7280Register.TopControl1(mode: .inactive, standbyEnabled: !standby).rawValue, 0])
        if standby { power = .standby }
        lastAmplitude = 0
        try restoreTracking()
        lastOverride = 0
        driving = false
        armed = false
        memoryPlaying = false
        isStreaming = false
    }
}
