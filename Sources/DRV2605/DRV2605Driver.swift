import HardwareAccess

/// The DRV2605/DRV2605L driver: start-up, ROM sequences, real-time playback, power, calibration,
/// diagnostics and faults, in as few bus transactions as the chip allows.
///
/// Generic over `I2CBus`, so the same code drives `/dev/i2c-N`, the simulated chip and a mock.
/// Not thread-safe: one owner (the haptics engine) serializes calls. Every wait has a deadline
/// and uses the injected clock. On any error during playback the driver tries to leave the chip
/// stopped (GO cleared, RTP zero, standby) before it throws.
public final class DRV2605Driver<Bus: I2CBus> {
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
        /// Added to a sequence's estimated length to make its completion deadline.
        public var completionMargin: Duration = .milliseconds(500)
        /// Whether registers keep their values while EN is low. UNCONFIRMED (Linux assumes so);
        /// `false` rewrites the configuration after every EN wake, which is always safe.
        public var registersSurviveShutdown = false
        /// Reset the chip at start-up (clears whatever a previous program left behind).
        public var resetAtStart = true
        /// Trigger with an IN/TRIG edge instead of a GO write when the pin is wired.
        public var triggerWithPin = true
        /// Pulse width on IN/TRIG for an edge trigger.
        public var triggerPulse: Duration = .microseconds(10)
        /// How IN/TRIG starts playback: a rising edge (MODE 1; a second edge would cancel), or a
        /// level (MODE 2: GO follows the pin, so it is held high while the sequence plays and
        /// lowered when it ends or is stopped — a pin left low stops the actuator by itself).
        public var triggerPinMode: TriggerPinMode = .edge
        public init() {}
    }

    public enum TriggerPinMode: String, Sendable { case edge, level }

    /// The chip's power state as the driver left it.
    public enum PowerState: String, Sendable, Equatable {
        /// EN low: the lowest power. Only when an EN line is wired.
        case shutdown
        /// STANDBY = 1: low power, registers kept, I2C works.
        case standby
        /// STANDBY = 0: ready to play at once.
        case ready
    }

    /// A snapshot read in one transaction: what completion polls and reset detection look at.
    public struct ChipSnapshot: Sendable, Equatable {
        public var status: StatusRegister
        public var mode: ModeRegister
        public var library: LibrarySelectionRegister
        public var slots: [UInt8]
        public var go: Bool
    }

    public let bus: Bus
    public let address: I2CAddress
    public let enableLine: (any GPIOOutputLine)?
    public let triggerLine: (any GPIOOutputLine)?
    public let clock: any HapticClock
    public var options: Options

    public private(set) var part: Part?
    public private(set) var configuration: DRV2605Configuration
    public private(set) var power: PowerState = .shutdown
    /// The operating mode last written.
    public private(set) var mode: OperatingMode = .internalTrigger
    /// Slot bytes the driver knows are in 0x04–0x0B (`nil` when unknown).
    public private(set) var loadedSlots: [UInt8]?
    /// When playback may start after leaving standby.
    private var readyAt: ClockInstant = .zero
    /// Chip resets noticed by `snapshot()` and repaired.
    public private(set) var resetsDetected = 0

    public init(bus: Bus, address: I2CAddress = .drv2605, configuration: DRV2605Configuration,
                enableLine: (any GPIOOutputLine)? = nil, triggerLine: (any GPIOOutputLine)? = nil,
                clock: any HapticClock, options: Options = Options()) {
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
    private var triggerMode: OperatingMode {
        guard triggersWithPin else { return .internalTrigger }
        return options.triggerPinMode == .level ? .externalLevelTrigger : .externalEdgeTrigger
    }
    /// Whether the level-trigger pin is being held high.
    public private(set) var triggerHeld = false

    // MARK: - Start-up

    /// Powers the chip, identifies it, resets it and writes the configuration in one burst, then
    /// leaves it in standby. Five transactions when the reset finishes by the first poll.
    @discardableResult
    public func start() throws(DRV2605Error) -> Part {
        try setEnable(true)
        let found = try identify()
        try configuration.validate(for: found)
        if options.resetAtStart { try reset() }
        try writeConfiguration(mode: ModeRegister(mode: .internalTrigger, standby: false), slots: [])
        try enterStandby()
        return found
    }

    /// Reads STATUS and names the part. Rejects anything that is not a DRV2604/2605.
    @discardableResult
    public func identify() throws(DRV2605Error) -> Part {
        let status = StatusRegister(rawValue: try read(.status))
        guard let found = Part(rawValue: status.deviceID) else {
            throw .unknownDevice(id: status.deviceID, status: status.rawValue)
        }
        part = found
        return found
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
        loadedSlots = part?.resetValues[0x04...0x0B].map { $0 }
    }

    /// Writes MODE and every configuration register in one burst starting at 0x01.
    private func writeConfiguration(mode modeValue: ModeRegister, slots: [UInt8]) throws(DRV2605Error) {
        guard let part else { throw .notStarted }
        let image = configuration.registerImage(for: part, slots: slots)
        try writeBurst(.mode, [modeValue.rawValue] + image)
        mode = modeValue.mode
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

    // MARK: - ROM playback

    /// Loads `sequence` and wakes the chip, so that `trigger()` is one GO write (or one IN/TRIG
    /// edge). From standby this is one burst from MODE through the slots; already loaded and
    /// awake, it costs nothing.
    public func prepare(_ sequence: WaveformSequence) throws(DRV2605Error) {
        try requireROM()
        // The hot path of a prepared trigger: nothing to do, decided without building slot bytes.
        if power == .ready, mode == triggerMode, let loadedSlots, sequence.matches(slots: loadedSlots) { return }
        try prepareMode(triggerMode, slots: sequence.slotBytes)
    }

    /// Starts what is loaded: an IN/TRIG edge when wired, else one GO write. On failure the chip
    /// is stopped before the error is thrown: a write whose acknowledge was lost may have landed,
    /// and a pin may have risen before the next call failed.
    public func trigger() throws(DRV2605Error) {
        guard power == .ready else { throw .invalidArgument("trigger() needs a prepared chip; call prepare(_:) first") }
        let now = clock.now
        if now < readyAt { clock.sleep(until: readyAt) }
        do throws(DRV2605Error) {
            try startLoaded()
        } catch {
            stopQuietly()
            throw error
        }
    }

    private func startLoaded() throws(DRV2605Error) {
        if triggersWithPin, mode == .externalEdgeTrigger, let triggerLine {
            // `triggerHeld` is true while the pin may be high: a failed fall leaves it so, and
            // the next pulse starts with a fall, or it would have no rising edge.
            do {
                if triggerHeld {
                    try triggerLine.set(false)
                    triggerHeld = false
                }
                try triggerLine.set(true)
                triggerHeld = true
                clock.sleep(for: options.triggerPulse)
                try triggerLine.set(false)
                triggerHeld = false
            } catch {
                throw .gpio(error)
            }
        } else if triggersWithPin, mode == .externalLevelTrigger, let triggerLine {
            do {
                if triggerHeld { try triggerLine.set(false) } // a new rising edge for the new sequence
                try triggerLine.set(true)
                triggerHeld = true
            } catch {
                throw .gpio(error)
            }
        } else {
            try write(.go, 1)
        }
    }

    /// Records that GO was set by someone else (a broadcast write reaching several chips):
    /// nothing to send, the driver only waits for the wake delay like `trigger()` would.
    public func noteExternalTrigger() {
        if clock.now < readyAt { clock.sleep(until: readyAt) }
    }

    /// When the chip may start playing after leaving standby.
    public var readyInstant: ClockInstant { readyAt }

    /// Loads and starts a sequence in the fewest transactions: 1 when prepared, 2 from standby.
    public func play(_ sequence: WaveformSequence) throws(DRV2605Error) {
        do {
            try prepare(sequence)
            try trigger()
        } catch {
            stopQuietly()
            throw error
        }
    }

    /// Lowers a held level trigger (the sequence has ended, or is to stop).
    public func releaseTriggerPin() throws(DRV2605Error) {
        guard triggerHeld, let triggerLine else { return }
        do { try triggerLine.set(false) } catch { throw .gpio(error) }
        triggerHeld = false
    }

    /// Cancels playback: GO cleared, RTP zeroed and back to internal trigger if it was streaming.
    public func stop() throws(DRV2605Error) {
        try releaseTriggerPin()
        guard power != .shutdown else { return }
        if mode == .realTimePlayback || mode == .externalEdgeTrigger || mode == .externalLevelTrigger {
            try writeBurst(.mode, [ModeRegister(mode: .internalTrigger, standby: power != .ready).rawValue, 0])
            mode = .internalTrigger
        }
        try write(.go, 0)
    }

    /// Best effort: stop, then standby; if the bus fails, EN low. Never throws — for error and
    /// exit paths, which must not leave the actuator running.
    public func stopQuietly() {
        do { try releaseTriggerPin() } catch { suppressedErrors += 1 }
        do {
            try stop()
            return
        } catch {
            suppressedErrors += 1 // Fall through to the harder stops.
        }
        do { try enterStandby(); return } catch { suppressedErrors += 1 }
        if let enableLine {
            do { try enableLine.set(false) } catch { suppressedErrors += 1 }
            power = .shutdown
        }
    }

    /// Errors that `stopQuietly()` met and got past with a harder stop: it never throws, but
    /// an engine counts them so that a failure on an exit or error path is not invisible.
    public private(set) var suppressedErrors = 0

    /// Reads STATUS through CONTROL3 in one transaction (30 bytes; run after a feedback, never on
    /// the trigger path) and repairs the configuration if the chip was reset behind the driver's
    /// back — a brown-out puts every register back to its default, which for an LRA means driving
    /// it as an ERM at the default voltages. The signs: STANDBY set while the driver had the chip
    /// awake, or any of LIBRARY_SEL, RATED_VOLTAGE, OD_CLAMP, FEEDBACK_CONTROL, CONTROL1 or
    /// CONTROL3 not what was written.
    public func snapshot() throws(DRV2605Error) -> ChipSnapshot {
        let bytes = try readBurst(.status, count: 0x1E)
        let snapshot = ChipSnapshot(status: StatusRegister(rawValue: bytes[0]), mode: ModeRegister(rawValue: bytes[1]),
                                    library: LibrarySelectionRegister(rawValue: bytes[3]),
                                    slots: Array(bytes[4...11]), go: bytes[12] & 1 != 0)
        let expectStandby = power != .ready
        var lost = snapshot.mode.standby && !expectStandby
        if part?.hasROMLibrary == true, snapshot.library.library != configuration.library { lost = true }
        if bytes[0x16] != configuration.ratedVoltage || bytes[0x17] != configuration.overdriveClamp
            || bytes[0x1A] != configuration.feedbackControl.rawValue || bytes[0x1B] != configuration.control1.rawValue
            || bytes[0x1D] != configuration.control3.rawValue {
            lost = true
        }
        if lost {
            resetsDetected += 1
            try restoreAfterReset(wasReady: !expectStandby)
        } else if snapshot.slots != loadedSlots {
            loadedSlots = snapshot.slots
        }
        return snapshot
    }

    /// Rewrites the configuration after an unexpected reset, returning to the power state the
    /// driver believed the chip was in.
    public func restoreAfterReset(wasReady: Bool) throws(DRV2605Error) {
        try writeConfiguration(mode: ModeRegister(mode: .internalTrigger, standby: false), slots: [])
        if wasReady { power = .ready } else { try enterStandby() }
    }

    /// Whether GO is set (a sequence, calibration or diagnostic is running).
    public func isBusy() throws(DRV2605Error) -> Bool {
        try read(.go) & 1 != 0
    }

    /// Waits for GO to clear: sleeps until `expectedEnd` (if given), then polls. On the deadline
    /// the actuator is stopped and `.timeout` thrown. Over-current/over-temperature are thrown
    /// as `.fault` once GO clears.
    public func waitUntilIdle(expectedEnd: ClockInstant? = nil, deadline: ClockInstant) throws(DRV2605Error) {
        if let expectedEnd { clock.sleep(until: min(expectedEnd, deadline)) }
        while true {
            let busy: Bool
            do { busy = try isBusy() } catch { stopQuietly(); throw error }
            if !busy { break }
            guard clock.now < deadline else {
                stopQuietly()
                throw .timeout("GO still set at the deadline")
            }
            clock.sleep(until: min(deadline, clock.now.advanced(by: options.pollInterval)))
        }
        try releaseTriggerPin()
        try checkFaults()
    }

    /// Plays a sequence and waits for it to finish, with a deadline from its estimated length.
    public func playAndWait(_ sequence: WaveformSequence) throws(DRV2605Error) {
        let start = clock.now
        try play(sequence)
        let estimate = sequence.estimatedDuration
        try waitUntilIdle(expectedEnd: start.advanced(by: estimate),
                          deadline: start.advanced(by: estimate + options.completionMargin + options.wakeDelay))
    }

    /// Reads STATUS and throws `.fault` if over-current or over-temperature latched.
    public func checkFaults() throws(DRV2605Error) {
        let status = StatusRegister(rawValue: try read(.status))
        if status.overCurrent || status.overTemperature {
            stopQuietly()
            throw .fault(overCurrent: status.overCurrent, overTemperature: status.overTemperature)
        }
    }

    // MARK: - Real-time playback

    /// The RTP byte encoding for the current configuration.
    public var realTimeEncoding: RealTimeEncoding { RealTimeEncoding(configuration) }

    /// Enters real-time playback with the output at zero: one burst (MODE = RTP, RTP_INPUT = 0).
    public func beginRealTimePlayback() throws(DRV2605Error) {
        try ensureEnabled()
        try writeBurst(.mode, [ModeRegister(mode: .realTimePlayback).rawValue, realTimeEncoding.byte(for: 0)])
        noteStandby(false)
        mode = .realTimePlayback
    }

    /// One RTP update: a single 3-byte write.
    public func setRealTime(amplitude: Double) throws(DRV2605Error) {
        try setRealTime(byte: realTimeEncoding.byte(for: amplitude))
    }

    /// One RTP update with a raw RTP_INPUT byte.
    public func setRealTime(byte: UInt8) throws(DRV2605Error) {
        guard mode == .realTimePlayback else { throw .invalidArgument("not in real-time playback; call beginRealTimePlayback() first") }
        do {
            try bus.write(to: address, [Register.realTimePlaybackInput.rawValue, byte])
        } catch {
            stopQuietly()
            throw .bus(error)
        }
    }

    /// Leaves real-time playback: MODE back to internal trigger and RTP_INPUT zero, in one burst;
    /// the chip stays awake (`standby: true` puts it straight into standby in the same write).
    public func endRealTimePlayback(standby: Bool = false) throws(DRV2605Error) {
        // RTP_INPUT is zeroed while the chip is still awake (writes may be ignored in standby), so
        // the next real-time session never starts from a stale value.
        try writeBurst(.mode, [ModeRegister(mode: .internalTrigger).rawValue, realTimeEncoding.byte(for: 0)])
        mode = .internalTrigger
        if standby { try enterStandby() }
    }

    // MARK: - Calibration and diagnostics

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
            let bytes = try readBurst(.autoCalibrationCompensation, count: 9)
            values = CalibrationValues(compensation: bytes[0], backEMF: bytes[1],
                                       backEMFGain: FeedbackControlRegister(rawValue: bytes[2]).backEMFGain,
                                       lraPeriod: configuration.actuator == .lra ? bytes[8] & 0x7F : nil)
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
    private func runRoutine(deadline: Duration, progress: ((Duration) -> Void)?) throws(DRV2605Error) -> StatusRegister {
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

    /// LRA resonance from LRA_PERIOD (valid while driving an LRA).
    public func measuredResonanceHz() throws(DRV2605Error) -> Double? {
        ActuatorEquations.frequency(periodField: try read(.lraResonancePeriod))
    }

    /// Live readouts that the chip only updates while it drives: plays a buzz, reads VBAT and
    /// LRA_PERIOD in one transaction after `settle`, then stops and returns to standby.
    public func measureWhileDriving(settle: Duration = .milliseconds(50)) throws(DRV2605Error) -> (supplyVolts: Double, resonanceHz: Double?) {
        try requireROM()
        try play(WaveformSequence(.buzz100))
        clock.sleep(for: settle)
        let bytes: [UInt8]
        do { bytes = try readBurst(.supplyVoltage, count: 2) } catch { stopQuietly(); throw error }
        try stop()
        try enterStandby()
        let resonance = configuration.actuator == .lra ? ActuatorEquations.frequency(periodField: bytes[1]) : nil
        return (ActuatorEquations.supplyVolts(register: bytes[0]), resonance)
    }

    /// Registers 0x00–0x22 in one read (note: reading STATUS clears its latched flags).
    public func dumpRegisters() throws(DRV2605Error) -> [UInt8] {
        try readBurst(.status, count: Int(Register.last) + 1)
    }

    /// Burns RATED_VOLTAGE, OD_CLAMP, A_CAL_COMP, A_CAL_BEMF and FEEDBACK_CONTROL into the chip's
    /// one-time-programmable memory. Irreversible; the caller must have asked the user.
    public func programOTP(confirmed: Bool) throws(DRV2605Error) {
        guard confirmed else { throw .invalidArgument("OTP programming is irreversible and needs explicit confirmation") }
        guard configuration.calibration != nil else { throw .invalidArgument("calibrate before burning OTP") }
        try ensureEnabled()
        try write(.mode, ModeRegister(mode: .internalTrigger).rawValue)
        noteStandby(false)
        var control4 = configuration.control4
        control4.otpProgram = true
        try write(.control4, control4.rawValue)
        clock.sleep(for: .milliseconds(10))
        try enterStandby()
    }

    // MARK: - Internals

    private func requireROM() throws(DRV2605Error) {
        guard let part else { throw .notStarted }
        guard part.hasROMLibrary else { throw .unsupported("the \(part) has no ROM effect library (it plays effects from RAM)") }
    }

    /// Brings the chip to `ready` in `targetMode` with `slots` loaded, in at most one I2C write.
    private func prepareMode(_ targetMode: OperatingMode, slots: [UInt8]?) throws(DRV2605Error) {
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
            try writeBurst(.mode, [ModeRegister(mode: targetMode).rawValue, 0,
                                   LibrarySelectionRegister(library: configuration.library).rawValue] + wantSlots)
            loadedSlots = wantSlots
        }
        mode = targetMode
        noteStandby(false)
    }

    private func noteStandby(_ standby: Bool) {
        if standby {
            power = .standby
        } else {
            if power != .ready { readyAt = clock.now.advanced(by: options.wakeDelay) }
            power = .ready
        }
    }

    private func ensureEnabled() throws(DRV2605Error) {
        _ = try leaveShutdown(mode: .internalTrigger, slots: loadedSlots ?? [])
    }

    /// Raises EN if the chip is shut down. Where registers may not survive EN low, rewrites the
    /// whole configuration — awake, because writes in standby may be ignored — and returns true:
    /// the chip is then ready in `mode` with `slots` loaded.
    private func leaveShutdown(mode targetMode: OperatingMode, slots: [UInt8]) throws(DRV2605Error) -> Bool {
        guard power == .shutdown else { return false }
        try setEnable(true)
        guard !options.registersSurviveShutdown, part != nil else { return false }
        try writeConfiguration(mode: ModeRegister(mode: targetMode), slots: slots)
        return true
    }

    private func setEnable(_ high: Bool) throws(DRV2605Error) {
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

    private func read(_ register: Register) throws(DRV2605Error) -> UInt8 {
        do { return try bus.readRegister(register.rawValue, at: address) } catch { throw .bus(error) }
    }

    private func readBurst(_ register: Register, count: Int) throws(DRV2605Error) -> [UInt8] {
        let bytes: [UInt8]
        do { bytes = try bus.readRegisters(register.rawValue, count: count, at: address) } catch { throw .bus(error) }
        guard bytes.count == count else {
            throw .bus(I2CError(.busError, operation: "read from \(address)", address: address, detail: "short read: \(bytes.count) of \(count)"))
        }
        return bytes
    }

    private func write(_ register: Register, _ value: UInt8) throws(DRV2605Error) {
        do { try bus.write(to: address, [register.rawValue, value]) } catch { throw .bus(error) }
    }

    private func writeBurst(_ register: Register, _ values: [UInt8]) throws(DRV2605Error) {
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
