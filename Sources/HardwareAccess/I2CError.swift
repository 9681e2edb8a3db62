// SPDX-License-Identifier: Apache-2.0

#if !hasFeature(Embedded)
    import SystemPackage
#endif

/// What went wrong on an I2C bus, with the operating system's errno and a hint a person can act on.
///
/// A struct with a `kind` (as swift-system's `Errno` is a struct): programs switch on `kind`,
/// people read `description`.
public struct I2CError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// The bus device file does not exist (`ENOENT`/`ENODEV`).
        case noSuchBus
        /// The process may not open the bus (`EACCES`/`EPERM`).
        case permissionDenied
        /// A kernel driver has claimed the address (`EBUSY` from `I2C_SLAVE`).
        case addressInUse
        /// Nothing acknowledged the address or a byte (`EREMOTEIO`/`ENXIO`).
        case noAcknowledge
        /// Arbitration lost, bus stuck or other electrical trouble (`EIO`, `EAGAIN`, `ETIMEDOUT`).
        case busError
        /// The adapter cannot do this kind of transfer (`EOPNOTSUPP`, `EINVAL` on I2C_RDWR).
        case unsupported
        /// The request itself was malformed (too long, bad address) — a bug in the caller.
        case invalidRequest
        /// Any other failure; `errno` says which.
        case other
    }

    public var kind: Kind
    /// The errno the kernel returned, when the failure came from a system call.
    public var errno: Errno?
    /// What was being done, e.g. "open /dev/i2c-1" or "write to 0x5A".
    public var operation: String
    /// The bus path, when known.
    public var bus: String?
    /// The target address, when the failure concerns one.
    public var address: I2CAddress?
    /// Extra detail (e.g. from a simulator's injected fault).
    public var detail: String?

    public init(
        _ kind: Kind, errno: Errno? = nil, operation: String, bus: String? = nil,
        address: I2CAddress? = nil, detail: String? = nil
    ) {
        self.kind = kind
        self.errno = errno
        self.operation = operation
        self.bus = bus
        self.address = address
        self.detail = detail
    }

    #if !hasFeature(Embedded)
        /// Maps an errno from a bus system call to a kind.
        public static func kind(for errno: Errno) -> Kind {
            switch errno.rawValue {
            case Errno.noSuchFileOrDirectory.rawValue, Errno.operationNotSupportedByDevice.rawValue: return .noSuchBus
            case Errno.permissionDenied.rawValue, Errno.notPermitted.rawValue: return .permissionDenied
            case Errno.resourceBusy.rawValue: return .addressInUse
            case I2CError.remoteIOErrno, Errno.noSuchAddressOrDevice.rawValue: return .noAcknowledge
            case Errno.ioError.rawValue, Errno.resourceTemporarilyUnavailable.rawValue, Errno.timedOut.rawValue,
                I2CError.protocolErrno:
                return .busError
            case Errno.notSupported.rawValue, Errno.invalidArgument.rawValue: return .unsupported
            case Errno.messageTooLong.rawValue, Errno.badAddress.rawValue: return .invalidRequest
            default: return .other
            }
        }
    #endif

    /// Linux's EREMOTEIO (121): the I2C target did not acknowledge. swift-system names no constant for it.
    public static let remoteIOErrno: CInt = 121
    /// Linux's EPROTO (71): some adapters report a NACK or a bad transfer this way.
    public static let protocolErrno: CInt = 71

    /// What a person should check or do.
    public var hint: String {
        switch kind {
        case .noSuchBus:
            return "enable I2C (sudo raspi-config nonint do_i2c 0, or dtparam=i2c_arm=on in /boot/firmware/config.txt) and check the bus number with 'ls /dev/i2c-*'"
        case .permissionDenied:
            return "add the user to the i2c group (sudo usermod -aG i2c $USER, then log in again) or run Scripts/setup-pi"
        case .addressInUse:
            return
                "a kernel driver owns this address (drv260x?): see /sys/bus/i2c/devices/*-00\(address.map { String($0.rawValue, radix: 16) } ?? "5a")/driver and unbind it (echo <device> | sudo tee /sys/bus/i2c/drivers/drv260x/unbind) or remove the dtoverlay"
        case .noAcknowledge:
            return
                "no device answered at \(address?.description ?? "the address"): check wiring (SDA, SCL, GND, VIN), power, and that EN is high; 'i2cdetect -y <bus>' lists what answers"
        case .busError:
            return "the bus reported an electrical or protocol error: check pull-ups, cable length and that nothing else drives the bus"
        case .unsupported:
            return "this I2C adapter does not support the transfer; combined (repeated-start) transfers need an adapter with I2C_FUNC_I2C"
        case .invalidRequest:
            return "the request was malformed; this is a bug, please report it"
        case .other:
            return "see the system error above"
        }
    }

    public var description: String {
        var text = "I2C \(operation)"
        if let bus, !operation.hasSubstring(bus) { text += " on \(bus)" }
        if let address, !operation.hasSubstring(address.description) { text += " (address \(address))" }
        text += " failed: \(kind.rawValue)"
        if let errno { text += " (\(errno), errno \(errno.rawValue))" }
        if let detail { text += ": \(detail)" }
        text += ". Hint: \(hint)"
        return text
    }
}
