// SPDX-License-Identifier: Apache-2.0

import Audio
import Foundation
import HardwareAccess

/// A pattern's audio events, decoded before playback and ready to be placed on a sound engine's
/// timeline beside the haptics.
///
/// `AudioCustom` plays its `EventWaveformPath` (relative to the pattern file's directory), at
/// `AudioVolume` × `AudioVolumeControl` (the control's value at the event's time), panned by
/// `AudioPan` (+ `AudioPanControl`), cut to `EventDuration` when the event has one, repeated over
/// it when `EventWaveformLoopEnabled`, and faded by the event's attack and release when
/// `EventWaveformUseVolumeEnvelope`. `AudioContinuous` plays a tone (`ToneSynthesizer`, our
/// reading of it). Sounds play at their own speed: a playback rate moves their start times only.
public struct PatternSoundTrack: Sendable, Equatable {
    /// One sound at a time of the pattern.
    public struct Cue: Sendable, Equatable {
        /// Seconds from the start of the pattern.
        public var time: Double
        /// The decoded sound (or tone).
        public var sound: Sound
        /// 0...1.
        public var volume: Double
        /// -1 (left) ... +1 (right).
        public var pan: Double
        /// Repeats over `duration`.
        public var loops: Bool
        /// Seconds it plays (nil: the whole sound).
        public var duration: Double?
        /// When it stops being heard, in seconds of the pattern.
        public var end: Double { time + (duration ?? sound.duration) }
    }

    /// The sounds in time order.
    public var cues: [Cue]

    /// The audio events of `pattern`, whose file is in `directory`. Throws when a sound file is
    /// missing or cannot be decoded, naming it, before anything plays.
    public init(pattern: HapticPattern, directory: String?) throws(AudioError) {
        var cues: [Cue] = []
        let synthesizer = ToneSynthesizer()
        for event in pattern.events where !event.type.isHaptic {
            let volume = (event.audioParameters["AudioVolume"] ?? 1) * pattern.control(.audioVolumeControl, at: event.time)
            let pan = min(1, max(-1, (event.audioParameters["AudioPan"] ?? 0) + pattern.control(.audioPanControl, at: event.time)))
            switch event.type {
            case .audioCustom:
                guard let path = event.waveformPath else { continue }
                let resolved = path.hasPrefix("/") || directory == nil ? path : "\(directory!)/\(path)"
                var sound = try Sound.decode(path: resolved)
                if event.waveformUsesVolumeEnvelope {
                    sound = PatternSoundTrack.enveloped(
                        sound, attack: PatternRenderer.envelopeSeconds(event.attackTime), release: PatternRenderer.envelopeSeconds(event.releaseTime))
                }
                cues.append(
                    Cue(time: event.time, sound: sound, volume: volume, pan: pan, loops: event.waveformLoops, duration: event.duration > 0 ? event.duration : nil))
            case .audioContinuous:
                let pitch = (event.audioParameters["AudioPitch"] ?? 0) + pattern.control(.audioPitchControl, at: event.time)
                let brightness = (event.audioParameters["AudioBrightness"] ?? 0) + pattern.control(.audioBrightnessControl, at: event.time)
                let tone = synthesizer.tone(
                    duration: event.duration, volume: 1, pitch: pitch, brightness: brightness,
                    attack: PatternRenderer.envelopeSeconds(event.attackTime), release: PatternRenderer.envelopeSeconds(event.releaseTime))
                cues.append(Cue(time: event.time, sound: tone, volume: volume, pan: pan, loops: false, duration: nil))
            default:
                continue
            }
        }
        self.cues = cues.sorted { $0.time < $1.time }
    }

    /// The pattern's sounds read from `file`'s directory.
    public init(document pattern: HapticPattern, file: String) throws(AudioError) {
        try self.init(pattern: pattern, directory: (file as NSString).deletingLastPathComponent.isEmpty ? "." : (file as NSString).deletingLastPathComponent)
    }

    /// Whether the pattern has no audio event to play.
    public var isEmpty: Bool { cues.isEmpty }
    /// When the last sound ends, in seconds of the pattern.
    public var end: Double { cues.map(\.end).max() ?? 0 }

    /// Places the cues that start at or after `offset` so that offset is heard at `instant`
    /// (pattern seconds scaled by `rate`); returns their handles.
    func place(on engine: SoundEngine, from offset: Double, at instant: ClockInstant, rate: Double) -> [Int] {
        cues.filter { $0.time >= offset - 1e-9 }.map { cue in
            engine.play(
                cue.sound, at: instant.advanced(by: .secondsClamped((cue.time - offset) / rate)), volume: cue.volume, pan: cue.pan,
                loops: cue.loops, duration: cue.duration)
        }
    }

    static func enveloped(_ sound: Sound, attack: Double, release: Double) -> Sound {
        var sound = sound
        let frames = sound.frameCount
        let attackFrames = Int(attack * Double(Sound.sampleRate))
        let releaseFrames = Int(release * Double(Sound.sampleRate))
        for frame in 0..<frames {
            var gain: Float = 1
            if frame < attackFrames { gain = Float(frame) / Float(attackFrames) }
            if frames - frame < releaseFrames { gain = min(gain, Float(frames - frame) / Float(releaseFrames)) }
            sound.samples[2 * frame] *= gain
            sound.samples[2 * frame + 1] *= gain
        }
        return sound
    }
}
