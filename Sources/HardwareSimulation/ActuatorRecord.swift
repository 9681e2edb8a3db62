// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// What a simulated actuator was driven with over time, whatever chip drove it: a step function of drive level
/// (−1...1 of full scale; negative is braking or reversed phase).
///
/// Tests assert on it — energy delivered, onset, how long the motor ran — because that is what
/// a user feels, whatever bytes produced it.
public struct ActuatorRecord: Sendable, Equatable {
    /// The drive level from `time` on.
    public struct Sample: Sendable, Equatable {
        public var time: ClockInstant
        /// −1...1 of full scale (negative: braking or reverse phase).
        public var level: Double
        /// The frequency an LRA is driven at from `time` on; nil: at its resonance (a chip that
        /// tracks it, or an ERM).
        public var hz: Double?
        /// Full scale as a share of the actuator's rated drive: 1 where full scale is the rating
        /// (closed loop); a DRV2605's open-loop full scale, OD_CLAMP, is more.
        public var rating: Double
        /// `level` from `time` on, at `hz` (nil: resonance), full scale `rating` of the rated drive.
        public init(time: ClockInstant, level: Double, hz: Double? = nil, rating: Double = 1) {
            self.time = time
            self.level = level
            self.hz = hz
            self.rating = rating
        }

        /// The drive as a share of the actuator's rated drive.
        public var ratedLevel: Double { level * rating }
    }
    /// Level changes in time order; the level holds until the next sample.
    public private(set) var samples: [Sample] = []

    /// Nothing driven yet.
    public init() {}

    /// The level at `time`.
    public func level(at time: ClockInstant) -> Double { sample(at: time)?.level ?? 0 }

    /// The sample in force at `time` (nil: nothing driven yet).
    public func sample(at time: ClockInstant) -> Sample? {
        var low = 0
        var high = samples.count
        while low < high {
            let mid = (low + high) / 2
            if samples[mid].time <= time { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? nil : samples[low - 1]
    }

    /// Adds a level change at `time`, dropping anything planned after it (a cancel or a new
    /// command): what a simulated chip calls when its drive changes.
    public mutating func set(_ level: Double, at time: ClockInstant, hz: Double? = nil, rating: Double = 1) {
        truncate(after: time)
        let sample = Sample(time: time, level: level, hz: hz, rating: rating)
        func same(_ other: Sample?) -> Bool {
            guard let other else { return false }
            // At zero drive the frequency and scale drive nothing: one zero, not one per change.
            return other.level == level && (level == 0 || (other.hz == hz && other.rating == rating))
        }
        if same(samples.last) { return }
        if let last = samples.last, last.time == time { samples.removeLast() }
        if same(samples.last) { return }
        if samples.isEmpty && level == 0 { return }
        samples.append(sample)
    }

    /// Plans future samples (a ROM sequence). They stay unless a later command truncates them.
    public mutating func plan(_ planned: [Sample]) {
        for sample in planned { set(sample.level, at: sample.time, hz: sample.hz, rating: sample.rating) }
    }

    /// Forgets the planned part after `time` and holds the level at `time` from there.
    public mutating func truncate(after time: ClockInstant) {
        // Samples are in time order and usually nothing lies ahead: check the end first, then
        // binary-search, so long recordings stay cheap.
        guard let last = samples.last, last.time > time else { return }
        var low = 0
        var high = samples.count
        while low < high {
            let mid = (low + high) / 2
            if samples[mid].time <= time { low = mid + 1 } else { high = mid }
        }
        samples.removeSubrange(low...)
    }

    /// Forgets everything recorded.
    public mutating func clear() { samples.removeAll() }

    /// ∫ level² dt over the window, in full-scale² × seconds: the energy delivered.
    public func energy(from start: ClockInstant = .zero, to end: ClockInstant) -> Double {
        integrate(from: start, to: end) { $0 * $0 }
    }

    /// Time with the drive non-zero within the window.
    public func activeSeconds(from start: ClockInstant = .zero, to end: ClockInstant) -> Double {
        integrate(from: start, to: end) { $0 == 0 ? 0 : 1 }
    }

    /// The largest |level| in the window.
    public func peak(from start: ClockInstant = .zero, to end: ClockInstant) -> Double {
        var best = abs(level(at: start))
        for sample in samples where sample.time >= start && sample.time < end { best = max(best, abs(sample.level)) }
        return best
    }

    /// Seconds from the first non-zero drive to reaching `fraction` of the window's peak: how
    /// gently the feedback starts.
    public func onsetSeconds(from start: ClockInstant = .zero, to end: ClockInstant, fraction: Double = 0.9) -> Double? {
        let top = peak(from: start, to: end)
        guard top > 0 else { return nil }
        var first: ClockInstant?
        for sample in samples where sample.time >= start && sample.time < end {
            if first == nil, sample.level != 0 { first = sample.time }
            if let first, abs(sample.level) >= fraction * top { return sample.time.duration(since: first).secondsDouble }
        }
        return nil
    }

    /// When the drive last became zero (the actuator stopped), if it is zero at the end.
    public var lastStop: ClockInstant? {
        guard let last = samples.last, last.level == 0 else { return nil }
        return last.time
    }

    /// Start and end of each stretch of non-zero drive.
    public func bursts(from start: ClockInstant = .zero, to end: ClockInstant) -> [(start: ClockInstant, end: ClockInstant)] {
        var result: [(ClockInstant, ClockInstant)] = []
        var open: ClockInstant? = level(at: start) != 0 ? start : nil
        for sample in samples where sample.time > start && sample.time < end {
            if sample.level != 0, open == nil { open = sample.time }
            if sample.level == 0, let began = open {
                result.append((began, sample.time))
                open = nil
            }
        }
        if let began = open { result.append((began, end)) }
        return result
    }

    private func integrate(from start: ClockInstant, to end: ClockInstant, _ weight: (Double) -> Double) -> Double {
        guard end > start else { return 0 }
        var total = 0.0
        var cursor = start
        var current = level(at: start)
        for sample in samples where sample.time > start && sample.time < end {
            total += weight(current) * sample.time.duration(since: cursor).secondsDouble
            cursor = sample.time
            current = sample.level
        }
        total += weight(current) * end.duration(since: cursor).secondsDouble
        return total
    }
}
