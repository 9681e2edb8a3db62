// SPDX-License-Identifier: Apache-2.0

import Audio
import Foundation

/// Turns a sound into a haptic pattern, as designers' tools do (Meta Haptics Studio, Lofelt
/// Studio): a transient at each onset and one continuous event whose intensity follows the sound's
/// loudness and whose sharpness follows its brightness. The result is an ordinary pattern: it plays,
/// renders and is written like any other, and a designer refines it.
///
/// The method, and where it comes from:
/// - Onsets by spectral flux (Bello et al., "A Tutorial on Onset Detection in Music Signals", IEEE
///   Trans. Speech and Audio Processing, 2005; Dixon, "Onset Detection Revisited", DAFx 2006): the
///   half-wave-rectified rise of the log-compressed magnitude spectrum from one frame to the next
///   (1024-sample Hann window, 5 ms hop at 48 kHz), peaks above a moving median plus a threshold that
///   `sensitivity` lowers, at least `minimumGap` apart. Each onset's time is then refined in the
///   waveform: the first sample of its frame reaching half the frame's peak.
/// - A transient's intensity is the square root of its flux relative to the strongest onset's; its
///   sharpness the frame's spectral centroid on a logarithmic scale, 150 Hz as 0 and 4 kHz as 1.
/// - The continuous event's intensity curve is the RMS loudness relative to the loudest moment, its
///   sharpness curve the centroid on the same scale, `pointsPerSecond` points a second, in curves of
///   16 points (Core Haptics' limit per curve), events of at most 30 s (its limit per event).
public struct AudioToHaptics: Sendable {
    /// What the converter looks for and how finely it draws.
    public struct Options: Sendable, Equatable {
        /// 0...1: higher finds quieter onsets (default 0.5).
        public var sensitivity = 0.5
        /// Onsets closer than this (seconds) are one onset; two exactly this far apart are two
        /// (default 0.05).
        public var minimumGap = 0.05
        /// Control points a second in the intensity and sharpness curves (default 20).
        public var pointsPerSecond = 20.0
        /// The defaults above.
        public init() {}
    }

    /// One onset found in the sound.
    public struct Onset: Sendable, Equatable {
        /// Seconds from the start of the sound.
        public var time: Double
        /// 0...1, relative to the strongest onset.
        public var strength: Double
        /// The spectral centroid of its frame, in Hz.
        public var centroidHz: Double
    }

    /// The converter's settings.
    public var options: Options
    /// A converter with `options`.
    public init(options: Options = Options()) { self.options = options }

    static let windowSize = 1024
    static let hop = 240
    static let rate = Double(Sound.sampleRate)

    /// The sound's onsets, in time order.
    public func onsets(in sound: Sound) -> [Onset] {
        let mono = AudioToHaptics.mono(sound)
        let frames = AudioToHaptics.spectra(mono)
        guard frames.count > 2 else { return [] }
        var flux = [Double](repeating: 0, count: frames.count)
        for index in 1..<frames.count {
            var rise = 0.0
            for bin in 0..<frames[index].count { rise += max(0, frames[index][bin] - frames[index - 1][bin]) }
            flux[index] = rise
        }
        guard let strongest = flux.max(), strongest > 0 else { return [] }
        let sensitivity = min(max(options.sensitivity.isFinite ? options.sensitivity : 0.5, 0), 1)
        let threshold = (0.02 + 0.3 * (1 - sensitivity)) * strongest
        let gapFrames = Int(max(0, options.minimumGap.isFinite ? options.minimumGap : 0.05) * AudioToHaptics.rate) / AudioToHaptics.hop
        var found: [Onset] = []
        var lastFrame = -Int.max / 2
        for index in 1..<flux.count {
            let low = max(0, index - 10)
            let high = min(flux.count - 1, index + 10)
            let neighbourhood = flux[low...high].sorted()
            let median = neighbourhood[neighbourhood.count / 2]
            guard flux[index] > median + threshold else { continue }
            guard flux[max(0, index - 3)...min(flux.count - 1, index + 3)].allSatisfy({ $0 <= flux[index] }) else { continue }
            guard index - lastFrame >= gapFrames else { continue }  // exactly minimumGap apart: two onsets
            lastFrame = index
            found.append(
                Onset(
                    time: AudioToHaptics.refine(mono, frame: index), strength: flux[index] / strongest,
                    centroidHz: AudioToHaptics.centroid(of: frames[index])))
        }
        return found
    }

    /// The pattern: a transient at each onset and the continuous event with its curves.
    public func pattern(from sound: Sound) -> HapticPattern {
        var events = onsets(in: sound).map { onset in
            HapticPattern.Event(
                type: .hapticTransient, time: onset.time, intensity: onset.strength.squareRoot(), sharpness: AudioToHaptics.sharpness(onset.centroidHz))
        }
        let mono = AudioToHaptics.mono(sound)
        let duration = sound.duration
        let step = 1 / max(1, min(options.pointsPerSecond.isFinite ? options.pointsPerSecond : 20, 200))
        var loudness: [(time: Double, rms: Double, sharpness: Double)] = []
        var time = 0.0
        while time < duration {
            let center = Int(time * AudioToHaptics.rate)
            let from = max(0, center - AudioToHaptics.windowSize / 2)
            let to = min(mono.count, from + AudioToHaptics.windowSize)
            var sum = 0.0
            for index in from..<to { sum += Double(mono[index]) * Double(mono[index]) }
            let rms = to > from ? (sum / Double(to - from)).squareRoot() : 0
            let spectrum = AudioToHaptics.magnitudes(Array(mono[from..<to]))
            loudness.append((time, rms, AudioToHaptics.sharpness(AudioToHaptics.centroid(of: spectrum))))
            time += step
        }
        var curves: [HapticPattern.ParameterCurve] = []
        if let loudest = loudness.map(\.rms).max(), loudest > 1e-4 {
            // Events of at most 30 s, back to back; curves of at most 16 points.
            var start = 0.0
            while start < duration {
                let length = min(30, duration - start)
                events.append(HapticPattern.Event(type: .hapticContinuous, time: start, duration: length, intensity: 1, sharpness: 0.5))
                start += 30
            }
            var index = 0
            while index < loudness.count {
                let chunk = Array(loudness[index..<min(loudness.count, index + 16)])
                let origin = chunk[0].time
                curves.append(
                    .init(
                        id: .hapticIntensityControl, time: origin,
                        points: chunk.map { .init(time: $0.time - origin, value: $0.rms / loudest) }))
                curves.append(
                    .init(
                        id: .hapticSharpnessControl, time: origin,
                        points: chunk.map { .init(time: $0.time - origin, value: $0.sharpness - 0.5) }))
                index += 15  // each curve starts where the last one ended, so the control is continuous
                if index + 1 >= loudness.count { break }
            }
        }
        return HapticPattern(events: events, curves: curves)
    }

    /// The centroid on a log scale: 150 Hz is 0, 4 kHz is 1.
    static func sharpness(_ centroidHz: Double) -> Double {
        guard centroidHz.isFinite, centroidHz > 0 else { return 0 }
        return min(1, max(0, log2(centroidHz / 150) / log2(4000 / 150)))
    }

    static func mono(_ sound: Sound) -> [Float] {
        (0..<sound.frameCount).map { (sound.samples[2 * $0] + sound.samples[2 * $0 + 1]) / 2 }
    }

    /// Log-compressed magnitude spectra, one a hop.
    static func spectra(_ mono: [Float]) -> [[Double]] {
        guard mono.count >= windowSize else { return [] }
        return stride(from: 0, through: mono.count - windowSize, by: hop).map { start in
            magnitudes(Array(mono[start..<start + windowSize])).map { log(1 + 100 * $0) }
        }
    }

    /// The magnitude spectrum (bins 0 ..< 512) of up to 1024 samples under a Hann window.
    static func magnitudes(_ samples: [Float]) -> [Double] {
        var real = [Double](repeating: 0, count: windowSize)
        var imaginary = [Double](repeating: 0, count: windowSize)
        for (index, sample) in samples.prefix(windowSize).enumerated() {
            real[index] = Double(sample) * (0.5 - 0.5 * cos(2 * .pi * Double(index) / Double(windowSize - 1)))
        }
        fft(&real, &imaginary)
        return (0..<windowSize / 2).map { ((real[$0] * real[$0] + imaginary[$0] * imaginary[$0]).squareRoot()) / Double(windowSize) }
    }

    static func centroid(of magnitudes: [Double]) -> Double {
        var weighted = 0.0
        var total = 0.0
        for (bin, magnitude) in magnitudes.enumerated() {
            weighted += Double(bin) * rate / Double(windowSize) * magnitude
            total += magnitude
        }
        return total > 0 ? weighted / total : 0
    }

    /// The first sample of `frame`'s window that reaches half the window's peak, in seconds.
    static func refine(_ mono: [Float], frame: Int) -> Double {
        let start = frame * hop
        let end = min(mono.count, start + windowSize)
        guard start < end else { return Double(start) / rate }
        let peak = mono[start..<end].map { abs($0) }.max() ?? 0
        let first = (start..<end).first { abs(mono[$0]) >= peak / 2 } ?? start
        return Double(first) / rate
    }

    /// In-place iterative radix-2 FFT (the length a power of two).
    static func fft(_ real: inout [Double], _ imaginary: inout [Double]) {
        let count = real.count
        var target = 0
        for index in 0..<count {
            if index < target {
                real.swapAt(index, target)
                imaginary.swapAt(index, target)
            }
            var bit = count >> 1
            while bit > 0, target & bit != 0 {
                target ^= bit
                bit >>= 1
            }
            target |= bit
        }
        var length = 2
        while length <= count {
            let angle = -2 * Double.pi / Double(length)
            for start in stride(from: 0, to: count, by: length) {
                for offset in 0..<(length / 2) {
                    let wr = cos(angle * Double(offset))
                    let wi = sin(angle * Double(offset))
                    let even = start + offset
                    let odd = even + length / 2
                    let tr = real[odd] * wr - imaginary[odd] * wi
                    let ti = real[odd] * wi + imaginary[odd] * wr
                    real[odd] = real[even] - tr
                    imaginary[odd] = imaginary[even] - ti
                    real[even] += tr
                    imaginary[even] += ti
                }
            }
            length <<= 1
        }
    }
}
