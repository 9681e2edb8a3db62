// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import Foundation
import HapticChip
import HapticEffects
import Haptics
import HapticsService
import HapticsSimulation
import HardwareAccess
import Testing

private let continuousAHAP = """
    {"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 1.5,
      "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1.0}]}}]}
    """

private func request(_ op: ServiceRequest.Operation, _ fill: (inout ServiceRequest) -> Void = { _ in }) -> ServiceRequest {
    var request = ServiceRequest(op)
    fill(&request)
    return request
}

/// The server's requests on the simulated chip and a virtual clock, without a socket.
@Suite struct ServerRequestTests {
    let rig: EngineRig
    let server: HapticServer
    let kiosk = HapticServer.Client(id: 1, app: "kiosk", uid: 1000)
    let clock = HapticServer.Client(id: 2, app: "alarm-clock", uid: 1000)

    init() throws {
        rig = try EngineRig()
        server = HapticServer(engine: rig.engine, device: "simulated")
    }

    @Test func aFeedbackByNameReachesTheChip() {
        let start = rig.clock.now
        let reply = server.handle(
            request(.play) {
                $0.feedback = "impact-heavy"
                $0.id = 7
            }, from: kiosk)
        #expect(reply.ok && reply.outcome == "played" && reply.id == 7)
        rig.advance(.milliseconds(200))
        #expect(rig.chip.output.peak(from: start, to: rig.clock.now) > 0)
        #expect(rig.chip.registers[ModeRegister.self].standby, "back in standby")
    }

    @Test func feedbackdEventsMapOntoFeedbacks() {
        let start = rig.clock.now
        #expect(server.handle(request(.play) { $0.event = "message-new-instant" }, from: kiosk).outcome == "played")
        rig.advance(.milliseconds(300))
        #expect(rig.chip.output.peak(from: start, to: rig.clock.now) > 0)
        let unknown = server.handle(request(.play) { $0.event = "no-such-event" }, from: kiosk)
        #expect(!unknown.ok && unknown.error == .badRequest && unknown.reason?.contains("button-pressed") == true)
    }

    @Test func badRequestsAreAnsweredNotPlayed() {
        rig.chip.clearTrace()
        let cases: [ServiceRequest] = [
            request(.play),
            request(.play) { $0.feedback = "impact-colossal" },
            request(.play) {
                $0.feedback = "impact-heavy"
                $0.intensity = .infinity
            },
            request(.play) { $0.effect = 0 },
            request(.play) { $0.effect = 124 },
            request(.play) { $0.pattern = "{\"Pattern\": 3}" },
            request(.play) { $0.sequence = "success, pattern /etc/shadow" },
            request(.profile),
            request(.play, { $0.feedback = "success" }).with(version: 3),
            request(.trigger),
            request(.end)
        ]
        for bad in cases {
            let reply = server.handle(bad, from: kiosk)
            #expect(!reply.ok && reply.error != nil && !(reply.reason ?? "").isEmpty, "\(bad) got \(reply)")
        }
        #expect(!rig.chip.trace.contains { $0.written.first == Register.go.rawValue }, "nothing was triggered")
    }

    @Test func aPatternPlaysToItsEndAndSaysHowLong() {
        let start = rig.clock.now
        let reply = server.handle(request(.play) { $0.pattern = continuousAHAP }, from: kiosk)
        #expect(reply.ok && reply.outcome == "played")
        let seconds = reply.playedSeconds ?? 0
        #expect(abs(seconds - 1.5) < 0.05, "played \(seconds) s of a 1.5 s pattern")
        #expect(abs(rig.chip.output.activeSeconds(from: start, to: rig.clock.now) - 1.5) < 0.05)
    }

    @Test func aQuietProfileDropsUIFeedbackAndSaysSo() {
        #expect(server.handle(request(.profile) { $0.profile = .quiet }, from: kiosk).ok)
        let start = rig.clock.now
        let reply = server.handle(request(.play) { $0.feedback = "selection" }, from: kiosk)
        #expect(!reply.ok && reply.outcome == "dropped" && reply.reason?.contains("quiet") == true)
        rig.advance(.milliseconds(100))
        #expect(rig.chip.output.peak(from: start, to: rig.clock.now) == 0)
        let other = server.handle(request(.play) { $0.feedback = "selection" }, from: clock)
        #expect(other.ok, "the profile is the kiosk's alone")
    }

    @Test func onlyRootOrTheDaemonsUserSetsTheGlobalProfile() {
        let stranger = HapticServer.Client(id: 3, app: "x", uid: 4242)
        let refused = server.handle(
            request(.profile) {
                $0.profile = .silent
                $0.scope = .global
            }, from: stranger)
        #expect(refused.error == .notPermitted)
        let root = HapticServer.Client(id: 4, app: "admin", uid: 0)
        #expect(
            server.handle(
                request(.profile) {
                    $0.profile = .silent
                    $0.scope = .global
                }, from: root
            ).ok)
        #expect(server.handle(request(.status), from: stranger).status?.globalProfile == .silent)
        #expect(
            server.handle(
                request(.play) {
                    $0.feedback = "success"
                    $0.importance = .notification
                }, from: stranger
            ).outcome == "dropped")
    }

    @Test func statusReportsTheChipFromItsRegisters() {
        let status = server.handle(request(.status), from: kiosk).status
        #expect(status?.standby == true && status?.go == false && status?.part == "DRV2605L")
        #expect(server.handle(request(.prepare) { $0.feedback = "impact-heavy" }, from: kiosk).ok)
        rig.advance(.milliseconds(5))
        #expect(server.handle(request(.status), from: kiosk).status?.standby == false, "prepare woke the chip")
    }
}

extension ServiceRequest {
    fileprivate func with(version: Int) -> ServiceRequest {
        var copy = self
        copy.version = version
        return copy
    }
}

/// The daemon over a real Unix socket, on the real clock (the chip is simulated): framing, bad
/// clients, and a client that leaves mid-pattern.
@Suite(.serialized) struct ServerSocketTests {
    let chip = SimulatedDRV2605(clock: SystemClock.shared)
    let engine: HapticEngine
    let server: HapticServer
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("hapticd-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock").path

    init() throws {
        chip.keepsTrace = false
        engine = try HapticEngine(bus: chip, configuration: DRV2605Configuration(.typicalLRA), clock: SystemClock.shared, options: .isolated)
        var options = HapticServer.Options()
        options.messageDeadline = .milliseconds(300)
        server = HapticServer(engine: engine, device: "simulated", options: options)
        try server.start(socketPath: path)
    }

    /// The drive level now, read under the engine's lock (the chip is the engine's to touch).
    func level() -> Double {
        (try? engine.withDriver { _ in chip.output.level(at: SystemClock.shared.now) }) ?? -1
    }

    /// Waits (bounded) for a condition other threads make true.
    func eventually(_ condition: () -> Bool, within: Duration = .seconds(3)) -> Bool {
        let deadline = SystemClock.shared.now.advanced(by: within)
        while !condition() {
            if SystemClock.shared.now >= deadline { return false }
            SystemClock.shared.sleep(for: .milliseconds(1))
        }
        return true
    }

    @Test func junkHugeAndSlowClientsLeaveTheDaemonServing() throws {
        defer { server.stop() }
        // Junk: a valid length and a payload that is not JSON: an error reply, the connection stays.
        let junk = try UnixConnection.connect(to: path)
        try junk.send([0, 0, 0, 5] + Array("hello".utf8))
        let junkReply = try ServiceFrame.decode(ServiceReply.self, from: try #require(try junk.readFrame(timeout: .seconds(2))))
        #expect(junkReply.error == .badRequest)
        // A 40 MB length: refused before anything is read, then closed.
        let huge = try UnixConnection.connect(to: path)
        try huge.send([0x02, 0x62, 0x5A, 0x00])
        let hugeReply = try ServiceFrame.decode(ServiceReply.self, from: try #require(try huge.readFrame(timeout: .seconds(2))))
        #expect(hugeReply.error == .tooLarge)
        #expect(try huge.read(count: 1, timeout: .seconds(2)) == nil, "closed after a frame it cannot skip")
        // Half a header, then silence: closed after the message deadline.
        let slow = try UnixConnection.connect(to: path)
        try slow.send([0, 0])
        #expect(eventually({ slow.peerHasLeft }, within: .seconds(3)), "a half-open client was not closed")
        // And a good client is still served.
        let client = try HapticServiceClient(socketPath: path)
        var play = ServiceRequest(.play)
        play.feedback = "impact-heavy"
        #expect(try client.send(play).outcome == "played")
        #expect(try client.send(ServiceRequest(.status)).status?.clients ?? 0 >= 1)
    }

    @Test func aClientThatLeavesMidPatternIsStoppedAtOnce() throws {
        defer { server.stop() }
        let connection = try UnixConnection.connect(to: path)
        var play = ServiceRequest(.play)
        play.pattern = continuousAHAP
        try connection.send(try ServiceFrame.encode(play))
        #expect(eventually { level() > 0 }, "the pattern never started")
        let left = SystemClock.shared.now
        connection.close()
        #expect(eventually { level() == 0 }, "still driving after the client left")
        let stoppedWithin = SystemClock.shared.now.duration(since: left)
        #expect(stoppedWithin < .milliseconds(500), "stopped \(stoppedWithin) after the client left")
        let observer = HapticServer.Client(id: 99, app: "test", uid: 0)
        #expect(eventually { server.handle(ServiceRequest(.status), from: observer).status?.standby == true }, "not back in standby")
    }

    /// `parameters` from a second connection of the same application: the pattern it plays is
    /// driven at half from then on, and plays to its end; an application that plays nothing, and a
    /// request with no value, are told so and change nothing.
    @Test func parametersVaryThePatternTheApplicationPlays() throws {
        defer { server.stop() }
        let game = try UnixConnection.connect(to: path)
        var play = ServiceRequest(.play)
        play.pattern = continuousAHAP
        play.app = "org.example.Game"
        try game.send(try ServiceFrame.encode(play))
        #expect(eventually { level() > 0.5 }, "the pattern never started")
        SystemClock.shared.sleep(for: .milliseconds(100))
        let before = level()
        let other = try HapticServiceClient(socketPath: path)
        var stranger = ServiceRequest(.parameters)
        stranger.app = "org.example.Other"
        stranger.intensity = 0.5
        let refused = try other.send(stranger)
        #expect(!refused.ok && refused.outcome == "not-sent" && refused.reason?.contains("plays no pattern") == true, "\(refused)")
        var empty = ServiceRequest(.parameters)
        empty.app = "org.example.Game"
        #expect(try other.send(empty).error == .badRequest)
        SystemClock.shared.sleep(for: .milliseconds(20))
        #expect(abs(level() - before) < 0.01, "changed by a request that was refused")
        var vary = stranger
        vary.app = "org.example.Game"
        vary.after = 0.25
        let reply = try other.send(vary)
        #expect(reply.ok && reply.outcome == "sent", "\(reply)")
        // Not before its time (`after` 0.25 s), and within an update of it (5 ms; 50 ms more
        // leave room for this machine's scheduling).
        SystemClock.shared.sleep(for: .milliseconds(100))
        #expect(abs(level() - before) < 0.01, "changed before its time: \(level())")
        SystemClock.shared.sleep(for: .milliseconds(200))
        let after = level()
        #expect(abs(after - before / 2) <= 1.0 / 127 + 0.01, "\(after) after intensity 0.5, \(before) before")
        let end = try ServiceFrame.decode(ServiceReply.self, from: try #require(try game.readFrame(timeout: .seconds(3))))
        #expect(end.outcome == "played", "\(end)")
        let late = try other.send(vary)
        #expect(!late.ok && late.outcome == "not-sent", "sent to a pattern that has ended: \(late)")
    }

    /// Two clients' patterns that ask to mix play together: the chip is driven at the sum of both,
    /// each reply `played`; one client's leaving takes only its own out; a play of the same
    /// importance that does not mix takes the chip from both, each told its pattern was dropped.
    @Test func twoClientsPatternsThatMixPlayTogether() throws {
        defer { server.stop() }
        let quiet = continuousAHAP.replacingOccurrences(of: "\"ParameterValue\": 1.0", with: "\"ParameterValue\": 0.4")
        func mixing(_ app: String) throws -> UnixConnection {
            let connection = try UnixConnection.connect(to: path)
            var play = ServiceRequest(.play)
            play.pattern = quiet
            play.app = app
            play.mix = true
            play.importance = .ambient
            try connection.send(try ServiceFrame.encode(play))
            return connection
        }
        func reply(_ connection: UnixConnection) throws -> ServiceReply {
            try ServiceFrame.decode(ServiceReply.self, from: try #require(try connection.readFrame(timeout: .seconds(3))))
        }
        let game = try mixing("org.example.Game")
        #expect(eventually { level() > 0.3 }, "the first pattern never started")
        let music = try mixing("org.example.Music")
        #expect(eventually { level() > 0.7 }, "the second did not join the mix: \(level())")
        #expect(abs(level() - 0.8) <= 1.0 / 127 + 1e-9, "\(level()): not the sum of 0.4 and 0.4")
        // The game leaves: the music plays on at its own level, and its reply is `played`.
        game.close()
        #expect(eventually { abs(level() - 0.4) <= 1.0 / 127 + 1e-9 }, "\(level()) after one client left")
        #expect(try reply(music).outcome == "played")
        #expect(eventually { level() == 0 })
        // Two again, and a pattern of the same importance that does not mix replaces both.
        let first = try mixing("org.example.Game")
        #expect(eventually { level() > 0.3 })
        let second = try mixing("org.example.Music")
        #expect(eventually { level() > 0.7 })
        let other = try HapticServiceClient(socketPath: path)
        var alone = ServiceRequest(.play)
        alone.pattern = continuousAHAP.replacingOccurrences(of: "1.5", with: "0.2")
        alone.importance = .ambient
        alone.app = "org.example.Video"
        #expect(try other.send(alone).outcome == "played")
        for connection in [first, second] {
            let end = try reply(connection)
            #expect(end.outcome == "dropped" && end.reason?.contains("preempted") == true, "\(end)")
        }
        #expect(eventually { level() == 0 })
    }

    /// A stopped daemon admits nobody, even when the next daemon's socket is opened at once (the
    /// old accept loop once took clients of the next test's socket and hung up on them).
    @Test func aStoppedServerLeavesTheNextServersClientsAlone() throws {
        #expect(server.stop())
        #expect(throws: ServiceSocketError.self) { try UnixConnection.connect(to: path) }
        let next = HapticServer(engine: engine, device: "simulated")
        let nextPath = path + ".next"
        try next.start(socketPath: nextPath)
        defer { next.stop() }
        for _ in 0..<10 {
            let client = try HapticServiceClient(socketPath: nextPath)
            #expect(try client.send(ServiceRequest(.status)).ok)
        }
        #expect(server.clientCount == 0)
    }

    @Test func manyClientsAtOnceAllGetAnAnswer() throws {
        defer { server.stop() }
        let outcomes = Locked<[String]>([])
        let group = DispatchGroup()
        let path = path
        for index in 0..<20 {
            group.enter()
            Thread {
                defer { group.leave() }
                guard let client = try? HapticServiceClient(socketPath: path) else { return }
                var play = ServiceRequest(.play)
                play.feedback = index % 2 == 0 ? "impact-light" : "selection"
                let outcome: String
                do { outcome = try client.send(play).outcome ?? "no outcome" } catch { outcome = "error: \(error)" }
                outcomes.withLock { $0.append(outcome) }
            }.start()
        }
        #expect(group.wait(timeout: .now() + 10) == .success)
        let all = outcomes.withLock { $0 }
        #expect(all.count == 20)
        #expect(all.allSatisfy { $0 == "played" || $0 == "dropped" }, "\(all)")
        #expect(all.contains("played"))
    }
}

/// An app's generators reach the daemon unchanged once it is their target.
@Suite(.serialized) struct ServiceFeedbackTargetTests {
    @Test func generatorsPlayThroughTheDaemon() throws {
        let rig = try EngineRig()
        let server = HapticServer(engine: rig.engine, device: "simulated")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hapticd-target-\(getpid()).sock").path
        try server.start(socketPath: path)
        defer { server.stop() }
        let target = try ServiceFeedbackTarget(socketPath: path, app: "kiosk")
        // A generator made without an engine uses the service once it is the target (no
        // HapticEngine.shared is set in these tests).
        FeedbackTargets.service = target
        defer { FeedbackTargets.service = nil }
        let start = rig.clock.now
        ImpactFeedbackGenerator(style: .heavy).impactOccurred()
        rig.advance(.milliseconds(100))
        #expect(rig.chip.output.peak(from: start, to: rig.clock.now) > 0, "the daemon's chip was driven by the generator")
        #expect(server.handle(ServiceRequest(.status), from: .init(id: 0, app: "t", uid: 0)).status?.played == 1)
        // The daemon's profile applies to the app's requests: quiet drops UI feedback, and says so.
        var quiet = ServiceRequest(.profile)
        quiet.profile = .quiet
        quiet.app = "kiosk"
        #expect(try HapticServiceClient(socketPath: path).send(quiet).ok)
        guard case let .dropped(.service(reason)) = target.play(.selection) else {
            Issue.record("a quiet app's selection was played")
            return
        }
        #expect(reason.contains("quiet"))
    }
}

/// Protocol version 2 over a real socket on the real clock: `trigger` answers with an id at once,
/// the end is pushed when it comes, `end` stops it, and version 1 is still served as before.
@Suite(.serialized) struct ServerTriggerTests {
    let chip = SimulatedDRV2605(clock: SystemClock.shared)
    let engine: HapticEngine
    let server: HapticServer
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("hapticd-v2-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock").path

    init() throws {
        chip.keepsTrace = false
        engine = try HapticEngine(bus: chip, configuration: DRV2605Configuration(.typicalLRA), clock: SystemClock.shared, options: .isolated)
        server = HapticServer(engine: engine, device: "simulated")
        try server.start(socketPath: path)
    }

    private var standby: Bool {
        server.handle(ServiceRequest(.status), from: HapticServer.Client(id: 99, app: "test", uid: 0)).status?.standby == true
    }

    @Test func aLoopPlaysUntilEndAndItsEndIsPushed() throws {
        defer { server.stop() }
        let client = try HapticServiceClient(socketPath: path)
        let id = try client.trigger("phone-incoming-call", timeout: 0, app: "org.example.Phone")
        #expect(try client.waitForEnd(of: id, timeout: .milliseconds(1500)) == nil, "a loop ended by itself")
        #expect(server.triggeredCount == 1)
        #expect(try client.end(id))
        #expect(try client.waitForEnd(of: id, timeout: .seconds(2)) == .explicit)
        SystemClock.shared.sleep(for: .milliseconds(100))
        #expect(standby, "not in standby 100 ms after end")
        #expect(try client.end(id) == false, "ended twice")
    }

    @Test func endsAreToldWithTheirReasons() throws {
        defer { server.stop() }
        let client = try HapticServiceClient(socketPath: path)
        let once = try client.trigger("button-pressed")
        // Before the timed request leaves: the daemon's second can only start after this.
        let start = SystemClock.shared.now
        let timed = try client.trigger("alarm-clock-elapsed", timeout: 1)
        let unknown = try client.trigger("x-no-such-event")
        #expect(try client.waitForEnd(of: unknown, timeout: .seconds(2)) == .notFound)
        #expect(try client.waitForEnd(of: once, timeout: .seconds(2)) == .natural, "the alarm took the actuator from the press")
        #expect(try client.waitForEnd(of: timed, timeout: .seconds(3)) == .expired)
        #expect(SystemClock.shared.now.duration(since: start) >= .milliseconds(950))
    }

    /// A client that hangs up while its loop rings has the loop ended and the chip stopped.
    @Test func aClientThatLeavesHasItsLoopEnded() throws {
        defer { server.stop() }
        let client = try HapticServiceClient(socketPath: path)
        _ = try client.trigger("phone-incoming-call", timeout: 0)
        client.close()
        let deadline = SystemClock.shared.now.advanced(by: .seconds(2))
        while server.triggeredCount > 0 && SystemClock.shared.now < deadline { SystemClock.shared.sleep(for: .milliseconds(5)) }
        #expect(server.triggeredCount == 0, "the loop outlived its client")
    }

    /// Version 1 clients are answered in version 1; trigger needs version 2; 3 is refused.
    @Test func versionOneIsStillServed() throws {
        defer { server.stop() }
        let client = try HapticServiceClient(socketPath: path)
        var play = ServiceRequest(.play, version: 1)
        play.feedback = "impact-light"
        let reply = try client.send(play)
        #expect(reply.outcome == "played" && reply.version == 1)
        var trigger = ServiceRequest(.trigger, version: 1)
        trigger.event = "button-pressed"
        #expect(try client.send(trigger).error == .unsupportedVersion)
        #expect(try client.send(ServiceRequest(.status, version: 3)).error == .unsupportedVersion)
    }
}
