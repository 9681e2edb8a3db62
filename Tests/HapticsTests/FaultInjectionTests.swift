// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import HapticChip
import HapticEffects
import Haptics
import HapticsSimulation
import HardwareAccess
import Testing

/// Faults that are not one failed transaction: a chip that leaves the bus and comes back reset, a
/// reset in the middle of a pattern, an over-temperature report. (Every transaction failed in turn:
/// `FaultMatrixTests`.)
@Suite struct ChipFaultTests {
    @Test func busThatDisappearsAndComesBackReset() throws {
        let rig = try EngineRig()
        let (engine, chip) = (rig.engine, rig.chip)
        engine.play(.impact(.heavy))
        rig.advance(.seconds(1))
        chip.disconnected = true
        engine.play(.notification(.success))
        #expect(engine.statistics.dropped == 1)
        // Power came back with the chip reset to its defaults (ERM, default voltages).
        chip.resetNow()
        chip.disconnected = false
        #expect(chip.registers[.feedbackControl] & 0x80 == 0)
        engine.play(.impact(.heavy))
        rig.advance(.seconds(1))
        #expect(engine.statistics.resetsDetected >= 1)
        #expect(chip.registers[.feedbackControl] & 0x80 != 0)
        #expect(chip.registers[.ratedVoltage] == 0x53)
        #expect(chip.registers[.mode] & 0x40 != 0)
    }

    @Test func resetDuringAPatternIsRepairedAfterIt() throws {
        let rig = try EngineRig()
        let (engine, chip, clock) = (rig.engine, rig.chip, rig.clock)
        let player = PatternPlayer(
            engine: engine,
            pattern: PatternRenderer().render(
                HapticPattern(events: [
                    .init(type: .hapticContinuous, time: 0, duration: 0.3, intensity: 0.7)
                ])))
        player.start()
        for _ in 0..<5 { if let next = player.pump() { clock.sleep(until: next) } }
        chip.resetNow()
        player.runToCompletion()
        rig.advance(.seconds(1))
        #expect(engine.statistics.resetsDetected >= 1)
        #expect(chip.registers[.ratedVoltage] == 0x53 && chip.registers[.feedbackControl] & 0x80 != 0)
        #expect(chip.output.level(at: clock.now) == 0)
    }

    @Test func overTemperatureReachesTheApp() throws {
        let rig = try EngineRig()
        let (engine, chip, clock) = (rig.engine, rig.chip, rig.clock)
        engine.play(.vibration(.default))
        clock.advance(by: .milliseconds(100))
        chip.raiseOverTemperature()
        rig.advance(.seconds(2))
        #expect(engine.statistics.faults == 1)
        #expect(chip.output.level(at: clock.now) == 0)
    }

    /// A short latches OC_DETECT, which no read clears: the engine stops the actuator, counts the
    /// fault, and resets the chip to clear the latch. Once the short is gone a diagnosis says fine
    /// and feedback plays again; a short still there is found again, not hidden by the reset.
    @Test func aLatchedFaultIsClearedAndALaterDiagnosisSaysFine() throws {
        let rig = try EngineRig()
        let (engine, chip, clock) = (rig.engine, rig.chip, rig.clock)
        chip.actuator.shorted = true
        #expect(engine.play(.vibration(.default)) == .played)
        rig.advance(.seconds(2))
        #expect(engine.statistics.faults == 1)
        #expect(chip.output.level(at: clock.now) == 0)
        #expect(chip.trace.contains { $0.written == [Register.mode.rawValue, 0x80] }, "no DEV_RESET after the fault")
        #expect(chip.registers[StatusRegister.self].overCurrent == false, "OC_DETECT still latched")
        #expect(chip.registers[.ratedVoltage] == (try DRV2605Configuration(.typical(.lra))).ratedVoltage, "configuration not written back")

        #expect(try engine.withDriver { try $0.diagnose() } == .shorted, "a short still there was hidden")
        chip.actuator.shorted = false
        chip.raiseOverCurrent()  // latched again, as a short that has since gone would leave it
        #expect(try engine.withDriver { try $0.diagnose() } == .fine)
        #expect(engine.play(.success) == .played)
        rig.advance(.seconds(1))
        #expect(engine.statistics.faults == 1)
        #expect(chip.output.onsetSeconds(from: clock.now.advanced(by: .seconds(-1)), to: clock.now) != nil)
    }

    /// The driver's synchronous path tells its caller, and leaves the latch cleared for the next call.
    @Test func theDriverThrowsTheFaultAndClearsIt() throws {
        let rig = try EngineRig()
        let chip = rig.chip
        try rig.engine.withDriver { driver in
            try driver.play(WaveformSequence(.strongClick100))
            chip.raiseOverCurrent()
            #expect(throws: DRV2605Error.fault(overCurrent: true, overTemperature: false)) { try driver.checkFaults() }
            #expect(chip.registers[StatusRegister.self].overCurrent == false)
            try driver.checkFaults()
        }
    }
}
