// SPDX-License-Identifier: Apache-2.0

import Audio
import Foundation
import HapticChip
import HapticEffects
import HardwareAccess

/// Plays a sequence of notes on an engine, with a completion handler and a cancel that really
/// stops what is playing.
///
/// With sound notes and a sound engine, every sound is placed on the audio timeline at start and
/// the haptics are delayed by the engine's lead time, so that a sound and a haptic at the same
/// offset are heard and felt together; each feedback is prepared 20 ms before its time, so that
/// at its time the chip needs one trigger (a GO write). Without a sound engine, sound notes are
/// not played and `unplayedSounds` says how many.
public final class SequencePlayer: Sendable {
    public enum Outcome: Sendable, Equatable { case finished, cancelled }

    /// A note placed in time.
    public struct ScheduledNote: Sendable, Equatable {
        public var offset: Double
        public var duration: Double
        public var note: SequenceNote
    }

    public let engine: HapticEngine
    /// The notes with their start offsets (waits resolved).
    public let schedule: [ScheduledNote]
    /// Where sound notes play (nil: they are not played).
    public let sounds: SoundEngine?
    /// How long before its time a feedback is prepared.
    public static let prepareAhead: Duration = .milliseconds(20)
    private let renderer: PatternRenderer
    private let playerOptions: PatternPlayer.Options
    private struct State {
        var start: ClockInstant?
        var next = 0
        var nextPrepared = 0
        var players: [PatternPlayer] = []
        var soundIDs: [Int] = []
        var outcome: Outcome?
        var completion: (@Sendable (Outcome) -> Void)?
        var work: ScheduledWork?
        var dropped: [(note: String, reason: DropReason)] = []
    }
    private let state = Locked(State())

    /// A player for `notes` on `engine`; sound notes play on `sounds`.
    public init(
        engine: HapticEngine, notes: [SequenceNote], renderer: PatternRenderer = PatternRenderer(),
        playerOptions: PatternPlayer.Options = .init(), sounds: SoundEngine? = nil
    ) {
        self.engine = engine
        self.renderer = renderer
        self.playerOptions = playerOptions
        self.sounds = sounds
        // Placed in time by the rules the firmware shares (SequenceSchedule).
        let mapping = engine.mapping
        let steps = notes.map { note -> SequenceSchedule<SequenceNote>.Step in
            switch note {
            case let .wait(seconds): return .wait(seconds)
            case .waitUntilFinished: return .untilFinished
            case let .feedback(feedback): return .note(note, seconds: mapping.plan(for: feedback)?.estimatedDuration.secondsDouble ?? 0)
            case let .effect(effect): return .note(note, seconds: effect.estimatedDuration.secondsDouble)
            case let .pattern(pattern): return .note(note, seconds: renderer.render(pattern).playedSeconds)
            case let .sound(sound): return .note(note, seconds: sound.duration)
            }
        }
        schedule = SequenceSchedule(steps).entries.map { ScheduledNote(offset: $0.offset, duration: $0.seconds, note: $0.note) }
    }

    /// The time from start to the end of the last note.
    public var duration: Double { schedule.map { $0.offset + $0.duration }.max() ?? 0 }

    public var completionHandler: (@Sendable (Outcome) -> Void)? {
        get { state.withLock { $0.completion } }
        set { state.withLock { $0.completion = newValue } }
    }
    public var outcome: Outcome? { state.withLock { $0.outcome } }
    /// The notes that were not played, and why (the policy, the rate limit, a fault): a sequence
    /// that finished may still have dropped some, and whoever asked must be told.
    public var droppedNotes: [(note: String, reason: DropReason)] { state.withLock { $0.dropped } }

    /// Sound notes that will not be heard: there is no sound engine.
    public var unplayedSounds: Int {
        guard sounds == nil else { return 0 }
        return schedule.filter { if case .sound = $0.note { return true } else { return false } }.count
    }
    /// How long after `start()` the first offset is played: the sound engine's lead time when
    /// there are sounds to keep in step, else zero.
    public var startDelay: Duration {
        guard let sounds, schedule.contains(where: { if case .sound = $0.note { return true } else { return false } }) else { return .zero }
        return sounds.leadTime
    }

    /// Starts playing: offset 0 is `startDelay` from now.
    public func start() {
        let start = engine.clock.now.advanced(by: startDelay)
        state.withLock { $0.start = start }
        if let sounds {
            var placed: [Int] = []
            for item in schedule {
                if case let .sound(sound) = item.note { placed.append(sounds.play(sound, at: start.advanced(by: .secondsClamped(item.offset)))) }
            }
            state.withLock { $0.soundIDs = placed }
        }
        // On a real clock a thread that sleeps to each note (spinning the last stretch, as a
        // pattern player does); on a virtual one, the test's advance. Held weakly, as a pattern
        // player is: a sequence its owner lets go of plays no further note, and its pattern
        // players, let go with it, stop the actuator.
        let work = engine.clock.schedule(
            WorkOptions(name: "haptics-sequence", spin: playerOptions.spin, threadSetup: playerOptions.threadSetup)
        ) { [weak self] in self?.pump() }
        state.withLock { $0.work = work }
    }

    /// Stops what plays now (sounds included) and drops what is pending; the completion handler
    /// gets `.cancelled`.
    public func cancel() {
        let players = state.withLock { state -> [PatternPlayer] in
            state.next = schedule.count
            return state.players
        }
        for player in players { player.cancel() }
        engine.stop()
        stopSounds()
        finish(.cancelled)
    }

    private func stopSounds() {
        let placed = state.withLock { state -> [Int] in
            defer { state.soundIDs = [] }
            return state.soundIDs
        }
        sounds?.stop(placed)
    }

    /// A sequence let go of while it plays: its sounds stop too (its pattern players stop the
    /// actuator as they go).
    deinit {
        state.withLock { $0.work?.cancel() }
        if outcome == nil { stopSounds() }
        engine.releasePreparation(holder: ObjectIdentifier(self))
    }

    /// Plays what is due; returns when to call again (`nil`: finished).
    @discardableResult
    public func pump() -> ClockInstant? {
        let now = engine.clock.now
        guard let start = state.withLock({ $0.outcome == nil ? $0.start : nil }) else { return nil }
        var due: [ScheduledNote] = []
        var toPrepare: [Feedback] = []
        state.withLock { state in
            while state.next < schedule.count, start.advanced(by: .secondsClamped(schedule[state.next].offset)) <= now {
                due.append(schedule[state.next])
                state.next += 1
            }
            state.nextPrepared = max(state.nextPrepared, state.next)
            while state.nextPrepared < schedule.count,
                start.advanced(by: .secondsClamped(schedule[state.nextPrepared].offset)) <= now.advanced(by: SequencePlayer.prepareAhead)
            {
                if case let .feedback(feedback) = schedule[state.nextPrepared].note { toPrepare.append(feedback) }
                state.nextPrepared += 1
            }
        }
        for item in due {
            var outcome = FeedbackOutcome.played
            switch item.note {
            case let .feedback(feedback): outcome = engine.play(feedback)
            case let .effect(effect): outcome = engine.play(plan: .rom(WaveformSequence(effect)), label: "effect \(effect.rawValue)")
            case let .pattern(pattern):
                let player = PatternPlayer(engine: engine, pattern: renderer.render(pattern), options: playerOptions)
                let note = String(describing: item.note)
                // Weakly: the state holds the player, and a dropped sequence must free (and so stop) it.
                player.completionHandler = { [weak state] end in
                    if case let .dropped(reason) = end { state?.withLock { $0.dropped.append((note, reason)) } }
                }
                state.withLock { $0.players.append(player) }
                player.start(at: now)
            case .sound, .wait, .waitUntilFinished: break
            }
            if case let .dropped(reason) = outcome { state.withLock { $0.dropped.append((String(describing: item.note), reason)) } }
        }
        // After what was due, so that preparing never delays a note whose time has come.
        for feedback in toPrepare { engine.prepare(feedback, holder: ObjectIdentifier(self)) }
        var next: [ClockInstant] = []
        let (pending, prepareAt) = state.withLock { state -> (ClockInstant?, ClockInstant?) in
            (
                state.next < schedule.count ? start.advanced(by: .secondsClamped(schedule[state.next].offset)) : nil,
                state.nextPrepared < schedule.count
                    ? start.advanced(by: .secondsClamped(schedule[state.nextPrepared].offset)).advanced(by: .zero - SequencePlayer.prepareAhead) : nil
            )
        }
        if let pending { next.append(pending) }
        if let prepareAt { next.append(prepareAt) }
        let end = start.advanced(by: .secondsClamped(duration))
        let playersDone = state.withLock { $0.players.allSatisfy { $0.outcome != nil } }
        if pending == nil, now >= end, playersDone {
            engine.releasePreparation(holder: ObjectIdentifier(self))
            finish(.finished)
            return nil
        }
        next.append(end)
        return next.filter { $0 > now }.min() ?? now.advanced(by: .milliseconds(1))
    }

    /// Blocks until the sequence ends or `timeout` passes (`nil`: still playing). On a virtual
    /// clock it plays everything scheduled meanwhile, moving time as it goes.
    @discardableResult
    public func waitUntilFinished(timeout: Duration) -> Outcome? {
        _ = engine.clock.wait(until: { outcome != nil }, timeout: timeout)
        return outcome
    }

    /// Waits until the sequence ends, cancelling it if it has not after `limit`.
    @discardableResult
    public func runToCompletion(limit: Duration = .seconds(3600)) -> Outcome? {
        if waitUntilFinished(timeout: limit) == nil { cancel() }
        return outcome
    }

    private func finish(_ outcome: Outcome) {
        let completion: (@Sendable (Outcome) -> Void)?? = state.withLock { state in
            guard state.outcome == nil else { return .none }
            state.outcome = outcome
            return .some(state.completion)
        }
        guard case let .some(handler) = completion else { return }
        handler?(outcome)
    }
}
