// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticEffects
import HardwareAccess

// ROM playback: load the slots, trigger by GO or IN/TRIG, stop, and check the chip after a feedback.
extension DRV2605Driver {
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

    func startLoaded() throws(DRV2605Error) {
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
                if triggerHeld { try triggerLine.set(false) }  // a new rising edge for the new sequence
                try triggerLine.set(true)
                triggerHeld = true
            } catch {
                throw .gpio(error)
            }
        } else if rewritesSequenceRegistersWithGo, let loadedSlots {
            // The DRV2605 (not the L) was seen to lose MODE, LIBRARY_SEL and WAV_FRM_SEQ1 after a
            // GO (e2e 1128661): all three are written again with GO, in one burst from MODE
            // through GO (0x01-0x0C, 12 bytes), so it stays one transaction.
            let slots = Array((loadedSlots + Array(repeating: 0, count: 8)).prefix(8))
            try writeBurst(
                .mode,
                [
                    ModeRegister(mode: mode).rawValue, 0,
                    LibrarySelectionRegister(library: configuration.library).rawValue
                ] + slots + [1])
        } else {
            try write(.go, 1)
        }
    }

    /// Whether a GO is sent with MODE, LIBRARY_SEL and the slots rewritten in front of it
    /// (`Options.rewritesSequenceRegistersWithGo`, else on the DRV2605 only).
    var rewritesSequenceRegistersWithGo: Bool { options.rewritesSequenceRegistersWithGo ?? (part == .drv2605) }

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
        lastAmplitude = 0
        if fixedFrequency != nil { try restoreConfiguredLoop() }
    }

    /// Best effort: stop, then standby; if the bus fails, EN low. Never throws — for error and
    /// exit paths, which must not leave the actuator running.
    public func stopQuietly() {
        do { try releaseTriggerPin() } catch { suppressedErrors += 1 }
        do {
            try stop()
            return
        } catch {
            suppressedErrors += 1  // Fall through to the harder stops.
        }
        do {
            try enterStandby()
            return
        } catch { suppressedErrors += 1 }
        if let enableLine {
            do { try enableLine.set(false) } catch { suppressedErrors += 1 }
            power = .shutdown
        }
    }

    /// Reads STATUS through CONTROL3 in one transaction (30 bytes; run after a feedback, never on
    /// the trigger path) and repairs the configuration if the chip was reset behind the driver's
    /// back — a brown-out puts every register back to its default, which for an LRA means driving
    /// it as an ERM at the default voltages. The signs: STANDBY set while the driver had the chip
    /// awake, or any of LIBRARY_SEL, RATED_VOLTAGE, OD_CLAMP, FEEDBACK_CONTROL, CONTROL1 or
    /// CONTROL3 not what was written.
    public func snapshot() throws(DRV2605Error) -> ChipSnapshot {
        let file = try readFile(from: .status, through: .control3)
        let snapshot = ChipSnapshot(
            status: file[StatusRegister.self], mode: file[ModeRegister.self],
            library: file[LibrarySelectionRegister.self],
            slots: file.waveformSlots, go: file[GoRegister.self].go)
        let expectStandby = power != .ready
        var lost = snapshot.mode.standby && !expectStandby
        if part?.hasROMLibrary == true, snapshot.library.library != configuration.library { lost = true }
        if file[.ratedVoltage] != configuration.ratedVoltage || file[.overdriveClamp] != configuration.overdriveClamp
            || file[FeedbackControlRegister.self] != configuration.feedbackControl || file[Control1Register.self] != configuration.control1
            || file[Control3Register.self] != expectedControl3
        {
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
            do { busy = try isBusy() } catch {
                stopQuietly()
                throw error
            }
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

    /// Plays a sequence and waits for GO to clear, up to a generous deadline: three times its
    /// estimated length plus the margin (the estimates are ours; TI publishes no lengths).
    public func playAndWait(_ sequence: WaveformSequence) throws(DRV2605Error) {
        let start = clock.now
        try play(sequence)
        let estimate = sequence.estimatedDuration
        try waitUntilIdle(
            expectedEnd: start.advanced(by: estimate),
            deadline: start.advanced(by: estimate * 3 + options.completionMargin + options.wakeDelay))
    }

    /// Reads STATUS and throws `.fault` if over-current or over-temperature latched, after stopping
    /// the actuator and clearing the latch (`clearFaults()`), so that the next request starts
    /// from a chip that reports only what happens then.
    public func checkFaults() throws(DRV2605Error) {
        let status = StatusRegister(rawValue: try read(.status))
        if status.overCurrent || status.overTemperature {
            stopQuietly()
            try? clearFaults()
            throw .fault(overCurrent: status.overCurrent, overTemperature: status.overTemperature)
        }
    }

    /// Clears a latched OC_DETECT or OVER_TEMP: DEV_RESET, which the datasheet equates with a power
    /// cycle (the only documented way: OC_DETECT does not clear on read, and users report it stuck
    /// until power is cycled), then the configuration written again; the chip ends in standby.
    /// A cause still there (a short) latches the flag again at the next drive.
    public func clearFaults() throws(DRV2605Error) {
        guard part != nil else { throw .notStarted }
        try reset()
        try writeConfiguration(mode: ModeRegister(mode: .internalTrigger, standby: false), slots: [])
        try enterStandby()
    }
}
