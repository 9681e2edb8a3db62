// SPDX-License-Identifier: Apache-2.0

import DRV2605
import Foundation
import HapticChip
import HapticEffects
import Haptics
import HardwareAccess
import LinuxHardware
import Testing

/// The bus named by HAPTIC_HIL_BUS (e.g. /dev/i2c-1), with a DRV2605 family chip at 0x5A and an
/// actuator mounted to a mass. HAPTIC_HIL_ACTUATOR=erm for an ERM (default lra).
let hilBus = ProcessInfo.processInfo.environment["HAPTIC_HIL_BUS"]
let hilActuator: ActuatorType = ProcessInfo.processInfo.environment["HAPTIC_HIL_ACTUATOR"] == "erm" ? .erm : .lra

/// Optional GPIO lines as "chip:line" (e.g. "gpiochip0:17"), and files that read back what a line
/// was driven to (gpio-sim's sysfs `value` in the CI VM; not available on a Pi).
let environment = ProcessInfo.processInfo.environment

func hilLine(_ variable: String, consumer: String) throws -> LinuxGPIOLine? {
    guard let spec = environment[variable] else { return nil }
    let parts = spec.split(separator: ":", maxSplits: 1).map(String.init)
    guard parts.count == 2 else { return nil }
    let selector: GPIOLineSelector = UInt32(parts[1]).map { .offset($0) } ?? .name(parts[1])
    return try LinuxGPIOLine(chip: parts[0], line: selector, consumer: consumer)
}

/// What a line was driven to, read back through `variable`'s file. Nil only when the variable is
/// unset (no readback on this rig); a named file that cannot be read or parsed is an error, so a
/// wrong path cannot quietly skip the check.
func readBack(_ variable: String) throws -> Int? {
    guard let path = environment[variable] else { return nil }
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let level: Int = try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), "\(variable)=\(path) holds '\(text)'")
    return level
}

/// The part the rig has (HAPTIC_HIL_PART, e.g. drv2605l), when the person running the suite says.
let hilPart = environment["HAPTIC_HIL_PART"].flatMap { Part(name: $0) }

func hilConfiguration() throws -> DRV2605Configuration {
    hilActuator == .lra
        ? try DRV2605Configuration(.typicalLRA)
        : try DRV2605Configuration(.typicalERM, library: .ermB)
}

@Suite("Hardware in the loop", .serialized, .enabled(if: hilBus != nil, "set HAPTIC_HIL_BUS=/dev/i2c-N to run on a board"))
struct HardwareInLoopTests {
    @Test(.timeLimit(.minutes(1)))
    func probeFindsAKnownPart() throws {
        let bus = try LinuxI2CBus(hilBus ?? "")
        let driver = DRV2605Driver(bus: bus, configuration: try hilConfiguration(), clock: SystemClock.shared)
        let part = try driver.identify()
        // STATUS read here, not through the driver: bits 7-5 are the device ID (datasheet table 7).
        let status = try bus.readRegister(0x00, at: .drv2605)
        #expect(part.rawValue == status >> 5)
        if let hilPart { #expect(part == hilPart) }
    }

    @Test(.timeLimit(.minutes(1)))
    func startupLeavesTheConfigurationAndStandby() throws {
        let bus = try LinuxI2CBus(hilBus ?? "")
        let configuration = try hilConfiguration()
        let driver = DRV2605Driver(bus: bus, configuration: configuration, clock: SystemClock.shared)
        let part = try driver.start()
        let registers = try driver.dumpRegisters()
        #expect(registers[.mode] & 0x40 != 0)
        #expect(registers[.ratedVoltage] == configuration.ratedVoltage)
        #expect(registers[.overdriveClamp] == configuration.overdriveClamp)
        if part.hasROMLibrary { #expect(registers[.librarySelection] & 0x07 == configuration.library.rawValue) }
    }

    @Test(.timeLimit(.minutes(1)))
    func everyFeedbackKindPlaysAndTheChipEndsStopped() throws {
        let bus = try LinuxI2CBus(hilBus ?? "")
        let engine = try HapticEngine(bus: bus, configuration: try hilConfiguration(), options: .isolated)
        for kind in FeedbackKind.all {
            engine.prepare(Feedback(kind: kind))
            SystemClock.shared.sleep(for: .milliseconds(20))
            engine.play(Feedback(kind: kind))
            engine.waitUntilIdle(timeout: .seconds(3))
        }
        engine.stop()
        #expect(engine.statistics.dropped == 0)
        let registers = try engine.withDriver { try $0.dumpRegisters() }
        #expect(registers[.go] & 1 == 0)
        #expect(registers[.mode] & 0x40 != 0)
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
    func aPatternPlaysOnTimeAndEndsStopped() throws {
        let bus = try LinuxI2CBus(hilBus ?? "")
        let engine = try HapticEngine(bus: bus, configuration: try hilConfiguration(), options: .isolated)
        let pattern = HapticPattern(events: [
            .init(type: .hapticTransient, time: 0, intensity: 1, sharpness: 0.8),
            .init(type: .hapticContinuous, time: 0.05, duration: 0.3, intensity: 0.6, attackTime: 0.3),
            .init(type: .hapticTransient, time: 0.4, intensity: 0.7, sharpness: 0.2)
        ])
        var options = PatternPlayer.Options()
        options.threadSetup = { LinuxRealtime.preparePacingThread() }
        let player = PatternPlayer(engine: engine, pattern: PatternRenderer().render(pattern), options: options)
        let start = SystemClock.shared.now
        player.start()
        #expect(player.waitUntilFinished(timeout: .seconds(5)) == .finished)
        let elapsed = SystemClock.shared.now.duration(since: start).secondsDouble
        #expect(elapsed > 0.4 && elapsed < 1.5)
        engine.waitUntilIdle(timeout: .seconds(2))
        let registers = try engine.withDriver { try $0.dumpRegisters() }
        #expect(registers[.realTimePlaybackInput] == 0)
        #expect(registers[.mode] & 0x40 != 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func standbyAfterPlaying() throws {
        let bus = try LinuxI2CBus(hilBus ?? "")
        let engine = try HapticEngine(bus: bus, configuration: try hilConfiguration(), options: .isolated)
        #expect(engine.play(.impact(.heavy)) == .played)
        engine.waitUntilIdle(timeout: .seconds(2))
        #expect(engine.powerState == .standby)
        #expect(try engine.withDriver { try $0.dumpRegisters() }[.mode] & 0x40 != 0)
    }

    @Test(.timeLimit(.minutes(1)), .enabled(if: environment["HAPTIC_HIL_ENABLE"] != nil, "set HAPTIC_HIL_ENABLE=chip:line when EN is wired"))
    func enShutdownAndWake() throws {
        let bus = try LinuxI2CBus(hilBus ?? "")
        let enable = try #require(try hilLine("HAPTIC_HIL_ENABLE", consumer: "haptic HIL EN"))
        var options = HapticEngine.Options.isolated
        options.shutdownAfterIdle = .milliseconds(300)
        let engine = try HapticEngine(bus: bus, configuration: try hilConfiguration(), enableLine: enable, options: options)
        if let level = try readBack("HAPTIC_HIL_ENABLE_READBACK") { #expect(level == 1, "EN not high after start-up") }
        #expect(engine.play(.impact(.heavy)) == .played)
        engine.waitUntilIdle(timeout: .seconds(2))
        SystemClock.shared.sleep(for: .milliseconds(600))
        engine.runDueWork()
        #expect(engine.powerState == .shutdown)
        if let level = try readBack("HAPTIC_HIL_ENABLE_READBACK") { #expect(level == 0, "EN not lowered by the idle shutdown") }
        #expect(engine.play(.notification(.success)) == .played)
        if let level = try readBack("HAPTIC_HIL_ENABLE_READBACK") { #expect(level == 1, "EN not raised by the wake") }
        engine.waitUntilIdle(timeout: .seconds(2))
        let registers = try engine.withDriver { try $0.dumpRegisters() }
        #expect(registers[.ratedVoltage] == (try hilConfiguration()).ratedVoltage)
        engine.shutdown()
    }

    @Test(.timeLimit(.minutes(1)), .enabled(if: environment["HAPTIC_HIL_TRIGGER"] != nil, "set HAPTIC_HIL_TRIGGER=chip:line when IN/TRIG is wired"))
    func preparedTriggerThroughINTRIG() throws {
        let bus = try LinuxI2CBus(hilBus ?? "")
        let trigger = try hilLine("HAPTIC_HIL_TRIGGER", consumer: "haptic HIL IN/TRIG")
        let engine = try HapticEngine(bus: bus, configuration: try hilConfiguration(), triggerLine: trigger, options: .isolated)
        engine.prepare(.selection)
        SystemClock.shared.sleep(for: .milliseconds(10))
        let before = engine.statistics.bus.transactions
        engine.play(.selection)
        #expect(engine.statistics.bus.transactions == before)
        #expect(try engine.withDriver { try $0.dumpRegisters() }[.mode] & 0x07 == 1)  // external edge trigger
        if let level = try readBack("HAPTIC_HIL_TRIGGER_READBACK") { #expect(level == 0) }  // pulse ended low
        engine.stop()
    }

    /// Level mode holds IN/TRIG high while the effect plays: read back while it is held, then low
    /// once the chip has finished.
    @Test(.timeLimit(.minutes(1)), .enabled(if: environment["HAPTIC_HIL_TRIGGER"] != nil, "set HAPTIC_HIL_TRIGGER=chip:line when IN/TRIG is wired"))
    func levelTriggerIsHeldWhilePlaying() throws {
        let bus = try LinuxI2CBus(hilBus ?? "")
        let trigger = try hilLine("HAPTIC_HIL_TRIGGER", consumer: "haptic HIL IN/TRIG")
        var driverOptions = DRV2605Driver.Options()
        driverOptions.triggerPinMode = .level
        let engine = try HapticEngine(
            bus: bus, configuration: try hilConfiguration(), triggerLine: trigger, options: .isolated, driverOptions: driverOptions)
        engine.prepare(.vibration(.default))
        SystemClock.shared.sleep(for: .milliseconds(10))
        #expect(engine.play(.vibration(.default)) == .played)
        #expect(try engine.withDriver { try $0.dumpRegisters() }[.mode] & 0x07 == 2)  // external level trigger
        if let level = try readBack("HAPTIC_HIL_TRIGGER_READBACK") { #expect(level == 1, "IN/TRIG not held while playing") }
        engine.waitUntilIdle(timeout: .seconds(5))
        if let level = try readBack("HAPTIC_HIL_TRIGGER_READBACK") { #expect(level == 0, "IN/TRIG still high after the effect") }
        engine.stop()
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
