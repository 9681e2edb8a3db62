// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What hapticd promises systemd (`Packaging/hapticd.service`: Type=notify, WatchdogSec,
/// ExecStopPost=haptic stop): READY once it serves, WATCHDOG pings at half the interval systemd
/// gives, STOPPING on SIGTERM, log lines with journal priorities. systemd is played by the test: a
/// datagram socket named by `$NOTIFY_SOCKET`, `$WATCHDOG_USEC`, `$JOURNAL_STREAM`.
@Suite(.serialized) struct SystemdContractTests {
    let haptic: Program
    let hapticd: Program
    let scratch: ScratchFolder
    let environment: [String: String]

    init() throws {
        haptic = try Program("haptic")
        hapticd = try Program("hapticd")
        scratch = try ScratchFolder()
        environment = [
            "HAPTIC_CALIBRATION_FILE": scratch.file("calibration.json"), "STATE_DIRECTORY": scratch.path, "HAPTIC_BOARD": "", "HAPTICD_SOCKET": ""
        ]
    }

    /// The service manager's end of `$NOTIFY_SOCKET`: every datagram received, in order. It
    /// reads all the time, as systemd does: a receiver that stops reading lets the socket's queue
    /// fill (ten datagrams), and the daemon's next notification then blocks.
    final class NotifySocket: @unchecked Sendable {
        let path: String
        let descriptor: Int32
        private let lock = NSLock()
        private var messages: [String] = []
        private var arrivals: [(ContinuousClock.Instant, String)] = []

        init(path: String) throws {
            self.path = path
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard descriptor >= 0, bound == 0 else { throw ProgramError("cannot bind \(path): errno \(errno)") }
            var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            // Held weakly: the socket is closed when the test lets go of it, and the reader ends.
            let reader = Thread { [weak self] in
                while let socket = self { socket.readOnce() }
            }
            reader.start()
        }

        /// One datagram, or nothing within the 100 ms receive timeout.
        private func readOnce() {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count > 0 {
                let message = String(decoding: buffer[0..<count], as: UTF8.self)
                let now = ContinuousClock.now
                lock.withLock {
                    messages.append(message)
                    arrivals.append((now, message))
                }
            }
        }

        /// What arrived, once `done` holds over it or `seconds` pass.
        func receive(for seconds: Double, until done: ([String]) -> Bool) -> [String] {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline, !done(lock.withLock({ messages })) { usleep(10_000) }
            return lock.withLock { messages }
        }

        /// When each datagram equal to `message` arrived.
        func arrivals(of message: String) -> [ContinuousClock.Instant] {
            lock.withLock { arrivals.filter { $0.1 == message }.map(\.0) }
        }

        deinit { close(descriptor) }
    }

    @Test func readyThenWatchdogPingsThenStopping() throws {
        let notify = try NotifySocket(path: scratch.file("notify.sock"))
        let socket = scratch.file("hapticd.sock")
        var systemd = environment
        systemd["NOTIFY_SOCKET"] = notify.path
        systemd["WATCHDOG_USEC"] = "400000"
        systemd["JOURNAL_STREAM"] = "8:12345"
        let daemon = try hapticd.start(["--simulate", "--socket", socket], environment: systemd)
        // Generous deadlines: under qemu-user beside CI's mutants stage this daemon took 100 s to start.
        // The watchdog is fed from the start (opening the chip may take longer than its interval),
        // then READY, then the engine's pings: three after READY.
        func afterReady(_ messages: [String]) -> ArraySlice<String> {
            messages.firstIndex { $0.hasPrefix("READY=1") }.map { messages[($0 + 1)...] } ?? []
        }
        let early = notify.receive(for: 180) { messages in afterReady(messages).filter { $0 == "WATCHDOG=1" }.count >= 3 }
        let ready = early.first { !$0.hasPrefix("WATCHDOG=1") }
        #expect(ready?.hasPrefix("READY=1") == true, "only pings before READY: \(early)")
        #expect(ready?.contains("STATUS=serving") == true, "\(early)")
        #expect(FileManager.default.fileExists(atPath: socket), "READY before the socket listened")
        // Pings at a quarter of 0.4 s.
        #expect(afterReady(early).filter { $0 == "WATCHDOG=1" }.count >= 3, "\(early)")
        let status = try haptic.run(["status", "--socket", socket], environment: environment)
        #expect(status.status == 0)
        daemon.signal(SIGTERM)
        let run = try daemon.wait(deadline: .seconds(90))
        let late = notify.receive(for: 10) { $0.contains("STOPPING=1") }
        #expect(late.contains("STOPPING=1"), "\(late)")
        #expect(run.status == 0)
        // Journal priorities: info lines <6>, and nothing unprefixed from the logger.
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("<6>hapticd: listening on") }, "\(run.stderr)")
        #expect(lines.contains { $0.hasPrefix("<6>hapticd: ready") }, "\(run.stderr)")
        #expect(!lines.contains { $0.contains(" info hapticd") }, "\(run.stderr)")
    }

    /// systemd kills a service whose pings are further apart than `WatchdogSec`: hapticd pings at a
    /// quarter of the interval (sd_watchdog_enabled(3) asks for "roughly half"; the units' interval
    /// is short, 1.5 s, and each ping is also the dead-man guard's heartbeat), so a late ping on a
    /// busy machine still lands in time. Measured between pings as they arrive: the median gap of a
    /// 1 s watchdog is under 0.4 s (a quarter is 0.25 s; half, 0.5 s, fails) and over 0.15 s.
    @Test func watchdogPingsComeAtAQuarterOfTheInterval() throws {
        let notify = try NotifySocket(path: scratch.file("notify.sock"))
        var systemd = environment
        systemd["NOTIFY_SOCKET"] = notify.path
        systemd["WATCHDOG_USEC"] = "1000000"
        let daemon = try hapticd.start(["--simulate", "--socket", scratch.file("hapticd.sock")], environment: systemd)
        _ = notify.receive(for: 180) { messages in messages.filter { $0 == "WATCHDOG=1" }.count >= 6 }
        daemon.signal(SIGTERM)
        _ = try daemon.wait(deadline: .seconds(90))
        let pings = notify.arrivals(of: "WATCHDOG=1")
        try #require(pings.count >= 6, "\(pings.count) pings")
        // Start-up's pings, then the engine's from READY on: the gap where one thread hands over
        // to the other is left out with the first.
        let gaps = zip(pings.dropFirst(2), pings.dropFirst()).map { ($0 - $1) / .milliseconds(1) }.sorted()
        let median = gaps[gaps.count / 2]
        #expect(median < 400, "median gap \(median) ms between pings of a 1000 ms watchdog: \(gaps)")
        #expect(median > 150, "median gap \(median) ms: pinging far more often than a quarter of the interval")
    }

    @Test func withoutSystemdNothingIsSentAndLinesArePlain() throws {
        let socket = scratch.file("plain.sock")
        let daemon = try hapticd.start(["--simulate", "--socket", socket], environment: environment)
        // Ready: its signals are handled from here on (a SIGTERM before would end it unstopped).
        try daemon.waitUntil("hapticd ready", deadline: .seconds(180)) { daemon.standardError.contains("hapticd: ready") }
        daemon.signal(SIGTERM)
        let run = try daemon.wait(deadline: .seconds(90))
        #expect(run.status == 0)
        #expect(!run.stderr.split(separator: "\n").contains { $0.hasPrefix("<") }, "\(run.stderr)")
    }

    /// Socket activation (`Packaging/hapticd.socket`), with systemd's own `systemd-socket-activate`
    /// passing the socket as the service manager does (`$LISTEN_FDS`, `$LISTEN_PID`, descriptor 3):
    /// it starts hapticd at the first client's connection, and hapticd serves on that socket, says
    /// so, and leaves it (and its file) to systemd when it stops.
    @Test func servesOnTheSocketSystemdPasses() throws {
        let socket = scratch.file("activated.sock")
        let daemon = try socketActivated(listening: socket, ["--simulate", "--socket", socket])
        let pid = try activatedPID(daemon)
        // Not left behind by a failure here: the deadlines kill its parent, not what it started.
        defer { if kill(pid, 0) == 0 { kill(pid, SIGKILL) } }
        try daemon.waitUntil("the socket made", deadline: .seconds(30)) { FileManager.default.fileExists(atPath: socket) }
        // The first client's connection starts hapticd; this one may time out while it starts.
        _ = try? haptic.run(["status", "--socket", socket], environment: environment, deadline: .seconds(180))
        try daemon.waitUntil("hapticd ready", deadline: .seconds(180)) { daemon.standardError.contains("hapticd: ready") }
        #expect(daemon.standardError.contains("(the socket systemd passed)"), "\(daemon.standardError)")
        let played = try haptic.run(["play", "success", "--socket", socket], environment: environment, deadline: .seconds(120))
        #expect(played.status == 0, "\(played.stderr)")
        // To hapticd itself: its parent starts with SIGTERM blocked, as every child of
        // Foundation's `Process` (hapticd unblocks it).
        kill(pid, SIGTERM)
        let run = try daemon.wait(deadline: .seconds(90))
        #expect(run.status == 0, "\(run.stderr)")
        // systemd's, not hapticd's: left where it was (a socket unit keeps listening on it).
        #expect(FileManager.default.fileExists(atPath: socket))
    }

    /// A socket unit listening somewhere else than `--socket` is a setting that is wrong: hapticd
    /// says which and exits 78 (the unit's RestartPreventExitStatus), serving nothing.
    @Test func aPassedSocketElsewhereIsRefused() throws {
        let socket = scratch.file("wanted.sock")
        let elsewhere = scratch.file("elsewhere.sock")
        let daemon = try socketActivated(listening: elsewhere, ["--simulate", "--socket", socket])
        try daemon.waitUntil("the socket made", deadline: .seconds(30)) { FileManager.default.fileExists(atPath: elsewhere) }
        _ = try? haptic.run(["status", "--socket", elsewhere], environment: environment, deadline: .seconds(180))
        let run = try daemon.wait(deadline: .seconds(180))
        #expect(run.status == 78, "\(run.stderr)")
        #expect(run.stderr.contains("not one Unix stream socket listening at \(socket)"), "\(run.stderr)")
        #expect(run.stderr.contains("ListenStream="), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: socket))
    }

    /// hapticd with `arguments`, started by `systemd-socket-activate` listening at `path`, from a
    /// Python parent that waits for it and exits with its status; `activatedPID` is the
    /// activator's (which becomes hapticd). Not started directly: the activator closes every other
    /// descriptor when it execs hapticd, which Foundation's `Process` takes for the child's end, and
    /// it then waits on it blocking, so that no other child's end is seen. Not from a shell either:
    /// Foundation's children start with every signal blocked, and dash's `wait` then never sees
    /// SIGCHLD.
    private func socketActivated(listening path: String, _ arguments: [String]) throws -> Running {
        let script = """
            import subprocess, sys
            child = subprocess.Popen(["/usr/bin/systemd-socket-activate", "--listen", sys.argv[1],
                "-E", "HAPTIC_CALIBRATION_FILE", "-E", "STATE_DIRECTORY"] + sys.argv[2:])
            print("activated", child.pid, flush=True)
            status = child.wait()
            sys.exit(128 - status if status < 0 else status)
            """
        return try Program(executable: "/usr/bin/python3").start(["-c", script, path, hapticd.path] + arguments, environment: environment)
    }

    /// The pid `socketActivated`'s parent printed: the activator's, then hapticd's.
    private func activatedPID(_ shell: Running) throws -> pid_t {
        try shell.waitUntil("the activator's pid", deadline: .seconds(30)) { shell.standardOutput.contains("\n") }
        guard let line = shell.standardOutput.split(separator: "\n").first, line.hasPrefix("activated "), let pid = pid_t(line.dropFirst(10)) else {
            throw ProgramError("no pid from the activator's parent: \(shell.standardOutput)")
        }
        return pid
    }

    /// `haptic stop`: the chip stopped and in standby, read back; what the unit runs after hapticd.
    @Test func stopLeavesTheChipInStandby() throws {
        let run = try haptic.run(["stop", "--simulate", "--virtual-time", "--trace", "--json"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let writes = run.stderr.split(separator: "\n").filter { $0.contains("W 0x5A") }
        #expect(writes.last?.hasSuffix("[01 40]") == true, "\(run.stderr)")
        // The trace on stderr: --json's stdout is one JSON document.
        #expect(run.json != nil, "not JSON:\n\(run.stdout.prefix(400))")
    }
}
