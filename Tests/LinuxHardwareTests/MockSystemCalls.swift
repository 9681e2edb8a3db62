// SPDX-License-Identifier: Apache-2.0

import CLinuxHardware
import HardwareAccess

@testable import LinuxHardware

/// A scripted `LinuxSystemCalls`: records every call with its decoded arguments and fails the
/// calls it is told to, with the errno it is told to.
final class MockSystemCalls: LinuxSystemCalls {
    struct Message: Equatable {
        var address: UInt16
        var read: Bool
        var bytes: [UInt8]
    }
    enum Call: Equatable {
        case open(String, CInt)
        case close(CInt)
        case ioctlValue(request: UInt, value: UInt)
        case funcs
        case rdwr([Message])
        case smbusWriteBlock(command: UInt8, bytes: [UInt8])
        case smbusReadBlock(command: UInt8, count: Int)
        case smbusWriteByte(UInt8)
    }
    enum Kind: Equatable { case open, slave, rdwr, funcs, smbus }

    private(set) var calls: [Call] = []
    /// errno values to return, in order, for each kind of call.
    var failures: [Kind: [CInt]] = [:]
    /// What I2C_FUNCS reports.
    var functionality: UInt = LinuxI2CConstants.functionalityI2C | LinuxI2CConstants.functionalitySMBusBlock
    /// Bytes returned by read messages.
    var readResponse: [UInt8] = []
    private(set) var lastErrno: CInt = 0

    private func fail(_ kind: Kind) -> Bool {
        guard var queue = failures[kind], !queue.isEmpty else { return false }
        lastErrno = queue.removeFirst()
        failures[kind] = queue
        return true
    }

    func open(_ path: String, flags: CInt) -> CInt {
        calls.append(.open(path, flags))
        return fail(.open) ? -1 : 7
    }
    func close(_ fd: CInt) -> CInt {
        calls.append(.close(fd))
        return 0
    }
    func ioctl(_ fd: CInt, request: UInt, value: UInt) -> CInt {
        calls.append(.ioctlValue(request: request, value: value))
        return fail(.slave) ? -1 : 0
    }
    func ioctl(_ fd: CInt, request: UInt, pointer: UnsafeMutableRawPointer) -> CInt {
        if request == LinuxI2CConstants.funcs {
            calls.append(.funcs)
            if fail(.funcs) { return -1 }
            pointer.storeBytes(of: functionality, as: UInt.self)
            return 0
        }
        guard request == LinuxI2CConstants.rdwr else { return -1 }
        let data = pointer.load(as: i2c_rdwr_ioctl_data.self)
        var messages: [Message] = []
        for index in 0..<Int(data.nmsgs) {
            let message = data.msgs[index]
            let isRead = message.flags & LinuxI2CConstants.messageRead != 0
            var bytes: [UInt8] = []
            if isRead {
                for offset in 0..<Int(message.len) {
                    let value = offset < readResponse.count ? readResponse[offset] : 0
                    message.buf[offset] = value
                }
            } else {
                bytes = (0..<Int(message.len)).map { message.buf[$0] }
            }
            messages.append(Message(address: message.addr, read: isRead, bytes: isRead ? [UInt8](repeating: 0, count: Int(message.len)) : bytes))
        }
        calls.append(.rdwr(messages))
        return fail(.rdwr) ? -1 : CInt(data.nmsgs)
    }
    func smbusWriteBlock(_ fd: CInt, command: UInt8, bytes: [UInt8]) -> CInt {
        calls.append(.smbusWriteBlock(command: command, bytes: bytes))
        return fail(.smbus) ? -1 : 0
    }
    func smbusReadBlock(_ fd: CInt, command: UInt8, into buffer: inout [UInt8]) -> CInt {
        calls.append(.smbusReadBlock(command: command, count: buffer.count))
        if fail(.smbus) { return -1 }
        for index in buffer.indices { buffer[index] = index < readResponse.count ? readResponse[index] : 0 }
        return CInt(buffer.count)
    }
    func smbusWriteByte(_ fd: CInt, value: UInt8) -> CInt {
        calls.append(.smbusWriteByte(value))
        return fail(.smbus) ? -1 : 0
    }
}

/// A scripted GPIO backend.
final class MockGPIOBackend: GPIOBackend {
    var requestErrno: CInt?
    var chipMissing = false
    var setErrno: CInt?
    private(set) var requests: [(chip: String, line: GPIOLineSelector, consumer: String, initial: Bool)] = []
    private(set) var values: [Bool] = []
    private(set) var released: [Int] = []
    private(set) var lastErrno: CInt = 0

    func requestOutput(chip: String, line: GPIOLineSelector, consumer: String, initial: Bool) -> (handle: Int, chipMissing: Bool) {
        requests.append((chip, line, consumer, initial))
        if let requestErrno {
            lastErrno = requestErrno
            return (-1, chipMissing)
        }
        return (3, false)
    }
    func setValue(_ handle: Int, _ high: Bool) -> CInt {
        if let setErrno {
            lastErrno = setErrno
            return -1
        }
        values.append(high)
        return 0
    }
    func release(_ handle: Int) { released.append(handle) }
}
