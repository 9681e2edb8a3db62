// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// A GPIO output line that records every level it was driven to, with the time.
public final class RecordingGPIOLine: GPIOOutputLine {
    /// The name errors and traces use.
    public let name: String
    /// The level last set (nil before the first).
    public private(set) var level: Bool?
    /// Every level set, with when.
    public private(set) var history: [(time: ClockInstant, high: Bool)] = []
    /// Whether `release()` was called.
    public private(set) var released = false
    private let clock: any HapticClock
    /// Makes the next `set` fail with this error kind.
    public var failNextSet: GPIOError.Kind?
    /// `set` calls so far, failed ones included: the index the next one will have.
    public private(set) var setCalls = 0
    private var failures: [Int: GPIOError.Kind] = [:]
    /// Makes `set` call `index` (absolute, as `setCalls` numbers them) fail with `kind`; the line
    /// keeps its level, as when the GPIO character device refuses the request.
    public func failSet(at index: Int, with kind: GPIOError.Kind) { failures[index] = kind }
    /// Called after each successful set (the simulated chip listens to its EN and IN/TRIG pins this way).
    public var onChange: ((Bool) -> Void)?

    /// A line called `name` that timestamps its changes on `clock`.
    public init(name: String, clock: any HapticClock) {
        self.name = name
        self.clock = clock
    }

    /// Records the level, unless a failure was injected for this call or the line was released.
    public func set(_ high: Bool) throws(GPIOError) {
        let index = setCalls
        setCalls += 1
        if let kind = failNextSet ?? failures.removeValue(forKey: index) {
            failNextSet = nil
            throw GPIOError(kind, line: name, detail: "injected by RecordingGPIOLine at set \(index)")
        }
        guard !released else { throw GPIOError(.notRequested, line: name) }
        level = high
        history.append((clock.now, high))
        onChange?(high)
    }

    /// Marks the line released; later `set` calls fail with `.notRequested`.
    public func release() { released = true }
}
