// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Makes Core Haptics' `AudioContinuous` events audible: a tone shaped by the event's envelope.
///
/// Apple does not document the sound behind AudioContinuous; this is our reading of its
/// parameters: the pitch is 440 Hz × 2^`AudioPitch` (one octave either way), `AudioBrightness`
/// mixes in harmonics up to the 8th (0: a sine; 1: harmonics at 1/n amplitude), `AudioVolume` is
/// the level, and the event's attack and release (as the haptic envelope reads them) ramp it in
/// and out, never shorter than 5 ms so that a tone does not click.
public struct ToneSynthesizer: Sendable {
    /// A synthesizer (it keeps no state).
    public init() {}

    /// A tone of `duration` seconds.
    public func tone(duration: Double, volume: Double = 1, pitch: Double = 0, brightness: Double = 0, attack: Double = 0, release: Double = 0) -> Sound {
        let rate = Double(Sound.sampleRate)
        let frames = Int(max(0, min(duration.isFinite ? duration : 0, 30)) * rate)
        let frequency = 440 * pow(2, min(max(pitch.isFinite ? pitch : 0, -1), 1))
        let brightness = min(max(brightness.isFinite ? brightness : 0, 0), 1)
        let volume = min(max(volume.isFinite ? volume : 1, 0), 1)
        let attackFrames = max(240, Int(max(0, attack) * rate))
        let releaseFrames = max(240, Int(max(0, release) * rate))
        var harmonics: [(Double, Double)] = [(1, 1)]
        for n in 2...8 where Double(n) * frequency < rate / 2 { harmonics.append((Double(n), brightness / Double(n))) }
        let norm = harmonics.reduce(0) { $0 + $1.1 }
        var mono = [Float](repeating: 0, count: frames)
        for index in 0..<frames {
            let time = Double(index) / rate
            var value = 0.0
            for (n, amplitude) in harmonics { value += amplitude * sin(2 * .pi * frequency * n * time) }
            var envelope = 1.0
            if index < attackFrames { envelope = Double(index) / Double(attackFrames) }
            if frames - index < releaseFrames { envelope = min(envelope, Double(frames - index) / Double(releaseFrames)) }
            mono[index] = Float(volume * envelope * value / norm)
        }
        return Sound(name: String(format: "tone %.0f Hz", frequency), mono: mono)
    }
}
