// SPDX-License-Identifier: Apache-2.0

import CLinuxHardware
import HardwareAccess
import SystemPackage

/// A GPIO line requested as an output through the GPIO character device (libgpiod), for the
/// DRV2605's EN and IN/TRIG pins. Chips are found by label where possible ("pinctrl-rp1" on a
/// Pi 5, "pinctrl-bcm2711" on a Pi 4), because chip numbers moved between Pi models.
public final class LinuxGPIOLine: GPIOOutputLine {
    /// "chip:line (consumer)", as errors name the line.
    public let name: String
    private let backend: any GPIOBackend
    private var handle: Int?

    /// Requests `line` on `chip` as an output, initially at `initial`.
    /// - Parameters:
    ///   - chip: the GPIO chip: a path, a number, `gpiochipN`, a label, or `header` (the Pi's 40-pin header).
    ///   - line: the line's offset or name on that chip.
    ///   - consumer: shown by `gpioinfo`, so people can see who holds the line.
    ///   - initial: the level the line starts at (low keeps EN off and IN/TRIG idle).
    ///   - backend: libgpiod's calls; tests pass a recording one.
    public init(
        chip: String, line: GPIOLineSelector, consumer: String, initial: Bool = false,
        backend: any GPIOBackend = LibGPIODBackend()
    ) throws(GPIOError) {
        name = "\(chip):\(line) (\(consumer))"
        self.backend = backend
        let result = backend.requestOutput(chip: chip, line: line, consumer: consumer, initial: initial)
        guard result.handle >= 0 else {
            let errno = Errno(rawValue: backend.lastErrno)
            throw GPIOError(LinuxGPIOLine.kind(for: errno, chipMissing: result.chipMissing), errno: errno, line: name)
        }
        handle = result.handle
    }

    deinit { release() }

    /// Drives the line high or low; a refused change is a typed error with the errno.
    public func set(_ high: Bool) throws(GPIOError) {
        guard let handle else { throw GPIOError(.notRequested, line: name) }
        guard backend.setValue(handle, high) == 0 else {
            let errno = Errno(rawValue: backend.lastErrno)
            throw GPIOError(
                LinuxGPIOLine.kind(for: errno, chipMissing: false), errno: errno, line: name,
                detail: "setting it \(high ? "high" : "low")")
        }
    }

    /// Gives the line back (also on deinit); later `set` calls fail with `.notRequested`.
    public func release() {
        guard let handle else { return }
        backend.release(handle)
        self.handle = nil
    }

    /// Maps an errno from libgpiod to a kind.
    public static func kind(for errno: Errno, chipMissing: Bool) -> GPIOError.Kind {
        switch errno {
        case .permissionDenied, .notPermitted: return .permissionDenied
        case .resourceBusy: return .lineBusy
        case .noSuchFileOrDirectory, .operationNotSupportedByDevice: return chipMissing ? .noSuchChip : .noSuchLine
        case .invalidArgument: return chipMissing ? .noSuchChip : .noSuchLine
        default: return .other
        }
    }
}
