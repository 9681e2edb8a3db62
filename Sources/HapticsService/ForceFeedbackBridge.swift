// SPDX-License-Identifier: Apache-2.0

import Foundation
import Haptics
import HardwareAccess
import Logging

/// Plays what Linux force-feedback clients (SDL games, feedbackd, `fftest`) ask of a
/// `ForceFeedbackDevice` on the daemon's chip, as the kernel's ff-memless plays them on its own
/// vibrators (`MemlessMixer`): uploads are kept; every play, stop, erase or gain change mixes the
/// effects playing into one timeline, rendered as a pattern and handed to the server's
/// arbitration like any client's.
public final class ForceFeedbackBridge: Sendable {
    /// The source id force feedback plays under in the arbitration (clients are positive).
    public static let sourceID = -1
    /// Longest playback of an effect that asks for "until stopped" (length 0), or of all its repeats.
    public static let maximumSeconds = 30.0

    /// The device clients talk to.
    public let device: any ForceFeedbackDevice
    /// The server whose engine and arbitration play the effects.
    public let server: HapticServer
    /// How much force feedback matters against the socket's clients.
    public let importance: Importance
    private struct State {
        var effects: [Int: ForceFeedbackEffect] = [:]
        var mixer = MemlessMixer(maximumSeconds: ForceFeedbackBridge.maximumSeconds)
        var player: PatternPlayer?
        var running = false
        var uploads = 0
        var plays = 0
    }
    private let state = Locked(State())
    private let logger: Logger

    /// A bridge from `device` to `server`; nothing is read until `start()`.
    public init(device: any ForceFeedbackDevice, server: HapticServer, importance: Importance = .ui, logger: Logger = Logger(label: "hapticd")) {
        self.device = device
        self.server = server
        self.importance = importance
        self.logger = logger
    }

    /// Effects uploaded and plays requested so far.
    public var counts: (uploads: Int, plays: Int) { state.withLock { ($0.uploads, $0.plays) } }

    /// Serves the device on a thread of its own until `stop()`.
    public func start() {
        state.withLock { $0.running = true }
        let thread = Thread { [self] in
            while state.withLock({ $0.running }) {
                do {
                    if let event = try device.nextEvent(timeout: .milliseconds(200)) { handle(event) }
                } catch {
                    logger.error("hapticd: force feedback: \(error)")
                    return
                }
            }
        }
        thread.name = "hapticd-force-feedback"
        thread.start()
    }

    /// Stops serving, stops what it plays and removes the device.
    public func stop() {
        let player = state.withLock { state -> PatternPlayer? in
            state.running = false
            for id in Array(state.mixer.playing.keys) { state.mixer.stop(id) }
            defer { state.player = nil }
            return state.player
        }
        player?.stop()
        device.close()
    }

    /// One request from the device.
    public func handle(_ event: ForceFeedbackEvent) {
        let now = server.engine.clock.now
        switch event {
        case let .upload(effect):
            let playing = state.withLock { state -> Bool in
                state.effects[effect.id] = effect
                state.uploads += 1
                // An effect updated while it plays goes on with its new parameters (ff-memless).
                guard let entry = state.mixer.playing[effect.id] else { return false }
                state.mixer.play(effect, count: entry.count, at: entry.requested)
                return true
            }
            logger.debug("hapticd: force feedback: effect \(effect.id) uploaded: \(effect.kind)")
            if playing { remix(at: now) }
        case let .erase(id):
            let stopped = state.withLock { state -> Bool in
                state.effects.removeValue(forKey: id)
                return state.mixer.stop(id)
            }
            if stopped { remix(at: now) }
        case let .gain(gain):
            let playing = state.withLock { state -> Bool in
                state.mixer.gain = min(1, max(0, gain))
                return !state.mixer.playing.isEmpty
            }
            if playing { remix(at: now) }
        case let .stop(id):
            if state.withLock({ $0.mixer.stop(id) }) { remix(at: now) }
        case let .play(id, count):
            let known = state.withLock { state -> Bool in
                guard let effect = state.effects[id] else { return false }
                state.plays += 1
                state.mixer.removeFinished(at: now)
                state.mixer.play(effect, count: count, at: now)
                return true
            }
            guard known else {
                logger.info("hapticd: force feedback: play of effect \(id), which was never uploaded")
                return
            }
            remix(at: now)
        }
    }

    /// Mixes what plays from `now` into one pattern and plays it in place of the previous one
    /// (nothing left: the previous one stops).
    private func remix(at now: ClockInstant) {
        let pattern = state.withLock { $0.mixer.pattern(from: now) }
        guard !pattern.events.isEmpty else {
            let previous = state.withLock { state -> PatternPlayer? in
                defer { state.player = nil }
                return state.player
            }
            previous?.stop()
            return
        }
        switch server.startPattern(pattern, app: "force-feedback", importance: importance, source: Self.sourceID) {
        case let .success(player):
            let previous = state.withLock { state -> PatternPlayer? in
                defer { state.player = player }
                return state.player
            }
            if previous !== player { previous?.cancel() }
            logger.info("hapticd: force feedback: \(state.withLock { $0.mixer.playing.count }) effect(s) playing, mixed (\(String(format: "%.2f", pattern.duration)) s)")
        case let .failure(reason):
            logger.info("hapticd: force feedback: dropped: \(reason.message)")
        }
    }

    /// One effect alone as ff-memless plays it: `count` playbacks after its delay, at `gain`.
    public static func pattern(for effect: ForceFeedbackEffect, gain: Double, count: Int = 1) -> HapticPattern {
        var mixer = MemlessMixer(maximumSeconds: maximumSeconds)
        mixer.gain = gain
        mixer.play(effect, count: count, at: .zero)
        return mixer.pattern(from: .zero)
    }
}
