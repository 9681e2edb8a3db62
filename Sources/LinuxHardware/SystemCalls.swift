// SPDX-License-Identifier: Apache-2.0

import CLinuxHardware

/// The system calls LinuxHardware makes, behind one seam so tests can check the exact requests
/// and struct bytes and inject any errno — swift-system's syscall mocking is the model, and like
/// swift-system's the seam is internal: tests reach it with `@testable import`.
///
/// Every method returns what the C call returns; on failure the errno is in `lastErrno`, read
/// right after the call on the same thread.
protocol LinuxSystemCalls: AnyObject {
    func open(_ path: String, flags: CInt) -> CInt
    func close(_ fd: CInt) -> CInt
    /// `ioctl` with an integer argument (I2C_SLAVE, I2C_SLAVE_FORCE).
    func ioctl(_ fd: CInt, request: UInt, value: UInt) -> CInt
    /// `ioctl` with a pointer argument (I2C_RDWR, I2C_FUNCS).
    func ioctl(_ fd: CInt, request: UInt, pointer: UnsafeMutableRawPointer) -> CInt
    /// libi2c's `i2c_smbus_write_i2c_block_data`, for adapters that only speak SMBus.
    func smbusWriteBlock(_ fd: CInt, command: UInt8, bytes: [UInt8]) -> CInt
    /// libi2c's `i2c_smbus_read_i2c_block_data`; returns the count read or -1.
    func smbusReadBlock(_ fd: CInt, command: UInt8, into buffer: inout [UInt8]) -> CInt
    /// libi2c's `i2c_smbus_write_byte`: a bare one-byte write (e.g. a TCA9548A's channel mask).
    func smbusWriteByte(_ fd: CInt, value: UInt8) -> CInt
    var lastErrno: CInt { get }
}

/// The real calls: libc and libi2c.
final class LiveSystemCalls: LinuxSystemCalls, Sendable {
    init() {}
    static let shared = LiveSystemCalls()

    func open(_ path: String, flags: CInt) -> CInt { clh_open(path, flags) }
    func close(_ fd: CInt) -> CInt { CLinuxHardware.close(fd) }
    func ioctl(_ fd: CInt, request: UInt, value: UInt) -> CInt { clh_ioctl_ulong(fd, request, value) }
    func ioctl(_ fd: CInt, request: UInt, pointer: UnsafeMutableRawPointer) -> CInt {
        clh_ioctl_ptr(fd, request, pointer)
    }
    func smbusWriteBlock(_ fd: CInt, command: UInt8, bytes: [UInt8]) -> CInt {
        bytes.withUnsafeBufferPointer { buffer in
            i2c_smbus_write_i2c_block_data(fd, command, UInt8(truncatingIfNeeded: buffer.count), buffer.baseAddress)
        }
    }
    func smbusReadBlock(_ fd: CInt, command: UInt8, into buffer: inout [UInt8]) -> CInt {
        let count = buffer.count
        return buffer.withUnsafeMutableBufferPointer { pointer in
            i2c_smbus_read_i2c_block_data(fd, command, UInt8(truncatingIfNeeded: count), pointer.baseAddress)
        }
    }
    func smbusWriteByte(_ fd: CInt, value: UInt8) -> CInt { i2c_smbus_write_byte(fd, value) }
    var lastErrno: CInt { clh_errno() }
}

/// Kernel constants from <linux/i2c-dev.h> and <linux/i2c.h>, spelled once.
enum LinuxI2CConstants {
    static let slave = UInt(I2C_SLAVE)
    static let slaveForce = UInt(I2C_SLAVE_FORCE)
    static let rdwr = UInt(I2C_RDWR)
    static let funcs = UInt(I2C_FUNCS)
    static let messageRead = UInt16(I2C_M_RD)
    static let functionalityI2C = UInt(I2C_FUNC_I2C)
    static let functionalitySMBusBlock = UInt(I2C_FUNC_SMBUS_I2C_BLOCK)
    /// The kernel refuses I2C_RDWR with more messages than this.
    static let maxMessages = 42
}
