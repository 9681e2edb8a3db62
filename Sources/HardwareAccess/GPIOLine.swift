// SPDX-License-Identifier: Apache-2.0

#if !hasFeature(Embedded)
    import SystemPackage
#endif

/// One GPIO line driven as an output: the DRV2605's EN or IN/TRIG pin.
///
/// Requested once and held; `set` is the only hot-path call. Releasing returns the line to the
/// kernel (for libgpiod, the line keeps its last value only while requested).
public protocol GPIOOutputLine: AnyObject {
    /// A human-readable name, e.g. "gpiochip0:17 (EN)".
    var name: String { get }
    /// Drives the line: `true` = high (active), `false` = low.
    func set(_ high: Bool) throws(GPIOError)
    /// Gives the line back. Idempotent.
    func release()
}

/// What went wrong with a GPIO line.
public struct GPIOError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, each with its own hint.
    public enum Kind: String, Sendable, Equatable {
        /// No GPIO chip with that label, name or path.
        case noSuchChip
        /// The chip has no line with that offset or name.
        case noSuchLine
        /// Another consumer holds the line.
        case lineBusy
        /// The process may not open the chip.
        case permissionDenied
        /// The line was released or the request failed.
        case notRequested
        case other
    }
    public var kind: Kind
    /// The system's errno, when a call failed.
    public var errno: Errno?
    /// The line, as "chip:line (consumer)".
    public var line: String
    /// What was being done ("setting it high").
    public var detail: String?

    /// An error of `kind` on `line`.
    public init(_ kind: Kind, errno: Errno? = nil, line: String, detail: String? = nil) {
        self.kind = kind
        self.errno = errno
        self.line = line
        self.detail = detail
    }

    /// What to check or do about it.
    public var hint: String {
        switch kind {
        case .noSuchChip:
            return
                "list the chips with 'gpiodetect'; \"chip\": \"header\" finds a Raspberry Pi's 40-pin header on every model (label pinctrl-rp1 on a Pi 5, pinctrl-bcm2711 or pinctrl-bcm2835 before; the Pi 5's was gpiochip4 before kernel 6.6.y, gpiochip0 since)"
        case .noSuchLine: return "list the lines with 'gpioinfo'; offsets are BCM GPIO numbers on a Pi"
        case .lineBusy: return "another program or a kernel driver holds the line: 'gpioinfo' shows its consumer"
        case .permissionDenied: return "add the user to the gpio group (sudo usermod -aG gpio $USER) or run Scripts/setup-pi"
        case .notRequested: return "the line was released; request it again"
        case .other: return "see the system error above"
        }
    }

    /// One line: the line, the kind, the errno, the hint.
    public var description: String {
        var text = "GPIO \(line): \(kind.rawValue)"
        if let errno { text += " (\(errno), errno \(errno.rawValue))" }
        if let detail { text += ": \(detail)" }
        return text + ". Hint: \(hint)"
    }
}

/// Which line on a chip: by offset (BCM GPIO number on a Pi) or by the name the device tree gives it.
public enum GPIOLineSelector: Hashable, Sendable, CustomStringConvertible {
    case offset(UInt32)
    case name(String)
    /// The offset or the name, as `gpioinfo` shows them.
    public var description: String {
        switch self {
        case let .offset(offset): return "\(offset)"
        case let .name(name): return name
        }
    }
}
