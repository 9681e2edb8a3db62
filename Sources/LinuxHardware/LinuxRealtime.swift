import CLinuxHardware

/// Thread settings for precise pacing on Linux.
public enum LinuxRealtime {
    /// Sets the calling thread's timer slack to 1 ns (default 50 µs), so `clock_nanosleep` wakes
    /// close to its deadline. Returns false if the kernel refused.
    @discardableResult
    public static func reduceTimerSlack() -> Bool { clh_set_timer_slack(1) == 0 }
}
