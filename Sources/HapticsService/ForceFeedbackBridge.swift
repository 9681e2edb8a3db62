// SPDX-License-Identifier: Apache-2.0

import Foundation
import Haptics
import HardwareAccess
import Logging

/// Plays what Linux force-feedback clients (SDL games, feedbackd, `fftest`) ask of a
/// `ForceFeedbackDevice` on the daemon's chip: uploads are kept, a play renders the effect (with
/// its envelope, the waveform's pulsing and the master gain) as a pattern and hands it to the
/// server's arbitration like any client's, stop and erase stop it.
public final class ForceFeedbackBridge: Sendable {
    /// The source id force feedback plays under in the arbitration (clients are positive).
    public static let sourceID = -1
    /// Longest playback of an effect that asks for "until stopped" (length 0), or of all its repeats.
    public static let maximumSeconds = 30.0
    /// Drive levels change at most this often (a rendering step).
    static let step = 0.02

    /// The device clients talk to.
    public let device: any ForceFeedbackDevice
    /// The server whose engine and arbitration play the effects.
    public let server: HapticServer
    /// How much force feedback matters against the socket's clients.
    public let importance: Importance
    private struct State {
        var effects: [Int: ForceFeedbackEffect] = [:]
        var gain = 1.0
        var playing: (id: Int, player: PatternPlayer)?
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
            defer { state.playing = nil }
            return state.playing?.player
        }
        player?.stop()
        device.close()
    }

    /// One request from the device.
    public func handle(_ event: ForceFeedbackEvent) {
        switch event {
        case let .upload(effect):
            state.withLock {
                $0.effects[effect.id] = effect
                $0.uploads += 1
            }
            logger.debug("hapticd: force feedback: effect \(effect.id) uploaded: \(effect.kind)")
        case let .erase(id):
            state.withLock { _ = $0.effects.removeValue(forKey: id) }
            stopPlaying(id)
        case let .gain(gain):
            state.withLock { $0.gain = min(1, max(0, gain)) }
        case let .stop(id):
            stopPlaying(id)
        case let .play(id, count):
            guard let (effect, gain) = state.withLock({ state in state.effects[id].map { ($0, state.gain) } }) else {
                logger.info("hapticd: force feedback: play of effect \(id), which was never uploaded")
                return
            }
            state.withLock { $0.plays += 1 }
            let pattern = Self.pattern(for: effect, gain: gain, count: max(1, count))
            switch server.startPattern(pattern, app: "force-feedback", importance: importance, source: Self.sourceID) {
            case let .success(player):
                let previous = state.withLock { state -> PatternPlayer? in
                    defer { state.playing = (id, player) }
                    return state.playing?.player
                }
                if previous !== player { previous?.cancel() }
                logger.info("hapticd: force feedback: effect \(id) playing (\(String(format: "%.2f", pattern.duration)) s)")
            case let .failure(reason):
                logger.info("hapticd: force feedback: effect \(id) dropped: \(reason.message)")
            }
        }
    }

    private func stopPlaying(_ id: Int) {
        let player = state.withLock { state -> PatternPlayer? in
            guard let playing = state.playing, playing.id == id else { return nil }
            state.playing = nil
            return playing.player
        }
        player?.stop()
    }

    /// The effect as a pattern: `count` playbacks after its delay, each one continuous event per
    /// rendering step whose intensity is gain × magnitude × envelope × waveform at that moment.
    public static func pattern(for effect: ForceFeedbackEffect, gain: Double, count: Int = 1) -> HapticPattern {
        let single = effect.length == .zero ? maximumSeconds : effect.length.secondsDouble
        let delay = effect.delay.secondsDouble
        let repeats = max(1, min(count, Int(maximumSeconds / max(single, step))))
        var events: [HapticPattern.Event] = []
        for playback in 0..<repeats {
            let start = delay + Double(playback) * single
            var time = 0.0
            while time < single - 1e-9 {
                let length = min(step, single - time)
                let level = gain * level(of: effect, at: time + length / 2, length: single)
                if level > 0.001 {
                    events.append(
                        .init(
                            type: .hapticContinuous, time: start + time, duration: length,
                            intensity: min(1, level), sharpness: sharpness(of: effect)))
                }
                time += length
            }
        }
        return HapticPattern(events: events)
    }

    /// The effect's strength at `time` seconds into one playback of `length` seconds, 0...1.
    static func level(of effect: ForceFeedbackEffect, at time: Double, length: Double) -> Double {
        let base: Double
        switch effect.kind {
        case let .rumble(strong, weak):
            return max(strong, weak)  // rumble has no envelope
        case let .constant(level):
            base = abs(level)
        case let .periodic(waveform, magnitude, offset, period):
            let seconds = period.secondsDouble
            // Periods shorter than two steps are felt as a steady vibration at the magnitude.
            guard seconds >= 2 * step else {
                base = min(1, abs(magnitude) + abs(offset))
                break
            }
            let phase = (time / seconds).truncatingRemainder(dividingBy: 1)
            let wave: Double
            switch waveform {
            case .sine: wave = sin(2 * .pi * phase)
            case .square: wave = phase < 0.5 ? 1 : -1
            case .triangle: wave = phase < 0.5 ? 4 * phase - 1 : 3 - 4 * phase
            case .sawUp: wave = 2 * phase - 1
            case .sawDown: wave = 1 - 2 * phase
            }
            // A vibration motor cannot push both ways: the force's size is what is felt.
            base = min(1, abs(offset + magnitude * wave))
        }
        return base * envelope(effect.envelope, at: time, length: length)
    }

    /// Linux's envelope: from `attackLevel` up to the effect's level over the attack, down to
    /// `fadeLevel` over the fade at the end.
    static func envelope(_ envelope: ForceFeedbackEffect.Envelope, at time: Double, length: Double) -> Double {
        let attack = envelope.attackLength.secondsDouble
        let fade = envelope.fadeLength.secondsDouble
        if attack > 0, time < attack {
            return envelope.attackLevel + (1 - envelope.attackLevel) * time / attack
        }
        if fade > 0, time > length - fade {
            let into = (time - (length - fade)) / fade
            return 1 + (envelope.fadeLevel - 1) * min(1, into)
        }
        return 1
    }

    /// A heavy motor feels dull, a light one crisp.
    static func sharpness(of effect: ForceFeedbackEffect) -> Double {
        if case let .rumble(strong, weak) = effect.kind { return strong >= weak ? 0.3 : 0.7 }
        return 0.5
    }
}
