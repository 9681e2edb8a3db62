// SPDX-License-Identifier: Apache-2.0

/// A custom haptic pattern in Core Haptics' model: events in time, plus dynamic parameters and
/// parameter curves that modulate them. Times are seconds from the start of the pattern.
public struct HapticPattern: Sendable, Equatable {
    /// Core Haptics' event types, with AHAP's spelling as raw values.
    public enum EventType: String, Sendable, Equatable, CaseIterable {
        case hapticTransient = "HapticTransient"
        case hapticContinuous = "HapticContinuous"
        case audioContinuous = "AudioContinuous"
        case audioCustom = "AudioCustom"

        /// Whether the actuator plays it (audio events are kept, not played).
        public var isHaptic: Bool { self == .hapticTransient || self == .hapticContinuous }
    }

    /// One event: a transient tap, a continuous stretch, or an audio event kept for round trips.
    public struct Event: Sendable, Equatable {
        /// A transient, a continuous stretch, or an audio event.
        public var type: EventType
        /// Seconds from the start of the pattern.
        public var time: Double
        /// Needed for continuous events (Core Haptics limits haptic ones to 30 s).
        public var duration: Double
        /// 0...1; Core Haptics publishes no default, 1 is used (full strength), as its samples expect.
        public var intensity: Double
        /// 0...1 (default 0.5).
        public var sharpness: Double
        /// 0...1 normalised envelope times (0 = shortest); see `PatternRenderer.envelopeSeconds`.
        public var attackTime: Double
        /// 0...1, as `attackTime`.
        public var decayTime: Double
        /// 0...1, as `attackTime`.
        public var releaseTime: Double
        /// Sustained (attack-release) or not (attack-decay). Default true.
        public var sustained: Bool
        /// AudioVolume, AudioPan, AudioPitch, AudioBrightness: played by `PatternSoundTrack`.
        public var audioParameters: [String: Double]
        /// An AudioCustom event's sound file, relative to the AHAP file (or absolute).
        public var waveformPath: String?
        /// AHAP's `EventWaveformLoopEnabled`: an AudioCustom sound repeats for its event's duration.
        public var waveformLoops = false
        /// AHAP's `EventWaveformUseVolumeEnvelope`: the sound fades in and out with the event's
        /// attack and release.
        public var waveformUsesVolumeEnvelope = false
        /// Whether HapticIntensityControl scales this event (Core Haptics: always). Meta `.haptic`
        /// emphasis transients carry their own amplitude and are exempt; AHAP cannot express the
        /// exemption, so an AHAP export of such a pattern plays them scaled.
        public var followsIntensityControl: Bool

        /// An event with Core Haptics' defaults for what is not given.
        public init(
            type: EventType, time: Double, duration: Double = 0, intensity: Double = 1, sharpness: Double = 0.5,
            attackTime: Double = 0, decayTime: Double = 0, releaseTime: Double = 0, sustained: Bool = true,
            audioParameters: [String: Double] = [:], waveformPath: String? = nil, followsIntensityControl: Bool = true
        ) {
            self.followsIntensityControl = followsIntensityControl
            self.type = type
            self.time = time
            self.duration = duration
            self.intensity = intensity
            self.sharpness = sharpness
            self.attackTime = attackTime
            self.decayTime = decayTime
            self.releaseTime = releaseTime
            self.sustained = sustained
            self.audioParameters = audioParameters
            self.waveformPath = waveformPath
        }

        /// When the event stops contributing (transients: their own short length).
        public var end: Double { time + (type == .hapticTransient ? 0 : duration) }
    }

    /// The dynamic parameters of Core Haptics; intensity controls multiply, the rest add.
    public enum ParameterID: String, Sendable, Equatable, CaseIterable {
        case hapticIntensityControl = "HapticIntensityControl"
        case hapticSharpnessControl = "HapticSharpnessControl"
        case hapticAttackTimeControl = "HapticAttackTimeControl"
        case hapticDecayTimeControl = "HapticDecayTimeControl"
        case hapticReleaseTimeControl = "HapticReleaseTimeControl"
        case audioVolumeControl = "AudioVolumeControl"
        case audioPanControl = "AudioPanControl"
        case audioPitchControl = "AudioPitchControl"
        case audioBrightnessControl = "AudioBrightnessControl"
        case audioAttackTimeControl = "AudioAttackTimeControl"
        case audioDecayTimeControl = "AudioDecayTimeControl"
        case audioReleaseTimeControl = "AudioReleaseTimeControl"

        /// The value when nothing set it: 1 for intensity and volume (they multiply), 0 otherwise.
        public var neutral: Double { self == .hapticIntensityControl || self == .audioVolumeControl ? 1 : 0 }
        /// The values the parameter takes: 0...1 for intensity and volume, -1...1 for the others.
        public var range: ClosedRange<Double> { self == .hapticIntensityControl || self == .audioVolumeControl ? 0...1 : -1...1 }
    }

    /// An instant change of a dynamic parameter.
    public struct Parameter: Sendable, Equatable {
        /// The parameter changed.
        public var id: ParameterID
        /// Seconds from the start of the pattern.
        public var time: Double
        /// Its value from `time` on, within `id.range`.
        public var value: Double
        /// `id` set to `value` at `time`.
        public init(id: ParameterID, time: Double, value: Double) {
            self.id = id
            self.time = time
            self.value = value
        }
    }

    /// A dynamic parameter ramped linearly through control points (times relative to `time`).
    public struct ParameterCurve: Sendable, Equatable {
        /// A control point: `time` seconds after the curve's own time.
        public struct Point: Sendable, Equatable {
            /// Seconds after the curve's own time.
            public var time: Double
            /// The parameter's value there; between points it is interpolated linearly.
            public var value: Double
            /// A point `time` seconds into the curve.
            public init(time: Double, value: Double) {
                self.time = time
                self.value = value
            }
        }
        /// The parameter ramped.
        public var id: ParameterID
        /// Seconds from the start of the pattern; the points' times count from here.
        public var time: Double
        /// The control points, in time order.
        public var points: [Point]
        /// A curve of `id` through `points`, starting at `time`.
        public init(id: ParameterID, time: Double, points: [Point]) {
            self.id = id
            self.time = time
            self.points = points
        }
        /// When the last control point is reached, in pattern seconds.
        public var end: Double { time + (points.last?.time ?? 0) }
    }

    /// The events, sorted by time.
    public var events: [Event]
    /// Instant parameter changes, sorted by time.
    public var parameters: [Parameter]
    /// Parameter curves, sorted by time.
    public var curves: [ParameterCurve]

    /// A pattern of these events, parameters and curves (each list sorted by time).
    public init(events: [Event] = [], parameters: [Parameter] = [], curves: [ParameterCurve] = []) {
        self.events = events.sorted { $0.time < $1.time }
        self.parameters = parameters.sorted { $0.time < $1.time }
        self.curves = curves.sorted { $0.time < $1.time }
    }

    /// As Core Haptics: the latest event end or parameter/curve time.
    public var duration: Double {
        let ends = events.map { $0.end } + parameters.map { $0.time } + curves.map { $0.end }
        return ends.max() ?? 0
    }

    /// Counts by event type, for summaries.
    public var eventCounts: [EventType: Int] {
        events.reduce(into: [:]) { $0[$1.type, default: 0] += 1 }
    }

    /// The value of a dynamic parameter at `time`: the latest instant parameter or the curve
    /// interpolated, whichever was scheduled last at or before `time` ("latest scheduled wins").
    public func control(_ id: ParameterID, at time: Double) -> Double {
        var value = id.neutral
        var scheduled = -Double.infinity
        for parameter in parameters where parameter.id == id && parameter.time <= time && parameter.time >= scheduled {
            value = parameter.value
            scheduled = parameter.time
        }
        for curve in curves where curve.id == id && curve.time <= time && curve.time >= scheduled {
            guard let first = curve.points.first else { continue }
            let local = time - curve.time
            scheduled = curve.time
            if local <= first.time {
                value = first.value
                continue
            }
            value = curve.points.last?.value ?? first.value
            for (a, b) in zip(curve.points, curve.points.dropFirst()) where local >= a.time && local <= b.time {
                let span = b.time - a.time
                value = span > 0 ? a.value + (b.value - a.value) * (local - a.time) / span : b.value
                break
            }
        }
        return min(id.range.upperBound, max(id.range.lowerBound, value))
    }
}
