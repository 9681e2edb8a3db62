// SPDX-License-Identifier: Apache-2.0

import DRV2605
import HapticChip
import HapticFeedback
import HardwareAccess

/// Plays feedback plans on the chip and watches them to the end, one step at a time from the main
/// loop, so that commands (stop above all) are read while a feedback plays. The steps are the
/// Linux engine's for one feedback: the sequence and GO (`play`), the status read once its
/// estimated length has passed (polled until three times that length and half a second more),
/// then standby; a real-time clip is streamed one level per tick on the board's timer.
final class FeedbackPlayer {
    /// What finished, for the `done` line.
    enum Event {
        case finished(String)
        case failed(String, HapticChipError)
    }

    let driver: DRV2605Driver
    let mapping: FeedbackMapping
    private var clock: any HapticClock { driver.clock }
    /// The feedback playing, by name.
    private(set) var playing: String?
    private var busyUntil: ClockInstant?
    private var completionDeadline: ClockInstant?
    /// The clip streaming: its levels, when it started, its tick in nanoseconds, the next index.
    private var clip: (levels: [Double], start: ClockInstant, tick: Int64, index: Int)?
    /// Whether the host streams levels itself (`level`): each held until the next one.
    private var holding = false

    init(driver: DRV2605Driver, mapping: FeedbackMapping) {
        self.driver = driver
        self.mapping = mapping
    }

    /// Starts `plan` (stopping what plays); returns its estimated length.
    func play(_ plan: FeedbackPlan, name: String) throws(HapticChipError) -> Duration {
        if playing != nil { try stop(standby: false) }
        switch plan {
        case let .rom(sequence):
            try driver.play(sequence)
            let start = clock.now
            let length = sequence.estimatedDuration.nanoseconds
            busyUntil = start.advanced(byNanoseconds: length)
            completionDeadline = start.advanced(byNanoseconds: length * 3 + 500_000_000)
        case let .realTime(realTime):
            try driver.beginRealTimePlayback()
            let start = clock.now
            if let first = realTime.levels.first { try driver.setRealTime(amplitude: first) }
            clip = (realTime.levels, start, realTime.tick.nanoseconds, realTime.levels.isEmpty ? 0 : 1)
        }
        playing = name
        return plan.estimatedDuration
    }

    /// Loads `plan`'s sequence and wakes the chip, so that playing it next is one GO write.
    func prepare(_ plan: FeedbackPlan) throws(HapticChipError) {
        guard playing == nil, case let .rom(sequence) = plan else { return }
        try driver.prepare(sequence)
    }

    /// Drives `amplitude` until the next level, the end of the stream, a stop or the link
    /// watchdog: the host's own stream (a pattern Linux renders), one level a command.
    func hold(_ amplitude: Double) throws(HapticChipError) {
        if !holding {
            if playing != nil { try stop(standby: false) }
            try driver.beginRealTimePlayback()
            holding = true
            playing = "level"
        }
        try driver.setRealTime(amplitude: amplitude)
    }

    /// Wakes the chip, so that what plays next starts without the wake-up delay.
    func wake() throws(HapticChipError) {
        guard playing == nil else { return }
        try driver.wake()
    }

    /// Stops the actuator now and leaves the chip in standby (or awake, when another feedback
    /// follows at once).
    func stop(standby: Bool = true) throws(HapticChipError) {
        busyUntil = nil
        completionDeadline = nil
        playing = nil
        if clip != nil || holding {
            clip = nil
            holding = false
            try driver.endRealTimePlayback(standby: standby)
            return
        }
        if driver.power == .ready { try driver.stop() }
        if standby && driver.power == .ready { try driver.enterStandby() }
    }

    /// Stops without throwing (the link watchdog, a failure): the driver's hardest stop, then
    /// standby when the chip still answers.
    func stopQuietly() {
        busyUntil = nil
        completionDeadline = nil
        clip = nil
        holding = false
        playing = nil
        driver.stopQuietly()
        if driver.power == .ready { try? driver.enterStandby() }
    }

    /// When `step()` next has work, if anything plays.
    var nextDue: ClockInstant? {
        if let clip { return clip.start.advanced(byNanoseconds: clip.tick * Int64(clip.index)) }
        return busyUntil
    }

    /// Does what is due: the next real-time level, or the completion check.
    func step() -> Event? {
        guard let name = playing else { return nil }
        do throws(HapticChipError) {
            if let current = clip {
                guard clock.now >= current.start.advanced(byNanoseconds: current.tick * Int64(current.index)) else { return nil }
                if current.index < current.levels.count {
                    try driver.setRealTime(amplitude: current.levels[current.index])
                    clip = (current.levels, current.start, current.tick, current.index + 1)
                    return nil
                }
                clip = nil
                playing = nil
                try driver.endRealTimePlayback(standby: true)
                return .finished(name)
            }
            guard let until = busyUntil, clock.now >= until else { return nil }
            let status = try driver.playbackStatus()
            if status.hasFault {
                stopQuietly()
                return .failed(name, status.fault)
            }
            if status.playing, let deadline = completionDeadline, clock.now < deadline {
                busyUntil = clock.now.advanced(by: driver.pollInterval)
                return nil
            }
            if status.playing { driver.stopQuietly() }
            try driver.finishPlayback()
            busyUntil = nil
            completionDeadline = nil
            playing = nil
            if driver.power == .ready { try driver.enterStandby() }
            return .finished(name)
        } catch {
            stopQuietly()
            return .failed(name, error)
        }
    }
}
