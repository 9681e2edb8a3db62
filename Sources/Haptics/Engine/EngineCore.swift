// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticEffects
import HardwareAccess
import Logging

/// The engine's state, only ever touched under its lock: the driver, the power state machine,
/// policy bookkeeping and the real-time clip being played. It drives the chip through the
/// chip-neutral `HapticChipDriver`, and through its effect library when it has one.
final class EngineCore {
    let driver: any HapticChipDriver
    /// The chip's effect library (a DRV2605's ROM), nil on a chip without one: its plans stream.
    let library: (any EffectLibraryPlayback<WaveformSequence>)?
    /// The driver's waveforms in memory of its own, where it has them: a clip the chip holds
    /// plays from there on one trigger instead of streaming.
    let stored: (any StoredWaveformPlayback)?
    /// The driver's control of its LRA's drive frequency, where it has one: how a stream's
    /// sharpness reaches the actuator (`setStreamSharpness`).
    let frequency: (any DriveFrequencyControl)?
    /// The bus the driver talks through, counted; nil for a device that is not on a bus the
    /// engine sees (a kernel vibrator).
    let bus: MonitoredBus?
    var mapping: FeedbackMapping
    var options: HapticEngine.Options
    let logger: Logger
    var clock: any HapticClock { driver.clock }

    // Prepared state (Apple's prepare semantics).
    var preparedUntil: ClockInstant?
    var prepareWindowStart: ClockInstant?
    var prepareSuppressed = false
    var holders: Set<ObjectIdentifier> = []

    // Playback.
    var busyUntil: ClockInstant?
    var completionDeadline: ClockInstant?
    var clip: (clip: RealTimeClip, start: ClockInstant, next: Int)?
    /// When the chip's status was last read during the clip.
    var lastClipStatus = ClockInstant.zero
    /// How often a playing clip's chip is checked for faults: a stream into a chip that stopped
    /// driving is ended within this, at one read per interval.
    static let clipStatusInterval: Duration = .milliseconds(100)
    var lastActivity: ClockInstant

    // Policy.
    var lastSelection: ClockInstant?
    var recentTriggers: [ClockInstant] = []

    // Statistics.
    var counts = HapticEngine.Statistics()
    /// Live figures: bus counters read now, the current awake stretch included.
    var statistics: HapticEngine.Statistics {
        var value = counts
        value.bus = bus?.counters ?? BusCounters()
        value.resetsDetected = driver.resetsDetected
        value.failures += driver.suppressedErrors
        if let since = awakeSince { value.awakeSeconds += clock.now.duration(since: since).secondsDouble }
        return value
    }
    var awakeSince: ClockInstant?

    init(
        driver: any HapticChipDriver, library: (any EffectLibraryPlayback<WaveformSequence>)?, bus: MonitoredBus?, mapping: FeedbackMapping,
        options: HapticEngine.Options, logger: Logger
    ) {
        self.driver = driver
        self.library = library
        stored = driver as? any StoredWaveformPlayback
        frequency = driver as? any DriveFrequencyControl
        self.bus = bus
        self.mapping = mapping
        self.options = options
        self.logger = logger
        lastActivity = driver.clock.now
    }

    var isBusy: Bool { busyUntil != nil || clip != nil || exclusive != nil }

    // Exclusive playback (pattern players): the engine leaves the chip alone until it ends.
    var exclusive: UInt64?
    var exclusiveCounter: UInt64 = 0
    /// The players that share the exclusive stream, mixed (EngineCore+Mixing); nil when one
    /// player, or none, has the chip.
    var mix: StreamMix?

    /// Hands the chip to a player: whatever plays is stopped, the power timers hold off.
    func beginExclusive() -> UInt64 {
        if isBusy { stopAll(standby: false) }
        mix = nil
        exclusiveCounter += 1
        exclusive = exclusiveCounter
        lastActivity = clock.now
        preparedUntil = nil
        return exclusiveCounter
    }

    /// Drives the stream at the frequency `sharpness` stands for in the chip's band
    /// (`DriveFrequencyBand.hz(sharpness:)`), written only when it changes; nil (nothing in the
    /// stream asks for a sharpness), or a chip that renders none, leaves the drive as it is.
    func setStreamSharpness(_ sharpness: Double?) throws(HapticChipError) {
        guard let sharpness, let frequency, let band = frequency.driveFrequencyBand else { return }
        let hz = band.hz(sharpness: sharpness)
        if frequency.driveFrequency != hz { try frequency.setDriveFrequency(hz) }
    }

    /// Whether `token` still owns the chip (a newer feedback or stop takes it away).
    func owns(_ token: UInt64) -> Bool { exclusive == token }

    /// Gives the chip back: real-time playback ended, output zero, standby unless prepared.
    func endExclusive(_ token: UInt64) {
        guard exclusive == token else { return }
        exclusive = nil
        mix = nil
        lastActivity = clock.now
        if driver.isStreaming {
            do { try driver.endRealTimePlayback(standby: false) } catch { recover("ending a pattern", error) }
        } else if driver.power == .ready {
            do { try driver.stop() } catch { recover("ending a pattern", error) }
        }
        // As after a feedback: faults and a chip reset during the pattern are found here.
        checkFaults(after: "a pattern")
        _ = tick()
        noteAwake(driver.power == .ready)
    }

    /// After a streamed feedback or a pattern: a fault the chip raised while it drove (a short, an
    /// actuator that never moved) is handled here, as after a sequence the chip played.
    func checkFaults(after what: String) {
        do {
            let status = noted(try driver.playbackStatus())
            if status.hasFault { handleFault(status, stopping: false) }
        } catch {
            recover("the check after \(what)", error)
        }
    }

    /// A status as read, after what it says that is not a fault is logged: a warning (the chip
    /// still drives: counted in `Statistics.warnings`), or a reset the driver found and repaired
    /// (counted by the driver, `Statistics.resetsDetected`).
    func noted(_ status: HapticChipStatus) -> HapticChipStatus {
        if status.warning {
            counts.warnings += 1
            logger.warning("haptics: the chip warns: \(status.warningDetail ?? "a warning without a cause"); it still drives")
        }
        if status.resetDetected {
            logger.warning("haptics: the chip was found reset (a brown-out or a re-plug): its configuration and memory were written again; what it played was cut short")
        }
        return status
    }

    /// A fault the chip reported: counted and kept (`Statistics.lastFault`), the actuator stopped
    /// when it may still be driven, logged, and the latch cleared.
    func handleFault(_ status: HapticChipStatus, stopping: Bool, context: String = "") {
        counts.faults += 1
        counts.lastFault = status.fault
        if stopping { driver.stopQuietly() }
        logger.error("haptics: \(context)\(status.fault)")
        clearFaults()
    }

    /// After a fault was reported: the chip reset to clear the latch (it would otherwise report the
    /// same fault after every feedback, and a diagnosis would find it). Logged if it fails.
    func clearFaults() {
        do { try driver.clearFaults() } catch { recover("clearing the fault", error) }
    }

    // MARK: - Requests

    func play(_ feedback: Feedback) -> FeedbackOutcome {
        guard let plan = mapping.plan(for: feedback, scale: options.policy.intensityScale) else {
            return drop(feedback.description, .unmapped)
        }
        return play(plan: plan, label: feedback.description, selection: feedback.kind == .selection)
    }

    /// What this chip plays for `plan`: the plan itself, or its stream (`FeedbackPlan.streamed`)
    /// where the chip has no ROM effect library. A feedback falls back to the stream, never to an error.
    func playable(_ plan: FeedbackPlan) -> FeedbackPlan {
        library != nil ? plan : plan.streamed
    }

    /// Plays `sequence` from the chip's effect library (a pattern's ROM hit); a chip without one
    /// never gets here (its patterns stream), and says so if it does.
    func playFromLibrary(_ sequence: WaveformSequence) throws(HapticChipError) {
        guard let library else { throw .unsupported("no effect library on this chip: the pattern should have been streamed") }
        try library.play(sequence)
    }

    func play(plan: FeedbackPlan, label: String, selection: Bool) -> FeedbackOutcome {
        let plan = playable(plan)
        let now = clock.now
        if let reason = refusal(selection: selection, at: now) { return drop(label, reason) }
        // A new feedback preempts the one playing instead of queueing behind it; into a mix of
        // players it is mixed, as one more (EngineCore+Mixing).
        let mixing = isMixing
        if isBusy, !mixing { stopAll(standby: false) }
        let before = bus?.counters ?? BusCounters()
        do {
            if mixing, case let .realTime(clip) = plan.streamed {
                noteAwake(true)
                try playMixed(clip)
            } else {
                try play(plan, at: now)
            }
        } catch {
            counts.lastTrigger = (bus?.counters ?? BusCounters()) - before
            fail(label, error)
            return .dropped(.fault(String(describing: error)))
        }
        counts.lastTrigger = (bus?.counters ?? BusCounters()) - before
        counts.played += 1
        recentTriggers.append(now)
        if selection { lastSelection = now }
        lastActivity = now
        // A trigger ends the prepared state; prepare() again if more feedback may follow.
        preparedUntil = nil
        prepareWindowStart = nil
        prepareSuppressed = false
        return .played
    }

    /// Starts `plan` on a chip nothing else plays on: from the effect library, the driver's own
    /// waveform memory, or as a stream the timers step.
    private func play(_ plan: FeedbackPlan, at now: ClockInstant) throws(HapticChipError) {
        switch plan {
        case let .rom(sequence):
            noteAwake(true)  // from the wake, so the wake delay before GO counts as awake
            try playFromLibrary(sequence)  // playable() streamed it where there is no library
            let start = max(now, clock.now)
            busyUntil = start.advanced(by: sequence.estimatedDuration)
            completionDeadline = start.advanced(by: sequence.estimatedDuration * max(1, options.completionFactor) + options.completionMargin)
        case let .realTime(realTime):
            noteAwake(true)
            if let stored, let waveform = stored.storedWaveform(levels: realTime.levels, tick: realTime.tick) {
                try stored.play(waveform)
                let start = max(now, clock.now)
                busyUntil = start.advanced(by: waveform.duration)
                completionDeadline = start.advanced(by: waveform.duration * max(1, options.completionFactor) + options.completionMargin)
                break
            }
            try driver.beginRealTimePlayback()
            // The first level here, so that a failed write is this caller's drop, not a
            // timer's failure after `.played` was returned.
            let start = clock.now
            if let first = realTime.levels.first { try driver.setRealTime(amplitude: first) }
            clip = (realTime, start, realTime.levels.isEmpty ? 0 : 1)
            lastClipStatus = start
        }
    }

    /// Whether a GO sent to every chip at once (a group broadcast) would play `feedback` here:
    /// a full-strength ROM plan, loaded, awake and waiting for a GO (not an IN/TRIG edge).
    func readyForBroadcast(_ feedback: Feedback) -> Bool {
        guard options.policy.enabled, !isBusy, driver.power == .ready, let library,
            case let .rom(sequence)? = mapping.plan(for: feedback, scale: options.policy.intensityScale).map(playable)
        else { return false }
        return library.isArmed(for: sequence)
    }

    /// Books a feedback that a group broadcast started, as `play` would have.
    func noteBroadcastTrigger(_ feedback: Feedback) {
        let now = clock.now
        let duration = mapping.plan(for: feedback, scale: options.policy.intensityScale)?.estimatedDuration ?? .zero
        library?.noteExternalTrigger()
        busyUntil = now.advanced(by: duration)
        completionDeadline = now.advanced(by: duration * max(1, options.completionFactor) + options.completionMargin)
        counts.played += 1
        counts.lastTrigger = BusCounters()
        recentTriggers.append(now)
        lastActivity = now
        preparedUntil = nil
        prepareWindowStart = nil
        prepareSuppressed = false
    }

    func prepare(_ feedback: Feedback, holder: ObjectIdentifier?) {
        guard options.policy.enabled else { return }
        let now = clock.now
        if let holder { holders.insert(holder) }
        if prepareSuppressed { return }
        if let start = prepareWindowStart, now.duration(since: start) >= options.prepareCap {
            // Prepared for too long without a trigger: ignore prepare() until something plays.
            prepareSuppressed = true
            preparedUntil = nil
            logger.debug("haptics: prepare() ignored until the next feedback (prepared for \(options.prepareCap) without one)")
            return
        }
        if prepareWindowStart == nil { prepareWindowStart = now }
        preparedUntil = now.advanced(by: options.preparedDuration)
        guard !isBusy else { return }
        do {
            let plan = mapping.plan(for: feedback, scale: options.policy.intensityScale).map(playable)
            if let library, case let .rom(sequence)? = plan {
                try library.prepare(sequence)
            } else if let stored, case let .realTime(clip)? = plan, let waveform = stored.storedWaveform(levels: clip.levels, tick: clip.tick) {
                try stored.prepare(waveform)
            } else {
                try driver.wake()
            }
            noteAwake(true)
        } catch {
            recover("prepare(\(feedback))", error)  // not a drop: nothing was asked to play yet
        }
        lastActivity = now
    }

    func release(holder: ObjectIdentifier) {
        guard holders.remove(holder) != nil, holders.isEmpty else { return }
        preparedUntil = nil
        prepareWindowStart = nil
        _ = tick()
    }

    func stopAll(standby: Bool) {
        if exclusive != nil {
            // A player had the chip: take it back (the player sees it no longer owns it; every
            // player of a mix alike).
            exclusive = nil
            mix = nil
            if driver.isStreaming {
                do { try driver.endRealTimePlayback(standby: false) } catch { recover("leaving real-time playback", error) }
            } else {
                do { try driver.stop() } catch { recover("stopping", error) }
            }
        }
        if clip != nil {
            clip = nil
            do { try driver.endRealTimePlayback(standby: false) } catch { recover("ending a real-time clip", error) }
        }
        if busyUntil != nil {
            busyUntil = nil
            completionDeadline = nil
            do { try driver.stop() } catch { recover("stopping", error) }
        }
        if standby {
            preparedUntil = nil
            prepareWindowStart = nil
            if driver.power == .ready {
                do { try driver.enterStandby() } catch { recover("entering standby", error) }
            }
            noteAwake(driver.power == .ready)
        }
    }
}
