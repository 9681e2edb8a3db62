// SPDX-License-Identifier: Apache-2.0

import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The machine's monotonic clock (`CLOCK_MONOTONIC`), with absolute-deadline sleeps.
public final class SystemClock: HapticClock {
    /// A handle on the machine's clock (they are all the same clock).
    public init() {}
    /// The one most code uses.
    public static let shared = SystemClock()

    /// CLOCK_MONOTONIC now.
    public var now: ClockInstant {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return ClockInstant(nanoseconds: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec))
    }

    /// Sleeps to an absolute deadline (clock_nanosleep with TIMER_ABSTIME), so a late wake-up does
    /// not push later deadlines back; signals do not cut it short.
    public func sleep(until deadline: ClockInstant) {
        #if canImport(Glibc) || canImport(Musl)
            var spec = timespec(
                tv_sec: Int(deadline.nanoseconds / 1_000_000_000),
                tv_nsec: Int(deadline.nanoseconds % 1_000_000_000))
            // clock_nanosleep returns EINTR when a signal arrives; go back to sleep until the deadline.
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil) == EINTR {}
        #else
            let remaining = deadline.nanoseconds - now.nanoseconds
            if remaining > 0 { usleep(useconds_t(remaining / 1000)) }
        #endif
    }

    /// Runs `step` on a thread of its own (`options.name`, user-interactive quality of service).
    public func schedule(_ options: WorkOptions, _ step: @escaping @Sendable () -> ClockInstant?) -> ScheduledWork {
        let work = ScheduledWork(options: options, firstDue: .zero, step: step)
        let thread = Thread { [self] in work.runOnThread(clock: self) }
        thread.name = options.name
        thread.qualityOfService = .userInteractive
        thread.start()
        return work
    }

    /// Checks `isDone` every millisecond while other threads do the work.
    public func wait(until isDone: () -> Bool, timeout: Duration) -> Bool {
        let deadline = now.advanced(by: timeout)
        while !isDone() {
            guard now < deadline else { return false }
            sleep(for: .milliseconds(1))
        }
        return true
    }
}

/// A clock that moves only when told to: by `advance(by:)`, or by `sleep(until:)`, which jumps
/// straight to the deadline. Tests move it by hand; `--virtual-time` runs the simulator as fast
/// as the CPU allows.
///
/// It is also the test double of the threads: scheduled work (an engine's timers, a player, a
/// sequencer) runs on the caller's thread when `advance` or `runDueWork` reaches its deadline,
/// each step at its own instant, so a test sees the chip exactly as it would be then.
public final class VirtualClock: HapticClock {
    /// Nanoseconds since the start; an atomic, since tests move time from several threads.
    private let current: Atomic<Int64>
    /// A clock standing at `start`.
    public init(start: ClockInstant = .zero) { current = Atomic(start.nanoseconds) }
    private let works = Locked<[ScheduledWork]>([])
    /// Where the clock stands.
    public var now: ClockInstant { ClockInstant(nanoseconds: current.load(ordering: .acquiring)) }
    /// Moves time to `deadline` unless it is already later (time never goes back).
    public func sleep(until deadline: ClockInstant) {
        var observed = current.load(ordering: .relaxed)
        while observed < deadline.nanoseconds {
            let (exchanged, original) = current.compareExchange(
                expected: observed, desired: deadline.nanoseconds,
                ordering: .acquiringAndReleasing)
            if exchanged { return }
            observed = original
        }
    }
    /// Moves time forward by `duration` (a negative one is ignored), running scheduled work at
    /// each deadline on the way.
    public func advance(by duration: Duration) {
        advance(to: now.advanced(by: .nanoseconds(max(0, duration.nanoseconds))))
    }

    /// Moves time to `instant` (unless it is already later), running scheduled work at each
    /// deadline on the way.
    public func advance(to instant: ClockInstant) {
        runDueWork()
        while let next = nextDeadline, next <= instant {
            sleep(until: max(next, now.advanced(byNanoseconds: 1)))
            runDueWork()
        }
        sleep(until: instant)
        runDueWork()
    }

    /// Registers `step`; it first runs at the next `advance`, `runDueWork` or `wait`.
    public func schedule(_ options: WorkOptions, _ step: @escaping @Sendable () -> ClockInstant?) -> ScheduledWork {
        let work = ScheduledWork(options: options, firstDue: .zero, step: step)
        works.withLock { works in
            works.removeAll { $0.isCancelled }
            works.append(work)
        }
        return work
    }

    /// Runs the work due now, again while steps make more work due now (bounded, so a step that
    /// always asks for now cannot hang a test).
    public func runDueWork() {
        for _ in 0..<10_000 {
            let instant = now
            let due = works.withLock { works in
                works.removeAll { $0.isCancelled }
                return works.filter { work in work.due.map { $0 <= instant } ?? false }
            }
            if due.isEmpty { return }
            for work in due { _ = work.runStep() }
        }
    }

    /// The earliest deadline of the scheduled work, if any.
    public var nextDeadline: ClockInstant? { works.withLock { $0.compactMap(\.due).min() } }

    /// Runs the scheduled work, moving time from deadline to deadline, until `isDone()` or until
    /// `timeout` of virtual time has passed.
    public func wait(until isDone: () -> Bool, timeout: Duration) -> Bool {
        let deadline = now.advanced(by: timeout)
        while true {
            runDueWork()
            if isDone() { return true }
            guard let next = nextDeadline, next <= deadline else { return isDone() }
            sleep(until: max(next, now.advanced(byNanoseconds: 1)))
        }
    }
}
