// SPDX-License-Identifier: Apache-2.0

/// The time source every layer waits on, and the runner of every layer's timed work: injected
/// so that tests, the simulator and benchmarks run on a virtual clock and no test sleeps for real.
///
/// `sleep(until:)` blocks the calling thread; waits on hardware are short (microseconds to a
/// second) and always bounded by a deadline. `schedule` runs an engine's timers, a pattern
/// player or a sequencer: on `SystemClock` on a thread of its own, on `VirtualClock` when the
/// test moves time. Nothing else in the stack asks which kind of clock it has.
public protocol HapticClock: AnyObject, Sendable {
    var now: ClockInstant { get }
    /// Blocks until `deadline`. On a virtual clock this moves time forward at once (and runs no
    /// scheduled work: it is called by code that holds locks while it waits on the chip).
    func sleep(until deadline: ClockInstant)
    /// Sleeps until `duration` from now (a requirement with a default, so that calls through
    /// `any HapticClock` dispatch in Embedded Swift too).
    func sleep(for duration: Duration)
    #if !hasFeature(Embedded)
        /// Runs `step` now and again at each instant it returns, until it returns `nil` (or, with
        /// `waitsForWake`, until `cancel()`).
        func schedule(_ options: WorkOptions, _ step: @escaping @Sendable () -> ClockInstant?) -> ScheduledWork
        /// Blocks until `isDone()` holds or `timeout` passes; returns `isDone()`. A virtual clock
        /// runs the scheduled work meanwhile, moving time from one deadline to the next.
        func wait(until isDone: () -> Bool, timeout: Duration) -> Bool
    #endif
}

extension HapticClock {
    /// Sleeps until `duration` from now (on a virtual clock: moves time by it).
    public func sleep(for duration: Duration) { sleep(until: now.advanced(by: duration)) }
}
