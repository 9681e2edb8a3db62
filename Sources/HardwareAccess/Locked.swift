// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A value that is only reached with a lock held — the project's one lock type.
///
/// It wraps a pthread mutex (`NSLock`) rather than `Synchronization.Mutex`: ThreadSanitizer
/// understands pthread mutexes, but on Linux it reports accesses inside `Mutex.withLock` as
/// races, and a TSan run that cries wolf hides the races that are real.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
