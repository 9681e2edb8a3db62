// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Foundation
import HardwareAccess
import Synchronization

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

    /// Waits up to `duration` for SIGTERM or SIGINT, which a handler of its own catches while it
    /// waits (the service group takes them over once the daemon serves; until then their default
    /// would end the daemon with no word): true when one came.
    static func terminationRequested(within duration: Duration) -> Bool {
        signal(SIGTERM) { number in terminationSignal.store(number, ordering: .relaxed) }
        signal(SIGINT) { number in terminationSignal.store(number, ordering: .relaxed) }
        // Taken by this handler's thread only if they are not blocked there; unblocked in this one.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        defer {
            pthread_sigmask(SIG_BLOCK, &signals, nil)
            signal(SIGTERM, SIG_DFL)
            signal(SIGINT, SIG_DFL)
        }
        let end = ContinuousClock.now.advanced(by: duration)
        while ContinuousClock.now < end {
            if terminationSignal.load(ordering: .relaxed) != 0 { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return terminationSignal.load(ordering: .relaxed) != 0
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

/// The termination signal caught while the daemon waits for its chip (0: none).
private let terminationSignal = Atomic<Int32>(0)
