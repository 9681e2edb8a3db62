// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Band-limited sample-rate conversion: a Blackman-windowed sinc, 16 zero crossings each side.
///
/// Downsampling lowers the filter's cutoff to the new Nyquist frequency (less 5 %), so what the
/// new rate cannot hold is removed rather than folded back as an alias tone.
public struct Resampler: Sendable {
    /// The rate of what goes in, in Hz.
    public let inputRate: Int
    /// The rate of what comes out, in Hz.
    public let outputRate: Int
    /// Zero crossings of the sinc on each side of a sample.
    public let zeroCrossings = 16

    /// A converter from `inputRate` to `outputRate` (Hz).
    public init(from inputRate: Int, to outputRate: Int) {
        self.inputRate = max(1, inputRate)
        self.outputRate = max(1, outputRate)
    }

    /// One channel at `inputRate` as `outputRate`.
    public func resample(_ input: [Float]) -> [Float] {
        guard inputRate != outputRate, !input.isEmpty else { return input }
        let ratio = Double(inputRate) / Double(outputRate)
        // The cutoff, as a fraction of the input's Nyquist frequency.
        let cutoff = ratio > 1 ? 0.95 / ratio : 1.0
        let halfWidth = Double(zeroCrossings) / cutoff
        let count = Int((Double(input.count) / ratio).rounded(.down))
        var output = [Float](repeating: 0, count: count)
        input.withUnsafeBufferPointer { samples in
            for index in 0..<count {
                let center = Double(index) * ratio
                let first = max(0, Int((center - halfWidth).rounded(.up)))
                let last = min(samples.count - 1, Int((center + halfWidth).rounded(.down)))
                guard first <= last else { continue }
                var sum = 0.0
                for k in first...last {
                    let x = Double(k) - center
                    sum += Double(samples[k]) * Resampler.kernel(x, cutoff: cutoff, halfWidth: halfWidth)
                }
                output[index] = Float(sum)
            }
        }
        return output
    }

    /// cutoff · sinc(cutoff · x) under a Blackman window of ±halfWidth.
    static func kernel(_ x: Double, cutoff: Double, halfWidth: Double) -> Double {
        guard abs(x) < halfWidth else { return 0 }
        let argument = Double.pi * cutoff * x
        let sinc = x == 0 ? 1 : sin(argument) / argument
        let position = (x / halfWidth + 1) / 2  // 0...1 across the window
        let window = 0.42 - 0.5 * cos(2 * .pi * position) + 0.08 * cos(4 * .pi * position)
        return cutoff * sinc * window
    }
}
