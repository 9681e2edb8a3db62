import DRV2605
import DRV2605Simulator
import HardwareAccess
import Haptics
import HapticsTesting
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
        let player = PatternPlayer(engine: engine, pattern: PatternRenderer().render(HapticPattern(events: [
            .init(type: .hapticContinuous, time: 0, duration: 0.3, intensity: 0.7)])))
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
}
