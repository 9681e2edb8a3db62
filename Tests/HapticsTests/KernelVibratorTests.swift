// SPDX-License-Identifier: Apache-2.0

import DRV2605
import Foundation
import HapticChip
import HapticEffects
import Haptics
import HardwareAccess
import HardwareSimulation
import KernelVibrator
import Testing

/// The engine on a vibrator Linux drives itself, through a simulated force-feedback device: what
/// the actuator is driven with, and the uploads, plays, stops and erasures a client makes.
@Suite struct KernelVibratorTests {
    let clock = VirtualClock()

    func engine(
        _ output: SimulatedForceFeedbackOutput, actuator: ActuatorType = .erm
    ) throws -> HapticEngine {
        try HapticEngine(kernelVibrator: output, actuator: actuator, clock: clock, options: .isolated)
    }

    /// The calls from `start` on, but the gain set at open.
    func calls(_ output: SimulatedForceFeedbackOutput, after start: ClockInstant) -> [String] {
        output.calls.filter { $0.time >= start && $0.call != "gain" }.map(\.call)
    }

    /// A feedback is streamed into one effect: uploaded at zero, played, updated with each level,
    /// then stopped and erased when it ends; the actuator is driven only while it plays.
    @Test func aFeedbackIsStreamedAndStoppedOnTheDevice() throws {
        let output = SimulatedForceFeedbackOutput(clock: clock)
        let engine = try engine(output)
        let start = clock.now
        #expect(engine.play(.impact(.heavy)) == .played)
        clock.advance(by: .milliseconds(300))
        let seen = calls(output, after: start)
        #expect(seen.first == "upload" && seen.dropFirst().first == "play", "\(seen)")
        #expect(Array(seen.suffix(2)) == ["stop", "erase"], "\(seen)")
        #expect(output.effectCount == 0)
        let peak = output.output.peak(from: start, to: clock.now)
        #expect(peak > 0.5, "peak \(peak)")
        #expect(output.output.level(at: clock.now) == 0)
        let readBack = try engine.withChip { try $0.readBack() }
        #expect(readBack.standby && !readBack.driving)
    }

    /// A pattern's level reaches the actuator at absolute scale; a drv260x (its drive byte in both
    /// bytes of the rumble's magnitude: full drive at 0x7F7F) and a device that takes all 16 bits
    /// are driven alike.
    @Test(arguments: [("drv260x:haptics", Double(0x7F7F) / Double(0xFFFF)), ("pwm-vibrator", 1.0)])
    func aPatternDrivesAtItsLevel(device: String, fullScale: Double) throws {
        let output = SimulatedForceFeedbackOutput(name: device, rumbleFullScale: fullScale, clock: clock)
        let engine = try engine(output)
        let pattern = HapticPattern(events: [.init(type: .hapticContinuous, time: 0, duration: 0.4, intensity: 0.5)])
        let player = PatternPlayer(engine: engine, pattern: PatternRenderer().render(pattern))
        let start = clock.now
        player.start()
        clock.advance(by: .milliseconds(200))
        let middle = output.output.level(at: clock.now)
        clock.advance(by: .milliseconds(400))
        #expect(abs(middle - 0.5) < 0.03, "\(device): \(middle) of full scale at 0.5")
        let bursts = output.output.bursts(from: start, to: clock.now)
        #expect(bursts.count == 1 && abs(bursts[0].end.duration(since: bursts[0].start).secondsDouble - 0.4) < 0.02, "\(bursts)")
        #expect(output.effectCount == 0 && calls(output, after: start).last == "erase")
    }

    /// The effect type is the device's most direct: FF_CONSTANT (da7280) before FF_RUMBLE before
    /// FF_PERIODIC; a device with none of them is refused, naming what it has.
    @Test func theEffectTypeIsChosenFromTheDevicesCapabilities() throws {
        let da7280 = SimulatedForceFeedbackOutput(
            name: "da7280-haptic", capabilities: .init(rumble: false, constant: true, periodic: true, gain: true, effectsMaximum: 16), clock: clock)
        #expect(try KernelVibratorDriver(output: da7280, clock: clock).effectKind == .constant)
        let drv260x = SimulatedForceFeedbackOutput(name: "drv260x:haptics", clock: clock)
        let driver = try KernelVibratorDriver(output: drv260x, clock: clock)
        #expect(driver.effectKind == .rumble && driver.rules.rumbleEncoding == .drv260xByte)
        // 0.5 is drive byte 64 (0x40), sent in both bytes: 0x4040, whichever byte the kernel takes.
        #expect(Int((driver.rules.rumbleEncoding.magnitude(for: 0.5) * 0xFFFF).rounded()) == 0x4040)
        #expect(Int((driver.rules.rumbleEncoding.magnitude(for: 1) * 0xFFFF).rounded()) == 0x7F7F)
        #expect(KernelVibratorRules.forDevice(named: "pwm-vibrator") { _ in nil } == .shareOfFullScale)
        let periodic = SimulatedForceFeedbackOutput(capabilities: .init(rumble: false, constant: false, periodic: true, gain: false, effectsMaximum: 1), clock: clock)
        #expect(try KernelVibratorDriver(output: periodic, clock: clock).effectKind == .periodic)
        #expect(drv260x.calls.map(\.call) == ["gain"], "the gain set to full at open, levels being absolute")
        let none = SimulatedForceFeedbackOutput(capabilities: .init(rumble: false, constant: false, periodic: false, gain: true, effectsMaximum: 1), clock: clock)
        #expect(throws: HapticChipError.self) { try KernelVibratorDriver(output: none, clock: clock) }
    }

    /// A device that fails mid-stream (it went away): the feedback is dropped, and the driver
    /// gives up the effect by every means it has, closing the device last, so the kernel stops it.
    @Test func aDeviceThatFailsIsLetGoOf() throws {
        let output = SimulatedForceFeedbackOutput(clock: clock)
        let engine = try engine(output)
        let pattern = HapticPattern(events: [
            .init(type: .hapticContinuous, time: 0, duration: 1, intensity: 0.2), .init(type: .hapticContinuous, time: 0.1, duration: 0.5, intensity: 0.9)
        ])
        let player = PatternPlayer(engine: engine, pattern: PatternRenderer().render(pattern))
        player.start()
        clock.advance(by: .milliseconds(50))
        output.fails = true
        clock.advance(by: .milliseconds(200))
        #expect(!output.isOpen, "the device was not closed")
        #expect(output.output.level(at: clock.now) == 0)
    }

    /// Cancelling, and shutting the engine down, stop the actuator, and the stop is on the device.
    @Test func stopAndShutdownStopTheActuator() throws {
        let output = SimulatedForceFeedbackOutput(clock: clock)
        let engine = try engine(output)
        let long = HapticPattern(events: [.init(type: .hapticContinuous, time: 0, duration: 5, intensity: 1)])
        let player = PatternPlayer(engine: engine, pattern: PatternRenderer().render(long))
        player.start()
        clock.advance(by: .milliseconds(100))
        #expect(output.output.level(at: clock.now) == 1)
        player.cancel()
        #expect(output.output.level(at: clock.now) == 0 && calls(output, after: .zero).suffix(2) == ["stop", "erase"])
        let again = PatternPlayer(engine: engine, pattern: PatternRenderer().render(long))
        again.start()
        clock.advance(by: .milliseconds(100))
        #expect(output.output.level(at: clock.now) == 1)
        #expect(engine.shutdown())
        #expect(output.output.level(at: clock.now) == 0, "shut down, and the vibrator kept running")
        #expect(output.effectCount == 0)
    }

    /// A da7280 as Linux's driver exposes it: FF_CONSTANT becomes OVERRIDE_VAL = level × 254 /
    /// 0x7FFF, read signed with acceleration off (127 is ABSMAX; Linux's own full scale arrives as
    /// 254 and reverses the drive), and an upload while it drives is refused (EBUSY). A pattern at
    /// full intensity then 0.5 reaches the actuator at its rated drive (127 × NOMMAX / ABSMAX from
    /// the device tree) and half of it, never reversed, each change a stop, an upload retried
    /// while the driver is busy, and a play.
    @Test func aDA7280IsDrivenAtItsRatingWithinItsDriversRules() throws {
        let output = SimulatedForceFeedbackOutput(
            name: "da7280-haptic", capabilities: .init(rumble: false, constant: true, periodic: true, gain: true, effectsMaximum: 15), clock: clock)
        output.readsConstantAsDA7280 = true
        output.busyUploadsAfterStop = 2
        // SparkFun's LRA: 2.106 V rated, 2.26 V absolute (NOMMAX 0x5B, ABSMAX 0x61: override 119).
        output.firmwareProperties = [
            "dlg,actuator-type": Array("LRA\0".utf8), "dlg,nom-microvolt": [0x00, 0x20, 0x22, 0x90], "dlg,abs-max-microvolt": [0x00, 0x22, 0x7C, 0x20]
        ]
        let engine = try engine(output, actuator: .lra)
        let driver = try #require(engine.withChip { $0 as? KernelVibratorDriver })
        guard case .da7280(let limit) = driver.rules.constantEncoding else {
            Issue.record("not read as a da7280: \(driver.rules)")
            return
        }
        #expect(limit.ratedOverride == 127 * 0x5B / 0x61, "\(limit.summary)")
        let pattern = HapticPattern(events: [
            .init(type: .hapticContinuous, time: 0, duration: 0.3, intensity: 1), .init(type: .hapticContinuous, time: 0.3, duration: 0.3, intensity: 0.5)
        ])
        let player = PatternPlayer(engine: engine, pattern: PatternRenderer().render(pattern))
        let start = clock.now
        player.start()
        clock.advance(by: .milliseconds(150))
        let full = output.output.level(at: clock.now)
        clock.advance(by: .milliseconds(300))
        let half = output.output.level(at: clock.now)
        clock.advance(by: .milliseconds(400))
        let rated = Double(limit.ratedOverride) / 127
        #expect(abs(full - rated) < 0.01, "full intensity drove \(full) of ABSMAX, rated is \(rated)")
        #expect(abs(half - rated / 2) < 0.02, "0.5 drove \(half) of ABSMAX")
        let lowest = output.output.samples.filter { $0.time >= start }.map(\.level).min() ?? 0
        let peak = output.output.peak(from: start, to: clock.now)
        #expect(lowest >= 0 && peak <= rated + 0.001, "drive from \(lowest) to \(peak) of ABSMAX: reversed, or above the rating")
        #expect(output.busyRefusals > 0 && driver.busyRetries == output.busyRefusals, "\(output.busyRefusals) refusals, \(driver.busyRetries) retries")
        #expect(output.output.level(at: clock.now) == 0 && output.effectCount == 0)
        // The rate bound: a ramp streamed at the engine's 200 steps a second reaches the device as
        // a new level at most every 10 ms (each is a moment without drive), and ends at its top.
        let ramp = try KernelVibratorDriver(output: output, clock: clock)
        let before = output.calls.count
        try ramp.beginRealTimePlayback()
        for step in 1...100 {
            try ramp.setRealTime(amplitude: Double(step) / 100)
            clock.advance(by: .milliseconds(5))
        }
        let plays = output.calls.dropFirst(before).filter { $0.call == "play" }.map(\.time)
        let closest = zip(plays, plays.dropFirst()).map { $1.duration(since: $0) }.min() ?? .zero
        #expect(plays.count >= 40 && closest >= .milliseconds(10), "\(plays.count) levels, two \(closest) apart")
        #expect(abs(output.output.level(at: clock.now) - rated) < 0.01)
        try ramp.endRealTimePlayback(standby: true)
        // An attack then a plateau: the plateau's level, held back by the rate bound when it first
        // came, is sent at the next step past the bound; the drive does not stick at the attack's.
        let plateau = try KernelVibratorDriver(output: output, clock: clock)
        try plateau.beginRealTimePlayback()
        try plateau.setRealTime(amplitude: 0.25)
        clock.advance(by: .milliseconds(5))
        try plateau.setRealTime(amplitude: 1)  // 5 ms after the last: held back
        #expect(abs(output.output.level(at: clock.now) - rated / 4) < 0.02)
        for _ in 0..<8 {
            clock.advance(by: .milliseconds(5))
            try plateau.setRealTime(amplitude: 1)
        }
        #expect(abs(output.output.level(at: clock.now) - rated) < 0.01, "the plateau stuck at \(output.output.level(at: clock.now)) of ABSMAX")
        try plateau.endRealTimePlayback(standby: true)
        // Linux's da7280 lists FF_GAIN with no handler: writing it is a NULL call in the kernel.
        #expect(!output.calls.contains { $0.call == "gain" }, "FF_GAIN written to a da7280")
        // Without a device tree, the chip's reset values (0x5A, 0x78); acceleration on: 127.
        #expect(DA7280OverrideLimit { _ in nil }.ratedOverride == 127 * 0x5A / 0x78)
        #expect(DA7280OverrideLimit { $0 == "dlg,acc-enable" ? [] : nil }.ratedOverride == 127)
        #expect(DA7280OverrideLimit { $0 == "dlg,acc-enable" ? [] : $0 == "dlg,actuator-type" ? Array("ERM-coin\0".utf8) : nil }.ratedOverride == 95)
    }

    /// A brake in the stream (a negative level: the reverse drive a click ends with on our own
    /// chips) is no drive on a kernel vibrator, which cannot brake: never forward drive as its size,
    /// which would make the tail longer, not shorter.
    @Test func aBrakeIsNoDriveNeverForwardDrive() throws {
        let output = SimulatedForceFeedbackOutput(name: "pwm-vibrator", clock: clock)
        let engine = try engine(output)
        let start = clock.now
        let clip = RealTimeClip(levels: [0.8, 0.8, 0.8, -0.6, -0.6, -0.6, 0])
        #expect(engine.play(plan: .realTime(clip), label: "a kick and a brake") == .played)
        clock.advance(by: .milliseconds(2))
        #expect(abs(output.output.level(at: clock.now) - 0.8) < 0.01)
        clock.advance(by: .milliseconds(100))
        let bursts = output.output.bursts(from: start, to: clock.now)
        #expect(bursts.count == 1, "\(bursts)")
        // Driven for the three kick steps alone (15 ms), nothing during the brake.
        let driven = bursts.first.map { $0.end.duration(since: $0.start) } ?? .zero
        #expect(driven >= .milliseconds(14) && driven <= .milliseconds(16), "driven for \(driven)")
        #expect(output.output.peak(from: start.advanced(by: .milliseconds(16)), to: clock.now) == 0)
    }

    /// A switched vibrator (gpio-vibrator: its motor fully on or off) is held on for the minimum
    /// on-time however short the tick, by the kernel's own replay length: a coin ERM then reaches
    /// most of its vibration, where the tick's own 10 ms hardly starts it. A longer drive is not
    /// lengthened, a stop while it plays switches it off at once, and a device without the rule
    /// is not held.
    @Test func aSwitchedVibratorsTickIsHeldOnForItsMinimumOnTime() throws {
        let minimum = KernelVibratorRules.switchedMinimumOnTime
        func tick(on name: String, levels: [Double] = [0.6, 0.6]) throws -> (on: Duration, peakG: Double, stops: [Duration]) {
            let output = SimulatedForceFeedbackOutput(name: name, clock: clock)
            output.switched = true
            let engine = try engine(output)
            let start = clock.now
            #expect(engine.play(plan: .realTime(RealTimeClip(levels: levels)), label: "a tick") == .played)
            clock.advance(by: .milliseconds(300))
            let bursts = output.output.bursts(from: start, to: clock.now)
            #expect(bursts.count == 1, "\(name): \(bursts)")
            let motion = ActuatorPhysics.coinERM.simulate(output.output, from: start, to: clock.now)
            let peak = motion.map { abs($0.accelerationG) }.max() ?? 0
            let stops = output.calls.filter { $0.call == "stop" }.map { $0.time.duration(since: start) }
            return (bursts.first.map { $0.end.duration(since: $0.start) } ?? .zero, peak, stops)
        }
        let held = try tick(on: "gpio-vibrator")
        #expect(held.on >= minimum - .milliseconds(1) && held.on <= minimum + .milliseconds(1), "on for \(held.on)")
        // The kernel ends the pulse (the effect was given the rest of the time as its length):
        // no stop was sent before it ended.
        #expect(held.stops.allSatisfy { $0 >= minimum }, "stops at \(held.stops)")
        let unheld = try tick(on: "regulator vibrator of no known driver")
        #expect(unheld.on >= .milliseconds(9) && unheld.on <= .milliseconds(11), "on for \(unheld.on)")
        #expect(held.peakG >= 0.5 && unheld.peakG < 0.25, "coin ERM peak \(held.peakG) g held, \(unheld.peakG) g for 10 ms")
        // 100 ms of drive is 100 ms.
        let long = try tick(on: "gpio-vibrator", levels: Array(repeating: 0.6, count: 20))
        #expect(long.on >= .milliseconds(99) && long.on <= .milliseconds(101), "on for \(long.on)")
        // A stop while the tick plays (a cancel, an error) switches it off at once.
        let output = SimulatedForceFeedbackOutput(name: "gpio-vibrator", clock: clock)
        output.switched = true
        let stopped = try engine(output)
        #expect(stopped.play(plan: .realTime(RealTimeClip(levels: [0.6, 0.6])), label: "a tick") == .played)
        clock.advance(by: .milliseconds(7))
        #expect(output.output.level(at: clock.now) == 1)
        stopped.stop()
        #expect(output.output.level(at: clock.now) == 0)
        clock.advance(by: .milliseconds(50))
        #expect(output.output.peak(from: clock.now.advanced(by: .milliseconds(-49)), to: clock.now) == 0)
        // A program that plays one tick and ends (`haptic play`) lets the held pulse finish before
        // it shuts the device down, and no longer.
        let ending = SimulatedForceFeedbackOutput(name: "gpio-vibrator", clock: clock)
        ending.switched = true
        let oneShot = try engine(ending)
        let began = clock.now
        #expect(oneShot.play(plan: .realTime(RealTimeClip(levels: [0.6, 0.6])), label: "a tick") == .played)
        clock.advance(by: .milliseconds(12))
        #expect(oneShot.shutdown())
        #expect(clock.now.duration(since: began) <= minimum + .milliseconds(1))
        clock.advance(by: .milliseconds(50))
        let pulse = ending.output.bursts(from: began, to: clock.now)
        #expect(pulse.count == 1 && pulse[0].end.duration(since: pulse[0].start) >= minimum - .milliseconds(1), "\(pulse)")
        #expect(ending.effectCount == 0)
    }

    /// Drivers by name: the ones the rules know read levels as their sources do; any other is
    /// treated conservatively (its gain left as it is, a new level at most every 10 ms).
    @Test func anUnknownDriverIsTreatedConservatively() throws {
        #expect(KernelVibratorRules.forDevice(named: "gpio-vibrator") { _ in nil }.minimumOnTime == KernelVibratorRules.switchedMinimumOnTime)
        #expect(KernelVibratorRules.forDevice(named: "pwm-vibrator") { _ in nil }.minimumOnTime == .zero)
        let rules = KernelVibratorRules.forDevice(named: "max77693-haptic") { _ in nil }
        #expect(rules == .unknownDriver && !rules.setsGain && rules.minimumUpdateInterval == .milliseconds(10))
        let output = SimulatedForceFeedbackOutput(name: "max77693-haptic", clock: clock)
        _ = try engine(output)
        #expect(!output.calls.contains { $0.call == "gain" }, "the gain of an unknown driver was written")
        let known = SimulatedForceFeedbackOutput(name: "pwm-vibrator", clock: clock)
        _ = try engine(known)
        #expect(known.calls.contains { $0.call == "gain" })
    }
}
