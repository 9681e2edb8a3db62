import DRV2605
import DRV2605Simulator
import HardwareAccess
import Haptics
import Testing

/// Faults that are not one failed transaction: a chip that leaves the bus and comes back reset, a
/// reset in the middle of a pattern, an over-temperature report. (Every transaction failed in turn:
/// `FaultMatrixTests`.)
@Suite struct ChipFaultTests {
    func rig() throws -> (HapticEngine, SimulatedDRV2605, VirtualClock) {
        let clock = VirtualClock()
        let chip = SimulatedDRV2605(clock: clock)
        let engine = try HapticEngine(bus: chip, configuration: try DRV2605Configuration(.lra(ratedVrms: 2.0, maximumVrms: 2.5, resonantHz: 175)), clock: clock, options: .isolated)
        return (engine, chip, clock)
    }

    func settle(_ engine: HapticEngine, _ clock: VirtualClock, _ duration: Duration) {
        let end = clock.now.advanced(by: duration)
        while let next = engine.runDueWork(), next <= end { clock.advance(to: next) }
        clock.advance(to: end)
        engine.runDueWork()
    }

    @Test func busThatDisappearsAndComesBackReset() throws {
        let (engine, chip, clock) = try rig()
        engine.play(.impact(.heavy))
        settle(engine, clock, .seconds(1))
        chip.disconnected = true
        engine.play(.notification(.success))
        #expect(engine.statistics.dropped == 1)
        // Power came back with the chip reset to its defaults (ERM, default voltages).
        chip.resetNow()
        chip.disconnected = false
        #expect(chip.registers[0x1A] & 0x80 == 0)
        engine.play(.impact(.heavy))
        settle(engine, clock, .seconds(1))
        #expect(engine.statistics.resetsDetected >= 1)
        #expect(chip.registers[0x1A] & 0x80 != 0)
        #expect(chip.registers[0x16] == 0x53)
        #expect(chip.registers[0x01] & 0x40 != 0)
    }

    @Test func resetDuringAPatternIsRepairedAfterIt() throws {
        let (engine, chip, clock) = try rig()
        let player = PatternPlayer(engine: engine, pattern: PatternRenderer().render(HapticPattern(events: [
            .init(type: .hapticContinuous, time: 0, duration: 0.3, intensity: 0.7)])))
        player.start()
        for _ in 0..<5 { if let next = player.pump() { clock.sleep(until: next) } }
        chip.resetNow()
        player.runToCompletion()
        settle(engine, clock, .seconds(1))
        #expect(engine.statistics.resetsDetected >= 1)
        #expect(chip.registers[0x16] == 0x53 && chip.registers[0x1A] & 0x80 != 0)
        #expect(chip.output.level(at: clock.now) == 0)
    }

    @Test func overTemperatureReachesTheApp() throws {
        let (engine, chip, clock) = try rig()
        engine.play(.vibration(.default))
        clock.advance(by: .milliseconds(100))
        chip.raiseOverTemperature()
        settle(engine, clock, .seconds(2))
        #expect(engine.statistics.faults == 1)
        #expect(chip.output.level(at: clock.now) == 0)
    }
}
