// SPDX-License-Identifier: Apache-2.0

/// A drive over time that a chip module designs for a feedback: steps of a level held for a
/// while, played as the real-time stream. How a chip module supplies its own feedback table
/// without naming the engine's types: by feedback name ("impact-heavy"), envelopes of this kind.
public struct DriveEnvelope: Sendable, Hashable {
    /// A level (−1...1 of the chip's full scale) held for `milliseconds`.
    public struct Step: Sendable, Hashable {
        public var level: Double
        public var milliseconds: Double
        /// `level` for `milliseconds`.
        public init(_ level: Double, _ milliseconds: Double) {
            self.level = level
            self.milliseconds = milliseconds
        }
    }

    /// The steps in order; the drive is zero after the last.
    public var steps: [Step]

    /// An envelope of `steps`.
    public init(_ steps: [Step]) { self.steps = steps }

    /// A straight ramp from `from` to `to` over `milliseconds`, in `count` equal steps.
    public static func ramp(from: Double, to: Double, milliseconds: Double, count: Int = 6) -> [Step] {
        (0..<count).map { index in
            Step(from + (to - from) * Double(index) / Double(max(1, count - 1)), milliseconds / Double(count))
        }
    }

    /// The total length in milliseconds.
    public var milliseconds: Double { steps.reduce(0) { $0 + $1.milliseconds } }

    /// The levels sampled every `tickMilliseconds` (each tick takes the level of the step it
    /// starts in): what a stream of that rate plays.
    public func levels(tickMilliseconds: Double) -> [Double] {
        guard tickMilliseconds > 0 else { return [] }
        let count = Int((milliseconds / tickMilliseconds).rounded(.up))
        var result: [Double] = []
        result.reserveCapacity(count)
        var stepIndex = 0
        var stepEnd = steps.first?.milliseconds ?? 0
        for tick in 0..<count {
            let time = Double(tick) * tickMilliseconds
            while stepIndex < steps.count - 1, time >= stepEnd - 1e-9 {
                stepIndex += 1
                stepEnd += steps[stepIndex].milliseconds
            }
            result.append(steps.isEmpty ? 0 : min(1, max(-1, steps[stepIndex].level)))
        }
        return result
    }
}
