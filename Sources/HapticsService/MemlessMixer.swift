// SPDX-License-Identifier: Apache-2.0

import Foundation
import Haptics
import HardwareAccess

/// Linux's `ff-memless` arithmetic (drivers/input/ff-memless.c), which the kernel's own vibrator
/// drivers (drv260x among them) play through, applied to a uinput device that has no kernel
/// emulation: every playing effect is added into one rumble, each clamped, the gain applied once.
///
/// - Rumble: strong and weak magnitudes, each times the gain, summed over the effects and clamped
///   to full; the actuator plays the strong sum, or the weak one when the strong is zero (as
///   drv260x does with the combined rumble).
/// - Periodic: its magnitude's size through its envelope, times the gain, added to both. As in
///   ff-memless on a rumble device, the waveform, period, offset and direction are not rendered.
/// - Constant: its level's size through its envelope, times the gain, added to both (ff-memless
///   has no rumble emulation of constant effects; this device accepts them, so they are felt
///   this way).
/// - Envelopes are absolute levels (input.h: 0 to 0x7fff, here 0...1): the attack goes from
///   `attackLevel` to the effect's own level, the fade from it to `fadeLevel`, linearly, and
///   a fade applies only to an effect with a length.
/// - Levels change at ff-memless's envelope interval, 50 ms.
public struct MemlessMixer: Sendable {
    /// ff-memless's FF_ENVELOPE_INTERVAL: how often an envelope's level is recomputed.
    public static let interval: Duration = .milliseconds(50)

    /// One effect playing.
    public struct Playing: Sendable {
        /// The effect as uploaded.
        public var effect: ForceFeedbackEffect
        /// When it was asked to play (its delay runs from here).
        public var requested: ClockInstant
        /// How many playbacks, back to back.
        public var count: Int
    }

    /// The effects playing, by id.
    public private(set) var playing: [Int: Playing] = [:]
    /// The master gain (FF_GAIN), 0...1.
    public var gain = 1.0
    /// Longest an effect "until stopped" (length 0), or all of its repeats, lasts.
    public var maximumSeconds: Double

    /// Nothing playing, full gain.
    public init(maximumSeconds: Double = 30) { self.maximumSeconds = maximumSeconds }

    /// Starts (or restarts) `effect` `count` times from `now`.
    public mutating func play(_ effect: ForceFeedbackEffect, count: Int, at now: ClockInstant) {
        playing[effect.id] = Playing(effect: effect, requested: now, count: max(1, count))
    }

    /// Stops effect `id`; false when it was not playing.
    @discardableResult
    public mutating func stop(_ id: Int) -> Bool { playing.removeValue(forKey: id) != nil }

    /// When effect playback `entry` is over: its delay, then its playbacks (capped).
    func end(of entry: Playing) -> ClockInstant {
        let start = entry.requested.advanced(by: entry.effect.delay)
        let single = entry.effect.length == .zero ? maximumSeconds : entry.effect.length.secondsDouble
        return start.advanced(by: .secondsClamped(min(maximumSeconds, single * Double(entry.count))))
    }

    /// When the last playing effect is over; nil when nothing plays.
    public var end: ClockInstant? { playing.values.map(end(of:)).max() }

    /// Forgets the effects that have finished by `now`.
    public mutating func removeFinished(at now: ClockInstant) {
        playing = playing.filter { end(of: $0.value) > now }
    }

    /// The drive level at `time`, 0...1: the combined rumble as the actuator plays it.
    public func level(at time: ClockInstant) -> Double {
        var strong = 0.0
        var weak = 0.0
        for entry in playing.values {
            let start = entry.requested.advanced(by: entry.effect.delay)
            guard time >= start, time < end(of: entry) else { continue }
            let into = time.duration(since: start).secondsDouble
            let length = entry.effect.length.secondsDouble
            // Within the current playback of a repeated effect.
            let local = length > 0 ? into.truncatingRemainder(dividingBy: length) : into
            switch entry.effect.kind {
            case let .rumble(strongMagnitude, weakMagnitude):
                strong += strongMagnitude * gain
                weak += weakMagnitude * gain
            case let .periodic(_, magnitude, _, _):
                let value = Self.envelope(abs(magnitude), entry.effect.envelope, at: local, length: length) * gain
                strong += value
                weak += value
            case let .constant(level):
                let value = Self.envelope(abs(level), entry.effect.envelope, at: local, length: length) * gain
                strong += value
                weak += value
            }
        }
        strong = min(1, strong)
        weak = min(1, weak)
        return strong > 0 ? strong : weak
    }

    /// ff-memless's `apply_envelope`: `value` at `time` seconds into a playback of `length`
    /// seconds (0: until stopped), the envelope's levels absolute.
    static func envelope(_ value: Double, _ envelope: ForceFeedbackEffect.Envelope, at time: Double, length: Double) -> Double {
        let attack = envelope.attackLength.secondsDouble
        let fade = envelope.fadeLength.secondsDouble
        let level: Double
        let fraction: Double
        if attack > 0, time < attack {
            level = min(1, envelope.attackLevel)
            fraction = time / attack
        } else if fade > 0, length > 0, time > length - fade, time < length {
            level = min(1, envelope.fadeLevel)
            fraction = (length - time) / fade
        } else {
            return value
        }
        return level + (value - level) * fraction
    }

    /// What plays from `now` until every effect is over, as a pattern: one continuous event per
    /// interval whose intensity is the level in the middle of it. Empty when nothing plays.
    public func pattern(from now: ClockInstant, sharpness: Double = 0.5) -> HapticPattern {
        guard let end, end > now else { return HapticPattern(events: []) }
        let total = end.duration(since: now).secondsDouble
        let step = Self.interval.secondsDouble
        var events: [HapticPattern.Event] = []
        var time = 0.0
        while time < total - 1e-9 {
            let length = min(step, total - time)
            let level = self.level(at: now.advanced(by: .secondsClamped(time + length / 2)))
            if level > 0.001 {
                events.append(.init(type: .hapticContinuous, time: time, duration: length, intensity: min(1, level), sharpness: sharpness))
            }
            time += length
        }
        return HapticPattern(events: events)
    }
}
