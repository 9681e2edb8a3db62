// SPDX-License-Identifier: Apache-2.0

import DRV2605
import Foundation
import HardwareAccess

/// Plays a sequence of notes on an engine, with a completion handler and a cancel that really
/// stops what is playing.
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
    private let renderer: PatternRenderer
    private let playerOptions: PatternPlayer.Options
    private struct State {
        var start: ClockInstant?
        var next = 0
        var players: [PatternPlayer] = []
        var outcome: Outcome?
        var completion: (@Sendable (Outcome) -> Void)?
    }
    private let state = Locked(State())

    public init(
        engine: HapticEngine, notes: [SequenceNote], renderer: PatternRenderer = PatternRenderer(),
        playerOptions: PatternPlayer.Options = .init()
    ) {
        self.engine = engine
        self.renderer = renderer
        self.playerOptions = playerOptions
        var schedule: [ScheduledNote] = []
        var offset = 0.0
        let mapping = engine.mapping
        for note in notes {
            switch note {
            case let .wait(seconds):
                offset += max(0, seconds)
            case .waitUntilFinished:
                offset = max(offset, schedule.map { $0.offset + $0.duration }.max() ?? offset)
            case let .feedback(feedback):
                schedule.append(.init(offset: offset, duration: mapping.plan(for: feedback)?.estimatedDuration.secondsDouble ?? 0, note: note))
            case let .effect(effect):
                schedule.append(.init(offset: offset, duration: effect.estimatedDuration.secondsDouble, note: note))
            case let .pattern(pattern):
                schedule.append(.init(offset: offset, duration: renderer.render(pattern).playedSeconds, note: note))
            }
        }
        self.schedule = schedule
    }

    /// The time from start to the end of the last note.
    public var duration: Double { schedule.map { $0.offset + $0.duration }.max() ?? 0 }

    public var completionHandler: (@Sendable (Outcome) -> Void)? {
        get { state.withLock { $0.completion } }
        set { state.withLock { $0.completion = newValue } }
    }
    public var outcome: Outcome? { state.withLock { $0.outcome } }

    public func start() {
        state.withLock { $0.start = engine.clock.now }
        // On a real clock a thread that sleeps to each note; on a virtual one, the test's advance.
        // Held weakly, as a pattern player is: a sequence its owner lets go of plays no further
        // note, and its pattern players, let go with it, stop the actuator.
        _ = engine.clock.schedule(WorkOptions(name: "haptics-sequence")) { [weak self] in self?.pump() }
    }

    /// Stops what plays now and drops what is pending; the completion handler gets `.cancelled`.
    public func cancel() {
        let players = state.withLock { state -> [PatternPlayer] in
            state.next = schedule.count
            return state.players
        }
        for player in players { player.cancel() }
        engine.stop()
        finish(.cancelled)
    }

    /// Plays what is due; returns when to call again (`nil`: finished).
    @discardableResult
    public func pump() -> ClockInstant? {
        let now = engine.clock.now
        guard let start = state.withLock({ $0.outcome == nil ? $0.start : nil }) else { return nil }
        var due: [ScheduledNote] = []
        state.withLock { state in
            while state.next < schedule.count, start.advanced(by: .secondsClamped(schedule[state.next].offset)) <= now {
                due.append(schedule[state.next])
                state.next += 1
            }
        }
        for item in due {
            switch item.note {
            case let .feedback(feedback): engine.play(feedback)
            case let .effect(effect): engine.play(plan: .rom(WaveformSequence(effect)), label: "effect \(effect.rawValue)")
            case let .pattern(pattern):
                let player = PatternPlayer(engine: engine, pattern: renderer.render(pattern), options: playerOptions)
                state.withLock { $0.players.append(player) }
                player.start(at: now)
            case .wait, .waitUntilFinished: break
            }
        }
        var next: [ClockInstant] = []
        let pending = state.withLock { state -> ClockInstant? in
            state.next < schedule.count ? start.advanced(by: .secondsClamped(schedule[state.next].offset)) : nil
        }
        if let pending { next.append(pending) }
        let end = start.advanced(by: .secondsClamped(duration))
        let playersDone = state.withLock { $0.players.allSatisfy { $0.outcome != nil } }
        if pending == nil, now >= end, playersDone {
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
