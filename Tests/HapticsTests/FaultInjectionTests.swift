import DRV2605
import DRV2605Simulator
import HardwareAccess
import Haptics
import Testing

/// A fault at every transaction index of each operation: a typed error or a dropped feedback, no
/// crash, the actuator stopped, and the next call recovers.
@Suite struct FaultInjectionMatrixEngineTests {
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

    /// A notification from standby: wake+load burst, GO, completion snapshot, standby.
    @Test(arguments: [I2CError.Kind.noAcknowledge, .busError])
    func feedbackPlayback(kind: I2CError.Kind) throws {
        for index in 0..<4 {
            let (engine, chip, clock) = try rig()
            chip.injectFault(.fail(kind), atTransaction: chip.transactionCount + index)
            engine.play(.notification(.warning))
            settle(engine, clock, .seconds(2))
            #expect(chip.output.level(at: clock.now) == 0, "fault at \(index)")
            #expect(chip.registers[0x0C] & 1 == 0)
            let played = engine.statistics.played
            engine.play(.impact(.heavy))
            #expect(engine.statistics.played == played + 1, "fault at \(index): no recovery")
            #expect(chip.output.peak(from: clock.now, to: clock.now.advanced(by: .milliseconds(80))) == 1)
            settle(engine, clock, .seconds(2))
            #expect(chip.registers[0x01] & 0x40 != 0)
        }
    }

    @Test(arguments: [I2CError.Kind.noAcknowledge, .busError])
    func calibration(kind: I2CError.Kind) throws {
        var failures = 0
        for index in 0..<70 {
            let (engine, chip, clock) = try rig()
            chip.injectFault(.fail(kind), atTransaction: chip.transactionCount + index)
            do {
                _ = try engine.withDriver { try $0.calibrate() }
            } catch {
                failures += 1
                #expect(error is DRV2605Error)
                #expect(chip.output.level(at: clock.now) == 0, "fault at \(index)")
            }
            chip.clearFaults() // an index past the routine's end would hit the recovery instead
            let values = try engine.withDriver { try $0.calibrate() }
            #expect(values.lraPeriod == 58)
            #expect(chip.output.level(at: clock.now) == 0)
        }
        #expect(failures > 10) // every transaction of the routine was hit, up to past its end
    }

    @Test(arguments: [I2CError.Kind.noAcknowledge, .busError])
    func realTimeStreaming(kind: I2CError.Kind) throws {
        let pattern = PatternRenderer(strategy: .realTime).render(HapticPattern(events: [
            .init(type: .hapticContinuous, time: 0, duration: 0.1, intensity: 0.5),
            .init(type: .hapticContinuous, time: 0.1, duration: 0.1, intensity: 1.0),
        ]))
        for index in 0..<8 {
            let (engine, chip, clock) = try rig()
            chip.injectFault(.fail(kind), atTransaction: chip.transactionCount + index)
            let player = PatternPlayer(engine: engine, pattern: pattern)
            player.start()
            let outcome = player.runToCompletion()
            #expect(outcome != nil)
            settle(engine, clock, .seconds(1))
            #expect(chip.output.level(at: clock.now) == 0, "fault at \(index)")
            #expect(chip.registers[0x02] == 0 || chip.registers[0x01] & 0x07 != 5)
            chip.clearFaults()
            let again = PatternPlayer(engine: engine, pattern: pattern)
            again.start()
            #expect(again.runToCompletion() == .finished, "fault at \(index): no recovery")
            #expect(chip.registers[0x02] == 0)
        }
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
