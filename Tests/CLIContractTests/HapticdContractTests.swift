// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `hapticd` end to end, as the programs that share it see it: many clients at once, junk on the
/// socket, a client killed mid-pattern, SIGTERM. The daemon runs the simulated chip in real time.
/// Serialized: twenty clients starting under qemu-user starve a daemon timed in another test.
@Suite(.serialized) struct HapticdContractTests {
    let haptic: Program
    let hapticd: Program
    let scratch: ScratchFolder
    let socket: String
    let environment: [String: String]

    init() throws {
        haptic = try Program("haptic")
        hapticd = try Program("hapticd")
        scratch = try ScratchFolder()
        socket = scratch.file("hapticd.sock")
        environment = [
            "HAPTIC_CALIBRATION_FILE": scratch.file("calibration.json"), "STATE_DIRECTORY": scratch.path, "HAPTIC_BOARD": "", "HAPTICD_SOCKET": ""
        ]
    }

    /// Starts the daemon and waits until it listens.
    private func startDaemon() throws -> Running {
        let daemon = try hapticd.start(["--simulate", "--socket", socket], environment: environment)
        try daemon.waitUntil("the socket \(socket)") { FileManager.default.fileExists(atPath: socket) }
        return daemon
    }

    /// SIGTERM: exit 0, "actuator stopped", no socket file left behind.
    private func stopDaemon(_ daemon: Running) throws {
        daemon.signal(SIGTERM)
        let run = try daemon.wait(deadline: .seconds(10))
        #expect(run.status == 0, "hapticd exited \(run.status) on SIGTERM: \(run.stderr)")
        #expect(run.stderr.contains("actuator stopped"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: socket), "socket file left behind")
    }

    /// A daemon whose bus does not exist (yet): it says it waits for that bus, serves nothing, and
    /// stops on SIGTERM (exit 0: it drove nothing). Returns what it said.
    func waitsForTheBus(_ arguments: [String], environment: [String: String], bus: String) throws -> String {
        let daemon = try hapticd.start(arguments, environment: environment)
        try daemon.waitUntil("hapticd says it waits for \(bus)", deadline: .seconds(60)) { daemon.standardError.contains("waiting for the chip") }
        #expect(!FileManager.default.fileExists(atPath: socket), "serving without its chip")
        daemon.signal(SIGTERM)
        let run = try daemon.wait(deadline: .seconds(30))
        #expect(run.status == 0, "exit \(run.status) on SIGTERM while waiting: \(run.stderr)")
        #expect(run.stderr.contains("waiting for the chip") && run.stderr.contains(bus), "\(run.stderr)")
        return run.stderr
    }

    /// `--bus` with a board file moves the board's chips to that bus, as it does for haptic: the bus
    /// it waits for is that one (it was silently ignored).
    @Test func busWithABoardFileIsTheChipsBus() throws {
        _ = try waitsForTheBus(["--board", "Boards/sparkfun-qwiic-da7280.json", "--bus", "/dev/i2c-77", "--socket", socket], environment: environment, bus: "/dev/i2c-77")
    }

    /// Without `--board`, the machine's board file (`$HAPTIC_BOARD`, else /etc/haptics/board.json),
    /// as haptic takes it: the unit's `haptic stop` reaches the chip the daemon drove. Its bus, which
    /// does not exist here, is the one it waits for (hapticd opened /dev/i2c-1 instead).
    @Test func theMachinesBoardFileIsTheDefault() throws {
        let board = FileManager.default.temporaryDirectory.appendingPathComponent("hapticd-board-\(getpid()).json").path
        var text = try String(contentsOfFile: Program.packageRoot.appendingPathComponent("Boards/bare-drv2605l.json").path, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"/dev/i2c-1\"", with: "\"/dev/i2c-78\"")
        try text.write(toFile: board, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: board) }
        #expect(text.contains("/dev/i2c-78"))
        var withBoard = environment
        withBoard["HAPTIC_BOARD"] = board
        _ = try waitsForTheBus(["--socket", socket], environment: withBoard, bus: "/dev/i2c-78")
    }

    @Test func twentyClientsAtOnceAreAllPlayed() throws {
        let daemon = try startDaemon()
        let clients = try (0..<20).map { _ in
            try haptic.start(["play", "impact-light", "--socket", socket, "--json"], environment: environment)
        }
        let runs = try clients.map { try $0.wait(deadline: .seconds(30)) }
        let played = runs.filter { $0.status == 0 && $0.json?["outcome"] as? String == "played" }
        #expect(played.count == 20, "\(runs.filter { $0.status != 0 }.map(\.stderr))")
        try stopDaemon(daemon)
    }

    /// feedbackd's event names, as an application written for feedbackd names them, play through
    /// the socket (`haptic play EVENT`).
    @Test func feedbackdEventNamesPlay() throws {
        let daemon = try startDaemon()
        // UI events first: a notification still playing would rightly keep a UI event from interrupting it.
        for event in ["key-pressed", "camera-shutter", "notification-new-generic", "message-new-instant"] {
            let run = try haptic.run(["play", event, "--socket", socket, "--json"], environment: environment)
            #expect(run.status == 0 && run.json?["outcome"] as? String == "played", "\(event): \(run.stderr)")
        }
        try stopDaemon(daemon)
    }

    /// `--repeat-for`: a ringing event repeated for its seconds through protocol version 2, its
    /// end told as expired; a feedback's name is a usage error, an event nothing plays is not played (75).
    @Test func anEventRepeatsForItsSeconds() throws {
        let daemon = try startDaemon()
        let run = try haptic.run(["play", "phone-incoming-call", "--socket", socket, "--repeat-for", "1", "--json"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.json?["ended"] as? String == "expired", "\(run.stdout)")
        let seconds = run.json?["playedSeconds"] as? Double ?? 0
        #expect(seconds >= 0.95 && seconds < 5, "repeated for \(seconds) s")
        #expect(try haptic.run(["play", "success", "--socket", socket, "--repeat-for", "1"], environment: environment).status == 64)
        let unknown = try haptic.run(["play", "x-no-such", "--socket", socket, "--repeat-for", "1"], environment: environment)
        #expect(unknown.status == 75 && unknown.stderr.contains("x-no-such was not played"), "\(unknown.stderr)")
        try stopDaemon(daemon)
    }

    /// `--theme`: a feedbackd theme's own event plays; SIGHUP reloads the file (the event gone,
    /// then a broken file keeping the last good theme); a theme that does not load stops start-up
    /// with exit 78 naming it.
    @Test func aThemeIsLoadedAndReloadedOnSIGHUP() throws {
        let theme = scratch.file("theme.json")
        let doorbell = """
            {"name": "door", "profiles": [{"name": "full", "feedbacks": [
              {"event-name": "x-doorbell", "type": "VibraPattern", "magnitudes": [1, 0, 1], "durations": [80, 60, 80]}]}]}
            """
        try doorbell.write(toFile: theme, atomically: true, encoding: .utf8)
        let daemon = try hapticd.start(["--simulate", "--socket", socket, "--theme", theme], environment: environment)
        try daemon.waitUntil("the socket \(socket)") { FileManager.default.fileExists(atPath: socket) }
        try daemon.waitUntil("the theme's line") { daemon.standardError.contains("theme door from \(theme): feedbacks for full 1") }
        let played = try haptic.run(["play", "x-doorbell", "--socket", socket, "--json"], environment: environment)
        #expect(played.status == 0 && played.json?["outcome"] as? String == "played", "\(played.stderr)")
        try #"{"name": "plain", "profiles": []}"#.write(toFile: theme, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        try daemon.waitUntil("the theme reloaded") { daemon.standardError.contains("reloaded theme plain") }
        let gone = try haptic.run(["play", "x-doorbell", "--socket", socket], environment: environment)
        #expect(gone.status == 65 && gone.stderr.contains("no feedback or event named 'x-doorbell'"), "\(gone.stderr)")
        try "{ broken".write(toFile: theme, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        try daemon.waitUntil("the broken theme refused") { daemon.standardError.contains("the previous theme stays in force") }
        try stopDaemon(daemon)
        let refused = try hapticd.run(["--simulate", "--socket", scratch.file("second.sock"), "--theme", theme], environment: environment)
        #expect(refused.status == 78 && refused.stderr.contains(theme) && refused.stderr.contains("not JSON"), "\(refused.stderr)")
    }

    /// Junk, an oversized length and half-open clients: each gets its answer or is closed, and the
    /// daemon keeps serving everyone else.
    @Test func junkOnTheSocketHarmsNobody() throws {
        let daemon = try startDaemon()
        let junk = try RawClient(socket)
        try junk.send(frame: Array("not json!".utf8))
        #expect(try junk.replyObject()["error"] as? String == "bad-request")
        let huge = try RawClient(socket)
        try huge.send(bytes: RawClient.header(40 * 1024 * 1024))
        #expect(try huge.replyObject()["error"] as? String == "too-large")
        #expect(try huge.receive(1).isEmpty, "not closed after an oversized frame")
        let half = try RawClient(socket)
        try half.send(bytes: [0, 0])
        let raw = try RawClient(socket)
        try raw.send(bytes: Array((0..<1024).map { UInt8($0 % 256) }))
        let ok = try RawClient(socket)
        try ok.send(frame: Array(#"{"version": 1, "op": "status"}"#.utf8))
        #expect(try ok.replyObject()["ok"] as? Bool == true)
        let status = try haptic.run(["status", "--socket", socket, "--json"], environment: environment)
        #expect(status.status == 0, "status after junk: \(status.stderr)")
        _ = (half, raw)
        try stopDaemon(daemon)
    }

    /// The global and per-application profiles outlive a restart: kept in profiles.json in the
    /// state directory, restored at start; `--profile` given at start wins over the saved one.
    @Test func profilesAreKeptAcrossRestarts() throws {
        // `haptic status` asks as the application "haptic", its process's name.
        func service() throws -> [String: Any] {
            let status = try haptic.run(["status", "--socket", socket, "--json"], environment: environment)
            return try #require(status.json?["service"] as? [String: Any], "\(status.stdout) \(status.stderr)")
        }
        var daemon = try startDaemon()
        #expect(try service()["globalProfile"] as? String == "full")
        // The application's first, the global last: each change is saved when it is made.
        #expect(try haptic.run(["profile", "silent", "--app", "haptic", "--socket", socket], environment: environment).status == 0)
        #expect(try haptic.run(["profile", "quiet", "--everyone", "--socket", socket], environment: environment).status == 0)
        try stopDaemon(daemon)
        let saved = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.file("profiles.json")))) as? [String: Any])
        #expect(saved["global"] as? String == "quiet" && (saved["apps"] as? [String: String])?["haptic"] == "silent", "\(saved)")
        daemon = try startDaemon()
        #expect(try service()["globalProfile"] as? String == "quiet", "the global profile was not restored")
        #expect(try service()["appProfile"] as? String == "silent", "the app's profile was not restored")
        try stopDaemon(daemon)
        daemon = try hapticd.start(["--simulate", "--socket", socket, "--profile", "full"], environment: environment)
        try daemon.waitUntil("the socket \(socket)") { FileManager.default.fileExists(atPath: socket) }
        #expect(try service()["globalProfile"] as? String == "full", "--profile did not win over the saved profile")
        try stopDaemon(daemon)
    }

    /// With a socket named, no verb opens the chip behind hapticd's back: `effect` plays through
    /// the daemon (its count of played feedback goes up), and the verbs that need the chip to
    /// themselves refuse with exit 64 and one line, before they print or open anything, whether
    /// the socket is `--socket` or `$HAPTICD_SOCKET`.
    @Test func everyVerbGoesThroughHapticdOrRefuses() throws {
        let daemon = try startDaemon()
        func played() throws -> Int? {
            let status = try haptic.run(["status", "--socket", socket, "--json"], environment: environment)
            return (status.json?["service"] as? [String: Any])?["played"] as? Int
        }
        let before = try #require(try played())
        let effect = try haptic.run(["effect", "47", "--socket", socket, "--json"], environment: environment)
        #expect(effect.status == 0, "\(effect.stderr)")
        #expect(effect.json?["outcome"] as? String == "played", "\(effect.stdout)")
        #expect((effect.json?["device"] as? String)?.hasPrefix("hapticd at \(socket)") == true, "\(effect.stdout)")
        #expect(try played() == before + 1, "hapticd did not play the effect")
        var named = environment
        named["HAPTICD_SOCKET"] = socket
        for verb in [["probe"], ["dump"], ["calibrate"], ["diagnose"], ["demo"], ["studio"]] {
            for (arguments, environment) in [(verb + ["--socket", socket], environment), (verb, named)] {
                let run = try haptic.run(arguments, environment: environment)
                #expect(run.status == 64, "\(arguments) with \(environment["HAPTICD_SOCKET"] ?? "--socket"): exit \(run.status)")
                #expect(run.errorLines.count == 1 && run.stderr.contains("does not go through hapticd"), "\(run.stderr)")
                #expect(run.stdout.isEmpty, "\(arguments) opened the chip: \(run.stdout)")
            }
        }
        #expect(try played() == before + 1)
        try stopDaemon(daemon)
    }

    /// `haptic stop --socket` stops what another client plays (its pattern ends, not played to
    /// the end), and `pattern --loop --socket` plays again and again until interrupted.
    @Test func stopThroughTheSocketStopsEveryClientAndPatternsLoop() throws {
        let daemon = try startDaemon()
        let long = scratch.file("long.ahap")
        try #"""
        {"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 20,
          "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1.0}]}}]}
        """#.write(toFile: long, atomically: true, encoding: .utf8)
        let client = try haptic.start(["pattern", long, "--socket", socket], environment: environment)
        let observer = try RawClient(socket)
        func status() throws -> [String: Any]? {
            try observer.send(frame: Array(#"{"version": 1, "op": "status"}"#.utf8))
            return try observer.replyObject()["status"] as? [String: Any]
        }
        try client.waitUntil("the pattern playing", deadline: .seconds(30)) { (try? status())?["standby"] as? Bool == false }
        let stop = try haptic.run(["stop", "--socket", socket, "--json"], environment: environment)
        #expect(stop.status == 0, "\(stop.stderr)")
        #expect((stop.json?["reason"] as? String)?.contains("stopped") == true, "\(stop.stdout)")
        let stopped = try client.wait(deadline: .seconds(10))
        #expect(stopped.status != 0, "the pattern was reported played to its end: \(stopped.stdout)")
        try daemon.waitUntil("standby after the stop", deadline: .seconds(2)) { (try? status())?["standby"] as? Bool == true }

        let short = scratch.file("short.ahap")
        try #"""
        {"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient",
          "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1.0}]}}]}
        """#.write(toFile: short, atomically: true, encoding: .utf8)
        let played = try #require(try status()?["played"] as? Int)
        let looping = try haptic.start(["pattern", short, "--loop", "--socket", socket], environment: environment)
        try looping.waitUntil("the pattern played three times", deadline: .seconds(30)) { ((try? status())?["played"] as? Int ?? 0) >= played + 3 }
        looping.signal(SIGINT)
        _ = try looping.wait(deadline: .seconds(10))
        try stopDaemon(daemon)
    }

    /// A client killed mid-pattern: its pattern stops and the chip is in standby within a second.
    @Test func aClientKilledMidPatternIsStopped() throws {
        let daemon = try startDaemon()
        let long = scratch.file("long.ahap")
        try #"""
        {"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 30,
          "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1.0}]}}]}
        """#.write(toFile: long, atomically: true, encoding: .utf8)
        let client = try haptic.start(["pattern", long, "--socket", socket], environment: environment)
        // Asked on a socket of the test's own, not by starting `haptic status`: the answer's delay is
        // then the daemon's, not a new process's start-up (seconds under a sanitizer or qemu).
        let observer = try RawClient(socket)
        func standby() throws -> Bool? {
            try observer.send(frame: Array(#"{"version": 1, "op": "status"}"#.utf8))
            return (try observer.replyObject()["status"] as? [String: Any])?["standby"] as? Bool
        }
        // A precondition, not the property under test: a new process under qemu-user with the other
        // suites running took over 10 s to get its pattern going.
        try client.waitUntil("the pattern waking the chip", deadline: .seconds(30)) { (try? standby()) == false }
        let killed = ContinuousClock.now
        client.signal(SIGKILL)
        _ = try client.wait(deadline: .seconds(5))
        try daemon.waitUntil("standby after the client was killed", deadline: .seconds(1)) { (try? standby()) == true }
        #expect(ContinuousClock.now - killed < .seconds(1))
        try stopDaemon(daemon)
    }
}

/// A client that writes whatever it is told on the daemon's socket (frames are a 4-byte big-endian
/// length, then JSON), to check what the daemon does with what no real client sends.
final class RawClient {
    let descriptor: Int32

    init(_ path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ProgramError("socket(): errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw ProgramError("connect(\(path)): errno \(errno)") }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    static func header(_ length: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((length >> $0) & 0xFF) } }

    func send(bytes: [UInt8]) throws {
        let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw ProgramError("send: \(sent) of \(bytes.count) bytes") }
    }

    func send(frame body: [UInt8]) throws { try send(bytes: Self.header(body.count) + body) }

    /// Up to `count` bytes; empty when the daemon closed the connection. Throws after 5 s of silence.
    func receive(_ count: Int) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let received = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, count, 0) }
        guard received >= 0 else { throw ProgramError("recv: errno \(errno) (no answer within 5 s?)") }
        return Array(buffer.prefix(received))
    }

    func replyObject() throws -> [String: Any] {
        var header: [UInt8] = []
        while header.count < 4 {
            let part = try receive(4 - header.count)
            guard !part.isEmpty else { throw ProgramError("closed before a reply") }
            header += part
        }
        let length = header.reduce(0) { $0 << 8 | Int($1) }
        var body: [UInt8] = []
        while body.count < length {
            let part = try receive(length - body.count)
            guard !part.isEmpty else { throw ProgramError("closed mid-reply") }
            body += part
        }
        return try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
    }
}
