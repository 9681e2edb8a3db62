// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticEffects
import HardwareAccess

/// The DRV2605/DRV2605L driver: start-up, ROM sequences, real-time playback, power, calibration,
/// diagnostics and faults, in as few bus transactions as the chip allows.
///
/// Holds its bus as `any I2CBus`, so the same code drives `/dev/i2c-N`, the simulated chip and a
/// mock, chosen at run time, without a generic parameter spreading into every type that holds a
/// driver (the bench measured the existential call: no difference per trigger beyond noise).
/// Not thread-safe: one owner (the haptics engine) serializes calls. Every wait has a deadline
/// and uses the injected clock. On any error during playback the driver tries to leave the chip
/// stopped (GO cleared, RTP zero, standby) before it throws.
public final class DRV2605Driver {
    /// Timings and behaviours the reference marks as unconfirmed, made configurable.
    public struct Options: Sendable {
        /// Wait after raising EN before the chip answers I2C (datasheet: at least 250 µs).
        public var enableSettleTime: Duration = .microseconds(250)
        /// Wait after clearing STANDBY before playback (TI e2e 295607: 1 ms). UNCONFIRMED.
        public var wakeDelay: Duration = .milliseconds(1)
        /// How long a DEV_RESET may take before start-up gives up. The datasheet gives no figure.
        public var resetDeadline: Duration = .milliseconds(500)
        /// When to look at DEV_RESET first (the datasheet gives no reset time; Zephyr waits 100 ms,
        /// mynewt polls every 5 ms). Polling continues until `resetDeadline`.
        public var resetFirstPoll: Duration = .milliseconds(2)
        /// Between polls of GO and of DEV_RESET.
        public var pollInterval: Duration = .milliseconds(5)
        /// How long start-up keeps asking a chip that does not acknowledge: one that is still
        /// resetting (a DEV_RESET whose acknowledge was lost, a previous run's reset) answers
        /// within milliseconds. An absent chip costs this much before it is reported.
        public var startupAnswerDeadline: Duration = .milliseconds(20)
        /// Added to three times a sequence's estimated length to make its completion deadline.
        public var completionMargin: Duration = .milliseconds(500)
        /// Whether registers keep their values while EN is low. UNCONFIRMED (Linux assumes so);
        /// `false` rewrites the configuration after every EN wake, which is always safe.
        public var registersSurviveShutdown = false
        /// Reset the chip at start-up (clears whatever a previous program left behind).
        public var resetAtStart = true
        /// Rewrite MODE, LIBRARY_SEL and the slots in the same burst as every GO: nil (default) does
        /// so on the DRV2605 only, which a user saw lose them after a GO (TI e2e 1128661). Costs a
        /// 14-byte transaction per trigger instead of 3.
        public var rewritesSequenceRegistersWithGo: Bool?
        /// At start-up without a saved calibration, take a programmed chip's OTP values (voltages,
        /// calibration) as the configuration instead of writing defaults over them.
        public var keepsProgrammedOTP = true
        /// Trigger with an IN/TRIG edge instead of a GO write when the pin is wired.
        public var triggerWithPin = true
        /// Pulse width on IN/TRIG for an edge trigger.
        public var triggerPulse: Duration = .microseconds(10)
        /// How IN/TRIG starts playback: a rising edge (MODE 1; a second edge would cancel), or a
        /// level (MODE 2: GO follows the pin, so it is held high while the sequence plays and
        /// lowered when it ends or is stopped — a pin left low stops the actuator by itself).
        public var triggerPinMode: TriggerPinMode = .edge
        /// The defaults above: the datasheet's figures where it gives them, cautious ones elsewhere.
        public init() {}
    }

    /// How IN/TRIG starts playback (see `Options.triggerPinMode`).
    public enum TriggerPinMode: String, Sendable { case edge, level }

    /// The chip's power state as the driver left it: shutdown is EN low, standby is STANDBY = 1
    /// (registers kept, I2C works), ready is STANDBY = 0.
    public typealias PowerState = HapticPowerState

    /// A snapshot read in one transaction: what completion polls and reset detection look at.
    public struct ChipSnapshot: Sendable, Equatable {
        /// STATUS: faults and the last routine's result.
        public var status: StatusRegister
        /// MODE: standby and the operating mode.
        public var mode: ModeRegister
        /// LIBRARY_SEL.
        public var library: LibrarySelectionRegister
        /// WAV_FRM_SEQ1...8.
        public var slots: [UInt8]
        /// GO: a sequence or routine is running.
        public var go: Bool
    }

    /// The bus the chip is on (a `/dev/i2c-N`, a multiplexer channel, a simulator).
    public let bus: any I2CBus
    /// 0x5A for every part of the family.
    public let address: I2CAddress
    /// EN, when wired: the driver lowers it for shutdown and raises it (and waits) to wake.
    public let enableLine: (any GPIOOutputLine)?
    /// IN/TRIG, when wired: prepared triggers become an edge or a level instead of a GO write.
    public let triggerLine: (any GPIOOutputLine)?
    /// What every wait and poll deadline is measured on.
    public let clock: any HapticClock
    /// Timings and choices; changes take effect at the next call.
    public var options: Options

    /// The part `start()` found (nil before).
    public internal(set) var part: Part?
    /// What was (or will be) written at start-up; calibration updates it.
    public internal(set) var configuration: DRV2605Configuration
    /// Whether `start()` found OTP programmed and took its values (see `Options.keepsProgrammedOTP`).
    public private(set) var usesProgrammedOTP = false
    /// Shutdown, standby or ready, as the driver last left the chip.
    public internal(set) var power: PowerState = .shutdown
    /// The operating mode last written.
    public internal(set) var mode: OperatingMode = .internalTrigger
    /// Slot bytes the driver knows are in 0x04–0x0B (`nil` when unknown).
    public internal(set) var loadedSlots: [UInt8]?
    /// When playback may start after leaving standby.
    var readyAt: ClockInstant = .zero
    /// The frequency the stream is driven at in open loop (nil: as configured, at resonance in
    /// closed loop): `setDriveFrequency`.
    public internal(set) var fixedFrequency: Double?
    /// The level the stream was last asked for, before making up for the frequency.
    var lastAmplitude = 0.0
    /// The rated drive-frequency band for the resonance it was worked out at
    /// (`driveFrequencyBand`): asked for at every update of a sharp stream, changed only by a
    /// calibration or a new configuration.
    var bandCache: (resonantHz: Double, band: DriveFrequencyBand)?
    /// What stops the chip from another process after this one died (`ChipClaim.stopWrites`, a
    /// dead-man guard's): GO cleared (a sequence ends), then MODE = internal trigger with STANDBY
    /// (real-time playback ends, the output stage off).
    public static let stopWrites: [[UInt8]] = [
        [Register.go.rawValue, 0], [Register.mode.rawValue, ModeRegister(mode: .internalTrigger, standby: true).rawValue]
    ]

    /// Chip resets noticed by `snapshot()` and repaired.
    public internal(set) var resetsDetected = 0
    /// Errors that `stopQuietly()` met and got past with a harder stop: it never throws, but
    /// an engine counts them so that a failure on an exit or error path is not invisible.
    public internal(set) var suppressedErrors = 0

    /// A driver for the chip at `address` on `bus`; nothing is sent until `start()`.
    public init(
        bus: any I2CBus, address: I2CAddress = .drv2605, configuration: DRV2605Configuration,
        enableLine: (any GPIOOutputLine)? = nil, triggerLine: (any GPIOOutputLine)? = nil,
        clock: any HapticClock, options: Options = Options()
    ) {
        self.bus = bus
        self.address = address
        self.configuration = configuration
        self.enableLine = enableLine
        self.triggerLine = triggerLine
        self.clock = clock
        self.options = options
    }

    /// Whether a GO trigger is replaced by an IN/TRIG edge (no bus transaction).
    public var triggersWithPin: Bool { triggerLine != nil && options.triggerWithPin }
    var triggerMode: OperatingMode {
        guard triggersWithPin else { return .internalTrigger }
        return options.triggerPinMode == .level ? .externalLevelTrigger : .externalEdgeTrigger
    }
    /// Whether the level-trigger pin is being held high.
    public internal(set) var triggerHeld = false

    // MARK: - Start-up

    /// Powers the chip, identifies it, resets it and writes the configuration in one burst, then
    /// leaves it in standby. Five transactions when the reset finishes by the first poll.
    @discardableResult
    public func start() throws(DRV2605Error) -> Part {
        try setEnable(true)
        let found = try identifyAllowingAReset()
        try configuration.validate(for: found)
        if options.resetAtStart { try reset() }
        if options.keepsProgrammedOTP && configuration.calibration == nil { try adoptProgrammedOTP() }
        try writeConfiguration(mode: ModeRegister(mode: .internalTrigger, standby: false), slots: [])
        try enterStandby()
        return found
    }

    /// With OTP programmed (OTP_STATUS = 1) the chip loaded its voltages, calibration and
    /// feedback settings from OTP at reset: they become the configuration's, so start-up does not
    /// overwrite them with defaults. Only when no saved calibration is given (one is newer). Every
    /// burnt field is kept: the voltages, the calibration results, and FEEDBACK_CONTROL's brake
    /// factor, loop gain and back-EMF gain. N_ERM_LRA stays the configuration's (what is wired).
    private func adoptProgrammedOTP() throws(DRV2605Error) {
        let file = try readFile(from: .ratedVoltage, through: .control4)
        guard file[Control4Register.self].otpProgrammed else { return }
        configuration.ratedVoltage = file[.ratedVoltage]
        configuration.overdriveClamp = file[.overdriveClamp]
        configuration.brakeFactor = file[FeedbackControlRegister.self].brakeFactor
        configuration.loopGain = file[FeedbackControlRegister.self].loopGain
        configuration.calibration = CalibrationValues(
            compensation: file[.autoCalibrationCompensation], backEMF: file[.autoCalibrationBackEMF],
            backEMFGain: file[FeedbackControlRegister.self].backEMFGain)
        usesProgrammedOTP = true
    }

    /// Reads STATUS and names the part. Rejects anything that is not a DRV2604/2605.
    @discardableResult
    public func identify() throws(DRV2605Error) -> Part {
        let status = StatusRegister(rawValue: try read(.status))
        guard let found = Part(rawValue: status.deviceID) else {
            throw .unknownDevice(DRV2605Error.unknownDeviceText(status))
        }
        part = found
        return found
    }

    /// `identify()`, asking again while the chip does not acknowledge, until
    /// `startupAnswerDeadline`.
    private func identifyAllowingAReset() throws(DRV2605Error) -> Part {
        let deadline = clock.now.advanced(by: options.startupAnswerDeadline)
        while true {
            do {
                return try identify()
            } catch {
                guard case let .bus(busError) = error, busError.kind == .noAcknowledge, clock.now < deadline else { throw error }
                clock.sleep(for: options.pollInterval)
            }
        }
    }

    /// DEV_RESET, then polls MODE until the bit clears. The chip may NACK while it resets, so
    /// bus errors are tolerated until the deadline.
    public func reset() throws(DRV2605Error) {
        try write(.mode, ModeRegister(mode: .internalTrigger, reset: true).rawValue)
        let deadline = clock.now.advanced(by: options.resetDeadline)
        var lastError: I2CError?
        clock.sleep(for: options.resetFirstPoll)
        while true {
            do {
                let value = try bus.readRegister(Register.mode.rawValue, at: address)
                if !ModeRegister(rawValue: value).deviceReset { break }
            } catch {
                guard error.kind == .noAcknowledge || error.kind == .busError else { throw .bus(error) }
                lastError = error
            }
            guard clock.now < deadline else {
                throw .timeout("DEV_RESET did not clear within \(options.resetDeadline)" + (lastError.map { " (last bus error: \($0.kind))" } ?? ""))
            }
            clock.sleep(for: options.pollInterval)
        }
        power = .standby
        mode = .internalTrigger
        loadedSlots = part?.resetValues.waveformSlots
    }

    /// Writes MODE and every configuration register in one burst starting at 0x01.
    func writeConfiguration(mode modeValue: ModeRegister, slots: [UInt8]) throws(DRV2605Error) {
        guard let part else { throw .notStarted }
        let image = configuration.registerImage(for: part, slots: slots)
        try writeBurst(.mode, [modeValue.rawValue] + image)
        mode = modeValue.mode
        fixedFrequency = nil
        loadedSlots = WaveformSequence.slotCountPadded(slots)
        noteStandby(modeValue.standby)
    }

    /// Replaces the configuration (e.g. after calibration or a board change) and writes it.
    public func reconfigure(_ newConfiguration: DRV2605Configuration) throws(DRV2605Error) {
        guard let part else { throw .notStarted }
        try newConfiguration.validate(for: part)
        configuration = newConfiguration
        let wasStandby = power != .ready
        try ensureEnabled()
        try writeConfiguration(mode: ModeRegister(mode: .internalTrigger, standby: false), slots: loadedSlots ?? [])
        if wasStandby { try enterStandby() }
    }

    // MARK: - Power

    /// Out of standby (and out of EN shutdown), ready to play. One transaction from standby.
    public func wake() throws(DRV2605Error) {
        try prepareMode(triggerMode, slots: nil)
    }

    /// STANDBY = 1. Registers are kept; output stops.
    public func enterStandby() throws(DRV2605Error) {
        try ensureEnabled()
        // Closed loop back first: a chip that ignores writes in standby would keep open loop.
        if fixedFrequency != nil { try restoreConfiguredLoop() }
        do {
            try write(.mode, ModeRegister(mode: .internalTrigger, standby: true).rawValue)
        } catch {
            // The write may have landed (its acknowledge lost) or not: believing "standby" is
            // the safe side, since the next wake rewrites MODE and the slots either way.
            loadedSlots = nil
            power = .standby
            throw error
        }
        mode = .internalTrigger
        power = .standby
    }

    /// EN low when an EN line is wired (the lowest power); otherwise standby.
    public func shutdown() throws(DRV2605Error) {
        guard enableLine != nil else { return try enterStandby() }
        if power == .ready { try enterStandby() }
        try setEnable(false)
    }

    // MARK: - Internals

    func requireROM() throws(DRV2605Error) {
        guard let part else { throw .notStarted }
        guard part.hasROMLibrary else { throw .unsupported("the \(part) has no ROM effect library (it plays effects from RAM)") }
    }

    /// Brings the chip to `ready` in `targetMode` with `slots` loaded, in at most one I2C write.
    func prepareMode(_ targetMode: OperatingMode, slots: [UInt8]?) throws(DRV2605Error) {
        guard part != nil else { throw .notStarted }
        if try leaveShutdown(mode: targetMode, slots: slots ?? loadedSlots ?? []) { return }
        let wantSlots = slots.map(WaveformSequence.slotCountPadded)
        let slotsMatch = wantSlots == nil || wantSlots == loadedSlots
        if power == .ready && mode == targetMode {
            if slotsMatch { return }
            if let wantSlots { try writeBurst(.waveformSequence1, wantSlots) }
            loadedSlots = wantSlots
            return
        }
        if slotsMatch {
            try write(.mode, ModeRegister(mode: targetMode).rawValue)
        } else if let wantSlots {
            // MODE (awake), RTP_INPUT = 0, LIBRARY_SEL, then the slots: one burst. The MODE byte
            // lands first, so the slots are written to an awake chip.
            try writeBurst(
                .mode,
                [
                    ModeRegister(mode: targetMode).rawValue, 0,
                    LibrarySelectionRegister(library: configuration.library).rawValue
                ] + wantSlots)
            loadedSlots = wantSlots
        }
        mode = targetMode
        noteStandby(false)
    }

    func noteStandby(_ standby: Bool) {
        if standby {
            power = .standby
        } else {
            if power != .ready { readyAt = clock.now.advanced(by: options.wakeDelay) }
            power = .ready
        }
    }

    func ensureEnabled() throws(DRV2605Error) {
        _ = try leaveShutdown(mode: .internalTrigger, slots: loadedSlots ?? [])
    }

    /// Raises EN if the chip is shut down. Where registers may not survive EN low, rewrites the
    /// whole configuration — awake, because writes in standby may be ignored — and returns true:
    /// the chip is then ready in `mode` with `slots` loaded.
    func leaveShutdown(mode targetMode: OperatingMode, slots: [UInt8]) throws(DRV2605Error) -> Bool {
        guard power == .shutdown else { return false }
        try setEnable(true)
        guard !options.registersSurviveShutdown, part != nil else { return false }
        try writeConfiguration(mode: ModeRegister(mode: targetMode), slots: slots)
        return true
    }

    func setEnable(_ high: Bool) throws(DRV2605Error) {
        guard let enableLine else {
            if high, power == .shutdown { power = .standby }
            return
        }
        do { try enableLine.set(high) } catch { throw .gpio(error) }
        if high {
            clock.sleep(for: options.enableSettleTime)
            power = .standby
        } else {
            power = .shutdown
            mode = .internalTrigger
        }
    }

    func read(_ register: Register) throws(DRV2605Error) -> UInt8 {
        do { return try bus.readRegister(register.rawValue, at: address) } catch { throw .bus(error) }
    }

    func readBurst(_ register: Register, count: Int) throws(DRV2605Error) -> [UInt8] {
        let bytes: [UInt8]
        do { bytes = try bus.readRegisters(register.rawValue, count: count, at: address) } catch { throw .bus(error) }
        guard bytes.count == count else {
            throw .bus(I2CError(.busError, operation: "read from \(address)", address: address, detail: "short read: \(bytes.count) of \(count)"))
        }
        return bytes
    }

    /// Reads `first...last` in one burst into a register file (the other registers read as zero).
    func readFile(from first: Register, through last: Register) throws(DRV2605Error) -> RegisterFile {
        RegisterFile(bytes: try readBurst(first, count: Int(last.rawValue - first.rawValue) + 1), from: first)
    }

    func write(_ register: Register, _ value: UInt8) throws(DRV2605Error) {
        do { try bus.write(to: address, register.write(value)) } catch { throw .bus(error) }
    }

    func writeBurst(_ register: Register, _ values: [UInt8]) throws(DRV2605Error) {
        do { try bus.write(to: address, [register.rawValue] + values) } catch { throw .bus(error) }
    }
}

extension WaveformSequence {
    static func slotCountPadded(_ bytes: [UInt8]) -> [UInt8] {
        var padded = Array(bytes.prefix(slotCount))
        padded += [UInt8](repeating: 0, count: slotCount - padded.count)
        return padded
    }
}
