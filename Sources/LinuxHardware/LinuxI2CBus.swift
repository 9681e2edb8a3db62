// SPDX-License-Identifier: Apache-2.0

import CLinuxHardware
import HardwareAccess
import SystemPackage

/// An I2C bus on Linux through `/dev/i2c-N`.
///
/// Writes and combined write-then-read transfers go through `I2C_RDWR`, so a register read is one
/// transaction with a repeated start. Adapters that only speak SMBus (no `I2C_FUNC_I2C`) fall back
/// to libi2c's I2C-block calls, which the DRV2605 also understands. Each address is claimed with
/// `I2C_SLAVE` before first use — never `I2C_SLAVE_FORCE` unless asked — so a kernel driver bound to
/// the chip is reported instead of fought with. Interrupted calls are retried.
public final class LinuxI2CBus: I2CBus {
    /// How transfers reach the adapter.
    public enum TransferMethod: String, Sendable { case i2cReadWrite, smbusBlock }

    /// The adapter's device file, "/dev/i2c-1".
    public let path: String
    /// I2C_RDWR when the adapter can (one combined transfer per read), else libi2c's SMBus blocks.
    public let method: TransferMethod
    /// Whether addresses are claimed with I2C_SLAVE_FORCE (a kernel driver's address too).
    public let force: Bool
    private let system: any LinuxSystemCalls
    private var fd: CInt
    /// The address the file descriptor is set to (SMBus transfers go to it).
    private var selected: I2CAddress?
    /// Addresses checked with I2C_SLAVE: no kernel driver owns them. I2C_RDWR carries the address
    /// in each message, so with it one check per address is enough.
    private var verified: Set<I2CAddress> = []

    /// Opens a bus by path (`/dev/i2c-1`) or number (`1`). `force` claims an address even when a
    /// kernel driver owns it (I2C_SLAVE_FORCE): only for when you know that driver is idle.
    public convenience init(_ pathOrNumber: String, force: Bool = false) throws(I2CError) {
        try self.init(pathOrNumber, force: force, system: LiveSystemCalls.shared)
    }

    /// The same on any system-call seam (tests pass a mock).
    init(_ pathOrNumber: String, force: Bool = false, system: any LinuxSystemCalls) throws(I2CError) {
        let path = I2CBusPath.resolve(pathOrNumber)
        self.path = path
        self.force = force
        self.system = system
        var descriptor: CInt = -1
        repeat {
            descriptor = system.open(path, flags: O_RDWR | O_CLOEXEC)
        } while descriptor < 0 && system.lastErrno == EINTR
        guard descriptor >= 0 else {
            let errno = Errno(rawValue: system.lastErrno)
            var error = I2CError(I2CError.kind(for: errno), errno: errno, operation: "open \(path)", bus: path)
            if error.kind == .unsupported || error.kind == .other, errno == .notDirectory || errno == .isDirectory {
                error.kind = .noSuchBus
            }
            throw error
        }
        fd = descriptor
        var functions: UInt = 0
        let result = withUnsafeMutablePointer(to: &functions) { pointer in
            system.ioctl(descriptor, request: LinuxI2CConstants.funcs, pointer: UnsafeMutableRawPointer(pointer))
        }
        if result < 0 {
            // Not an I2C adapter at all (e.g. a path to some other character device).
            let errno = Errno(rawValue: system.lastErrno)
            _ = system.close(descriptor)
            throw I2CError(
                .noSuchBus, errno: errno, operation: "query adapter functions (I2C_FUNCS)", bus: path,
                detail: "\(path) is not an I2C adapter")
        }
        if functions & LinuxI2CConstants.functionalityI2C != 0 {
            method = .i2cReadWrite
        } else if functions & LinuxI2CConstants.functionalitySMBusBlock != 0 {
            method = .smbusBlock
        } else {
            _ = system.close(descriptor)
            throw I2CError(
                .unsupported, operation: "open \(path)", bus: path,
                detail: "the adapter supports neither I2C transfers nor SMBus I2C-block transfers")
        }
    }

    deinit { close() }

    /// The bus's file descriptor (-1 once closed), for a dead-man guard to inherit.
    var descriptor: CInt { fd }

    /// Closes the file descriptor. Further calls fail with `.noSuchBus`.
    public func close() {
        if fd >= 0 { _ = system.close(fd) }
        fd = -1
        selected = nil
        verified.removeAll()
    }

    /// One write transaction; EINTR is retried, errno mapped to a typed error with a hint.
    public func write(to address: I2CAddress, _ bytes: [UInt8]) throws(I2CError) {
        try claim(address, operation: "write to \(address)")
        switch method {
        case .i2cReadWrite:
            var buffer = bytes
            try transfer(address, operation: "write to \(address)", &buffer, nil)
        case .smbusBlock:
            try smbusWrite(address, bytes)
        }
    }

    /// One combined write-then-read (I2C_RDWR), or an SMBus block read on SMBus-only adapters.
    public func writeRead(to address: I2CAddress, _ bytes: [UInt8], count: Int) throws(I2CError) -> [UInt8] {
        let operation = "read from \(address)"
        guard count > 0, count <= 8192 else {
            throw I2CError(.invalidRequest, operation: operation, bus: path, address: address, detail: "read count \(count)")
        }
        try claim(address, operation: operation)
        switch method {
        case .i2cReadWrite:
            var out = bytes
            var input = [UInt8](repeating: 0, count: count)
            try transfer(address, operation: operation, &out, &input)
            return input
        case .smbusBlock:
            guard bytes.count == 1, count <= 32 else {
                throw I2CError(
                    .unsupported, operation: operation, bus: path, address: address,
                    detail: "an SMBus-only adapter reads at most 32 bytes after a one-byte command")
            }
            var input = [UInt8](repeating: 0, count: count)
            let result = retrying { system.smbusReadBlock(fd, command: bytes[0], into: &input) }
            guard result >= 0 else { throw failure(operation, address) }
            guard Int(result) == count else {
                throw I2CError(
                    .busError, operation: operation, bus: path, address: address,
                    detail: "short read: \(result) of \(count) bytes")
            }
            return input
        }
    }

    // MARK: - Internals

    private func claim(_ address: I2CAddress, operation: String) throws(I2CError) {
        guard fd >= 0 else { throw I2CError(.noSuchBus, operation: operation, bus: path, detail: "the bus is closed") }
        switch method {
        case .i2cReadWrite where verified.contains(address): return
        case .smbusBlock where selected == address: return
        default: break
        }
        let request = force ? LinuxI2CConstants.slaveForce : LinuxI2CConstants.slave
        let result = retrying { system.ioctl(fd, request: request, value: UInt(address.rawValue)) }
        guard result >= 0 else {
            throw failure("select \(address) (\(force ? "I2C_SLAVE_FORCE" : "I2C_SLAVE"))", address)
        }
        selected = address
        verified.insert(address)
    }

    /// One I2C_RDWR with a write message and, when `input` is given, a read message after a repeated start.
    private func transfer(_ address: I2CAddress, operation: String, _ output: inout [UInt8], _ input: UnsafeMutablePointer<[UInt8]>?) throws(I2CError) {
        guard output.count <= Int(UInt16.max) else {
            throw I2CError(.invalidRequest, operation: operation, bus: path, address: address, detail: "\(output.count) bytes is too long")
        }
        let descriptor = fd
        let system = self.system
        let result: CInt = output.withUnsafeMutableBufferPointer { outBuffer -> CInt in
            var messages = [i2c_msg(addr: UInt16(address.rawValue), flags: 0, len: UInt16(outBuffer.count), buf: outBuffer.baseAddress)]
            let run = { (messages: inout [i2c_msg]) -> CInt in
                messages.withUnsafeMutableBufferPointer { messageBuffer -> CInt in
                    var data = i2c_rdwr_ioctl_data(msgs: messageBuffer.baseAddress, nmsgs: UInt32(messageBuffer.count))
                    return withUnsafeMutablePointer(to: &data) { pointer -> CInt in
                        var result: CInt
                        repeat {
                            result = system.ioctl(descriptor, request: LinuxI2CConstants.rdwr, pointer: UnsafeMutableRawPointer(pointer))
                        } while result < 0 && system.lastErrno == EINTR
                        return result
                    }
                }
            }
            guard let input else { return run(&messages) }
            return input.pointee.withUnsafeMutableBufferPointer { inBuffer -> CInt in
                messages.append(
                    i2c_msg(
                        addr: UInt16(address.rawValue), flags: LinuxI2CConstants.messageRead,
                        len: UInt16(inBuffer.count), buf: inBuffer.baseAddress))
                return run(&messages)
            }
        }
        guard result >= 0 else { throw failure(operation, address) }
    }

    private func smbusWrite(_ address: I2CAddress, _ bytes: [UInt8]) throws(I2CError) {
        let operation = "write to \(address)"
        guard let command = bytes.first else {
            throw I2CError(.invalidRequest, operation: operation, bus: path, address: address, detail: "empty write")
        }
        let data = Array(bytes.dropFirst())
        guard data.count <= 32 else {
            throw I2CError(
                .unsupported, operation: operation, bus: path, address: address,
                detail: "an SMBus-only adapter writes at most 32 bytes after the command")
        }
        let result =
            data.isEmpty
            ? retrying { system.smbusWriteByte(fd, value: command) }
            : retrying { system.smbusWriteBlock(fd, command: command, bytes: data) }
        guard result >= 0 else { throw failure(operation, address) }
    }

    private func retrying(_ call: () -> CInt) -> CInt {
        var result: CInt
        repeat { result = call() } while result < 0 && system.lastErrno == EINTR
        return result
    }

    private func failure(_ operation: String, _ address: I2CAddress) -> I2CError {
        let errno = Errno(rawValue: system.lastErrno)
        return I2CError(I2CError.kind(for: errno), errno: errno, operation: operation, bus: path, address: address)
    }
}
