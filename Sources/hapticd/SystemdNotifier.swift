// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Foundation
import HardwareAccess

/// hapticd's side of systemd's service protocol, through libsystemd's `sd_notify`: READY once
/// it serves, WATCHDOG while its engine answers, STOPPING on the way out. Outside systemd (no
/// `$NOTIFY_SOCKET`) every call does nothing.
///
/// The watchdog is the daemon's promise that it is not stuck: a daemon whose engine lock is held
/// forever stops pinging, systemd kills it, and the unit's `ExecStopPost` (`haptic stop`) stops
/// the actuator it may have left running.
enum SystemdNotifier {
    /// Tells systemd the service is up (`Type=notify`), with a status line for `systemctl status`.
    static func ready(status: String) {
        _ = sd_notify(0, "READY=1\nSTATUS=\(status.replacingOccurrences(of: "\n", with: " "))")
    }

    /// Tells systemd the service still starts and why (`STATUS=`, for `systemctl status`), and to
    /// give it `longer` more before its start timeout.
    static func waiting(status: String, for longer: Duration) {
        let microseconds = longer.components.seconds * 1_000_000 + longer.components.attoseconds / 1_000_000_000_000
        _ = sd_notify(0, "STATUS=\(status.replacingOccurrences(of: "\n", with: " "))\nEXTEND_TIMEOUT_USEC=\(microseconds)")
    }

    /// Waits up to `duration` for SIGTERM or SIGINT (blocked in every thread, as the daemon blocks
    /// them before its service group takes them): true when one came, and is consumed.
    static func terminationRequested(within duration: Duration) -> Bool {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        var timeout = timespec(tv_sec: Int(duration.components.seconds), tv_nsec: Int(duration.components.attoseconds / 1_000_000_000))
        while true {
            let result = sigtimedwait(&signals, nil, &timeout)
            if result > 0 { return true }
            if result < 0, errno == EINTR { continue }
            return false
        }
    }

    /// Tells systemd the service is stopping.
    static func stopping() {
        _ = sd_notify(0, "STOPPING=1")
    }

    /// The interval systemd expects pings within (`WatchdogSec=`), or nil when it expects none.
    static var watchdogInterval: Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(clamping: microseconds))
    }

    /// Pings the watchdog at a quarter of its interval for as long as `healthy()` returns true
    /// (it is asked each time; a call that never returns means no more pings). Returns nil
    /// without a watchdog. A quarter, not systemd's suggested half: the units' interval is short
    /// (1.5 s, so that a hung daemon's motor stops within 2 s), and a machine under load may
    /// delay a ping by a good part of it.
    static func startWatchdog(healthy: @escaping @Sendable () -> Bool) -> WatchdogPings? {
        guard let interval = watchdogInterval else { return nil }
        let thread = Thread {
            while !Thread.current.isCancelled {
                guard healthy() else { return }
                _ = sd_notify(0, "WATCHDOG=1")
                SystemClock.shared.sleep(for: interval / 4)
            }
        }
        thread.name = "hapticd-watchdog"
        thread.start()
        return WatchdogPings(thread)
    }
}

/// The thread that pings systemd's watchdog (`SystemdNotifier.startWatchdog`); `cancel()` ends it
/// at its next ping. Its only state is the thread's own cancellation flag, which is thread-safe.
final class WatchdogPings: @unchecked Sendable {
    private let thread: Thread

    init(_ thread: Thread) { self.thread = thread }

    /// No more pings from this thread.
    func cancel() { thread.cancel() }
}
