// SPDX-License-Identifier: Apache-2.0

import DRV2605
import Foundation
import HapticChip
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
    private let stopping = Locked(false)
    let counts = Locked((played: 0, dropped: 0))
    let triggered = TriggeredFeedbacks()
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
        arbiter.withLock { $0.globalProfile = globalProfile }
    }

    /// Listens at `socketPath` and serves clients on threads of their own.
    public func start(socketPath: String) throws(ServiceSocketError) {
        let listening = try UnixListener(path: socketPath)
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
        logger.info("hapticd: listening on \(socketPath) for \(device)")
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
        var reply: ServiceReply
        switch request.op {
        case .play: reply = play(request, from: client)
        case .prepare: reply = prepare(request)
        case .stop: reply = stopClient(client)
        case .status: reply = status(for: client)
        case .profile: reply = setProfile(request, from: client)
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
        let mine = arbiter.withLock { arbiter -> Bool in
            let mine = arbiter.isPlaying(client: client.id, at: engine.clock.now)
            if mine { arbiter.ended(client: client.id) }
            return mine
        }
        if mine { engine.stop() }
        return ServiceReply(id: nil, ok: true, reason: mine ? "stopped" : "nothing of yours was playing")
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

    // MARK: - Play

    private struct RequestError: Error, CustomStringConvertible {
        var message: String
        /// A valid request the profile (through the theme) silences: dropped, not refused.
        var silenced = false
        var description: String { message }
    }

    /// The single feedback a request names (`feedback` or `event`), with its importance.
    private func feedback(of request: ServiceRequest) throws(RequestError) -> (Feedback, Importance) {
        if let name = request.event {
            guard let (feedback, importance) = FeedbackdEvent.mapping(for: name) else {
                throw RequestError(
                    message: "no feedback or event named '\(name)'; events: " + FeedbackdEvent.mappings.keys.sorted().joined(separator: ", ")
                        + "; feedbacks: " + FeedbackKind.all.map(\.name).joined(separator: ", "))
            }
            return (feedback, request.importance ?? importance)
        }
        if let name = request.feedback {
            let intensity = request.intensity ?? 1
            guard intensity.isFinite, (0...1).contains(intensity) else {
                throw RequestError(message: "intensity must be between 0 and 1, not \(intensity)")
            }
            guard let feedback = Feedback(name: name, intensity: intensity) else {
                throw RequestError(message: "no feedback named '\(name)'; known: " + FeedbackKind.all.map(\.name).joined(separator: ", "))
            }
            return (feedback, request.importance ?? .ui)
        }
        throw RequestError(message: "play needs one of 'feedback', 'event', 'effect', 'sequence' or 'pattern'")
    }

    /// What a play request plays.
    private enum Playable {
        case plan(FeedbackPlan, label: String, seconds: Double)
        case feedback(Feedback, seconds: Double)
        case pattern(RenderedPattern, warnings: [String])
        case sequence([SequenceNote])
    }

    private func playable(_ request: ServiceRequest, app: String) throws(RequestError) -> (Playable, Importance) {
        let importance = request.importance ?? .ui
        if let number = request.effect {
            guard let effect = Effect(rawValue: UInt8(clamping: number)), (1...123).contains(number) else {
                throw RequestError(message: "effect must be a ROM effect number 1-123, not \(number)")
            }
            return (.plan(.rom(WaveformSequence(effect)), label: "effect \(number)", seconds: effect.estimatedDuration.secondsDouble), importance)
        }
        if let text = request.pattern {
            let document: PatternDocument
            do {
                document = try PatternFileReader.parse(Array(text.utf8), file: "pattern")
            } catch {
                throw RequestError(message: "\(error)")
            }
            let rendered = PatternRenderer().render(document.pattern)
            guard rendered.playedSeconds <= options.maximumPlaySeconds else {
                throw RequestError(message: "the pattern plays \(rendered.playedSeconds) s; hapticd plays at most \(options.maximumPlaySeconds) s")
            }
            return (.pattern(rendered, warnings: document.warnings), importance)
        }
        if let text = request.sequence {
            let notes: [SequenceNote]
            do {
                notes = try SequenceNote.parse(
                    text,
                    loadPattern: { name in
                        throw RequestError(message: "'\(name)': a sequence sent to hapticd cannot name pattern files; send the pattern itself")
                    },
                    loadSound: { name in
                        throw RequestError(message: "'sound \(name)': hapticd plays no sound notes (it opens no file a client names); play the sound in the client")
                    })
            } catch {
                throw RequestError(message: "\(error)")
            }
            return (.sequence(notes), importance)
        }
        // A feedbackd event the theme vibrates for plays the theme's pattern.
        if let event = request.event, let theme = currentTheme, theme.events.contains(event) {
            guard let (what, eventImportance, _) = eventFeedback(event, app: app, hint: nil, important: request.important ?? false),
                case let .pattern(pattern) = what
            else {
                throw RequestError(message: "the theme \(theme.name) has no vibration for \(event) in \(app)'s profile or quieter", silenced: true)
            }
            return (.pattern(PatternRenderer().render(pattern), warnings: []), request.importance ?? eventImportance)
        }
        let (feedback, eventImportance) = try feedback(of: request)
        let seconds = engine.mapping.plan(for: feedback)?.estimatedDuration.secondsDouble ?? 0.05
        return (.feedback(feedback, seconds: seconds), eventImportance)
    }

    private func play(_ request: ServiceRequest, from client: Client) -> ServiceReply {
        let received = engine.clock.now
        let item: Playable
        let importance: Importance
        do {
            (item, importance) = try playable(request, app: client.app)
        } catch {
            if error.silenced {
                counts.withLock { $0.dropped += 1 }
                return ServiceReply(id: nil, ok: false, outcome: "dropped", reason: error.message)
            }
            return .failure(.badRequest, error.message)
        }
        let sequencePlayer: SequencePlayer?
        let seconds: Double
        switch item {
        case let .plan(_, _, length), let .feedback(_, length):
            seconds = length
            sequencePlayer = nil
        case let .pattern(rendered, _):
            seconds = rendered.playedSeconds
            sequencePlayer = nil
        case let .sequence(notes):
            let player = SequencePlayer(engine: engine, notes: notes)
            guard player.duration <= options.maximumPlaySeconds else {
                return .failure(.badRequest, "the sequence plays \(player.duration) s; hapticd plays at most \(options.maximumPlaySeconds) s")
            }
            seconds = player.duration
            sequencePlayer = player
        }
        // A themed event's profile was the theme's to decide (the part it is in).
        let themed = request.event.map { event in currentTheme?.events.contains(event) == true } ?? false
        let verdict = arbiter.withLock {
            $0.admit(
                importance, app: client.app, client: client.id, important: request.important ?? false,
                length: .secondsClamped(seconds), now: received, checksProfile: !themed)
        }
        if case let .drop(reason) = verdict {
            counts.withLock { $0.dropped += 1 }
            logger.info("hapticd: dropped for \(client.app): \(reason)")
            return ServiceReply(id: nil, ok: false, outcome: "dropped", reason: reason)
        }
        switch item {
        case let .plan(plan, label, _):
            return answer(engine.play(plan: plan, label: label), client: client)
        case let .feedback(feedback, _):
            // A full profile hears the feedback's sound: placed ahead, the haptic played with it.
            if let sounds = options.sounds, arbiter.withLock({ $0.effectiveProfile(for: client.app) }) == .full {
                sounds.waitForSound(of: feedback, preparing: engine)
            }
            return answer(engine.play(feedback), client: client)
        case let .pattern(rendered, _):
            let player = PatternPlayer(engine: engine, pattern: rendered)
            player.start()
            return waitWhileConnected(
                client, seconds: seconds, since: received,
                outcome: { player.outcome.map { ($0 == .finished, "\($0)") } }, cancel: { player.cancel() })
        case .sequence:
            guard let sequencePlayer else { return .failure(.fault, "internal: no sequence") }
            sequencePlayer.start()
            return waitWhileConnected(
                client, seconds: seconds, since: received,
                outcome: { sequencePlayer.outcome.map { ($0 == .finished, "\($0)") } }, cancel: { sequencePlayer.cancel() })
        }
    }

    /// Why an in-process source's pattern was not started.
    public struct NotPlayed: Error, Equatable {
        /// Why, in words.
        public var message: String
    }

    /// Starts `pattern` for an in-process source (the force-feedback device: `source` negative),
    /// arbitrated like a client's, and returns its player without waiting for it.
    public func startPattern(_ pattern: HapticPattern, app: String, importance: Importance, source: Int) -> Result<PatternPlayer, NotPlayed> {
        let rendered = PatternRenderer().render(pattern)
        let verdict = arbiter.withLock {
            $0.admit(importance, app: app, client: source, length: .secondsClamped(rendered.playedSeconds), now: engine.clock.now)
        }
        if case let .drop(reason) = verdict {
            counts.withLock { $0.dropped += 1 }
            return .failure(NotPlayed(message: reason))
        }
        let player = PatternPlayer(engine: engine, pattern: rendered)
        player.completionHandler = { [self] outcome in
            if outcome != .finished { arbiter.withLock { $0.ended(client: source) } }
        }
        counts.withLock { $0.played += 1 }
        player.start()
        return .success(player)
    }

    private func answer(_ outcome: FeedbackOutcome, client: Client) -> ServiceReply {
        switch outcome {
        case .played:
            counts.withLock { $0.played += 1 }
            return ServiceReply(id: nil, ok: true, outcome: "played")
        case let .dropped(reason):
            counts.withLock { $0.dropped += 1 }
            arbiter.withLock { $0.ended(client: client.id) }
            return ServiceReply(id: nil, ok: false, outcome: "dropped", reason: reason.description)
        }
    }

    /// Waits for a pattern or sequence to end while the client is still there; one that leaves
    /// (or a timeout, or the server stopping) has it cancelled at once. The reply says how it ended.
    private func waitWhileConnected(
        _ client: Client, seconds: Double, since start: ClockInstant,
        outcome: @escaping () -> (finished: Bool, text: String)?, cancel: () -> Void
    ) -> ServiceReply {
        var left = false
        _ = engine.clock.wait(
            until: {
                if outcome() != nil { return true }
                if let connection = client.connection, connection.peerHasLeft {
                    left = true
                    return true
                }
                return stopping.withLock { $0 }
            }, timeout: .secondsClamped(seconds + 5))
        if left || outcome() == nil { cancel() }
        arbiter.withLock { $0.ended(client: client.id) }
        guard !left, let end = outcome() else { return ServiceReply(id: nil, ok: false, outcome: "dropped", reason: "the client left") }
        var reply: ServiceReply
        if end.finished {
            counts.withLock { $0.played += 1 }
            reply = ServiceReply(id: nil, ok: true, outcome: "played")
        } else {
            counts.withLock { $0.dropped += 1 }
            reply = ServiceReply(id: nil, ok: false, outcome: "dropped", reason: "ended \(end.text) (a more important feedback, a stop, or a chip fault)")
        }
        reply.playedSeconds = engine.clock.now.duration(since: start).secondsDouble
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
