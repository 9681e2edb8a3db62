// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HardwareAccess

/// A vibrator that Linux drives itself, through its force-feedback device (drv260x bound by a
/// device-tree overlay, da7280, pwm-vibrator, gpio-vibrator: a phone's, a Pi's): the engine's
/// drive stream rendered into one effect, uploaded with the stream's first level and played until
/// stopped, then updated in place with each level, as the kernel lets a client update a playing
/// effect. (Uploaded at zero first, the first level would wait a second round through the kernel's
/// driver: measured in the VM on drv260x, 12 ms to the first drive instead of 4.)
///
/// The effect is the device's most direct: FF_CONSTANT where listed (da7280: a level), else
/// FF_RUMBLE (ff-memless devices: the strong motor's magnitude), else FF_PERIODIC (its magnitude,
/// which ff-memless drives a single motor with). Each update is an upload and a play (ff-memless
/// takes either); on a driver that refuses uploads while it drives (da7280: EBUSY), a stop, the
/// upload once the driver's work item has stopped the chip (retried for up to 50 ms), and a play.
/// A level is sent only when the device would drive differently (drv260x and da7280 have 127
/// steps). The stream's rate is the engine's (200 updates a second for patterns), bounded by the
/// rules' `minimumUpdateInterval` (da7280: 10 ms); ff-memless applies each update at once, and its
/// driver's work item keeps the latest.
///
/// Levels are absolute and level 1 is the actuator's rated drive: the gain is set to full at open
/// (where the driver has a gain: not da7280), and each level is encoded as the device's driver
/// reads it (`KernelVibratorRules`: drv260x's drive byte in both bytes of a rumble; da7280's
/// override kept within 127 × NOMMAX / ABSMAX, where Linux's own full scale would reverse the
/// drive). There is no standby to enter or leave here: the kernel's driver powers its chip down
/// when nothing plays; `enterStandby` and `shutdown` stop and erase the effect.
///
/// A kernel vibrator cannot brake: a brake in the stream (a negative level, the reverse drive an
/// ERM or an antiphase LRA is stopped with on our own chips) is no drive here, never forward drive
/// as its size. A switched vibrator (gpio-vibrator) whose rules hold it on for a minimum time
/// (`KernelVibratorRules.minimumOnTime`) is not switched off sooner by the stream, nor by the
/// stream's end: the effect is given the rest of that time as its replay length and played again,
/// so that the kernel ends the pulse itself (nothing is left running should this process die).
/// `stop()`, standby and shutdown switch it off at once, and so does the engine's stop while the
/// stream plays; after the stream's own end the pulse's rest (less than the minimum) is the
/// kernel's to end.
public final class KernelVibratorDriver: HapticChipDriver {
    /// The device.
    public let output: any ForceFeedbackOutput
    /// What every wait is measured on (the driver itself waits for nothing: the kernel does).
    public let clock: any HapticClock
    /// Ready while a stream may play; standby otherwise (the kernel powers its chip itself).
    public private(set) var power: HapticPowerState = .standby
    /// At once: there is no wake delay a client can see.
    public var readyInstant: ClockInstant { clock.now }
    /// No enable line of ours: the kernel's driver owns the chip.
    public var canShutDown: Bool { false }
    /// Between `beginRealTimePlayback` and the stream's end.
    public var isStreaming: Bool { streaming }
    /// How often the engine asks: nothing plays by itself here, so rarely matters.
    public var pollInterval: Duration { .milliseconds(10) }
    /// None: the kernel tells a client of no chip reset.
    public var resetsDetected: Int { 0 }
    /// Device errors `stopQuietly()` got past by erasing, or closing the device.
    public private(set) var suppressedErrors = 0
    /// How the device's kernel driver reads levels.
    public let rules: KernelVibratorRules
    /// Which effect type the stream is rendered into.
    public let effectKind: EffectKind
    /// The level last sent, 0...1 of rated.
    public private(set) var level = 0.0
    /// Uploads the device refused as busy and that were retried (da7280 between a stop and its
    /// work item).
    public private(set) var busyRetries = 0

    /// The effect type the stream is rendered into.
    public enum EffectKind: String, Sendable {
        case constant = "FF_CONSTANT"
        case rumble = "FF_RUMBLE"
        case periodic = "FF_PERIODIC"
    }

    /// The id of the effect uploaded for the stream, while it exists.
    private var effect: Int?
    /// Between `beginRealTimePlayback` and the stream's end.
    private var streaming = false
    /// Whether the effect was played and not stopped since.
    private var playing = false
    /// When the last level was sent, for the rules' rate bound.
    private var lastSent: ClockInstant?
    /// When a switched vibrator was switched on, while it is on (for `rules.minimumOnTime`).
    private var switchedOn: ClockInstant?
    /// When the kernel ends a pulse held on for the minimum time (nil: none is held).
    private var heldUntil: ClockInstant?

    /// A driver for `output`; its rules by the device's name and firmware node when not given.
    public init(output: any ForceFeedbackOutput, clock: any HapticClock, rules: KernelVibratorRules? = nil) throws(HapticChipError) {
        self.output = output
        self.clock = clock
        self.rules = rules ?? KernelVibratorRules.forDevice(named: output.name, property: output.firmwareProperty)
        let capabilities = output.capabilities
        if capabilities.gain && self.rules.setsGain {
            do { try output.setGain(1) } catch { throw .forceFeedback(error) }
        }
        if capabilities.constant {
            effectKind = .constant
        } else if capabilities.rumble {
            effectKind = .rumble
        } else if capabilities.periodic {
            effectKind = .periodic
        } else {
            throw .unsupported("\(output.name) at \(output.path) has no rumble, constant or periodic force feedback")
        }
    }

    /// The effect that drives the actuator at `level` (0...1), until stopped.
    private func effect(at level: Double, id: Int, length: Duration = .zero) -> ForceFeedbackEffect {
        let kind: ForceFeedbackEffect.Kind
        switch effectKind {
        case .constant: kind = .constant(level: rules.constantEncoding.constantLevel(for: level))
        case .rumble: kind = .rumble(strong: rules.rumbleEncoding.magnitude(for: level), weak: 0)
        case .periodic: kind = .periodic(waveform: .sine, magnitude: min(max(level, 0), 1), offset: 0, period: .milliseconds(10))
        }
        return ForceFeedbackEffect(id: id, kind: kind, length: length)
    }

    /// Whether a pulse held for the minimum on-time has not ended yet.
    private func held(at now: ClockInstant) -> Bool { heldUntil.map { now < $0 } ?? false }

    /// Holds a switched vibrator on until its minimum on-time has passed, when it was switched on
    /// less than that ago: the effect at its level is uploaded with the rest of the time as its
    /// replay length and played again (ff-memless restarts a started effect's replay), so the
    /// kernel switches it off then. Returns whether it was held (false: switch it off now).
    private func holdForMinimumOnTime() throws(ForceFeedbackDeviceError) -> Bool {
        let now = clock.now
        guard rules.minimumOnTime > .zero, let id = effect, let since = switchedOn, level > 0 else { return false }
        let end = since.advanced(by: rules.minimumOnTime)
        guard now < end else { return false }
        _ = try output.upload(effect(at: level, id: id, length: end.duration(since: now)))
        try output.play(id: id, count: 1)
        heldUntil = end
        switchedOn = nil
        playing = false
        level = 0
        return true
    }

    private func device<T>(_ body: () throws(ForceFeedbackDeviceError) -> T) throws(HapticChipError) -> T {
        do { return try body() } catch { throw .forceFeedback(error) }
    }

    /// Ready at once: the kernel wakes its chip when an effect plays.
    public func wake() throws(HapticChipError) { power = .ready }

    /// Stops and erases the effect; the kernel's driver then puts its chip to sleep.
    public func enterStandby() throws(HapticChipError) {
        try stop()
        power = .standby
    }

    /// As standby: shutting the chip down is the kernel's. A switched vibrator's pulse held for
    /// its minimum on-time is let finish first (at most that long: a program that plays one tick
    /// and exits, as `haptic play` does, would cut it short otherwise).
    public func shutdown() throws(HapticChipError) {
        if let end = heldUntil, held(at: clock.now) { clock.sleep(until: end) }
        try enterStandby()
    }

    /// Stops the effect and erases it: the kernel's driver stops its actuator.
    public func stop() throws(HapticChipError) {
        streaming = false
        lastSent = nil
        switchedOn = nil
        heldUntil = nil
        guard let id = effect else { return }
        level = 0
        playing = false
        try device { () throws(ForceFeedbackDeviceError) in try output.stop(id: id) }
        effect = nil
        try device { () throws(ForceFeedbackDeviceError) in try output.erase(id: id) }
    }

    /// Stop, else erase, else close the device (the kernel then erases, and stops, what this
    /// client uploaded).
    public func stopQuietly() {
        streaming = false
        lastSent = nil
        switchedOn = nil
        heldUntil = nil
        guard let id = effect else { return }
        level = 0
        playing = false
        effect = nil
        do {
            try output.stop(id: id)
            try output.erase(id: id)
        } catch {
            suppressedErrors += 1
            do { try output.erase(id: id) } catch {
                suppressedErrors += 1
                output.close()
            }
        }
    }

    /// The stream begins at zero drive: nothing is uploaded until a level is to be driven.
    public func beginRealTimePlayback() throws(HapticChipError) {
        power = .ready
        streaming = true
    }

    /// The level, 0...1 of rated: a kernel vibrator cannot brake, so a negative level (a brake)
    /// is no drive, never forward drive as its size.
    public func setRealTime(amplitude: Double) throws(HapticChipError) {
        guard streaming else { throw .notStarted }
        let next = min(max(amplitude.isFinite ? amplitude : 0, 0), 1)
        // Sent only when the device would drive differently (its steps are coarser than ours), and
        // no sooner than its rules allow after the last (the engine asks again at its next step).
        guard effect(at: next, id: 0).kind != effect(at: level, id: 0).kind else { return }
        let now = clock.now
        if let sent = lastSent, now < sent.advanced(by: rules.minimumUpdateInterval) { return }
        lastSent = now
        do {
            // A switched vibrator on for less than its minimum on-time stays on until then.
            if next == 0, try holdForMinimumOnTime() { return }
            if next > 0, level == 0, !held(at: now) { switchedOn = now }
            if next > 0, held(at: now) { switchedOn = heldUntil.map { $0.advanced(by: .zero - rules.minimumOnTime) } }
            heldUntil = nil
            level = next
            if rules.updatesWhilePlaying {
                let id = try output.upload(effect(at: next, id: effect ?? -1))
                effect = id
                try output.play(id: id, count: 1)
            } else {
                if let id = effect, playing { try output.stop(id: id) }
                playing = false
                guard next > 0 else { return }
                // A stream that follows another may find the chip still stopping too.
                let id = try uploadWhenIdle(effect(at: next, id: effect ?? -1))
                effect = id
                try output.play(id: id, count: 1)
            }
            playing = true
        } catch {
            stopQuietly()
            throw .forceFeedback(error)
        }
    }

    /// How long a driver that refuses uploads while it drives may take to stop after a stop.
    public static let busyDeadline = Duration.milliseconds(50)

    /// Uploads once the driver has stopped its chip: da7280 stops in a work item after the stop
    /// event, and refuses an upload (EBUSY) until then.
    private func uploadWhenIdle(_ next: ForceFeedbackEffect) throws(ForceFeedbackDeviceError) -> Int {
        let deadline = clock.now.advanced(by: Self.busyDeadline)
        while true {
            do {
                return try output.upload(next)
            } catch {
                let busy = error.errno == 16  // EBUSY
                guard busy, clock.now < deadline else { throw error }
                busyRetries += 1
                clock.sleep(for: .milliseconds(1))
            }
        }
    }

    /// Stops and erases the effect; a switched vibrator on for less than its minimum on-time is
    /// left to the kernel to switch off then. (A stop while the stream plays still cuts it: the
    /// engine's stop ends the stream, then puts the ready driver in standby, which stops it.)
    public func endRealTimePlayback(standby: Bool) throws(HapticChipError) {
        let holding: Bool
        do { holding = try holdForMinimumOnTime() } catch {
            stopQuietly()
            throw .forceFeedback(error)
        }
        if holding {
            // The kernel ends the pulse; the effect stays uploaded for the next stream (a stop,
            // standby asked of a ready driver, or shutdown erases it).
            streaming = false
            lastSent = nil
        } else {
            try stop()
        }
        if standby { power = .standby }
    }

    /// Nothing plays by itself on a kernel vibrator (only the stream), and the kernel reports no
    /// faults to its clients.
    public func playbackStatus() throws(HapticChipError) -> HapticChipStatus { HapticChipStatus(playing: false) }

    /// Nothing to clear: the kernel reports no faults to a client.
    public func clearFaults() throws(HapticChipError) {}

    /// Nothing plays by itself here.
    public func finishPlayback() throws(HapticChipError) {}

    /// What this client last asked of the device (the kernel tells a client nothing back).
    public func readBack() throws(HapticChipError) -> HapticChipReadBack {
        HapticChipReadBack(
            standby: !streaming && (effect == nil || (level == 0 && !held(at: clock.now))), driving: effect != nil && (level > 0 || held(at: clock.now)),
            details: [
                "device": .text(output.path), "name": .text(output.name), "effect": .text(effectKind.rawValue),
                "level": .int(Int((level * 1000).rounded())), "effects": .text(output.capabilities.names.joined(separator: " ")),
                "rules": .text(rules.summary)
            ])
    }
}
