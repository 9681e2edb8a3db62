import DRV2605
import Foundation
import HardwareAccess
import Haptics
import LinuxHardware
import Testing

/// The bus named by HAPTIC_HIL_BUS (e.g. /dev/i2c-1), with a DRV2605 family chip at 0x5A and an
/// actuator mounted to a mass. HAPTIC_HIL_ACTUATOR=erm for an ERM (default lra).
let hilBus = ProcessInfo.processInfo.environment["HAPTIC_HIL_BUS"]
let hilActuator: ActuatorType = ProcessInfo.processInfo.environment["HAPTIC_HIL_ACTUATOR"] == "erm" ? .erm : .lra

func hilConfiguration() throws -> DRV2605Configuration {
    hilActuator == .lra
        ? try DRV2605Configuration(.lra(ratedVrms: 2.0, maximumVrms: 2.5, resonantHz: 175))
        : try DRV2605Configuration(.erm(ratedVolts: 3.0, maximumVolts: 3.6), library: .ermB)
}

@Suite("Hardware in the loop", .serialized, .enabled(if: hilBus != nil, "set HAPTIC_HIL_BUS=/dev/i2c-N to run on a board"))
struct HardwareInLoopTests {
    @Test(.timeLimit(.minutes(1)))
    func probeFindsAKnownPart() throws {
        let bus = try LinuxI2CBus(hilBus ?? "")
        let driver = DRV2605Driver(bus: bus, configuration: try hilConfiguration(), clock: SystemClock.shared)
        let part = try driver.identify()
        #expect(Part.allCases.contains(part))
    }

    @Test(.timeLimit(.minutes(1)))
    func startupLeavesTheConfigurationAndStandby() throws {
        let bus = try LinuxI2CBus(hilBus ?? "")
        let configuration = try hilConfiguration()
        let driver = DRV2605Driver(bus: bus, configuration: configuration, clock: SystemClock.shared)
        let part = try driver.start()
        let registers = try driver.dumpRegisters()
        #expect(registers[0x01] & 0x40 != 0)
        #expect(registers[0x16] == configuration.ratedVoltage)
        #expect(registers[0x17] == configuration.overdriveClamp)
        if part.hasROMLibrary { #expect(registers[0x03] & 0x07 == configuration.library.rawValue) }
    }

    @Test(.timeLimit(.minutes(1)))
    func everyFeedbackKindPlaysAndTheChipEndsStopped() throws {
        let bus = try LinuxI2CBus(hilBus ?? "")
        let engine = try HapticEngine(bus: bus, configuration: try hilConfiguration())
        for kind in FeedbackKind.all {
            engine.prepare(Feedback(kind: kind))
            SystemClock.shared.sleep(for: .milliseconds(20))
            engine.play(Feedback(kind: kind))
            engine.waitUntilIdle(timeout: .seconds(3))
        }
        engine.stop()
        #expect(engine.statistics.dropped == 0)
        let registers = try engine.withDriver { try $0.dumpRegisters() }
        #expect(registers[0x0C] & 1 == 0)
        #expect(registers[0x01] & 0x40 != 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func diagnosticsSayTheActuatorIsFine() throws {
        let bus = try LinuxI2CBus(hilBus ?? "")
        let driver = DRV2605Driver(bus: bus, configuration: try hilConfiguration(), clock: SystemClock.shared)
        try driver.start()
        #expect(try driver.diagnose() == .fine)
    }

    @Test(.timeLimit(.minutes(1)))
    func calibrationGivesPlausibleResults() throws {
        let bus = try LinuxI2CBus(hilBus ?? "")
        let driver = DRV2605Driver(bus: bus, configuration: try hilConfiguration(), clock: SystemClock.shared)
        try driver.start()
        let values = try driver.calibrate()
        #expect(values.backEMF > 0)
        if hilActuator == .lra, let hz = values.resonantHz { #expect((100...400).contains(hz)) }
    }

    @Test(.timeLimit(.minutes(1)))
    func anAbsentAddressIsANoAcknowledge() throws {
        let bus = try LinuxI2CBus(hilBus ?? "")
        let absent = try #require(I2CAddress(0x0B))
        do {
            _ = try bus.readRegister(0x00, at: absent)
            Issue.record("something answered at 0x0B")
        } catch {
            #expect(error.kind == .noAcknowledge)
        }
    }
}
