// SPDX-License-Identifier: Apache-2.0

import DA7280
import DA7280Simulator
import HapticChip
import HardwareAccess
import Testing

/// The DA7280 driver's bytes on the bus, checked against the register map, and what the simulated
/// chip drives with them.
@Suite struct DA7280DriverTests {
    static func started(_ actuator: DA7280Actuator = .sparkFunQwiicLRA) throws -> (DA7280Driver, SimulatedDA7280, VirtualClock) {
        let clock = VirtualClock()
        let chip = SimulatedDA7280(clock: clock)
        let driver = DA7280Driver(bus: chip, actuator: actuator, clock: clock)
        try driver.start()
        return (driver, chip, clock)
    }

    static func writes(_ chip: SimulatedDA7280, since index: Int = 0) -> [[UInt8]] {
        chip.trace[index...].filter { $0.kind == .write }.map(\.written)
    }

    /// SparkFun's LRA: 2.106 V → NOMMAX 0x5A (the value SparkFun documents for 2.106 V), 2.26 V →
    /// ABSMAX 96 (96.58 steps, rounded down: 97 would be 2.2698 V, past the rating), 165.4 mA → IMAX 19, 13.8 Ω → V2I 13.8 × 23 / 1.6104 = 197, 170 Hz → LRA_PER 4412
    /// (0x22, 0x3C), as Linux's formula gives it too.
    @Test func theActuatorsRegistersFollowTheEquations() throws {
        let registers = try DA7280Actuator.sparkFunQwiicLRA.registers()
        #expect(registers.nominalMaximum == 0x5A)
        #expect(registers.absoluteMaximum == 96)
        #expect(registers.currentMaximum == 19)
        #expect(registers.v2iFactor == 197)
        #expect(registers.lraPeriod == 4412)
        #expect(registers.burst() == [0x22, 0x3C, 0x5A, 96, 19, 0x00, 197])
        #expect(abs((DA7280Equations.frequency(periodField: 4412) ?? 0) - 170) < 0.05)
    }

    @Test func anActuatorTheChipCannotDriveIsRefusedBeforeAnyWrite() throws {
        let clock = VirtualClock()
        let chip = SimulatedDA7280(clock: clock)
        var actuator = DA7280Actuator.sparkFunQwiicLRA
        actuator.resonantHz = nil
        let driver = DA7280Driver(bus: chip, actuator: actuator, clock: clock)
        #expect(throws: HapticChipError.self) { try driver.start() }
        #expect(chip.trace.isEmpty)
        var weak = DA7280Actuator.sparkFunQwiicLRA
        weak.maximumCurrentMilliamps = 10
        #expect(throws: HapticChipError.self) { try weak.registers() }
    }

    /// The limits' boundaries: an absolute maximum equal to the nominal voltage (an ERM rated
    /// 3.0 V with a 3.0 V maximum) is drivable; one below it is refused, naming both. The
    /// impedance within the datasheet's 4-50 Ω (E_ACTUATOR_FAULT outside), both ends included.
    @Test func theLimitsBoundariesAreTheDatasheets() throws {
        func actuator(nominal: Double = 3.0, maximum: Double = 3.0, ohms: Double = 30) -> DA7280Actuator {
            DA7280Actuator(kind: .ermCoin, nominalVolts: nominal, absoluteMaximumVolts: maximum, maximumCurrentMilliamps: 100, impedanceOhms: ohms)
        }
        #expect(actuator().problem == nil, "\(actuator().problem.map(\.text) ?? "")")
        let registers = try actuator().registers()
        #expect(registers.nominalMaximum == registers.absoluteMaximum)
        let below = try #require(actuator(maximum: 2.9).problem)
        #expect(below.value == .absoluteMaximumVolts && below.text.contains("2.9 V") && below.text.contains("3.0 V"), "\(below.text)")
        for ohms in [4.0, 50.0] { #expect(actuator(ohms: ohms).problem == nil, "\(ohms) Ω") }
        for ohms in [3.9, 50.1, 1000] { #expect(actuator(ohms: ohms).problem?.value == .impedance, "\(ohms) Ω") }
    }

    /// Start-up: CHIP_REV read, the events and IRQ_STATUS1 read (nothing wrong at power-on), the
    /// drive stopped, IRQ_MASK1 and CIF_I2C1 read (auto-increment already: no write there) and
    /// SEQ_CONTINUE_M set (the mark a reset clears), the actuator in one burst from 0x0A, the
    /// configuration read and written back with the LRA's fields (TOP_CFG1 0x1E and TOP_CFG2 0x01
    /// are already an LRA's at reset; TOP_CFG4, TOP_INT_CFG1 and TOP_CFG5 need no write), SEQ_CTL1
    /// read (its fields already 0), the latched events cleared; the chip left in IDLE, not driving.
    @Test func startUpReadsThenWrites() throws {
        let (driver, chip, _) = try Self.started()
        #expect(chip.trace.count == 11)
        #expect(chip.trace[0].kind == .writeRead && chip.trace[0].written == [0x00] && chip.trace[0].read == [0xBA])
        #expect(chip.trace[1].kind == .writeRead && chip.trace[1].written == [0x03] && chip.trace[1].read == [0, 0, 0, 0x00])
        #expect(chip.trace[3].kind == .writeRead && chip.trace[3].written == [0x07] && chip.trace[3].read == [0x00, 0x40])
        #expect(chip.trace.contains { $0.kind == .writeRead && $0.written == [0x24] && $0.read == [0x08] }, "SEQ_CTL1 read")
        #expect(Self.writes(chip) == [[0x22, 0x00], [0x07, 0x01], [0x0A, 0x22, 0x3C, 0x5A, 96, 19, 0x00, 197], [0x13, 0x1E, 0x01], [0x03, 0xFF]])
        #expect(chip.trace.allSatisfy { $0.address == .da7280 })
        #expect(driver.power == .standby)
        #expect(chip[.topControl1] == 0)
        #expect(chip.drive == 0)
        #expect(chip[.topInternalConfiguration1] == 0x81, "FRQ_LOCKED_LIM kept")
    }

    /// A chip left in I2C page mode (CIF_I2C1's I2C_WR_MODE set) is put back to auto-increment
    /// before the first burst, which page mode would pile into one register; a SEQ_CTL1 another
    /// program left with a timebase, the custom waveform generator and SEQ_CONTINUE has those
    /// three fields cleared and its other bits kept.
    @Test func startUpWritesTheWriteModeAndSequenceFieldsItReliesOn() throws {
        let clock = VirtualClock()
        let chip = SimulatedDA7280(clock: clock)
        try chip.write(to: .da7280, [0x08, 0xC0])
        try chip.write(to: .da7280, [0x24, 0x0F])
        let before = chip.trace.count
        try DA7280Driver(bus: chip, actuator: .sparkFunQwiicLRA, clock: clock).start()
        let writes = Self.writes(chip, since: before)
        let mode = try #require(writes.firstIndex(of: [0x08, 0x40]), "I2C_WR_MODE cleared, bit 6 kept")
        let burst = try #require(writes.firstIndex { $0.first == 0x0A })
        #expect(mode < burst, "before the burst")
        #expect(chip[.controlInterfaceI2C1] == 0x40)
        #expect(chip[.sequenceControl1] == 0x08)
    }

    /// A board reconfigured from a coin ERM to an LRA without a power cycle: the coin's frozen V2I
    /// factor, its impedance calibration and its back-EMF fault limit 0 (no stuck-actuator
    /// detection) do not stay behind; the LRA gets the chip's reset values for those fields.
    @Test func aPreviousActuatorsFieldsDoNotStayBehind() throws {
        let clock = VirtualClock()
        let chip = SimulatedDA7280(clock: clock)
        let coin = DA7280Actuator(kind: .ermCoin, nominalVolts: 3.0, absoluteMaximumVolts: 3.3, maximumCurrentMilliamps: 100, impedanceOhms: 30)
        try DA7280Driver(bus: chip, actuator: coin, clock: clock).start()
        #expect(chip[.topConfiguration4] == 0xC0 && chip[.topInternalConfiguration1] == 0x80, "the coin's")
        try DA7280Driver(bus: chip, actuator: .sparkFunQwiicLRA, clock: clock).start()
        #expect(chip[.topConfiguration4] == 0x40, "V2I tracked again, impedance calibration as at reset")
        #expect(chip[.topInternalConfiguration1] == 0x81, "BEMF_FAULT_LIM 1 again: a stuck actuator is reported")
        #expect(chip[.topConfiguration1] == 0x1E)
    }

    /// Each register that holds fields not ours is read, changed in our fields only, and written
    /// back: a chip whose TOP_CFG1 bit 6, FULL_BRAKE_THR, TOP_CFG4's low bits, TOP_INT_CFG1's
    /// FRQ_LOCKED_LIM and TOP_CFG5's upper bits hold other values keeps them, for every kind.
    @Test(arguments: DA7280Actuator.Kind.allCases)
    func startUpChangesOnlyItsOwnFields(kind: DA7280Actuator.Kind) throws {
        let clock = VirtualClock()
        let chip = SimulatedDA7280(clock: clock)
        try chip.write(to: .da7280, [0x13, 0xDE, 0x0B])  // TOP_CFG1 0x1E with bits 7 and 6 set
        try chip.write(to: .da7280, [0x16, 0x05, 0x83])
        try chip.write(to: .da7280, [0x6E, 0xA0])
        let actuator = DA7280Actuator(
            kind: kind, nominalVolts: 3.0, absoluteMaximumVolts: 3.3, maximumCurrentMilliamps: 100, impedanceOhms: 30,
            resonantHz: kind == .lra ? 170 : nil)
        try DA7280Driver(bus: chip, actuator: actuator, clock: clock).start()
        let fields = DA7280Configuration.topConfiguration1Fields(for: kind)
        #expect(chip[.topConfiguration1] == 0x40 | fields.rawValue, "bit 6 kept, EMBEDDED_MODE off")
        let acceleration = fields.contains(.acceleration)
        #expect(chip[.topConfiguration2] == 0x0B | (acceleration ? 0 : 0x10), "FULL_BRAKE_THR kept; MEM_DATA_SIGNED = not ACCELERATION_EN")
        #expect(chip[.topConfiguration5] == 0xA0 | (acceleration ? 1 : 0), "V2I_FACTOR_OFFSET_EN = ACCELERATION_EN")
        #expect(chip[.topConfiguration4] == (kind == .ermCoin ? 0xC5 : 0x45), "the low bits kept; V2I_FACTOR_FREEZE and CALIB_IMPEDANCE_DIS ours")
        #expect(chip[.topInternalConfiguration1] == (kind == .ermCoin ? 0x80 : 0x81), "only BEMF_FAULT_LIM changes: 0 for a coin, 1 otherwise")
        #expect(fields.contains(.backEMFSense), "the datasheet wants back-EMF sensing outside custom waveform mode")
    }

    /// A coin ERM: ACTUATOR_TYPE and back-EMF sensing, acceleration, rapid stop and the loops
    /// off, V2I frozen; no LRA period is written (0x0A-0x0B keep the chip's back-EMF sampling
    /// rate): the actuator's burst starts at ACTUATOR1.
    @Test func aCoinERMIsConfiguredWithoutTheLoops() throws {
        let erm = DA7280Actuator(kind: .ermCoin, nominalVolts: 3.0, absoluteMaximumVolts: 3.3, maximumCurrentMilliamps: 100, impedanceOhms: 30)
        let (_, chip, _) = try Self.started(erm)
        #expect(chip[.topConfiguration1] == 0x30)
        #expect(chip[.topConfiguration4] == 0xC0)
        #expect(Self.writes(chip).contains([0x0C, 128, 141, 9, 0x00, 242]))
        #expect(!Self.writes(chip).contains { $0.first == 0x0A || $0.first == 0x0B })
        #expect(chip[.lraPeriodHigh] == 0x21 && chip[.lraPeriodLow] == 0x4F)
    }

    /// A supply below the under-voltage lock-out at start-up: a typed error, and nothing written.
    @Test func startUpRefusesASupplyBelowTheLockOut() throws {
        let clock = VirtualClock()
        let chip = SimulatedDA7280(clock: clock)
        chip.supplyVolts = 2.6
        let driver = DA7280Driver(bus: chip, actuator: .sparkFunQwiicLRA, clock: clock)
        #expect(throws: HapticChipError.underVoltage) { try driver.start() }
        #expect(chip.trace.allSatisfy { $0.kind == .writeRead })
        chip.supplyVolts = 3.3
        try driver.start()
    }

    /// Anything else at the address is refused, naming what it read.
    @Test func anotherChipAtTheAddressIsNotADA7280() throws {
        let clock = VirtualClock()
        let chip = SimulatedDA7280(clock: clock, address: I2CAddress(rawValue: 0x4B)!)
        let driver = DA7280Driver(bus: chip, actuator: .sparkFunQwiicLRA, clock: clock)
        #expect { try driver.start() } throws: { error in
            guard case .bus(let bus) = error as? HapticChipError else { return false }
            return bus.kind == .noAcknowledge
        }
    }

    /// The stream: STANDBY_EN (ready), then the first level before DRO mode [DS §5.9.1], then one
    /// two-byte write a level; the end stops the drive first (mode and level in one write) and
    /// goes back to IDLE.
    @Test func theStreamIsDirectRegisterOverride() throws {
        let (driver, chip, clock) = try Self.started()
        let before = chip.trace.count
        try driver.beginRealTimePlayback()
        clock.advance(by: .milliseconds(5))
        try driver.setRealTime(amplitude: 1)
        clock.advance(by: .milliseconds(10))
        try driver.setRealTime(amplitude: 0.5)
        clock.advance(by: .milliseconds(5))
        try driver.setRealTime(amplitude: 0.501)  // the same byte: not written again
        clock.advance(by: .milliseconds(5))
        try driver.setRealTime(amplitude: -1)
        clock.advance(by: .milliseconds(5))
        try driver.endRealTimePlayback(standby: true)
        #expect(Self.writes(chip, since: before) == [[0x22, 0x08], [0x23, 0x7F], [0x22, 0x09], [0x23, 64], [0x23, 0x00], [0x22, 0x00, 0x00]])
        #expect(chip.output.level(at: .zero.advanced(by: .milliseconds(10))) == 1)
        #expect(abs(chip.output.level(at: .zero.advanced(by: .milliseconds(20))) - 64.0 / 127) < 1e-9)
        #expect(chip.output.activeSeconds(to: clock.now) == 0.020)
        #expect(chip.drive == 0 && chip[.topControl1] == 0)
        #expect(driver.power == .standby)
        #expect(
            try driver.readBack()
                == HapticChipReadBack(
                    standby: true, driving: false, details: ["operationMode": .int(0), "standbyEnabled": .bool(false), "overrideValue": .int(0)]))
    }

    /// A stream that starts with a sharp transient (full scale, then 0): the 0 that follows the
    /// first level is written, and the actuator stops driving then, not at the next other level.
    /// The same for a first level followed by itself and then by another.
    @Test func theFirstLevelIsRememberedLikeEveryOther() throws {
        let (driver, chip, clock) = try Self.started()
        let before = chip.trace.count
        try driver.beginRealTimePlayback()
        try driver.setRealTime(amplitude: 1)
        clock.advance(by: .milliseconds(5))
        try driver.setRealTime(amplitude: 0)
        clock.advance(by: .milliseconds(20))
        #expect(Self.writes(chip, since: before) == [[0x22, 0x08], [0x23, 0x7F], [0x22, 0x09], [0x23, 0x00]])
        #expect(chip.output.level(at: .zero.advanced(by: .milliseconds(15))) == 0, "still driving after the stream's 0")
        #expect(chip.output.activeSeconds(to: clock.now) == 0.005)
        try driver.endRealTimePlayback(standby: false)
        let second = chip.trace.count
        try driver.beginRealTimePlayback()
        try driver.setRealTime(amplitude: 0.5)
        try driver.setRealTime(amplitude: 0.5)  // the first level again: not written
        try driver.setRealTime(amplitude: 1)
        #expect(Self.writes(chip, since: second) == [[0x23, 64], [0x22, 0x09], [0x23, 0x7F]])
        try driver.endRealTimePlayback(standby: true)
    }

    /// Power: ready is STANDBY_EN, standby is IDLE; a stop keeps the power state and zeroes the level.
    @Test func powerStatesAreStandbyEnable() throws {
        let (driver, chip, _) = try Self.started()
        try driver.wake()
        #expect(chip[.topControl1] == 0x08 && driver.power == .ready)
        try driver.beginRealTimePlayback()
        try driver.setRealTime(amplitude: 0.8)
        #expect(chip.drive > 0)
        try driver.stop()
        #expect(chip.drive == 0 && chip[.topControl1] == 0x08 && chip[.topControl2] == 0)
        try driver.shutdown()
        #expect(chip[.topControl1] == 0 && driver.power == .standby)
        #expect(!driver.canShutDown)
    }

    /// A shorted actuator: the chip latches E_OC_FAULT and stops driving; the status reports it;
    /// clearing writes 1s to IRQ_EVENT1 after leaving the drive off.
    @Test func overCurrentIsLatchedReportedAndCleared() throws {
        let (driver, chip, _) = try Self.started()
        chip.actuatorShorted = true
        try driver.beginRealTimePlayback()
        try driver.setRealTime(amplitude: 1)
        #expect(chip.drive == 0, "the chip kept driving a short")
        #expect(chip[.irqEvent1] & 0x80 != 0)
        let status = try driver.playbackStatus()
        #expect(status.overCurrent && status.hasFault && !status.playing)
        try driver.clearFaults()
        #expect(chip[.irqEvent1] == 0)
        #expect(chip[.topControl1] == 0)
        #expect(try !driver.playbackStatus().hasFault)
    }

    /// An open actuator with back-EMF sensing: E_ACTUATOR_FAULT, reported as its own error.
    @Test func anOpenActuatorIsAnActuatorFault() throws {
        let (driver, chip, _) = try Self.started()
        chip.actuatorOpen = true
        try driver.beginRealTimePlayback()
        try driver.setRealTime(amplitude: 0.5)
        let status = try driver.playbackStatus()
        #expect(status.actuatorFault && !status.overCurrent)
        #expect(status.fault == .actuatorFault)
        #expect(chip.drive == 0)
    }

    /// Every bit of IRQ_EVENT1 read as what it is (datasheet T21): the five that hold the chip
    /// idle are faults, each reported as its own error; E_WARNING (drive limited, or the 105 °C
    /// warning) is a warning and the chip still drives; the sequence bits are neither.
    @Test(
        arguments: [
            (0x01, nil, false), (0x02, HapticChipError.underVoltage, false), (0x04, nil, false),
            (0x08, .fault(overCurrent: false, overTemperature: true), false), (0x10, .sequenceFault, false),
            (0x20, nil, true), (0x40, .actuatorFault, false), (0x80, .fault(overCurrent: true, overTemperature: false), false)
        ] as [(UInt8, HapticChipError?, Bool)])
    func eachEventBitIsReadAsWhatItIs(bit: UInt8, fault: HapticChipError?, warning: Bool) throws {
        let (driver, chip, _) = try Self.started()
        try driver.beginRealTimePlayback()
        try driver.setRealTime(amplitude: 0.5)
        chip.raise(DA7280Register.Event(rawValue: bit))
        let status = try driver.playbackStatus()
        #expect(status.hasFault == (fault != nil), "IRQ_EVENT1 \(bit)")
        if let fault { #expect(status.fault == fault, "IRQ_EVENT1 \(bit)") }
        #expect(status.overTemperature == (bit == 0x08), "only E_OVERTEMP_CRIT (bit 3) is over-temperature")
        #expect(status.warning == warning)
        #expect((chip.drive != 0) == (fault == nil), "a fault holds the chip idle; anything else leaves it driving")
        if fault != nil {
            try driver.clearFaults()
            #expect(chip[.irqEvent1] == 0)
            #expect(try !driver.playbackStatus().hasFault)
        }
    }

    /// Without acceleration (a coin ERM), OVERRIDE_VAL's full scale is ABSMAX [DS §5.9.1]: level 1
    /// must drive the rated 3.0 V, 127 × NOMMAX / ABSMAX = 127 × 128 / 141 → 115, never 0x7F
    /// (3.3 V, the absolute maximum); with acceleration (an LRA, a bar ERM) 0x7F is NOMMAX. The
    /// voltages on the simulated chip's output stay at or below the ratings.
    @Test(arguments: [DA7280Actuator.Kind.ermCoin, .ermBar, .lra])
    func fullScaleIsTheRatedVoltage(kind: DA7280Actuator.Kind) throws {
        let actuator = DA7280Actuator(
            kind: kind, nominalVolts: 3.0, absoluteMaximumVolts: 3.3, maximumCurrentMilliamps: 100, impedanceOhms: 30,
            resonantHz: kind == .lra ? 170 : nil)
        let (driver, chip, _) = try Self.started(actuator)
        let registers = try actuator.registers()
        #expect(registers.nominalMaximum == 128 && registers.absoluteMaximum == 141, "3.0 V and 3.3 V at or below their ratings")
        #expect(DA7280Equations.volts(field: registers.absoluteMaximum) <= 3.3 && DA7280Equations.volts(field: registers.nominalMaximum) <= 3.0)
        try driver.beginRealTimePlayback()
        try driver.setRealTime(amplitude: 1)
        let expected: UInt8 = kind == .ermCoin ? 115 : 0x7F
        #expect(chip[.topControl2] == expected, "level 1 wrote \(chip[.topControl2]) for a \(kind)")
        #expect(chip.drive <= 1 && chip.drive > 0.99, "level 1 drove \(chip.drive) of the rated voltage on the simulated chip")
        try driver.setRealTime(amplitude: 0.5)
        #expect(chip[.topControl2] == (kind == .ermCoin ? 58 : 64))
        if kind == .ermCoin {
            // Volts at the actuator: the written share of ABSMAX.
            let volts = Double(115) / 127 * DA7280Equations.volts(field: registers.absoluteMaximum)
            #expect(volts <= 3.0 + 1e-9, "\(volts) V past the rated 3.0 V")
        }
    }

    /// The stop on the error path: with the bus gone it throws nothing and counts what failed.
    @Test func stopQuietlyNeverThrows() throws {
        let (driver, chip, _) = try Self.started()
        try driver.beginRealTimePlayback()
        try driver.setRealTime(amplitude: 1)
        chip.disconnected = true
        driver.stopQuietly()
        #expect(driver.suppressedErrors == 2)
        chip.disconnected = false
        driver.stopQuietly()
        #expect(chip.drive == 0 && chip[.topControl1] == 0)
    }
}
