import Foundation

/// A value reachable only through a lock, like swift-nio's `NIOLockedValueBox`: the engine's
/// non-Sendable state (driver, bus, timers) lives here, and every access takes the lock, which
/// is what makes sharing it between the app's threads and the worker thread sound.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private let value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(value)
    }
}
