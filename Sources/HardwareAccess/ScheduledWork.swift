// SPDX-License-Identifier: Apache-2.0

import Foundation
import Synchronization

/// How a clock runs one piece of timed work (an engine's timers, a pattern player, a sequencer).
public struct WorkOptions: Sendable {
    /// The thread's name on a real clock (`ps -L`, debuggers).
    public var name: String
    /// When the step returns `nil`: `true` waits for `wake()` (an engine between feedbacks),
    /// `false` ends the work (a player that has finished).
    public var waitsForWake: Bool
    /// On a real clock, how long before each deadline the thread stops sleeping and spins, for
    /// sub-100 µs timing (a player's sample clock). Zero sleeps all the way.
    public var spin: Duration
    /// Run once on the work's thread before the first step (real-time scheduling, CPU pinning).
    public var threadSetup: (@Sendable () -> Void)?

    /// Options for work named `name`.
    public init(name: String, waitsForWake: Bool = false, spin: Duration = .zero, threadSetup: (@Sendable () -> Void)? = nil) {
        self.name = name
        self.waitsForWake = waitsForWake
        self.spin = spin
        self.threadSetup = threadSetup
    }
}

/// A handle on work a clock runs: its step is called now and again at each instant it returns.
///
/// The engine, the pattern player and the sequencer each describe their timing as one step
/// ("do what is due, say when to call again") and hand it to their clock; the clock decides how
/// it runs. `SystemClock` gives it a thread; `VirtualClock` runs it on the test's thread when
/// time is advanced, so the clock itself is the test double (as NIOEmbedded's event loop is).
public final class ScheduledWork: Sendable {
    /// The options it was scheduled with.
    public let options: WorkOptions
    private let state = Locked<State>(State())
    private let condition = NSCondition()
    /// Set by `wake()`, cleared when a step starts. Atomic, with `waiting`, so that a wake (on the
    /// trigger path) takes no lock unless a thread sleeps on the condition: each side stores its
    /// flag, then reads the other's (sequentially consistent), so no wake is lost.
    private let woken = Atomic<Bool>(false)
    /// A thread is in (or entering) its condition wait.
    private let waiting = Atomic<Bool>(false)

    struct State {
        /// When the step is next due; `nil` while it waits for `wake()`.
        var due: ClockInstant?
        var cancelled = false
        /// Set while the step runs, so a step that advances a virtual clock does not re-enter.
        var running = false
        /// Times the thread went to wait for a wake.
        var waits = 0
        /// Dropped when the work ends, so whatever the step holds (its player) is let go.
        var step: (@Sendable () -> ClockInstant?)?
    }

    init(options: WorkOptions, firstDue: ClockInstant, step: @escaping @Sendable () -> ClockInstant?) {
        self.options = options
        state.withLock { state in
            state.due = firstDue
            state.step = step
        }
    }

    /// Calls the step as soon as possible (new work arrived: a prepare, a feedback).
    public func wake() {
        woken.store(true, ordering: .sequentiallyConsistent)
        guard waiting.load(ordering: .sequentiallyConsistent) else { return }
        condition.lock()
        condition.signal()
        condition.unlock()
    }

    /// Ends the work: the step is not called again (a step already running finishes).
    public func cancel() {
        condition.lock()
        state.withLock { state in
            state.cancelled = true
            if !state.running { state.step = nil }
        }
        condition.signal()
        condition.unlock()
    }

    /// Times a real clock's thread went to wait for a wake or its next deadline (a test's way to
    /// know the thread is parked).
    public var waits: Int { state.withLock { $0.waits } }

    /// Whether `cancel()` was called or the work ended by itself.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    // MARK: - For the clocks

    var due: ClockInstant? {
        state.withLock { state in
            if state.cancelled || state.running { return nil }
            return woken.load(ordering: .sequentiallyConsistent) ? .zero : state.due
        }
    }

    /// Runs the step once and records when it is next due. Returns false when the work is over.
    func runStep() -> Bool {
        let step = state.withLock { state -> (@Sendable () -> ClockInstant?)? in
            guard !state.cancelled, !state.running, let step = state.step else { return nil }
            state.running = true
            woken.store(false, ordering: .sequentiallyConsistent)
            return step
        }
        guard let step else { return false }
        let next = step()
        return state.withLock { state in
            state.running = false
            let wokenDuringStep = woken.load(ordering: .sequentiallyConsistent)
            state.due = wokenDuringStep ? .zero : next
            if next == nil && !options.waitsForWake && !wokenDuringStep { state.cancelled = true }
            if state.cancelled { state.step = nil }
            return !state.cancelled
        }
    }

    /// A real clock's loop: step, sleep until the next deadline (or a wake), repeat.
    func runOnThread(clock: any HapticClock) {
        options.threadSetup?()
        let spin = options.spin.nanoseconds
        while runStep() {
            let due = state.withLock { $0.due }
            if due == .zero { continue }  // woken while the step ran
            if options.waitsForWake {
                waitForWake(until: due, clock: clock)  // nil: idle, up to a second
            } else if let next = due {
                let sleepUntil = next.advanced(byNanoseconds: -spin)
                if clock.now < sleepUntil { clock.sleep(until: sleepUntil) }
                while clock.now < next {}
            }
        }
    }

    /// Waits on the condition until `deadline` (or at most a second, then checks again), a wake
    /// or a cancel. The work's owner is not held during the wait: the step holds it weakly.
    private func waitForWake(until deadline: ClockInstant?, clock: any HapticClock) {
        condition.lock()
        defer { condition.unlock() }
        waiting.store(true, ordering: .sequentiallyConsistent)
        defer { waiting.store(false, ordering: .sequentiallyConsistent) }
        let cancelled = state.withLock { state -> Bool in
            state.waits += 1
            return state.cancelled
        }
        guard !cancelled, !woken.load(ordering: .sequentiallyConsistent) else { return }
        let seconds = deadline.map { $0.duration(since: clock.now).secondsDouble } ?? 1.0
        if seconds > 0 { _ = condition.wait(until: Date(timeIntervalSinceNow: min(1.0, seconds))) }
    }
}
