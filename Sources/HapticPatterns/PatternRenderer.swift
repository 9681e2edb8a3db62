// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticEffects
import HardwareAccess

#if !hasFeature(Embedded)
    import Foundation
#endif

/// What the chip plays for a pattern: a real-time playback stream, or ROM clicks at given times,
/// plus the designed intensity and sharpness for plots, and what could not be rendered faithfully.
public struct RenderedPattern: Sendable, Equatable {
    /// A stream of RTP levels, or ROM effects at given times.
    public enum Mode: String, Sendable { case realTime, rom }
    /// A ROM click at a time.
    public struct Hit: Sendable, Equatable {
        /// Seconds from the start.
        public var time: Double
        /// The ROM effect played there.
        public var effect: Effect
    }
    /// How the chip is driven for this pattern.
    public var mode: Mode
    /// Updates per second of the stream (and of the plot curves).
    public var rate: Double
    /// Drive level per update, −1...1 (negative = brake), for `.realTime`.
    public var samples: [Double]
    /// ROM clicks in time order, for `.rom`.
    public var hits: [Hit]
    /// Designed intensity per update, for plots.
    public var intensity: [Double]
    /// Designed sharpness per update, for plots.
    public var sharpness: [Double]
    /// The sharpness each update of the stream asks the actuator for, where a chip renders it
    /// as its drive frequency (`DriveFrequencyControl`): the loudest continuous event's, with the
    /// sharpness control added; where none plays, the sharpness around it held (a frequency
    /// changed under no drive moves nothing). Empty when every continuous event is at 0.5 and
    /// nothing controls sharpness: the stream plays at resonance, as it always did.
    public var driveSharpness: [Double] = []
    /// The pattern's designed length.
    public var designedSeconds: Double
    /// What could not be rendered faithfully, one line each.
    public var warnings: [String]

    /// A rendering made elsewhere (tests, the benchmark, a tool of your own).
    public init(
        mode: Mode, rate: Double, samples: [Double], hits: [Hit], intensity: [Double], sharpness: [Double],
        designedSeconds: Double, warnings: [String]
    ) {
        self.mode = mode
        self.rate = rate
        self.samples = samples
        self.hits = hits
        self.intensity = intensity
        self.sharpness = sharpness
        self.designedSeconds = designedSeconds
        self.warnings = warnings
    }

    /// How long playing takes (the stream, or the last hit plus its effect).
    public var playedSeconds: Double {
        switch mode {
        case .realTime: return Double(samples.count) / rate
        case .rom: return hits.map { $0.time + $0.effect.estimatedDuration.secondsDouble }.max() ?? 0
        }
    }
}

/// Turns a `HapticPattern` into something a DRV2605 can play.
///
/// - Continuous events and curves become a real-time playback stream (`rate` updates a second,
///   200 by default): intensity × HapticIntensityControl × the event's envelope, overlapping
///   events summed and clamped.
/// - Transients become short bursts in that stream — their length and shape set by sharpness
///   (sharpness 0: a 30 ms rounded bump; 1: a 12 ms full-scale kick with a brake) — or, in a
///   pattern of transients only, ROM clicks chosen by intensity and sharpness (Soft Bump below
///   sharpness 0.33, Strong Click to 0.66, Sharp Click above; 100/60/30 % tiers).
/// - Sharpness of continuous events goes out beside the stream (`RenderedPattern.driveSharpness`)
///   for a chip that renders it as its LRA's drive frequency; where the chip cannot (an ERM, a
///   closed-loop-only part), the player's rendering report says so rather than pretending.
/// - Envelope times (AttackTime, DecayTime, ReleaseTime 0...1) are not published by Apple; they
///   map exponentially to 1 ms...1 s here (`envelopeSeconds`).
/// Anything not rendered faithfully is a warning: audio events, transients closer together than
/// the actuator can separate, clipping where overlapping events sum past full scale.
public struct PatternRenderer: Sendable {
    /// Real-time stream, ROM clicks, or whichever fits (ROM clicks for transient-only patterns).
    public enum Strategy: String, Sendable {
        case automatic, realTime, rom
    }
    /// Stream updates per second.
    public var rate: Double = 200
    /// How to render.
    public var strategy: Strategy = .automatic
    /// Transients closer than this blur into one on a typical LRA (about 4 cycles at 175 Hz).
    public var minimumTransientSpacing: Double = 0.020
    /// Whether the pattern's audio events are played beside it (a `PatternSoundTrack` on a sound
    /// engine); when not, each rendering warns that they were not.
    public var playsAudio: Bool
    /// Whether the rendering keeps the designed intensity and sharpness (`RenderedPattern`'s
    /// plot curves; empty when not). A microcontroller renders without them: the drive stream
    /// is the same, in a third of the memory.
    public var recordsDesign = true
    /// Whether the rendering carries the continuous events' sharpness beside the stream
    /// (`RenderedPattern.driveSharpness`); a microcontroller that drives no frequency of its own
    /// renders without it.
    public var rendersSharpness = true
    /// The dynamic parameters and curves a player was sent while it plays (Core Haptics'
    /// `sendParameters`, `scheduleParameterCurve`), on top of the pattern's own: the intensity
    /// control multiplies the pattern's, the others add to theirs; their events are ignored and
    /// they do not lengthen the pattern. Empty: the pattern as designed.
    public var playerControls = HapticPattern()
    /// Apply HapticSharpnessControl to continuous events only, as Apple's AHAP article says.
    public init(rate: Double = 200, strategy: Strategy = .automatic, playsAudio: Bool = false) {
        self.rate = rate
        self.strategy = strategy
        self.playsAudio = playsAudio
    }

    /// Normalised envelope time (0...1) to seconds: 1 ms at 0, 31.6 ms at 0.5, 1 s at 1.
    public static func envelopeSeconds(_ value: Double) -> Double {
        0.001 * pow(1000, min(1, max(0, value)))
    }

    /// A transient's burst: length in seconds and level at a fraction u (0...1) of it.
    public static func transientLength(sharpness: Double) -> Double { 0.030 - 0.018 * min(1, max(0, sharpness)) }
    static func transientShape(sharpness: Double, u: Double) -> Double {
        let sharp = min(1, max(0, sharpness))
        let bump = sin(Double.pi * u)
        let kick = u < 0.75 ? 1.0 : -0.4
        return bump * (1 - sharp) + kick * sharp
    }

    /// The pattern without what cannot be rendered: non-finite or negative times and durations,
    /// anything past `maximumSeconds`, continuous events longer than 30 s (shortened).
    static func bounded(_ pattern: HapticPattern, warnings: inout [String]) -> HapticPattern {
        func usable(_ value: Double) -> Bool { value.isFinite && value >= 0 && value <= maximumSeconds }
        var dropped = 0
        // Whether a kept event was clamped (compared field by field: an event's == compares its
        // audio parameters' dictionary, which would bring Unicode's tables into a firmware image).
        var clamped = false
        let events = pattern.events.compactMap { event -> HapticPattern.Event? in
            guard usable(event.time), usable(event.duration), event.intensity.isFinite, event.sharpness.isFinite else {
                dropped += 1
                return nil
            }
            var copy = event
            copy.duration = min(copy.duration, 30)
            copy.intensity = min(1, max(0, copy.intensity))
            copy.sharpness = min(1, max(0, copy.sharpness))
            if copy.duration != event.duration || copy.intensity != event.intensity || copy.sharpness != event.sharpness { clamped = true }
            return copy
        }
        let parameters = pattern.parameters.filter { usable($0.time) && $0.value.isFinite }
        let curves = pattern.curves.filter { curve in usable(curve.time) && curve.points.allSatisfy { usable($0.time) && $0.value.isFinite } }
        dropped += (pattern.parameters.count - parameters.count) + (pattern.curves.count - curves.count)
        if dropped > 0 { warnings.append("\(dropped) element(s) with times or values that cannot be played were left out") }
        return dropped == 0 && !clamped ? pattern : HapticPattern(events: events, parameters: parameters, curves: curves)
    }

    /// The ROM click for a transient.
    public static func effect(intensity: Double, sharpness: Double) -> Effect {
        let family: [Effect] =
            sharpness >= 0.66
            ? [.sharpClick100, .sharpClick60, .sharpClick30]
            : sharpness >= 0.33
                ? [.strongClick100, .strongClick60, .strongClick30]
                : [.softBump100, .softBump60, .softBump30]
        return intensity >= 0.8 ? family[0] : intensity >= 0.45 ? family[1] : family[2]
    }

    /// Events and curves later than this are not rendered (the file readers already refuse them;
    /// this guards patterns built in code).
    public static let maximumSeconds = 600.0

    /// The updates a second `render` uses: `rate`, or 200 when it is not a number or under 50.
    var effectiveRate: Double { rate.isFinite && rate >= 50 ? min(rate, 5000) : 200 }

    /// The most steps `render(pattern)` can make, without rendering: to each event's end plus
    /// its release (up to a second when a release-time control may lengthen it) or a
    /// transient's burst. What a microcontroller checks its heap against before it renders.
    public func maximumSteps(of pattern: HapticPattern) -> Int {
        let releaseControlled = controls(pattern, include: .hapticReleaseTimeControl)
        var seconds = pattern.duration
        for event in pattern.events {
            switch event.type {
            case .hapticTransient:
                seconds = max(seconds, event.time + PatternRenderer.transientLength(sharpness: 0))
            case .hapticContinuous where event.sustained:
                let release = releaseControlled ? 1 : PatternRenderer.envelopeSeconds(event.releaseTime)
                seconds = max(seconds, event.end + release)
            default:
                continue
            }
        }
        return Int((seconds * effectiveRate).rounded(.up)) + 3
    }

    /// Whether `pattern` or the player's controls set `id` anywhere.
    func controls(_ pattern: HapticPattern, include id: HapticPattern.ParameterID) -> Bool {
        [pattern, playerControls].contains { layer in layer.curves.contains { $0.id == id } || layer.parameters.contains { $0.id == id } }
    }

    /// `id` at `time`: the pattern's own value and the player's, combined as Core Haptics combines
    /// them (the intensity and volume controls multiply, the others add).
    func control(_ id: HapticPattern.ParameterID, of pattern: HapticPattern, at time: Double) -> Double {
        let own = pattern.control(id, at: time)
        guard !playerControls.parameters.isEmpty || !playerControls.curves.isEmpty else { return own }
        let sent = playerControls.control(id, at: time)
        return id.neutral == 1 ? own * sent : own + sent
    }

    /// What the chip should play for `input`, with warnings for what it cannot play as designed.
    public func render(_ input: HapticPattern) -> RenderedPattern {
        var warnings: [String] = []
        let pattern = PatternRenderer.bounded(input, warnings: &warnings)
        let rate = effectiveRate
        let haptic = pattern.events.filter { $0.type.isHaptic }
        let audio = pattern.events.count - haptic.count
        if audio > 0, !playsAudio {
            warnings.append("\(audio) audio event(s) not played: no audio output was given (--audio-device, --audio-output)")
        }
        let transients = haptic.filter { $0.type == .hapticTransient }
        let continuous = haptic.filter { $0.type == .hapticContinuous }
        let audioTimeControls: [HapticPattern.ParameterID] = [.audioAttackTimeControl, .audioDecayTimeControl, .audioReleaseTimeControl]
        // In the controls' alphabetical order, which is the order listed.
        let unappliedAudio = audioTimeControls.filter { id in
            pattern.curves.contains { $0.id == id } || pattern.parameters.contains { $0.id == id }
        }
        if !unappliedAudio.isEmpty {
            warnings.append(
                unappliedAudio.map { $0.rawValue }.joined(separator: ", ")
                    + " not applied: sounds play with the envelope they were recorded or synthesised with")
        }
        var close = 0
        for (a, b) in zip(transients, transients.dropFirst()) where b.time - a.time < minimumTransientSpacing { close += 1 }
        if close > 0 {
            warnings.append("\(close) transient(s) less than \(Int(minimumTransientSpacing * 1000)) ms after the previous one blur together on the actuator")
        }
        let designed = pattern.duration
        let steps = max(1, Int((designed * rate).rounded(.up)) + 1)

        // The controls a step at a time over the designed length (the intensity control scales
        // the stream; the sharpness control only the plots), kept only where the pattern has one.
        let hasIntensityControl = controls(pattern, include: .hapticIntensityControl)
        let hasSharpnessControl = controls(pattern, include: .hapticSharpnessControl)
        func controlSteps(_ id: HapticPattern.ParameterID) -> [Double] {
            var values: [Double] = []
            values.reserveCapacity(steps)
            for index in 0..<steps { values.append(control(id, of: pattern, at: Double(index) / rate)) }
            return values
        }
        let intensityControl = hasIntensityControl ? controlSteps(.hapticIntensityControl) : []
        let drivesSharpness = rendersSharpness && (hasSharpnessControl || continuous.contains { $0.sharpness != 0.5 })
        let sharpnessControl = hasSharpnessControl && (recordsDesign || drivesSharpness) ? controlSteps(.hapticSharpnessControl) : []
        /// The intensity control at a step; past the designed length, its last value.
        func intensity(at index: Int) -> Double {
            index < intensityControl.count ? intensityControl[index] : intensityControl.last ?? 1
        }
        let design = recordsDesign

        let romOnly =
            strategy == .rom
            || (strategy == .automatic && continuous.isEmpty && !hasIntensityControl && !transients.isEmpty
                && close == 0)
        var designedIntensity = [Double](repeating: 0, count: design ? steps : 0)
        var designedSharpness = [Double](repeating: 0, count: design ? steps : 0)
        var samples = [Double](repeating: 0, count: steps)
        // The loudest continuous event's sharpness at each step, and how loud it is there.
        var driveSharpness = [Double](repeating: 0.5, count: drivesSharpness ? steps : 0)
        var loudest = [Double](repeating: 0, count: drivesSharpness ? steps : 0)
        var tailSteps = steps

        for event in continuous {
            // The time controls add to the event's own times (Core Haptics: additive, -1...1),
            // each as it is when its part of the envelope begins: the attack at the event's start,
            // the decay once the attack is over, the release at the event's end. A control sent
            // while an event plays changes the parts still to come.
            func time(_ value: Double, _ control: HapticPattern.ParameterID, at instant: Double) -> Double {
                PatternRenderer.envelopeSeconds(min(1, max(0, value + self.control(control, of: pattern, at: instant))))
            }
            let attack = time(event.attackTime, .hapticAttackTimeControl, at: event.time)
            let release = event.sustained ? time(event.releaseTime, .hapticReleaseTimeControl, at: event.time + event.duration) : 0
            let decay = time(event.decayTime, .hapticDecayTimeControl, at: event.time + attack)
            let first = max(0, Int((event.time * rate).rounded()))
            let last = Int(((event.time + event.duration + release) * rate).rounded())
            if last + 1 > samples.count {
                let grow = last + 1 - samples.count
                samples += [Double](repeating: 0, count: grow)
                if design {
                    designedIntensity += [Double](repeating: 0, count: grow)
                    designedSharpness += [Double](repeating: 0, count: grow)
                }
                if drivesSharpness {
                    driveSharpness += [Double](repeating: 0.5, count: grow)
                    loudest += [Double](repeating: 0, count: grow)
                }
            }
            tailSteps = max(tailSteps, last + 1)
            guard first <= last else { continue }
            for index in first...last {
                // The level held during [t, t + 1/rate): the envelope at the middle of the step.
                let local = (Double(index) + 0.5) / rate - event.time
                var envelope = attack > 0 ? min(1, max(0, local) / attack) : 1
                if event.sustained {
                    if local > event.duration { envelope *= release > 0 ? max(0, 1 - (local - event.duration) / release) : 0 }
                } else if local > attack {
                    envelope *= exp(-(local - attack) / max(decay, 0.001) * 3)
                    if local > event.duration { envelope = 0 }
                }
                let control = event.followsIntensityControl ? intensity(at: index) : 1
                let level = event.intensity * control * envelope
                samples[index] += level
                let sharpControl = index < sharpnessControl.count ? sharpnessControl[index] : sharpnessControl.last ?? 0
                let sharpness = min(1, max(0, event.sharpness + sharpControl))
                if drivesSharpness, level >= loudest[index], level > 0 {
                    loudest[index] = level
                    driveSharpness[index] = sharpness
                }
                guard design else { continue }
                designedIntensity[index] = max(designedIntensity[index], level)
                designedSharpness[index] = sharpness
            }
        }

        var hits: [RenderedPattern.Hit] = []
        for event in transients {
            let index = max(0, Int((event.time * rate).rounded()))
            let control = event.followsIntensityControl ? intensity(at: index) : 1
            let strength = min(1, max(0, event.intensity * control))
            if romOnly {
                hits.append(.init(time: event.time, effect: PatternRenderer.effect(intensity: strength, sharpness: event.sharpness)))
            }
            let length = PatternRenderer.transientLength(sharpness: event.sharpness)
            let count = max(1, Int((length * rate).rounded()))
            if index + count > samples.count {
                let grow = index + count - samples.count
                samples += [Double](repeating: 0, count: grow)
                if design {
                    designedIntensity += [Double](repeating: 0, count: grow)
                    designedSharpness += [Double](repeating: 0, count: grow)
                }
                if drivesSharpness { driveSharpness += [Double](repeating: 0.5, count: grow) }
            }
            tailSteps = max(tailSteps, index + count)
            for offset in 0..<count {
                let u = (Double(offset) + 0.5) / Double(count)
                samples[index + offset] += strength * PatternRenderer.transientShape(sharpness: event.sharpness, u: u)
                guard design else { continue }
                designedIntensity[index + offset] = max(designedIntensity[index + offset], strength)
                designedSharpness[index + offset] = max(designedSharpness[index + offset], event.sharpness)
            }
        }
        var clipped = 0
        for index in samples.indices where abs(samples[index]) > 1 {
            clipped += 1
            samples[index] = min(1, max(-1, samples[index]))
        }
        if clipped > 0 {
            // Whole milliseconds, halves to even as printf's %.0f.
            let milliseconds = Int((Double(clipped) / rate * 1000).rounded(.toNearestOrEven))
            warnings.append("overlapping events exceed full scale for \(milliseconds) ms; clipped")
        }
        samples = Array(samples.prefix(tailSteps))
        // End at zero drive.
        if samples.last.map({ $0 != 0 }) ?? false { samples.append(0) }
        var rendered = RenderedPattern(
            mode: romOnly ? .rom : .realTime, rate: rate, samples: samples, hits: hits,
            intensity: Array(designedIntensity.prefix(samples.count)), sharpness: Array(designedSharpness.prefix(samples.count)),
            designedSeconds: designed, warnings: warnings)
        if drivesSharpness {
            // Where no continuous event plays, the sharpness around it holds: a frequency changed
            // under no drive, or under a transient alone, is a write that moves nothing.
            let count = min(driveSharpness.count, loudest.count)
            if let first = (0..<count).first(where: { loudest[$0] > 0 }) {
                for index in 0..<first { driveSharpness[index] = driveSharpness[first] }
                for index in first..<driveSharpness.count where index >= count || loudest[index] == 0 {
                    driveSharpness[index] = driveSharpness[index - 1]
                }
            }
            driveSharpness = Array(driveSharpness.prefix(samples.count))
            if driveSharpness.count < samples.count { driveSharpness.append(driveSharpness.last ?? 0.5) }
            rendered.driveSharpness = driveSharpness
        }
        return rendered
    }
}
