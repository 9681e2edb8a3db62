// SPDX-License-Identifier: Apache-2.0

import DRV2605
import HapticEffects
import HapticChip
import HapticFeedback
import HardwareAccess

/// Plays feedback plans on the chip and watches them to the end, one step at a time from the main
/// loop, so that commands (stop above all) are read while a feedback plays. The steps are the
/// Linux engine's for one feedback: the sequence and GO (`play`), the status read once its
/// estimated length has passed (polled until three times that length and half a second more),
/// then standby; a real-time clip is streamed one level per tick on the board's timer. A sequence
/// (`playSequence`) starts each note at its place on the board's timer, as `haptic sequence`
/// does on Linux: a feedback note is made ready 20 ms ahead (a ROM sequence loaded and the chip
/// woken), so that at its time the chip needs one GO; a note preempts the one before it; the
/// sequence ends (`done sequence`) once its last note has ended and its length has passed. A
/// pattern's ROM clicks play as the Linux pattern player plays them: the chip woken at the start
/// and held awake, each click's sequence and GO at its time, and at the end a stop, a status
/// check and standby.
final class FeedbackPlayer {
    /// What finished, for the `done` line.
    enum Event {
        case finished(String)
        case failed(String, HapticChipError)
    }

    let driver: DRV2605Driver
    /// The feedback table: the actuator type's (`actuator` changes it).
    var mapping: FeedbackMapping
    private var clock: any HapticClock { driver.clock }
    /// The feedback playing, by name (`sequence` between a sequence's notes).
    var playing: String? { current ?? (sequence != nil ? sequenceName : nil) }
    /// The feedback or note playing now, by name.
    private var current: String?
    /// The sequence playing: its notes in time, when it started, the next note to start and the
    /// next to prepare.
    private var sequence: (schedule: SequenceSchedule<NamedPlan>, start: ClockInstant, next: Int, prepared: Int)?
    /// The name the sequence plays under (`sequence`, or `pattern` for a pattern's clicks), and
    /// whether it holds the chip awake and plays each note without watching it (clicks).
    private var sequenceName = "sequence"
    private var holdsChip = false
    /// How long before its time a ROM note is loaded and the chip woken (Linux's `SequencePlayer.prepareAhead`).
    static let prepareAhead: Int64 = 20_000_000
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

    /// Starts `plan` (stopping what plays, a sequence included); returns its estimated length.
    func play(_ plan: FeedbackPlan, name: String) throws(HapticChipError) -> Duration {
        if playing != nil { try stop(standby: false) }
        return try start(plan, name: name)
    }

    /// Starts `schedule`'s notes on the board's timer from now (stopping what plays); returns
    /// its length. `holdsChip`: a pattern's ROM clicks, played under `name` with the chip held
    /// awake throughout.
    func playSequence(_ schedule: SequenceSchedule<NamedPlan>, name: String = "sequence", holdsChip: Bool = false) throws(HapticChipError) -> Duration {
        if playing != nil { try stop(standby: false) }
        if holdsChip { try driver.wake() }
        sequenceName = name
        self.holdsChip = holdsChip
        sequence = (schedule, clock.now, 0, 0)
        return .nanoseconds(Self.nanoseconds(schedule.seconds))
    }

    private static func nanoseconds(_ seconds: Double) -> Int64 { Int64((min(seconds, 9e9) * 1e9).rounded(.up)) }

    /// Starts `plan` (stopping the note before it, not the sequence).
    private func start(_ plan: FeedbackPlan, name: String) throws(HapticChipError) -> Duration {
        if current != nil { try stopCurrent(standby: false) }
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
        current = name
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
            current = "level"
        }
        try driver.setRealTime(amplitude: amplitude)
    }

    /// Wakes the chip, so that what plays next starts without the wake-up delay.
    func wake() throws(HapticChipError) {
        guard playing == nil else { return }
        try driver.wake()
    }

    /// Stops the actuator now, and the sequence playing, and leaves the chip in standby (or
    /// awake, when another feedback follows at once).
    func stop(standby: Bool = true) throws(HapticChipError) {
        sequence = nil
        try stopCurrent(standby: standby)
    }

    /// Stops the feedback or note playing (not the sequence).
    private func stopCurrent(standby: Bool) throws(HapticChipError) {
        busyUntil = nil
        completionDeadline = nil
        current = nil
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
        sequence = nil
        busyUntil = nil
        completionDeadline = nil
        clip = nil
        holding = false
        current = nil
        driver.stopQuietly()
        if driver.power == .ready { try? driver.enterStandby() }
    }

    /// When `step()` next has work, if anything plays.
    var nextDue: ClockInstant? {
        var due: ClockInstant?
        if let clip { due = clip.start.advanced(byNanoseconds: clip.tick * Int64(clip.index)) } else { due = busyUntil }
        if let sequence {
            let entries = sequence.schedule.entries
            // The next note's start, the next preparation, or the sequence's end.
            var offset = sequence.next < entries.count ? Self.nanoseconds(entries[sequence.next].offset) : Self.nanoseconds(sequence.schedule.seconds)
            if sequence.prepared < entries.count {
                offset = min(offset, max(0, Self.nanoseconds(entries[sequence.prepared].offset) - Self.prepareAhead))
            }
            let at = sequence.start.advanced(byNanoseconds: offset)
            due = due.map { min($0, at) } ?? at
        }
        return due
    }

    /// Does what is due: a sequence's notes, the next real-time level, or the completion check.
    func step() -> Event? {
        guard sequence != nil else { return stepCurrent() }
        do throws(HapticChipError) {
            try stepSequence()
        } catch {
            stopQuietly()
            return .failed(sequenceName, error)
        }
        let name = sequenceName
        switch stepCurrent() {
        case let .failed(_, error)?:
            sequence = nil
            return .failed(name, error)
        case .finished?, nil:
            // A note's end is not the sequence's: that is when every note has started, the last
            // has ended and the sequence's length has passed.
            guard let run = sequence, current == nil, run.next == run.schedule.entries.count,
                clock.now >= run.start.advanced(byNanoseconds: Self.nanoseconds(run.schedule.seconds))
            else { return nil }
            sequence = nil
            do throws(HapticChipError) {
                if holdsChip {
                    // As the Linux pattern player gives the chip back: stopped, checked, standby.
                    if driver.power == .ready { try driver.stop() }
                    let status = try driver.playbackStatus()
                    if status.hasFault {
                        stopQuietly()
                        return .failed(name, status.fault)
                    }
                }
                if driver.power == .ready { try driver.enterStandby() }
            } catch {
                stopQuietly()
                return .failed(name, error)
            }
            return .finished(name)
        }
    }

    /// Starts the sequence's notes whose time has come, in order (each preempting the one
    /// before), and loads the next ROM note ahead of its time while nothing plays.
    private func stepSequence() throws(HapticChipError) {
        guard var run = sequence else { return }
        let entries = run.schedule.entries
        let now = clock.now
        while run.next < entries.count, now >= run.start.advanced(byNanoseconds: Self.nanoseconds(entries[run.next].offset)) {
            let entry = entries[run.next]
            run.next += 1
            run.prepared = max(run.prepared, run.next)
            sequence = run
            if holdsChip, case let .rom(rom) = entry.note.plan {
                // A click: its sequence and GO, over the one before if it still plays.
                try driver.play(rom)
            } else {
                _ = try start(entry.note.plan, name: entry.note.name)
            }
        }
        while run.prepared < entries.count,
            now >= run.start.advanced(byNanoseconds: Self.nanoseconds(entries[run.prepared].offset) - Self.prepareAhead)
        {
            let note = entries[run.prepared].note
            run.prepared += 1
            sequence = run
            // As the Linux engine prepares a feedback: only while nothing plays; a ROM sequence
            // is loaded and the chip woken, a real-time one only woken.
            guard note.preparedAhead, current == nil else { continue }
            if case let .rom(rom) = note.plan { try driver.prepare(rom) } else { try driver.wake() }
        }
        sequence = run
    }

    /// The feedback or note playing: its next real-time level, or its completion check.
    private func stepCurrent() -> Event? {
        guard let name = current else { return nil }
        do throws(HapticChipError) {
            if let running = clip {
                guard clock.now >= running.start.advanced(byNanoseconds: running.tick * Int64(running.index)) else { return nil }
                if running.index < running.levels.count {
                    try driver.setRealTime(amplitude: running.levels[running.index])
                    clip = (running.levels, running.start, running.tick, running.index + 1)
                    return nil
                }
                clip = nil
                current = nil
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
            current = nil
            if driver.power == .ready { try driver.enterStandby() }
            return .finished(name)
        } catch {
            stopQuietly()
            return .failed(name, error)
        }
    }
}
