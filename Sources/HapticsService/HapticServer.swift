// SPDX-License-Identifier: Apache-2.0

import Foundation
import HapticChip
import HapticEffects
import Haptics
import HardwareAccess
import Logging

/// The system haptics service: owns one engine (one chip), serves clients on a Unix socket, and
/// arbitrates between them (`ServiceArbiter`). One thread per client keeps every wait simple and
/// bounded; a client that goes away while its pattern or sequence plays has it stopped at once.
public final class HapticServer: Sendable {
    /// The chip's engine; only the server drives it.
    public let engine: HapticEngine
    /// How `status` names the device ("simulated DRV2605L with an LRA", "/dev/i2c-1 0x5A").
    public let device: String
    /// The limits in force.
    public let options: Options
    let logger: Logger
    let arbiter = Locked(ServiceArbiter())
    private let clients = Locked<[Int: UnixConnection]>([:])
    private let nextClient = Locked(0)
    private let listener = Locked<UnixListener?>(nil)
    private let acceptEnded = Locked<DispatchSemaphore?>(nil)
    let stopping = Locked(false)
    let counts = Locked((played: 0, dropped: 0))
    let triggered = TriggeredFeedbacks()
    /// The pattern each application plays now from the socket, by app: what `parameters` varies.
    let livePatterns = Locked<[String: PatternPlayer]>([:])
    private let profileObservers = Locked<[@Sendable (FeedbackProfile) -> Void]>([])
    private let theme = Locked<FeedbackdTheme?>(nil)
    private let daemonUID = getuid()

    /// A server for `engine`; nothing listens until `start(socketPath:)`.
    public init(
        engine: HapticEngine, device: String, options: Options = Options(), globalProfile: FeedbackProfile = .full,
        logger: Logger = Logger(label: "hapticd")
    ) {
        self.engine = engine
        self.device = device
        self.options = options
        self.logger = logger
        arbiter.withLock {
            $0.globalProfile = globalProfile
            $0.importantApps = options.importantApps
        }
    }

    /// Puts saved profiles in force (hapticd at start, from its `ServiceProfileStore`).
    public func restoreProfiles(_ profiles: ServiceProfileStore.Profiles) {
        arbiter.withLock { arbiter in
            arbiter.globalProfile = profiles.global
            for (app, profile) in profiles.apps { arbiter.setProfile(profile, for: app) }
        }
    }

    /// The profiles in force, as `ServiceProfileStore` keeps them.
    public var profiles: ServiceProfileStore.Profiles {
        arbiter.withLock { ServiceProfileStore.Profiles(global: $0.globalProfile, apps: $0.appProfiles) }
    }

    /// Saves the profiles, when a store is set; a failure is logged (the profiles stay in force).
    private func saveProfiles() {
        guard let store = options.profileStore else { return }
        do {
            try store.save(profiles)
        } catch {
            logger.error("hapticd: profiles not saved: \(store.path) \(error.reason)")
        }
    }

    /// Listens at `socketPath` and serves clients on threads of their own: on `passedSocket`
    /// when the service manager passed one listening there (socket activation), else on a socket
    /// of its own.
    public func start(socketPath: String, passedSocket: Int32? = nil) throws(ServiceSocketError) {
        let listening: UnixListener
        if let passedSocket {
            listening = UnixListener(adopting: passedSocket, path: socketPath)
        } else {
            listening = try UnixListener(path: socketPath)
        }
        listener.withLock { $0 = listening }
        let acceptEnded = DispatchSemaphore(value: 0)
        self.acceptEnded.withLock { $0 = acceptEnded }
        let thread = Thread { [self] in
            defer { acceptEnded.signal() }
            while !stopping.withLock({ $0 }) {
                guard let connection = listening.accept(timeout: .milliseconds(200)) else { continue }
                guard !stopping.withLock({ $0 }) else {
                    connection.close()
                    break
                }
                admit(connection)
            }
        }
        thread.name = "hapticd-accept"
        thread.start()
        logger.info("hapticd: listening on \(socketPath)\(passedSocket == nil ? "" : " (the socket systemd passed)") for \(device)")
    }

    /// Stops serving: closes the socket and every client, stops the actuator and lowers EN (or
    /// standby). Returns whether the chip was left stopped.
    @discardableResult
    public func stop() -> Bool {
        stopping.withLock { $0 = true }
        listener.withLock { listening in
            listening?.close()
            listening = nil
        }
        // The accept thread notices within its 200 ms poll; waiting for it means no connection
        // is admitted to a server that has stopped.
        if let acceptEnded = acceptEnded.withLock({ $0 }) { _ = acceptEnded.wait(timeout: .now() + 1) }
        for connection in clients.withLock({ Array($0.values) }) { connection.shutDown() }
        for id in triggered.runs.withLock({ Array($0.keys) }) { finish(id, .explicit, stopping: false) }
        return engine.shutdown()
    }

    /// Everyone's profile: `haptic profile --global`, `hapticd --profile`, feedbackd's `Profile`
    /// property on D-Bus.
    public var globalProfile: FeedbackProfile { arbiter.withLock { $0.globalProfile } }

    /// Sets everyone's profile and tells the observers (the D-Bus service's `PropertiesChanged`).
    public func setGlobalProfile(_ profile: FeedbackProfile) {
        let changed = arbiter.withLock { arbiter -> Bool in
            defer { arbiter.globalProfile = profile }
            return arbiter.globalProfile != profile
        }
        guard changed else { return }
        saveProfiles()
        for observer in profileObservers.withLock({ $0 }) { observer(profile) }
    }

    /// Calls `observer` with the new global profile each time it changes, whoever changed it.
    public func observeGlobalProfile(_ observer: @escaping @Sendable (FeedbackProfile) -> Void) {
        profileObservers.withLock { $0.append(observer) }
    }

    /// The feedbackd theme in force, if any (`hapticd --theme`).
    public var currentTheme: FeedbackdTheme? { theme.withLock { $0 } }

    /// Puts `theme` in force (nil: the built-in event table only), from the next request on.
    public func setTheme(_ theme: FeedbackdTheme?) {
        self.theme.withLock { $0 = theme }
    }

    /// Clients connected now.
    public var clientCount: Int { clients.withLock { $0.count } }

    /// A number no other client, source or triggered feedback has.
    func newClientID() -> Int {
        nextClient.withLock { last -> Int in
            last += 1
            return last
        }
    }

    private func admit(_ connection: UnixConnection) {
        let id = newClientID()
        let accepted = clients.withLock { clients -> Bool in
            guard clients.count < options.maximumClients else { return false }
            clients[id] = connection
            return true
        }
        guard accepted else {
            let reply = ServiceReply.failure(.busy, "hapticd serves \(options.maximumClients) clients at most; try again shortly")
            if let frame = try? ServiceFrame.encode(reply) { try? connection.send(frame) }
            connection.close()
            return
        }
        let peer = connection.peer
        let client = Client(
            id: id, app: peer.flatMap { processName(pid: $0.pid) } ?? "uid \(peer?.uid ?? 0)",
            uid: peer?.uid ?? UInt32.max, connection: connection)
        let thread = Thread { [self] in
            serve(client, connection)
            clients.withLock { _ = $0.removeValue(forKey: id) }
            // Its triggered feedback goes with it, as a D-Bus peer's does when it leaves the bus.
            endTriggered(owner: Self.socketOwner(id))
            // A pattern or sequence of this client was stopped by its wait noticing the hang-up;
            // a single feedback already sent plays out (it lasts tens of milliseconds).
            connection.close()
        }
        thread.name = "hapticd-client"
        thread.start()
    }

    /// Reads requests until the client leaves, misbehaves or the server stops.
    private func serve(_ client: Client, _ connection: UnixConnection) {
        var idle = Duration.zero
        while !stopping.withLock({ $0 }) {
            switch connection.waitForInput(timeout: .milliseconds(250)) {
            case .timedOut:
                idle += .milliseconds(250)
                if idle >= options.idleDeadline { return }
                continue
            case .closed, .readable:
                idle = .zero
            }
            let payload: [UInt8]
            do {
                guard let frame = try connection.readFrame(timeout: options.messageDeadline) else { return }
                payload = frame
            } catch let error as ServiceFrame.FrameError {
                // The stream is no longer at a frame boundary: say why, then hang up.
                let code: ServiceReply.ErrorCode = if case .tooLarge = error { .tooLarge } else { .badRequest }
                if let frame = try? ServiceFrame.encode(ServiceReply.failure(code, error.description)) { try? connection.send(frame) }
                logger.info("hapticd: client \(client.id) (\(client.app)): \(error); closed")
                return
            } catch {
                logger.info("hapticd: client \(client.id) (\(client.app)): \(error); closed")
                return
            }
            let reply: ServiceReply
            do {
                let request = try ServiceFrame.decode(ServiceRequest.self, from: payload)
                var asking = client
                if let app = request.app, !app.isEmpty { asking.app = String(app.prefix(128)) }
                reply = handle(request, from: asking)
            } catch {
                reply = .failure(.badRequest, error.description)
            }
            do {
                try connection.send(try ServiceFrame.encode(reply))
            } catch {
                return
            }
        }
    }

    // MARK: - Requests

    /// Answers one request from `client`. Socket-free, so tests drive it directly.
    public func handle(_ request: ServiceRequest, from client: Client) -> ServiceReply {
        guard ServiceFrame.supportedVersions.contains(request.version) else {
            return .failure(
                .unsupportedVersion,
                "this hapticd speaks protocol versions \(ServiceFrame.supportedVersions.lowerBound)-\(ServiceFrame.supportedVersions.upperBound), not \(request.version)",
                id: request.id)
        }
        // With --verbose: when each request arrived, on the engine's clock (CLOCK_MONOTONIC on the
        // board), so that a trace of the chip or the kernel can be lined up with it.
        logger.debug("hapticd: \(client.app): \(request.op.rawValue) received at \(engine.clock.now.nanoseconds) ns")
        var reply: ServiceReply
        switch request.op {
        case .play: reply = play(request, from: client)
        case .prepare: reply = prepare(request)
        case .stop: reply = request.scope == .global ? stopEverything(for: client) : stopClient(client)
        case .status: reply = status(for: client)
        case .profile: reply = setProfile(request, from: client)
        case .parameters: reply = sendParameters(request, from: client)
        case .trigger, .end:
            guard request.version >= 2 else {
                return .failure(.unsupportedVersion, "\(request.op.rawValue) needs protocol version 2", id: request.id)
            }
            reply = request.op == .trigger ? startTrigger(request, from: client) : endTrigger(request)
        }
        reply.id = request.id
        reply.version = request.version
        return reply
    }

    /// The owner name of a socket client's triggered feedback.
    static func socketOwner(_ client: Int) -> String { "socket client \(client)" }

    private func startTrigger(_ request: ServiceRequest, from client: Client) -> ServiceReply {
        guard let event = request.event else {
            return .failure(.badRequest, "trigger needs 'event': a feedbackd event name such as button-pressed")
        }
        let timeout = request.timeout ?? -1
        guard timeout >= -1 else { return .failure(.badRequest, "timeout is -1 (once), 0 (until end) or seconds, not \(timeout)") }
        let trigger = FeedbackTrigger(
            app: client.app, event: event, timeout: timeout, profile: request.profile, important: request.important ?? false)
        let connection = client.connection
        let id = self.trigger(trigger, owner: Self.socketOwner(client.id)) { id, reason in
            // Pushed whenever it ends; a client that has gone is not written to.
            if let connection, let frame = try? ServiceFrame.encode(ServiceReply.endedMessage(id, reason)) { try? connection.send(frame) }
        }
        var reply = ServiceReply(id: nil, ok: true, outcome: "started")
        reply.trigger = id
        return reply
    }

    private func endTrigger(_ request: ServiceRequest) -> ServiceReply {
        guard let id = request.trigger else { return .failure(.badRequest, "end needs 'trigger': the id trigger answered with") }
        guard endTriggered(id) else {
            return .failure(.badRequest, "no triggered feedback \(id) is playing (it has ended, or never started)")
        }
        return ServiceReply(id: nil, ok: true, reason: "ended")
    }

    private func prepare(_ request: ServiceRequest) -> ServiceReply {
        do {
            let (feedback, _) = try feedback(of: request)
            engine.prepare(feedback)
            return ServiceReply(id: nil, ok: true)
        } catch {
            return .failure(.badRequest, error.message)
        }
    }

    private func stopClient(_ client: Client) -> ServiceReply {
        let (mine, othersPlay) = arbiter.withLock { arbiter -> (Bool, Bool) in
            let now = engine.clock.now
            let mine = arbiter.isPlaying(client: client.id, at: now)
            if mine { arbiter.ended(client: client.id) }
            return (mine, arbiter.current(at: now) != nil)
        }
        // Mixed with other clients' patterns: only this one's leaves the mix, the others play on.
        if mine, othersPlay, let player = livePatterns.withLock({ $0[client.app] }) {
            player.stop()
        } else if mine {
            engine.stop()
        }
        return ServiceReply(id: nil, ok: true, reason: mine ? "stopped" : "nothing of yours was playing")
    }

    /// `haptic stop --socket`: whatever plays, whoever asked for it, triggered feedback too (each
    /// ended as explicitly ended); the actuator stops even when nothing was known to play.
    private func stopEverything(for client: Client) -> ServiceReply {
        let playing = arbiter.withLock { arbiter -> String? in
            guard let current = arbiter.current(at: engine.clock.now) else { return nil }
            // The patterns mixed with it too: each one's client ended, until nothing plays.
            while let next = arbiter.current(at: engine.clock.now) { arbiter.ended(client: next.client) }
            return current.app
        }
        let triggers = triggered.runs.withLock { Array($0.keys) }
        for id in triggers { finish(id, .explicit, stopping: false) }
        engine.stop()
        logger.notice("hapticd: \(client.app) stopped everything\(playing.map { " (\($0) was playing)" } ?? "")")
        return ServiceReply(
            id: nil, ok: true,
            reason: playing.map { "stopped \($0)'s feedback" + (triggers.isEmpty ? "" : " and \(triggers.count) triggered feedback(s)") }
                ?? (triggers.isEmpty ? "nothing was playing; the actuator was stopped" : "ended \(triggers.count) triggered feedback(s)"))
    }

    private func setProfile(_ request: ServiceRequest, from client: Client) -> ServiceReply {
        guard let profile = request.profile else {
            return .failure(.badRequest, "profile needs 'profile': one of " + FeedbackProfile.allCases.map(\.rawValue).joined(separator: ", "))
        }
        if request.scope == .global {
            guard client.uid == 0 || client.uid == daemonUID else {
                return .failure(.notPermitted, "only root or hapticd's own user may set the global profile; set your application's with scope 'app'")
            }
            setGlobalProfile(profile)
        } else {
            arbiter.withLock { $0.setProfile(profile, for: client.app) }
            saveProfiles()
        }
        logger.info("hapticd: \(request.scope == .global ? "global" : client.app) profile set to \(profile.rawValue)")
        return ServiceReply(id: nil, ok: true)
    }

    /// The chip's state, read from its registers, with the service's.
    public func status(for client: Client) -> ServiceReply {
        let readBack: HapticChipReadBack
        do {
            readBack = try engine.withChip { try $0.readBack() }
        } catch {
            return .failure(.fault, "could not read the chip: \(error)")
        }
        let now = engine.clock.now
        let (global, app, playing) = arbiter.withLock { arbiter in
            (arbiter.globalProfile, arbiter.appProfiles[client.app], arbiter.current(at: now))
        }
        let (played, dropped) = counts.withLock { ($0.played, $0.dropped) }
        var reply = ServiceReply(id: nil, ok: true)
        reply.status = ServiceStatus(
            device: device, part: engine.capabilities.chip, actuator: engine.capabilities.actuator.description,
            standby: readBack.standby, go: readBack.details["go"].map { $0 == .bool(true) } ?? readBack.driving, power: "\(engine.powerState)",
            globalProfile: global, appProfile: app, clients: clientCount,
            playing: playing.map { "\($0.importance.rawValue) feedback of \($0.app)" }, played: played, dropped: dropped,
            awakeSeconds: engine.statistics.awakeSeconds)
        return reply
    }
}

/// The command name of process `pid` (`/proc/PID/comm`), as feedbackd names applications it
/// was not told the name of.
func processName(pid: Int32) -> String? {
    guard pid > 0, let text = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return nil }
    let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
    return name.isEmpty ? nil : name
}
