// SPDX-License-Identifier: Apache-2.0

import CLinuxHardware
import HardwareAccess
import Testing

@testable import LinuxHardware

@Suite struct LinuxI2CBusTests {
    @Test func opensByNumberAndQueriesTheAdapter() throws {
        let system = MockSystemCalls()
        let bus = try LinuxI2CBus("1", system: system)
        #expect(bus.path == "/dev/i2c-1")
        #expect(bus.method == .i2cReadWrite)
        #expect(system.calls == [.open("/dev/i2c-1", O_RDWR | O_CLOEXEC), .funcs])
    }

    @Test func registerReadIsOneCombinedTransferAfterI2CSlave() throws {
        let system = MockSystemCalls()
        system.readResponse = [0xE0]
        let bus = try LinuxI2CBus("/dev/i2c-1", system: system)
        let value = try bus.readRegister(0x00, at: .drv2605)
        #expect(value == 0xE0)
        #expect(
            Array(system.calls.dropFirst(2)) == [
                .ioctlValue(request: LinuxI2CConstants.slave, value: 0x5A),
                .rdwr([.init(address: 0x5A, read: false, bytes: [0x00]), .init(address: 0x5A, read: true, bytes: [0])])
            ])
        #expect(LinuxI2CConstants.slave == 0x0703)
        #expect(LinuxI2CConstants.rdwr == 0x0707)
    }

    @Test func burstWriteIsOneMessageAndTheAddressIsClaimedOnce() throws {
        let system = MockSystemCalls()
        let bus = try LinuxI2CBus("/dev/i2c-1", system: system)
        try bus.write(to: .drv2605, [0x04, 1, 2, 3, 4, 5, 6, 7, 8])
        try bus.write(to: .drv2605, [0x0C, 0x01])
        #expect(
            Array(system.calls.dropFirst(2)) == [
                .ioctlValue(request: LinuxI2CConstants.slave, value: 0x5A),
                .rdwr([.init(address: 0x5A, read: false, bytes: [0x04, 1, 2, 3, 4, 5, 6, 7, 8])]),
                .rdwr([.init(address: 0x5A, read: false, bytes: [0x0C, 0x01])])
            ])
    }

    @Test func eachAddressIsCheckedOnceWithI2CRDWRButReselectedForSMBus() throws {
        let system = MockSystemCalls()
        let bus = try LinuxI2CBus("/dev/i2c-1", system: system)
        for _ in 0..<3 {
            try bus.write(to: .tca9548a, [0x01])
            try bus.write(to: .drv2605, [0x0C, 0x01])
        }
        let selects = system.calls.filter { if case .ioctlValue = $0 { return true } else { return false } }
        #expect(selects == [.ioctlValue(request: LinuxI2CConstants.slave, value: 0x70), .ioctlValue(request: LinuxI2CConstants.slave, value: 0x5A)])

        let smbusSystem = MockSystemCalls()
        smbusSystem.functionality = LinuxI2CConstants.functionalitySMBusBlock
        let smbus = try LinuxI2CBus("/dev/i2c-1", system: smbusSystem)
        for _ in 0..<2 {
            try smbus.write(to: .tca9548a, [0x01])
            try smbus.write(to: .drv2605, [0x0C, 0x01])
        }
        let smbusSelects = smbusSystem.calls.filter { if case .ioctlValue = $0 { return true } else { return false } }
        #expect(smbusSelects.count == 4)
    }

    @Test func forceUsesI2CSlaveForceOnlyWhenAsked() throws {
        let system = MockSystemCalls()
        let bus = try LinuxI2CBus("/dev/i2c-1", force: true, system: system)
        try bus.write(to: .drv2605, [0x0C, 0x00])
        #expect(system.calls.contains(.ioctlValue(request: LinuxI2CConstants.slaveForce, value: 0x5A)))
    }

    @Test(arguments: [(CInt(2), I2CError.Kind.noSuchBus), (13, .permissionDenied), (1, .permissionDenied), (19, .noSuchBus)])
    func openFailuresAreTyped(errno: CInt, kind: I2CError.Kind) {
        let system = MockSystemCalls()
        system.failures[.open] = [errno]
        #expect {
            try LinuxI2CBus("/dev/i2c-9", system: system)
        } throws: { error in
            guard let error = error as? I2CError else { return false }
            return error.kind == kind && error.errno?.rawValue == errno && error.bus == "/dev/i2c-9"
        }
    }

    @Test func notAnAdapterIsReportedAsNoSuchBus() {
        let system = MockSystemCalls()
        system.failures[.funcs] = [25]  // ENOTTY
        #expect(throws: I2CError.self) { try LinuxI2CBus("/dev/null", system: system) }
        #expect(system.calls.last == .close(7))
    }

    @Test func kernelDriverBoundGivesAddressInUseWithUnbindHint() throws {
        let system = MockSystemCalls()
        system.failures[.slave] = [16]  // EBUSY
        let bus = try LinuxI2CBus("/dev/i2c-1", system: system)
        do {
            try bus.write(to: .drv2605, [0x0C, 0x01])
            Issue.record("expected EBUSY")
        } catch {
            #expect(error.kind == .addressInUse)
            #expect(error.description.contains("drv260x"))
        }
    }

    @Test(arguments: [(CInt(121), I2CError.Kind.noAcknowledge), (6, .noAcknowledge), (5, .busError), (95, .unsupported), (110, .busError)])
    func transferErrnoMapping(errno: CInt, kind: I2CError.Kind) throws {
        let system = MockSystemCalls()
        system.failures[.rdwr] = [errno]
        let bus = try LinuxI2CBus("/dev/i2c-1", system: system)
        do {
            _ = try bus.readRegister(0x00, at: .drv2605)
            Issue.record("expected a failure")
        } catch {
            #expect(error.kind == kind)
            #expect(error.errno?.rawValue == errno)
            #expect(error.address == .drv2605)
        }
    }

    @Test func interruptedCallsAreRetried() throws {
        let system = MockSystemCalls()
        system.failures[.open] = [4]
        system.failures[.rdwr] = [4, 4]
        let bus = try LinuxI2CBus("/dev/i2c-1", system: system)
        try bus.write(to: .drv2605, [0x0C, 0x01])
        let transfers = system.calls.filter { if case .rdwr = $0 { return true } else { return false } }
        #expect(transfers.count == 3)
    }

    @Test func smbusOnlyAdapterFallsBackToI2CBlockCalls() throws {
        let system = MockSystemCalls()
        system.functionality = LinuxI2CConstants.functionalitySMBusBlock
        system.readResponse = [0xE0, 0x40]
        let bus = try LinuxI2CBus("/dev/i2c-1", system: system)
        #expect(bus.method == .smbusBlock)
        try bus.write(to: .drv2605, [0x04, 1, 2])
        try bus.write(to: .tca9548a, [0x04])
        let values = try bus.readRegisters(0x00, count: 2, at: .drv2605)
        #expect(values == [0xE0, 0x40])
        #expect(system.calls.contains(.smbusWriteBlock(command: 0x04, bytes: [1, 2])))
        #expect(system.calls.contains(.smbusWriteByte(0x04)))
        #expect(system.calls.contains(.smbusReadBlock(command: 0x00, count: 2)))
        #expect(throws: I2CError.self) { _ = try bus.readRegisters(0x00, count: 35, at: .drv2605) }
    }

    @Test func closedBusFailsClearly() throws {
        let system = MockSystemCalls()
        let bus = try LinuxI2CBus("/dev/i2c-1", system: system)
        bus.close()
        #expect(throws: I2CError.self) { try bus.write(to: .drv2605, [0x0C, 0]) }
    }

    @Test func i2cMessageLayoutMatchesTheKernel() {
        // struct i2c_msg { __u16 addr; __u16 flags; __u16 len; __u8 *buf; } on 64-bit Linux.
        #expect(MemoryLayout<i2c_msg>.size == 16)
        #expect(MemoryLayout<i2c_msg>.offset(of: \i2c_msg.len) == 4)
        #expect(MemoryLayout<i2c_msg>.offset(of: \i2c_msg.buf) == 8)
        #expect(MemoryLayout<i2c_rdwr_ioctl_data>.size == 16)
    }
}

@Suite struct LinuxGPIOLineTests {
    @Test func requestsSetsAndReleases() throws {
        let backend = MockGPIOBackend()
        let line = try LinuxGPIOLine(chip: "pinctrl-bcm2711", line: .offset(17), consumer: "haptic EN", backend: backend)
        try line.set(true)
        try line.set(false)
        line.release()
        line.release()
        #expect(backend.requests.count == 1)
        #expect(backend.requests[0].chip == "pinctrl-bcm2711")
        #expect(backend.requests[0].line == .offset(17))
        #expect(backend.requests[0].consumer == "haptic EN")
        #expect(backend.values == [true, false])
        #expect(backend.released == [3])
        #expect(throws: GPIOError.self) { try line.set(true) }
    }

    @Test(arguments: [
        (CInt(2), true, GPIOError.Kind.noSuchChip), (2, false, .noSuchLine), (16, false, .lineBusy),
        (13, false, .permissionDenied), (1, true, .permissionDenied)
    ])
    func requestErrnoMapping(errno: CInt, chipMissing: Bool, kind: GPIOError.Kind) {
        let backend = MockGPIOBackend()
        backend.requestErrno = errno
        backend.chipMissing = chipMissing
        #expect {
            try LinuxGPIOLine(chip: "gpiochip9", line: .name("GPIO17"), consumer: "test", backend: backend)
        } throws: { error in
            (error as? GPIOError)?.kind == kind && (error as? GPIOError)?.errno?.rawValue == errno
        }
    }

    @Test func setFailureKeepsErrno() throws {
        let backend = MockGPIOBackend()
        let line = try LinuxGPIOLine(chip: "0", line: .offset(4), consumer: "t", backend: backend)
        backend.setErrno = 5
        do {
            try line.set(true)
            Issue.record("expected failure")
        } catch {
            #expect(error.errno?.rawValue == 5)
        }
    }
}
