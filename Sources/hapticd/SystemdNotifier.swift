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

    /// Catches SIGTERM and SIGINT with a handler of its own until `releaseTermination()`: while the
    /// daemon opens and waits for its chip, before the service group takes them over. A handler,
    /// not the signals' default, for the whole time: a thread that existed before they were blocked
    /// may take one, and their default would end the daemon with no word (exit 143).
    static func catchTermination() {
        signal(SIGTERM) { number in terminationSignal.store(number, ordering: .relaxed) }
        signal(SIGINT) { number in terminationSignal.store(number, ordering: .relaxed) }
        var signals = terminationSignals()
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    /// Gives SIGTERM and SIGINT back (blocked in this thread, their default), for the service group.
    static func releaseTermination() {
        var signals = terminationSignals()
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        signal(SIGTERM, SIG_DFL)
        signal(SIGINT, SIG_DFL)
    }

    /// Whether SIGTERM or SIGINT came since `catchTermination()`.
    static var terminationCaught: Bool { terminationSignal.load(ordering: .relaxed) != 0 }

    /// Waits up to `duration` for SIGTERM or SIGINT (caught since `catchTermination()`): true when
    /// one came.
    static func terminationRequested(within duration: Duration) -> Bool {
        let end = ContinuousClock.now.advanced(by: duration)
        while ContinuousClock.now < end {
            if terminationCaught { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return terminationCaught
    }

    /// The listening socket systemd passed (socket activation: `hapticd.socket` started the
    /// service), checked by libsystemd to be one Unix stream socket listening at `path`; nil when
    /// none was passed (the daemon binds its own). The variables that passed it are unset, so that
    /// nothing the daemon starts takes it for its own.
    static func passedSocket(listeningAt path: String) throws(SocketActivationError) -> Int32? {
        let count = sd_listen_fds(1)
        guard count != 0 else { return nil }
        guard count == 1, sd_is_socket_unix(SD_LISTEN_FDS_START, Int32(SOCK_STREAM.rawValue), 1, path, 0) > 0 else {
            throw SocketActivationError(passed: count, path: path)
        }
        return SD_LISTEN_FDS_START
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

/// The termination signal caught while the daemon opens or waits for its chip (0: none).
private let terminationSignal = Atomic<Int32>(0)

/// SIGTERM and SIGINT, as a set for `pthread_sigmask`.
private func terminationSignals() -> sigset_t {
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGTERM)
    sigaddset(&signals, SIGINT)
    return signals
}

/// What systemd passed is not the socket hapticd serves on: the socket unit and `--socket` disagree.
struct SocketActivationError: Error, CustomStringConvertible {
    /// How many descriptors systemd passed (negative: libsystemd's error).
    var passed: Int32
    /// Where hapticd was told to listen (`--socket`).
    var path: String

    var description: String {
        let what = passed < 0 ? "sockets it could not read (\(String(cString: strerror(-passed))))" : "\(passed) socket(s)"
        return "systemd passed \(what), not one Unix stream socket listening at \(path): "
            + "the socket unit's ListenStream= (hapticd.socket) must be the path --socket gives"
    }
}
