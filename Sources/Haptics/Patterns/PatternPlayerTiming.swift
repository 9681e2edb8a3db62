// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

extension PatternPlayer {
    /// How late updates were written against their deadlines.
    public struct Timing: Sendable, Equatable {
        /// Each update's lateness: when its level reached the bus (after the write) minus its deadline.
        public var latenessNanoseconds: [Int64] = []
        /// Updates that were never written because a later one was already due.
        public var missedUpdates = 0
        /// Bus writes made (levels that did not change are not written).
        public var writes = 0

        /// Median, 99th percentile and largest lateness in microseconds; nil before any write.
        public var latenessMicroseconds: (median: Double, p99: Double, maximum: Double)? {
            guard !latenessNanoseconds.isEmpty else { return nil }
            let sorted = latenessNanoseconds.sorted()
            func microseconds(_ index: Int) -> Double { Double(sorted[index]) / 1000 }
            return (microseconds(sorted.count / 2), microseconds(min(sorted.count - 1, sorted.count * 99 / 100)), microseconds(sorted.count - 1))
        }
    }
}
