// SPDX-License-Identifier: Apache-2.0

import CLinuxHardware

/// Thread settings for precise pacing on Linux.
public enum LinuxRealtime {
    /// Sets the calling thread's timer slack to 1 ns (default 50 µs), so `clock_nanosleep` wakes
    /// close to its deadline. Returns false if the kernel refused.
    @discardableResult
    public static func reduceTimerSlack() -> Bool { clh_set_timer_slack(1) == 0 }

    /// Moves the calling thread to the SCHED_FIFO real-time class, so other processes cannot delay
    /// its wake-ups. Needs root or CAP_SYS_NICE; returns false (and changes nothing) otherwise.
    /// The player thread sleeps between updates and spins at most ~150 µs before each, so it
    /// cannot starve the machine.
    @discardableResult
    public static func requestRealtimePriority(_ priority: Int32 = 40) -> Bool { clh_set_fifo_priority(priority) == 0 }

    /// Both of the above: what pattern players use on Linux.
    public static func preparePacingThread() {
        reduceTimerSlack()
        requestRealtimePriority()
    }
}
