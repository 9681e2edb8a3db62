// SPDX-License-Identifier: Apache-2.0

import Foundation
import HapticChip
import HapticEffects
import Haptics
import HardwareAccess

/// Playing what a request asks for: a feedback by name or event, a ROM effect, a sequence or a
/// pattern, arbitrated, the reply saying how it ended; and the in-process sources' patterns.
extension HapticServer {
    struct RequestError: Error, CustomStringConvertible {
        var message: String
        /// A valid request the profile (through the theme) silences: dropped, not refused.
        var silenced = false
        var description: String { message }
    }

    /// The single feedback a request names (`feedback` or `event`), with its importance.
    func feedback(of request: ServiceRequest) throws(RequestError) -> (Feedback, Importance) {
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
    enum Playable {
        case plan(FeedbackPlan, label: String, seconds: Double)
        case feedback(Feedback, seconds: Double)
        /// A pattern's rendering, and its source for a device that renders patterns itself.
        case pattern(RenderedPattern, source: PatternSource, warnings: [String])
        case sequence([SequenceNote])
    }

    func playable(_ request: ServiceRequest, app: String) throws(RequestError) -> (Playable, Importance) {
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
            return (.pattern(rendered, source: PatternSource(pattern: document.pattern), warnings: document.warnings), importance)
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
            guard let resolved = resolve(FeedbackTrigger(app: app, event: event, important: request.important ?? false)),
                case let .pattern(pattern) = resolved.what, !pattern.events.isEmpty
            else {
                throw RequestError(message: "the theme \(theme.name) has no vibration for \(event) in \(app)'s profile or quieter", silenced: true)
            }
            return (.pattern(PatternRenderer().render(pattern), source: PatternSource(pattern: pattern), warnings: []), request.importance ?? resolved.importance)
        }
        let (feedback, eventImportance) = try feedback(of: request)
        let seconds = engine.mapping.plan(for: feedback)?.estimatedDuration.secondsDouble ?? 0.05
        return (.feedback(feedback, seconds: seconds), eventImportance)
    }

    func play(_ request: ServiceRequest, from client: Client) -> ServiceReply {
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
        case let .pattern(rendered, _, _):
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
        // Only a pattern mixes: a feedback, an effect or a sequence takes the chip as before.
        let mixes: Bool
        if case .pattern = item { mixes = request.mix ?? false } else { mixes = false }
        // A themed event's profile was the theme's to decide (the part it is in).
        let themed = request.event.map { event in currentTheme?.events.contains(event) == true } ?? false
        let verdict = arbiter.withLock {
            $0.admit(
                importance, app: client.app, client: client.id, important: request.important ?? false,
                length: .secondsClamped(seconds), now: received, checksProfile: !themed, mixes: mixes)
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
        case let .pattern(_, source, _):
            // As designed, so that `parameters` can vary it while it plays (HapticServer+Parameters);
            // mixed into the engine's stream beside other clients' when it asked to mix.
            var playerOptions = PatternPlayer.Options()
            playerOptions.mixes = mixes
            let player = PatternPlayer(engine: engine, designed: source.pattern, options: playerOptions)
            livePatterns.withLock { $0[client.app] = player }
            defer { livePatterns.withLock { if $0[client.app] === player { $0[client.app] = nil } } }
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
        // A remix continues what plays (ff-memless updates at the game's rate): no new trigger.
        var options = PatternPlayer.Options()
        options.countsAsTrigger = false
        let player = PatternPlayer(engine: engine, pattern: rendered, options: options)
        player.completionHandler = { [self] outcome in
            if outcome != .finished { arbiter.withLock { $0.ended(client: source) } }
        }
        counts.withLock { $0.played += 1 }
        player.start()
        return .success(player)
    }

    func answer(_ outcome: FeedbackOutcome, client: Client) -> ServiceReply {
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
    func waitWhileConnected(
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
