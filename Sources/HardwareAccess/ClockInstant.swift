// SPDX-License-Identifier: Apache-2.0

/// A point on a monotonic clock, in nanoseconds since an arbitrary origin.
///
/// Plain integers keep the hot paths (a prepared trigger, an RTP update) free of allocation and
/// conversion; `Duration` is used at API boundaries.
public struct ClockInstant: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's origin.
    public var nanoseconds: Int64
    /// The instant `nanoseconds` after the origin.
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }
    /// The origin (a virtual clock's start).
    public static let zero = ClockInstant(nanoseconds: 0)

    /// `duration` later (earlier for a negative one).
    public func advanced(by duration: Duration) -> ClockInstant {
        ClockInstant(nanoseconds: nanoseconds &+ duration.nanoseconds)
    }
    /// `value` nanoseconds later, without building a `Duration` (hot paths).
    public func advanced(byNanoseconds value: Int64) -> ClockInstant {
        ClockInstant(nanoseconds: nanoseconds &+ value)
    }
    /// `self - other`.
    public func duration(since other: ClockInstant) -> Duration { .nanoseconds(nanoseconds - other.nanoseconds) }
    /// Seconds since the origin, for printing and plots.
    public var seconds: Double { Double(nanoseconds) / 1e9 }
    /// Earlier first.
    public static func < (lhs: ClockInstant, rhs: ClockInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
    /// "12.000100 s": microseconds, rounded toward zero (integer arithmetic, so firmware prints
    /// it the same way).
    public var description: String {
        let micro = nanoseconds / 1000
        let whole = micro / 1_000_000
        let fraction = String(abs(micro % 1_000_000))
        let sign = micro < 0 && whole == 0 ? "-" : ""
        return sign + String(whole) + "." + String(repeating: "0", count: 6 - fraction.utf8.count) + fraction + " s"
    }
}

extension Duration {
    /// Whole nanoseconds (truncating attoseconds).
    public var nanoseconds: Int64 {
        let parts = components
        return parts.seconds &* 1_000_000_000 &+ parts.attoseconds / 1_000_000_000
    }
    /// Seconds as a floating-point number.
    public var secondsDouble: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
    /// A duration from seconds, clamped to non-negative.
    public static func secondsClamped(_ value: Double) -> Duration {
        guard value.isFinite, value > 0 else { return .zero }
        return .nanoseconds(Int64(min(value, 9e9) * 1e9))
    }
}
