// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// Hands out another provider's buses wrapped in a logging monitor: every transaction on the wire,
/// channel selects included (an engine's own monitor sees only its chip's transactions).
final class LoggingHardware: HardwareProvider {
    private let inner: any HardwareProvider
    private let clock: any HapticClock
    private var buses: [String: MonitoredBus] = [:]

    init(_ inner: any HardwareProvider, clock: any HapticClock) {
        self.inner = inner
        self.clock = clock
    }

    /// Every transaction on the buses handed out, in order on each bus (the benchmark uses one).
    var log: [BusTransaction] { buses.values.flatMap(\.log) }
    func clearLog() { for bus in buses.values { bus.clearLog() } }

    func bus(at path: String) throws -> any I2CBus {
        if let bus = buses[path] { return bus }
        let bus = MonitoredBus(try inner.bus(at: path), clock: clock)
        bus.keepsLog = true
        buses[path] = bus
        return bus
    }

    func outputLine(chip: String, line: GPIOLineSelector, consumer: String) throws -> any GPIOOutputLine {
        try inner.outputLine(chip: chip, line: line, consumer: consumer)
    }
}
