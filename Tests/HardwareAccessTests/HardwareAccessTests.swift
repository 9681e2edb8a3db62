// SPDX-License-Identifier: Apache-2.0

import HardwareAccess
import HardwareAccessTesting
import SystemPackage
import Testing

@Suite struct I2CErrorTests {
    @Test(arguments: [
        (CInt(2), I2CError.Kind.noSuchBus), (19, .noSuchBus), (13, .permissionDenied), (1, .permissionDenied),
        (16, .addressInUse), (121, .noAcknowledge), (6, .noAcknowledge), (5, .busError), (11, .busError),
        (110, .busError), (71, .busError), (95, .unsupported), (22, .unsupported), (90, .invalidRequest), (28, .other)
    ])
    func errnoMapsToKind(errno: CInt, kind: I2CError.Kind) {
        #expect(I2CError.kind(for: Errno(rawValue: errno)) == kind)
    }

    @Test func descriptionNamesTheProblemAndTheFix() {
        let error = I2CError(.noAcknowledge, errno: Errno(rawValue: 121), operation: "read from 0x5A", bus: "/dev/i2c-1", address: .drv2605)
        #expect(error.description.contains("/dev/i2c-1"))
        #expect(error.description.contains("errno 121"))
        #expect(error.description.contains("EN is high"))
        let busy = I2CError(.addressInUse, errno: .resourceBusy, operation: "select 0x5A", address: .drv2605)
        #expect(busy.description.contains("drv260x"))
        #expect(busy.description.contains("unbind"))
    }

    @Test func addressesOutsideTheOrdinaryRangeAreRejected() {
        #expect(I2CAddress(0x5A) == .drv2605)
        #expect(I2CAddress(0x02) == nil)
        #expect(I2CAddress(0x78) == nil)
        #expect(I2CAddress(300) == nil)
    }
}

@Suite struct MonitoredBusTests {
    @Test func countsTransactionsAndWireBytesWithAddressBytes() throws {
        let mock = ExpectationBus([
            .write(.drv2605, [0x0C, 0x01]),
            .writeRead(.drv2605, [0x00], response: [0xE0]),
            .write(.drv2605, [0x04, 1, 2, 3], fail: .noAcknowledge)
        ])
        let clock = VirtualClock()
        let bus = MonitoredBus(mock, clock: clock)
        bus.keepsLog = true
        try bus.write(to: .drv2605, [0x0C, 0x01])
        #expect(try bus.readRegister(0x00, at: .drv2605) == 0xE0)
        #expect(throws: I2CError.self) { try bus.write(to: .drv2605, [0x04, 1, 2, 3]) }
        #expect(bus.counters.transactions == 3)
        // 3 (GO write) + 4 (register read: 2 address bytes, register, data) + 5 (burst)
        #expect(bus.counters.wireBytes == 12)
        #expect(bus.counters.errors == 1)
        #expect(bus.log.map(\.wireBytes) == [3, 4, 5])
        #expect(bus.log.last?.error == .noAcknowledge)
        #expect(mock.verify().isEmpty)
    }

    @Test func busTimeAtStandardAndFastMode() {
        // One GO write: 3 bytes × 9 clocks + 2 = 29 clocks.
        let slow = I2CWire.seconds(wireBytes: 3, transactions: 1, clockHz: 100_000)
        let fast = I2CWire.seconds(wireBytes: 3, transactions: 1, clockHz: 400_000)
        #expect(abs(slow - (29 / 100_000 + 4.7e-6)) < 1e-9)
        #expect(abs(fast - (29 / 400_000 + 1.3e-6)) < 1e-9)
    }
}

@Suite struct ExpectationBusTests {
    @Test func reportsMismatchAndUnusedExpectations() {
        let mock = ExpectationBus([.write(.drv2605, [0x01, 0x00]), .write(.drv2605, [0x0C, 0x01])])
        #expect(throws: I2CError.self) { try mock.write(to: .drv2605, [0x01, 0x40]) }
        let problems = mock.verify()
        #expect(problems.count == 2)
        #expect(problems[0].contains("expected write"))
        #expect(problems[1].contains("not used"))
    }
}

@Suite struct VirtualClockTests {
    @Test func sleepJumpsToTheDeadlineAndNeverGoesBack() {
        let clock = VirtualClock()
        clock.sleep(for: .milliseconds(5))
        #expect(clock.now == ClockInstant(nanoseconds: 5_000_000))
        clock.sleep(until: ClockInstant(nanoseconds: 1_000))
        #expect(clock.now == ClockInstant(nanoseconds: 5_000_000))
        clock.advance(by: .microseconds(250))
        #expect(clock.now.nanoseconds == 5_250_000)
    }
}
