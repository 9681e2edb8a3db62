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

    /// Pings the watchdog at half its interval for as long as `healthy()` returns true (it is
    /// asked each time; a call that never returns means no more pings). Returns nil without a
    /// watchdog.
    static func startWatchdog(healthy: @escaping @Sendable () -> Bool) -> Thread? {
        guard let interval = watchdogInterval else { return nil }
        let thread = Thread {
            while !Thread.current.isCancelled {
                guard healthy() else { return }
                _ = sd_notify(0, "WATCHDOG=1")
                SystemClock.shared.sleep(for: interval / 2)
            }
        }
        thread.name = "hapticd-watchdog"
        thread.start()
        return thread
    }
}
