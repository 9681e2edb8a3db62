// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import HapticChip
import HapticEffects
import HardwareAccess
import HardwareAccessTesting
import HardwareSimulation
import Testing

/// A driver on a simulated DRV2605L behind a counting bus, on a virtual clock.
struct Rig {
    let clock = VirtualClock()
    let chip: SimulatedDRV2605
    let bus: MonitoredBus
    let driver: DRV2605Driver
    let enable: RecordingGPIOLine?
    let trigger: RecordingGPIOLine?

    init(
        actuator: SimulatedActuator = .typicalLRA, part: Part = .drv2605L, enable: Bool = false, trigger: Bool = false,
        configuration: DRV2605Configuration? = nil, options: DRV2605Driver.Options = .init()
    ) {
        var simulatorOptions = SimulatedDRV2605.Options()
        simulatorOptions.part = part
        chip = SimulatedDRV2605(clock: clock, actuator: actuator, options: simulatorOptions)
        bus = MonitoredBus(chip, clock: clock)
        bus.keepsLog = true
        self.enable = enable ? chip.makeEnableLine() : nil
        self.trigger = trigger ? chip.makeTriggerLine() : nil
        let defaultConfiguration =
            (try? DRV2605Configuration(
                actuator.type == .lra
                    ? .typicalLRA : .typicalERM))
            ?? DRV2605Configuration(actuator: actuator.type)
        driver = DRV2605Driver(
            bus: bus, configuration: configuration ?? defaultConfiguration,
            enableLine: self.enable, triggerLine: self.trigger, clock: clock, options: options)
    }

    func transactions(during body: () throws -> Void) rethrows -> [BusTransaction] {
        bus.clearLog()
        try body()
        return bus.log
    }
}

@Suite struct DriverStartupTests {
    @Test func startupIsSixTransactionsAndEndsInStandby() throws {
        let rig = Rig()
        var part: Part?
        let log = try rig.transactions { part = try rig.driver.start() }
        #expect(part == .drv2605L)
        #expect(log.count == 6)
        #expect(log[0].written == [0x00] && log[0].kind == .writeRead)
        #expect(log[1].written == [0x01, 0x80])
        #expect(log[2].written == [0x01] && log[2].kind == .writeRead)
        // 0x16-0x1E: whether OTP is programmed, and what it loaded if so.
        #expect(log[3].written == [0x16] && log[3].kind == .writeRead && log[3].read.count == 9)
        #expect(log[4].written.prefix(2) == [0x01, 0x00])
        #expect(log[4].written.count == 1 + 0x20)
        #expect(log[5].written == [0x01, 0x40])
        // The chip holds the configuration, although it ignores writes in standby.
        #expect(rig.chip.registers[.librarySelection] == 6)
        #expect(rig.chip.registers[.ratedVoltage] == 0x53)
        #expect(rig.chip.registers[.feedbackControl] & 0x80 != 0)
        #expect(rig.chip.registers[.mode] == 0x40)
        #expect(rig.driver.power == .standby)
    }

    @Test func startupBytesPinnedWithTheExpectationMock() throws {
        let clock = VirtualClock()
        let configuration = DRV2605Configuration(actuator: .erm, library: .ermB)
        let image = configuration.registerImage(for: .drv2605L, slots: [])
        let mock = ExpectationBus([
            .writeRead(.drv2605, [0x00], response: [0xE0]),
            .write(.drv2605, [0x01, 0x80]),
            .writeRead(.drv2605, [0x01], response: [0x80], fail: .noAcknowledge),
            .writeRead(.drv2605, [0x01], response: [0x40]),
            .writeRead(.drv2605, [0x16], response: [0x3E, 0x8C, 0x0C, 0x6C, 0x36, 0x93, 0xF5, 0xA0, 0x20]),
            .write(.drv2605, [0x01, 0x00] + image),
            .write(.drv2605, [0x01, 0x40])
        ])
        let driver = DRV2605Driver(bus: mock, configuration: configuration, clock: clock)
        try driver.start()
        #expect(mock.verify().isEmpty)
    }

    @Test func unknownDeviceIsRejectedWithTheIDRead() {
        let clock = VirtualClock()
        let mock = ExpectationBus([.writeRead(.drv2605, [0x00], response: [0xA0])])
        let driver = DRV2605Driver(bus: mock, configuration: DRV2605Configuration(actuator: .lra), clock: clock)
        #expect(throws: DRV2605Error.unknownDevice("no DRV2604/DRV2605: STATUS read 0xA0 (device ID 5; expected 3, 4, 6 or 7 at 0x5A)")) { try driver.start() }
    }

    @Test func libraryThatDoesNotFitIsRejectedBeforeAnyWrite() {
        let rig = Rig(configuration: DRV2605Configuration(actuator: .lra, library: .ermB))
        #expect(throws: DRV2605Error.self) { try rig.driver.start() }
        #expect(rig.bus.log.count == 1)  // only the STATUS read
    }

    @Test func noDeviceAnsweringIsANoAcknowledge() {
        let rig = Rig()
        rig.chip.disconnected = true
        do {
            try rig.driver.start()
            Issue.record("expected failure")
        } catch {
            #expect(error.busErrorKind == .noAcknowledge)
        }
    }

    @Test func resetThatNeverFinishesTimesOut() {
        let rig = Rig()
        var options = SimulatedDRV2605.Options()
        options.resetDuration = .seconds(10)
        rig.chip.options = options
        #expect {
            try rig.driver.start()
        } throws: { error in
            if case .timeout = error as? DRV2605Error { return true }
            return false
        }
        #expect(rig.clock.now < ClockInstant(nanoseconds: 1_000_000_000))
    }

    @Test func enableLineIsRaisedBeforeTheFirstTransaction() throws {
        let rig = Rig(enable: true)
        try rig.driver.start()
        let raised = try #require(rig.enable?.history.first)
        #expect(raised.high)
        let firstTransaction = try #require(rig.bus.log.first)
        #expect(firstTransaction.time.duration(since: raised.time) >= .microseconds(250))
    }
}

@Suite struct DriverPlaybackTests {
    @Test func preparedTriggerIsOneThreeByteWrite() throws {
        let rig = Rig()
        try rig.driver.start()
        try rig.driver.prepare(WaveformSequence(.strongClick100))
        rig.clock.advance(by: .milliseconds(2))
        let log = try rig.transactions { try rig.driver.trigger() }
        #expect(log.map(\.written) == [[0x0C, 0x01]])
        #expect(log.map(\.wireBytes) == [3])
        #expect(rig.chip.output.peak(to: rig.clock.now.advanced(by: .milliseconds(100))) == 1.0)
    }

    @Test func triggerFromStandbyIsTwoTransactionsAndWaitsForWake() throws {
        let rig = Rig()
        try rig.driver.start()
        let start = rig.clock.now
        let log = try rig.transactions { try rig.driver.play(WaveformSequence(.sharpClick100)) }
        #expect(log.count == 2)
        #expect(log[0].written == [0x01, 0x00, 0x00, 0x06, 4, 0, 0, 0, 0, 0, 0, 0])
        #expect(log[1].written == [0x0C, 0x01])
        #expect(log[1].time.duration(since: start) >= .milliseconds(1))
        #expect(rig.driver.power == .ready)
    }

    @Test func inTrigPinReplacesTheGOWrite() throws {
        let rig = Rig(trigger: true)
        try rig.driver.start()
        try rig.driver.prepare(WaveformSequence(.strongClick100))
        rig.clock.advance(by: .milliseconds(2))
        let log = try rig.transactions { try rig.driver.trigger() }
        #expect(log.isEmpty)
        #expect(rig.trigger?.history.map(\.high) == [true, false])
        #expect(rig.chip.output.peak(to: rig.clock.now.advanced(by: .milliseconds(60))) == 1.0)
    }

    @Test func levelTriggerHoldsThePinWhileItPlays() throws {
        var options = DRV2605Driver.Options()
        options.triggerPinMode = .level
        let rig = Rig(trigger: true, options: options)
        try rig.driver.start()
        try rig.driver.prepare(WaveformSequence(.alert750ms))
        #expect(rig.chip.registers[.mode] == 0x02)  // MODE: external level trigger, awake
        rig.clock.advance(by: .milliseconds(2))
        let log = try rig.transactions { try rig.driver.trigger() }
        #expect(log.isEmpty)
        #expect(rig.trigger?.level == true)
        rig.clock.advance(by: .milliseconds(100))
        #expect(rig.chip.output.level(at: rig.clock.now) != 0)
        // Lowering the pin (stop) cancels at once.
        try rig.driver.stop()
        #expect(rig.trigger?.level == false)
        #expect(rig.chip.output.level(at: rig.clock.now) == 0)
        // Played to the end, the pin is released after GO clears.
        try rig.driver.playAndWait(WaveformSequence(.strongClick100))
        #expect(rig.trigger?.level == false)
        #expect(rig.chip.output.peak(from: rig.clock.now.advanced(by: .milliseconds(-80)), to: rig.clock.now) == 1)
    }

    @Test func sequenceHoldsGOForItsLengthAndWaitsInTenMillisecondSteps() throws {
        let rig = Rig()
        try rig.driver.start()
        let sequence = try WaveformSequence([.effect(.strongClick100), .wait(tenMilliseconds: 10), .effect(.strongClick100)])
        let start = rig.clock.now
        try rig.driver.playAndWait(sequence)
        let bursts = rig.chip.output.bursts(from: start, to: rig.clock.now)
        #expect(bursts.count >= 2)
        // The second click starts 60 ms (click) + 100 ms (wait) after the first (clicks brake, so
        // each click is one burst of drive).
        let first = try #require(bursts.first)
        let second = try #require(bursts.last)
        #expect(abs(second.start.duration(since: first.start).secondsDouble - 0.160) < 0.0051)
        #expect(try !rig.driver.isBusy())
    }

    @Test func stopCancelsAndTheActuatorStops() throws {
        let rig = Rig()
        try rig.driver.start()
        try rig.driver.play(WaveformSequence(.alert1000ms))
        rig.clock.advance(by: .milliseconds(100))
        #expect(rig.chip.output.level(at: rig.clock.now) != 0)
        try rig.driver.stop()
        let stoppedAt = rig.clock.now
        rig.clock.advance(by: .seconds(2))
        #expect(rig.chip.output.level(at: stoppedAt) == 0)
        #expect(rig.chip.output.energy(from: stoppedAt, to: rig.clock.now) == 0)
        #expect(try !rig.driver.isBusy())
    }

    @Test func goStuckGivesADeadlineErrorAndAStop() throws {
        let rig = Rig()
        try rig.driver.start()
        rig.chip.goStuck = true
        #expect {
            try rig.driver.playAndWait(WaveformSequence(.strongClick100))
        } throws: { error in
            if case .timeout = error as? DRV2605Error { return true }
            return false
        }
        #expect(rig.bus.log.contains { $0.written == [0x0C, 0x00] })
        #expect(rig.clock.now.seconds < 1)
    }

    @Test func overCurrentReachesTheCaller() throws {
        let rig = Rig()
        try rig.driver.start()
        try rig.driver.play(WaveformSequence(.strongClick100))
        rig.chip.raiseOverCurrent()
        #expect(throws: DRV2605Error.fault(overCurrent: true, overTemperature: false)) {
            try rig.driver.waitUntilIdle(deadline: rig.clock.now.advanced(by: .seconds(1)))
        }
    }

    @Test func chipResetBehindTheDriversBackIsRepaired() throws {
        let rig = Rig()
        try rig.driver.start()
        try rig.driver.wake()
        rig.chip.resetNow()
        #expect(rig.chip.registers[.ratedVoltage] == 0x3E)
        _ = try rig.driver.snapshot()
        #expect(rig.driver.resetsDetected == 1)
        #expect(rig.chip.registers[.ratedVoltage] == 0x53)
        #expect(rig.chip.registers[.librarySelection] == 6)
        try rig.driver.play(WaveformSequence(.strongClick100))
        #expect(rig.chip.output.peak(to: rig.clock.now.advanced(by: .milliseconds(100))) == 1.0)
    }

    @Test func romEffectsOnADRV2604AreUnsupported() throws {
        let rig = Rig(part: .drv2604L)
        try rig.driver.start()
        #expect(throws: DRV2605Error.self) { try rig.driver.play(WaveformSequence(.strongClick100)) }
    }
}

@Suite struct DriverPowerAndRealTimeTests {
    @Test func realTimePlaybackDrivesTheActuatorAndEndsAtZero() throws {
        let rig = Rig()
        try rig.driver.start()
        let log = try rig.transactions {
            try rig.driver.beginRealTimePlayback()
            rig.clock.advance(by: .milliseconds(5))
            try rig.driver.setRealTime(amplitude: 0.5)
            rig.clock.advance(by: .milliseconds(5))
            try rig.driver.setRealTime(amplitude: 1.0)
            rig.clock.advance(by: .milliseconds(5))
            try rig.driver.endRealTimePlayback(standby: true)
        }
        #expect(log.map(\.written) == [[0x01, 0x05, 0x00], [0x02, 0x40], [0x02, 0x7F], [0x01, 0x00, 0x00], [0x01, 0x40]])
        let output = rig.chip.output
        let t0 = log[1].time
        #expect(abs(output.level(at: t0) - 64.0 / 127) < 1e-9)
        #expect(output.level(at: log[2].time) == 1)
        #expect(output.level(at: rig.clock.now) == 0)
        #expect(rig.chip.registers[.realTimePlaybackInput] == 0 && rig.chip.registers[.mode] == 0x40)
    }

    @Test func shutdownLowersEnAndWakeRestoresTheConfiguration() throws {
        let rig = Rig(enable: true)
        var options = SimulatedDRV2605.Options()
        options.registersSurviveShutdown = false
        rig.chip.options = options
        try rig.driver.start()
        try rig.driver.shutdown()
        #expect(rig.enable?.level == false)
        #expect(rig.driver.power == .shutdown)
        let log = try rig.transactions { try rig.driver.play(WaveformSequence(.strongClick100)) }
        #expect(log.count == 2)
        #expect(rig.chip.registers[.ratedVoltage] == 0x53)
        #expect(rig.chip.output.peak(to: rig.clock.now.advanced(by: .milliseconds(100))) == 1.0)
    }

    @Test func everyWakeFromShutdownRestoresTheConfiguration() throws {
        let rig = Rig(enable: true)
        var options = SimulatedDRV2605.Options()
        options.registersSurviveShutdown = false
        rig.chip.options = options
        try rig.driver.start()
        try rig.driver.shutdown()
        #expect(try rig.driver.diagnose() == .fine)
        #expect(rig.chip.registers[.ratedVoltage] == 0x53 && rig.chip.registers[.librarySelection] == 6)
        try rig.driver.shutdown()
        try rig.driver.enterStandby()
        #expect(rig.chip.registers[.ratedVoltage] == 0x53 && rig.chip.registers[.mode] == 0x40)
    }

    @Test func stopQuietlyFallsBackToEnLowWhenTheBusFails() throws {
        let rig = Rig(enable: true)
        try rig.driver.start()
        try rig.driver.play(WaveformSequence(.alert1000ms))
        rig.chip.disconnected = true
        rig.driver.stopQuietly()
        #expect(rig.enable?.level == false)
        #expect(rig.chip.output.level(at: rig.clock.now) == 0)
    }
}

@Suite struct CalibrationAndDiagnosticsTests {
    @Test func calibrationReturnsAndAdoptsResults() throws {
        let rig = Rig()
        try rig.driver.start()
        let values = try rig.driver.calibrate()
        #expect(values.backEMFGain == 2)
        #expect(values.lraPeriod == 58)
        #expect(abs((values.resonantHz ?? 0) - 175) < 1)
        let elapsed = rig.clock.now.seconds
        #expect(elapsed > 1.0 && elapsed < 1.7)  // AUTO_CAL_TIME 3: 1000-1200 ms, then a 50 ms buzz for LRA_PERIOD
        #expect(rig.driver.configuration.calibration == values)
        #expect(rig.driver.power == .standby)
    }

    /// The resonance is what the chip measures while driving (LRA_PERIOD), not what OL_LRA_PERIOD
    /// happens to hold: a 205 Hz actuator, and a chip that leaves OL_LRA_PERIOD alone.
    @Test func theResonanceIsMeasuredWhileDriving() throws {
        let rig = Rig(actuator: SimulatedActuator(type: .lra, resonantHz: 205))
        rig.chip.options.calibrationWritesOpenLoopPeriod = false
        try rig.driver.start()
        let values = try rig.driver.calibrate()
        #expect(abs((values.resonantHz ?? 0) - 205) < 3, "\(values.resonantHz ?? 0) Hz")
        #expect(values.lraPeriod == UInt8((1e6 / (205 * 98.46)).rounded()))
    }

    /// In open loop the chip does not follow the resonance, so calibration takes no period from it:
    /// LRA_PERIOD is not read, and OL_LRA_PERIOD at the next start-up is the datasheet's frequency
    /// (here 175 Hz) even on a 205 Hz actuator.
    @Test func openLoopCalibrationKeepsTheDatasheetPeriod() throws {
        let configuration = try DRV2605Configuration(.typicalLRA, loop: .open)
        let rig = Rig(actuator: SimulatedActuator(type: .lra, resonantHz: 205), configuration: configuration)
        try rig.driver.start()
        var values: CalibrationValues?
        let calibration = try rig.transactions { values = try rig.driver.calibrate() }
        #expect(values?.lraPeriod == nil)
        #expect(
            !calibration.contains { $0.kind == .writeRead && $0.written.first == Register.lraResonancePeriod.rawValue },
            "LRA_PERIOD was read in open loop")
        let restarted = Rig(actuator: SimulatedActuator(type: .lra, resonantHz: 205), configuration: rig.driver.configuration)
        try restarted.driver.start()
        #expect(restarted.chip.registers[.lraOpenLoopPeriod] == configuration.lraOpenLoopPeriod)
        #expect(abs((ActuatorEquations.frequency(periodField: restarted.chip.registers[.lraOpenLoopPeriod]) ?? 0) - 175) < 3)
    }

    /// The live readout in open loop gives the supply but no resonance, even when LRA_PERIOD still
    /// holds a closed-loop measurement from before: the chip did not measure it during this buzz.
    @Test func openLoopReadoutReportsNoResonance() throws {
        let rig = Rig(actuator: SimulatedActuator(type: .lra, resonantHz: 205))
        try rig.driver.start()
        let closed = try rig.driver.measureWhileDriving()
        #expect(abs((closed.resonanceHz ?? 0) - 205) < 3)
        let period = rig.chip.registers[.lraResonancePeriod]
        try rig.driver.reconfigure(try DRV2605Configuration(.typicalLRA, loop: .open))
        let readout = try rig.driver.measureWhileDriving()
        #expect(readout.resonanceHz == nil, "\(readout.resonanceHz ?? 0) Hz")
        #expect(abs(readout.supplyVolts - ChipModel.supplyVolts) < 0.05)
        #expect(rig.chip.registers[.lraResonancePeriod] == period, "the simulated chip measured in open loop")
        #expect(try rig.driver.measuredResonanceHz() == nil)
    }

    @Test func calibrationFailureIsReportedNotSaved() throws {
        let rig = Rig()
        try rig.driver.start()
        rig.chip.calibrationFails = true
        #expect(throws: DRV2605Error.self) { _ = try rig.driver.calibrate() }
        #expect(rig.driver.configuration.calibration == nil)
    }

    @Test func diagnosticsVerdicts() throws {
        let fine = Rig()
        try fine.driver.start()
        #expect(try fine.driver.diagnose() == .fine)
        let open = Rig(actuator: SimulatedActuator(type: .lra, connected: false))
        try open.driver.start()
        #expect(try open.driver.diagnose() == .openOrOutOfRange)
        let shorted = Rig(actuator: SimulatedActuator(type: .lra, shorted: true))
        try shorted.driver.start()
        #expect(try shorted.driver.diagnose() == .shorted)
        let stuck = Rig()
        try stuck.driver.start()
        stuck.chip.goStuck = true
        #expect(try stuck.driver.diagnose() == .timedOut)
    }
}

@Suite struct FaultInjectionMatrixTests {
    @Test func playbackFaultLeavesTheActuatorStopped() throws {
        for index in 0..<3 {
            let rig = Rig()
            try rig.driver.start()
            try rig.driver.play(WaveformSequence(.alert1000ms))
            rig.clock.advance(by: .milliseconds(50))
            rig.chip.injectFault(.fail(.busError), atTransaction: rig.chip.transactionCount + index)
            do {
                try rig.driver.waitUntilIdle(deadline: rig.clock.now.advanced(by: .seconds(2)))
            } catch {
                #expect(error.busErrorKind == .busError)
            }
            rig.clock.advance(by: .seconds(2))
            #expect(rig.chip.output.level(at: rig.clock.now) == 0)
            try rig.driver.playAndWait(WaveformSequence(.strongClick100))
        }
    }
}

/// Faults that a driver meets on real buses, where "the write failed" does not mean "nothing changed".
@Suite struct LostAcknowledgeTests {
    /// The GO write landed but its acknowledge was lost: the chip is playing while the driver
    /// sees an error. The driver must stop it before it throws.
    @Test func aGOWriteWhoseAcknowledgeWasLostIsStoppedBeforeTheErrorReturns() throws {
        let rig = Rig()
        try rig.driver.start()
        try rig.driver.prepare(WaveformSequence(.strongClick100))
        rig.chip.injectFaultOnNextTransaction(.ackLost(.noAcknowledge))
        let start = rig.clock.now
        #expect(throws: DRV2605Error.self) { try rig.driver.trigger() }
        #expect(
            rig.chip.trace.last { $0.written.first == 0x0C && $0.error == nil }?.written == [0x0C, 0x00],
            "no GO = 0 write after the lost acknowledge")
        #expect(rig.chip.registers[.go] & 1 == 0)
        rig.clock.advance(by: .milliseconds(100))
        rig.chip.advance()
        #expect(rig.chip.output.peak(from: start, to: rig.clock.now) == 0, "the actuator was driven")
    }

    /// `play` (prepare and trigger in one call) has the same duty.
    @Test func playStopsWhenItsTriggerWriteLandsButFails() throws {
        let rig = Rig()
        try rig.driver.start()
        let start = rig.clock.now
        // From standby, play is the load burst then GO: the GO write is the second transaction.
        rig.chip.injectFault(.ackLost(.busError), atTransaction: rig.chip.transactionCount + 1)
        #expect(throws: DRV2605Error.self) { try rig.driver.play(WaveformSequence(.strongClick100)) }
        #expect(rig.chip.registers[.go] & 1 == 0)
        rig.clock.advance(by: .milliseconds(100))
        rig.chip.advance()
        #expect(rig.chip.output.peak(from: start, to: rig.clock.now) == 0, "the actuator was driven")
    }

    /// A chip without a ROM library (DRV2604L) configured with values equal to its reset defaults:
    /// after a brown-out only the STANDBY bit, set while the driver had the chip awake, tells.
    @Test func aResetIsSeenByStandbyAloneWhenTheConfigurationEqualsTheDefaults() throws {
        var configuration = DRV2605Configuration(actuator: .erm, library: .ermA)
        configuration.brakeFactor = 3  // FEEDBACK_CONTROL 0x36, CONTROL1 0x93, CONTROL3 0xA0: the defaults
        configuration.loopGain = 1
        let rig = Rig(actuator: .init(type: .erm), part: .drv2604L, configuration: configuration)
        try rig.driver.start()
        let defaults = Part.drv2604L.resetValues
        try #require(
            [Register.ratedVoltage, .overdriveClamp, .feedbackControl, .control1, .control3].allSatisfy { rig.chip.registers[$0] == defaults[$0] },
            "the configuration should equal the reset values in every checked register")
        try rig.driver.wake()
        rig.chip.resetNow()
        rig.clock.advance(by: .milliseconds(5))
        _ = try rig.driver.snapshot()
        #expect(rig.driver.resetsDetected == 1)
        #expect(rig.chip.registers[.mode] & 0x40 == 0, "the chip was not woken again after the reset")
    }
}

@Suite struct StartupAnswerTests {
    /// A chip still resetting (its DEV_RESET acknowledge was lost, and the caller started again
    /// at once) NACKs for a millisecond: start-up asks again instead of failing.
    @Test func startupWaitsForAChipThatIsStillResetting() throws {
        let rig = Rig()
        try rig.chip.write(to: .drv2605, Register.mode.write(0x80))  // DEV_RESET
        #expect(throws: I2CError.self) { try rig.chip.readRegister(0x00, at: .drv2605) }
        #expect(try rig.driver.start() == .drv2605L)
    }

    /// An absent chip is still reported, once the answer deadline has passed.
    @Test func anAbsentChipIsReportedAfterTheAnswerDeadline() throws {
        let rig = Rig()
        rig.chip.disconnected = true
        let start = rig.clock.now
        #expect { try rig.driver.start() } throws: { ($0 as? DRV2605Error)?.busErrorKind == .noAcknowledge }
        let waited = rig.clock.now.duration(since: start)
        #expect(waited >= DRV2605Driver.Options().startupAnswerDeadline)
        #expect(waited < .milliseconds(100))
    }
}

@Suite struct OTPTests {
    /// A board powered at 4.2 V for the burn (OTP needs VDD 4.0-4.4 V).
    static let burnSupply = SimulatedActuator(type: .lra, supplyVolts: 4.2)

    /// Burning OTP is refused unless confirmed and calibrated; when done, OTP_PROGRAM is written
    /// once, the chip is reset and what it loads from OTP is read back, and the driver ends in
    /// standby.
    @Test func otpIsBurntOnlyWhenConfirmedAndCalibratedThenVerified() throws {
        let rig = Rig(actuator: Self.burnSupply)
        try rig.driver.start()
        #expect(throws: DRV2605Error.self) { try rig.driver.programOTP(confirmed: false) }
        #expect(throws: DRV2605Error.self) { try rig.driver.programOTP(confirmed: true) }
        #expect(!rig.chip.otpProgrammed)
        let calibration = try rig.driver.calibrate()
        var readBack = RegisterFile()
        let log = try rig.transactions { readBack = try rig.driver.programOTP(confirmed: true) }
        let burns = log.filter { $0.written.first == Register.control4.rawValue && $0.written.count == 2 && Control4Register(rawValue: $0.written[1]).otpProgram }
        #expect(burns.count == 1)
        // The procedure's byte: OTP_PROGRAM alone (0x1E = 0x01), and OTP_STATUS read before the reset.
        #expect(burns.first?.written == [Register.control4.rawValue, 0x01])
        let firstReset = try #require(log.firstIndex { $0.written.first == Register.mode.rawValue && $0.written.count == 2 && ModeRegister(rawValue: $0.written[1]).deviceReset })
        #expect(
            log[..<firstReset].contains { $0.kind == .writeRead && $0.written == [Register.control4.rawValue] && Control4Register(rawValue: $0.read.first ?? 0).otpProgrammed },
            "OTP_STATUS not read as 1 before the reset")
        // DEV_RESET after the burn, then the read-back of 0x16-0x1E.
        let burn = try #require(log.firstIndex { $0.written.first == Register.control4.rawValue && $0.written.count == 2 && Control4Register(rawValue: $0.written[1]).otpProgram })
        #expect(log[burn...].contains { $0.written.first == Register.mode.rawValue && ModeRegister(rawValue: $0.written[1]).deviceReset })
        #expect(log.last { $0.kind == .writeRead }?.written == [Register.ratedVoltage.rawValue])
        #expect(rig.chip.otpProgrammed)
        #expect(readBack[.autoCalibrationCompensation] == calibration.compensation && readBack[.autoCalibrationBackEMF] == calibration.backEMF)
        #expect(rig.chip.registers[Control4Register.self].otpProgrammed)
        #expect(!rig.chip.registers[Control4Register.self].otpProgram, "OTP_PROGRAM is not left set")
        #expect(rig.chip.registers[ModeRegister.self].standby)
        #expect(throws: DRV2605Error.self) { try rig.driver.programOTP(confirmed: true) }  // once only
    }

    /// At 5.0 V (measured through VBAT while driving) the burn is refused and nothing is written.
    @Test func theBurnIsRefusedOutsideTheSupplyRange() throws {
        let rig = Rig()
        try rig.driver.start()
        _ = try rig.driver.calibrate()
        do {
            try rig.driver.programOTP(confirmed: true)
            Issue.record("burnt at 5.0 V")
        } catch {
            #expect(error.description.contains("4.0 and 4.4 V") && error.description.contains("measures 5.0"), "\(error)")
        }
        #expect(!rig.bus.log.contains { $0.written.first == Register.control4.rawValue && $0.written.count == 2 && Control4Register(rawValue: $0.written[1]).otpProgram })
        #expect(!rig.chip.otpProgrammed)
    }

    /// A burn that does not take (VDD fell out of range: the driver was told 4.2 V) is caught by
    /// the read-back, not reported as done.
    @Test func aBurnThatDidNotTakeIsReported() throws {
        let rig = Rig()
        try rig.driver.start()
        _ = try rig.driver.calibrate()
        #expect { try rig.driver.programOTP(confirmed: true, supplyVolts: 4.2) } throws: { error in
            guard case let .otpNotVerified(text)? = error as? DRV2605Error else { return false }
            return text.contains("OTP_STATUS is still 0")
        }
    }

    /// A programmed chip starts with its OTP values when no calibration is saved, instead of
    /// having them overwritten with defaults; a saved calibration still wins.
    @Test func startUpKeepsProgrammedValuesUnlessACalibrationIsSaved() throws {
        let rig = Rig(actuator: Self.burnSupply)
        var configuration = rig.driver.configuration
        configuration.ratedVoltage = 0x50
        configuration.brakeFactor = 5
        configuration.loopGain = 1
        let burner = DRV2605Driver(bus: rig.bus, configuration: configuration, clock: rig.clock)
        try burner.start()
        _ = try burner.calibrate()
        try burner.programOTP(confirmed: true)
        let burnt = rig.chip.otpValues
        rig.chip.resetNow()

        let fresh = DRV2605Driver(bus: rig.bus, configuration: rig.driver.configuration, clock: rig.clock)
        try fresh.start()
        #expect(fresh.usesProgrammedOTP)
        #expect(rig.chip.registers[.ratedVoltage] == 0x50 && rig.chip.registers[.ratedVoltage] != rig.driver.configuration.ratedVoltage)
        #expect(rig.chip.registers[.autoCalibrationCompensation] == burnt[2] && rig.chip.registers[.autoCalibrationBackEMF] == burnt[3])
        #expect(rig.chip.registers[.feedbackControl] == burnt[4], "the burnt FEEDBACK_CONTROL (brake factor, loop gain) was overwritten")

        var saved = rig.driver.configuration
        saved.calibration = CalibrationValues(compensation: 0x11, backEMF: 0x22, backEMFGain: 1)
        let withSaved = DRV2605Driver(bus: rig.bus, configuration: saved, clock: rig.clock)
        try withSaved.start()
        #expect(!withSaved.usesProgrammedOTP)
        #expect(rig.chip.registers[.ratedVoltage] == saved.ratedVoltage && rig.chip.registers[.autoCalibrationCompensation] == 0x11)
    }

    /// OTP_STATUS is read-only: a CONTROL4 write with that bit set (a copied register value) does
    /// not make an unprogrammed chip claim it was burnt.
    @Test func otpStatusCannotBeWritten() throws {
        let rig = Rig()
        try rig.driver.start()
        try rig.driver.wake()
        try rig.bus.write(to: .drv2605, Register.control4.write(0x24))
        #expect(!rig.chip.registers[Control4Register.self].otpProgrammed)
        #expect(rig.chip.registers[Control4Register.self].autoCalibrationTime == 2)
    }
}

/// A DRV2605 (not the L) user saw MODE, LIBRARY_SEL and WAV_FRM_SEQ1 read back as 0 after a GO
/// (TI e2e 1128661); the simulator can model it (`nonLPartLosesSequenceRegisters`).
@Suite struct NonLPartTests {
    /// Plays `sequence` twice, prepared, and says whether each trigger moved the actuator and what
    /// the second trigger wrote.
    private static func twoPreparedClicks(part: Part, rewrites: Bool? = nil) throws -> (played: [Bool], secondTrigger: [BusTransaction]) {
        let rig = Rig(
            part: part,
            options: {
                var options = DRV2605Driver.Options()
                options.rewritesSequenceRegistersWithGo = rewrites
                return options
            }())
        try rig.driver.start()
        var played: [Bool] = []
        var secondTrigger: [BusTransaction] = []
        for index in 0..<2 {
            try rig.driver.prepare(WaveformSequence(.strongClick100))
            let start = rig.clock.now
            let trigger = try rig.transactions { try rig.driver.trigger() }
            if index == 1 { secondTrigger = trigger }
            rig.clock.advance(by: .milliseconds(300))
            played.append(rig.chip.output.onsetSeconds(from: start, to: rig.clock.now) != nil)
        }
        return (played, secondTrigger)
    }

    /// On the DRV2605 every trigger rewrites what the part loses, in the same single burst as GO.
    @Test func theNonLPartsTriggerRewritesWhatItLoses() throws {
        let result = try Self.twoPreparedClicks(part: .drv2605)
        #expect(result.played == [true, true])
        #expect(result.secondTrigger.count == 1)
        let burst = try #require(result.secondTrigger.first?.written)
        #expect(burst.first == Register.mode.rawValue && burst.count == 13 && burst.last == 0x01, "\(burst)")
        #expect(burst[3] == LibrarySelectionRegister(library: .lra).rawValue && burst[4] == Effect.strongClick100.rawValue)
    }

    /// Without the rewrite, such a part plays the first click only: the rewrite is what keeps it working.
    @Test func withoutTheRewriteTheSecondClickIsLost() throws {
        #expect(try Self.twoPreparedClicks(part: .drv2605, rewrites: false).played == [true, false])
    }

    /// The L part keeps its one 3-byte GO write.
    @Test func theLPartKeepsItsOneGoWrite() throws {
        let result = try Self.twoPreparedClicks(part: .drv2605L)
        #expect(result.played == [true, true])
        #expect(result.secondTrigger.map(\.written) == [[Register.go.rawValue, 0x01]])
    }
}
