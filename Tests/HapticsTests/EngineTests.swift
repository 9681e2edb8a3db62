// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import Foundation
import HapticChip
import HapticEffects
import HapticsSimulation
import HardwareAccess
import HardwareAccessTesting
import Testing

@testable import Haptics

@Suite struct PowerStateMachineTests {
    @Test func preparedImpactIsExactlyOneTransaction() throws {
        let rig = try EngineRig()
        let generator = ImpactFeedbackGenerator(style: .heavy, engine: rig.engine)
        generator.prepare()
        rig.advance(.milliseconds(100))
        let before = rig.chip.transactionCount
        generator.impactOccurred()
        #expect(rig.chip.transactionCount - before == 1)
        #expect(rig.engine.statistics.lastTrigger.transactions == 1)
        #expect(rig.engine.statistics.lastTrigger.wireBytes == 3)
        #expect(rig.chip.trace.last?.written == [0x0C, 0x01])
    }

    @Test func triggerCostsFromStandbyAndFromShutdown() throws {
        let rig = try EngineRig(enable: true)
        rig.engine.play(.impact(.heavy))
        #expect(rig.engine.statistics.lastTrigger.transactions == 2)
        rig.advance(.seconds(40))  // idle: EN shutdown
        #expect(rig.engine.powerState == .shutdown)
        #expect(rig.enable?.level == false)
        rig.engine.play(.impact(.heavy))
        #expect(rig.engine.statistics.lastTrigger.transactions == 2)
        // Configuration restored after the wake, and the click plays.
        #expect(rig.chip.registers[.ratedVoltage] == 0x53)
        #expect(rig.chip.output.peak(to: rig.clock.now.advanced(by: .milliseconds(100))) == 1)
    }

    @Test func inTrigPinMakesAPreparedTriggerFreeOfI2C() throws {
        let rig = try EngineRig(trigger: true)
        let generator = SelectionFeedbackGenerator(engine: rig.engine)
        generator.prepare()
        rig.advance(.milliseconds(50))
        let before = rig.chip.transactionCount
        generator.selectionChanged()
        #expect(rig.chip.transactionCount == before)
        #expect(rig.chip.output.peak(from: rig.clock.now, to: rig.clock.now.advanced(by: .milliseconds(50))) > 0)
    }

    @Test func chipReturnsToStandbyRightAfterTheFeedback() throws {
        let rig = try EngineRig()
        let start = rig.clock.now
        rig.engine.play(.impact(.heavy))
        rig.advance(.seconds(1))
        #expect(rig.engine.powerState == .standby)
        // Awake no longer than the effect (60 ms) plus the 1 ms wake delay plus 5 ms.
        #expect(rig.engine.statistics.awakeSeconds <= 0.066)
        #expect(rig.chip.registers[.mode] == 0x40)
        _ = start
    }

    @Test func preparedStateTimesOut() throws {
        let rig = try EngineRig()
        rig.engine.prepare(.impact(.medium))
        #expect(rig.engine.powerState == .ready)
        rig.advance(.milliseconds(1900))
        #expect(rig.engine.powerState == .ready)
        rig.advance(.milliseconds(200))
        #expect(rig.engine.powerState == .standby)
    }

    @Test func prepareExtendsUpToTheCapThenIsIgnoredUntilATrigger() throws {
        let rig = try EngineRig()
        for _ in 0..<6 {
            rig.engine.prepare(.impact(.medium))
            rig.advance(.milliseconds(1900))
            #expect(rig.engine.powerState == .ready)
        }
        // 11.4 s after the first prepare: past the 10 s cap.
        rig.engine.prepare(.impact(.medium))
        rig.advance(.milliseconds(10))
        #expect(rig.engine.powerState == .standby)
        rig.engine.prepare(.impact(.medium))
        #expect(rig.engine.powerState == .standby)
        rig.engine.play(.impact(.medium))
        rig.advance(.seconds(1))
        rig.engine.prepare(.impact(.medium))
        #expect(rig.engine.powerState == .ready)
    }

    @Test func anEngineThatGoesAwayStopsItsActuator() throws {
        let clock = VirtualClock()
        let chip = SimulatedDRV2605(clock: clock)
        var engine: HapticEngine? = try HapticEngine(bus: chip, configuration: try DRV2605Configuration(.typicalLRA), clock: clock, options: .isolated)
        try engine?.withDriver { driver in
            try driver.beginRealTimePlayback()
            try driver.setRealTime(amplitude: 0.7)
        }
        engine?.play(.vibration(.default))
        clock.advance(by: .milliseconds(100))
        #expect(chip.output.level(at: clock.now) != 0)
        engine = nil
        #expect(chip.output.level(at: clock.now) == 0)
        #expect(chip.registers[.mode] & 0x40 != 0 && chip.registers[.realTimePlaybackInput] == 0)
    }

    @Test func releasingTheLastGeneratorEndsThePreparedState() throws {
        let rig = try EngineRig()
        var generator: ImpactFeedbackGenerator? = ImpactFeedbackGenerator(style: .light, engine: rig.engine)
        generator?.prepare()
        #expect(rig.engine.powerState == .ready)
        generator = nil
        #expect(rig.engine.powerState == .standby)
    }
}

@Suite struct PolicyTests {
    @Test func hapticsOffDropsEverythingWithoutTouchingTheBus() throws {
        var options = HapticEngine.Options()
        options.policy.enabled = false
        let rig = try EngineRig(options: options)
        let before = rig.chip.transactionCount
        rig.engine.play(.notification(.success))
        ImpactFeedbackGenerator(engine: rig.engine).impactOccurred()
        #expect(rig.chip.transactionCount == before)
        #expect(rig.engine.statistics.dropped == 2)
    }

    @Test func intensityScaleWeakensEveryFeedback() throws {
        let full = try EngineRig().measure(.notification(.success)).energy
        var options = HapticEngine.Options()
        options.policy.intensityScale = 0.5
        let half = try EngineRig(options: options).measure(.notification(.success)).energy
        #expect(half > 0)
        #expect(abs(half / full - 0.25) < 0.05)
    }

    @Test func fastSelectionIsCoalesced() throws {
        let rig = try EngineRig()
        let generator = SelectionFeedbackGenerator(engine: rig.engine)
        generator.selectionChanged()
        rig.advance(.milliseconds(10))
        generator.selectionChanged()
        rig.advance(.milliseconds(30))
        generator.selectionChanged()
        #expect(rig.engine.statistics.played == 2)
        #expect(rig.engine.statistics.dropped == 1)
    }

    @Test func rateLimitDropsTheExcess() throws {
        var options = HapticEngine.Options()
        options.policy.maximumFeedbackPerSecond = 5
        let rig = try EngineRig(options: options)
        for _ in 0..<8 {
            rig.engine.play(.impact(.light))
            rig.advance(.milliseconds(100))
        }
        #expect(rig.engine.statistics.played == 5)
        #expect(rig.engine.statistics.dropped == 3)
    }

    @Test func aNewNotificationPreemptsTheOldOne() throws {
        let rig = try EngineRig()
        rig.engine.play(.notification(.error))
        rig.advance(.milliseconds(30))
        rig.engine.play(.notification(.success))
        #expect(rig.chip.trace.suffix(3).first?.written == [0x0C, 0x00])
        rig.advance(.seconds(1))
        #expect(rig.engine.statistics.played == 2)
        // The error's later taps never play: the drive after 400 ms is zero.
        #expect(rig.chip.output.energy(from: rig.clock.now.advanced(by: .milliseconds(-600)), to: rig.clock.now) == 0)
    }

    @Test func aChipWithAFaultNeverThrowsIntoTheApp() throws {
        let rig = try EngineRig()
        rig.chip.disconnected = true
        rig.engine.play(.impact(.heavy))
        NotificationFeedbackGenerator(engine: rig.engine).notificationOccurred(.warning)
        #expect(rig.engine.statistics.dropped == 2)
        rig.chip.disconnected = false
        rig.engine.play(.impact(.heavy))
        #expect(rig.engine.statistics.played == 1)
    }

    @Test func theSystemPolicyFileCanOnlyMakeHapticsQuieter() throws {
        var app = HapticsPolicy()
        app.intensityScale = 0.8
        app.maximumFeedbackPerSecond = 10
        var system = HapticsPolicy()
        system.intensityScale = 0.5
        system.maximumFeedbackPerSecond = 40
        let combined = app.combined(with: system)
        #expect(combined.enabled && combined.intensityScale == 0.4 && combined.maximumFeedbackPerSecond == 10)
        system.enabled = false
        #expect(!app.combined(with: system).enabled)
        // A malformed file is an error naming it.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString).json").path
        try "{ \"enabled\": \"maybe\" }".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: PolicyFileError.self) { try HapticsPolicy.load(from: path) }
        try "{ \"enabled\": false }".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try HapticsPolicy.load(from: path).enabled == false)
        #expect(try HapticsPolicy.load(from: path + ".missing") == HapticsPolicy())
    }

    @Test func noEngineMeansSilentDrops() {
        HapticEngine.shared = nil
        ImpactFeedbackGenerator(style: .heavy).impactOccurred()
        SelectionFeedbackGenerator().selectionChanged()
    }
}

@Suite struct MappingPropertyTests {
    @Test(arguments: [ActuatorType.lra, .erm])
    func impactWeightsAreOrderedByEnergy(actuator: ActuatorType) throws {
        let rig = try EngineRig(actuator: actuator)
        let light = rig.measure(.impact(.light)).energy
        let medium = rig.measure(.impact(.medium)).energy
        let heavy = rig.measure(.impact(.heavy)).energy
        #expect(light > 0 && light < medium && medium < heavy)
    }

    @Test(arguments: [ActuatorType.lra, .erm])
    func intensityIsMonotone(actuator: ActuatorType) throws {
        let rig = try EngineRig(actuator: actuator)
        var last = 0.0
        for intensity in [0.1, 0.3, 0.5, 0.7, 0.9, 1.0] {
            let energy = rig.measure(.impact(.heavy, intensity: intensity)).energy
            #expect(energy > last, "intensity \(intensity)")
            last = energy
        }
    }

    /// A heavy impact is one push on either actuator (an ERM's used to be two clicks back to
    /// back, felt as a double click), and more than a medium one.
    @Test(arguments: [ActuatorType.lra, .erm])
    func aHeavyImpactIsOnePushStrongerThanMedium(actuator: ActuatorType) throws {
        let rig = try EngineRig(actuator: actuator)
        rig.advance(.seconds(1))
        let start = rig.clock.now
        rig.engine.play(.impact(.heavy))
        rig.advance(.seconds(1))
        #expect(rig.chip.output.bursts(from: start, to: rig.clock.now).count == 1)
        #expect(rig.measure(.impact(.heavy)).energy > rig.measure(.impact(.medium)).energy)
    }

    @Test(arguments: [ActuatorType.lra, .erm])
    func softStartsGentlerThanRigid(actuator: ActuatorType) throws {
        let rig = try EngineRig(actuator: actuator)
        let soft = try #require(rig.measure(.impact(.soft)).onset)
        let rigid = try #require(rig.measure(.impact(.rigid)).onset)
        #expect(soft > rigid)
    }

    /// Among Apple's feedback types (UIKit and SwiftUI). Piano's legacy Taptic Engine sounds are
    /// left out: "peek" and "cancelled" are documented as weak taps and are meant to be light.
    @Test(arguments: [ActuatorType.lra, .erm])
    func selectionIsTheShortestAndLightest(actuator: ActuatorType) throws {
        let rig = try EngineRig(actuator: actuator)
        let selection = rig.measure(.selection)
        for kind in FeedbackKind.all where kind != .selection {
            if case .taptic = kind { continue }
            let other = rig.measure(Feedback(kind: kind))
            #expect(selection.energy < other.energy, "\(kind)")
            #expect(selection.active <= other.active, "\(kind)")
        }
    }

    @Test(arguments: [ActuatorType.lra, .erm])
    func notificationsAreDistinctTimelines(actuator: ActuatorType) throws {
        let rig = try EngineRig(actuator: actuator)
        var timelines: [[Double]] = []
        for type in NotificationType.allCases {
            rig.advance(.seconds(3))
            rig.chip.clearOutput()
            let start = rig.clock.now
            rig.engine.play(.notification(type))
            rig.advance(.seconds(2))
            timelines.append(rig.chip.output.bursts(from: start, to: rig.clock.now).map { $0.start.duration(since: start).secondsDouble })
        }
        #expect(Set(timelines.map { $0.map { Int($0 * 1000) } }).count == 3)
    }

    @Test(arguments: [ActuatorType.lra, .erm])
    func noFeedbackReusesAnothersPlan(actuator: ActuatorType) {
        let table = FeedbackMapping.standard(for: actuator).table
        #expect(table.count == FeedbackKind.all.count)
        #expect(Set(table.values).count == table.count)
    }

    @Test func sensoryFeedbackCoversEverySwiftUICase() {
        let values: [SensoryFeedback] = [
            .success, .warning, .error, .selection, .increase, .decrease, .start, .stop,
            .alignment, .levelChange, .pathComplete, .impact,
            .impact(weight: .heavy, intensity: 0.5), .impact(flexibility: .soft)
        ]
        #expect(Set(values.map(\.feedback.kind)).count == 14)
        #expect(SensoryFeedback.impact(flexibility: .solid).feedback == .impact(.medium, intensity: 1))
        #expect(Feedback(name: "impact-heavy", intensity: 2)?.intensity == 1)
        #expect(Feedback(name: "taptic-try-again") == .taptic(.tryAgain))
    }
}

/// Whoever asks can see what became of a request: played, or dropped and why, with nothing left
/// running on the chip.
@Suite struct FeedbackOutcomeTests {
    @Test func aPlayedFeedbackSaysPlayedAndDrivesTheActuator() throws {
        let rig = try EngineRig()
        #expect(rig.engine.play(.impact(.heavy)) == .played)
        #expect(rig.chip.output.peak(from: rig.clock.now, to: rig.clock.now.advanced(by: .milliseconds(60))) > 0)
    }

    @Test func hapticsTurnedOffIsADropWithNoBusTraffic() throws {
        var options = HapticEngine.Options.isolated
        options.policy.enabled = false
        let rig = try EngineRig(options: options)
        let before = rig.chip.transactionCount
        guard case .dropped(.turnedOff) = rig.engine.play(.notification(.success)) else {
            Issue.record("expected a drop because haptics are off")
            return
        }
        #expect(rig.chip.transactionCount == before)
        #expect(rig.engine.statistics.dropped == 1)
    }

    @Test func theRateLimitAndSelectionCoalescingAreDrops() throws {
        var options = HapticEngine.Options.isolated
        options.policy.maximumFeedbackPerSecond = 2
        let rig = try EngineRig(options: options)
        #expect(rig.engine.play(.selection) == .played)
        #expect(rig.engine.play(.selection) == .dropped(.coalesced))
        rig.advance(.milliseconds(100))
        #expect(rig.engine.play(.impact(.light)) == .played)
        #expect(rig.engine.play(.impact(.light)) == .dropped(.rateLimited(perSecond: 2)))
        rig.advance(.seconds(1))
        #expect(rig.engine.play(.impact(.light)) == .played)
    }

    @Test func aBusFaultIsADropAndTheActuatorIsStopped() throws {
        let rig = try EngineRig()
        rig.chip.injectFaultOnNextTransaction(.fail(.busError))
        guard case .dropped(.fault) = rig.engine.play(.notification(.error)) else {
            Issue.record("expected a drop because of the bus fault")
            return
        }
        #expect(rig.chip.output.level(at: rig.clock.now) == 0)
        #expect(rig.chip.registers[.go] & 1 == 0)
        #expect(rig.engine.play(.impact(.medium)) == .played)
    }
}

@Suite struct CompletionTests {
    /// A chip whose GO never clears: the engine stops it at the effect's estimate plus the
    /// completion margin, and the chip goes back to standby.
    @Test func aGOThatNeverClearsIsStoppedAtTheCompletionDeadline() throws {
        let rig = try EngineRig()
        rig.chip.goStuck = true
        let estimate = try #require(rig.engine.mapping.plan(for: .notification(.warning))?.estimatedDuration)
        #expect(rig.engine.play(.notification(.warning)) == .played)
        let options = HapticEngine.Options()
        rig.advance(estimate * options.completionFactor + options.completionMargin - .milliseconds(20))
        #expect(rig.chip.registers[.go] & 1 == 1, "stopped before the deadline")
        rig.advance(.milliseconds(40))
        #expect(rig.chip.registers[.go] & 1 == 0, "GO still set past the deadline")
        #expect(rig.engine.powerState == .standby)
    }
}

@Suite struct EngineLifetimeTests {
    /// An engine on the real clock has a worker thread; letting go of the engine must free it (and
    /// the GPIO lines its driver holds) at once, or the app's next request of the same line is
    /// refused as busy. Before the fix the worker held the engine across its wait, up to 1 s.
    @Test func anEngineLetGoIsFreedAtOnceDespiteItsWorkerThread() throws {
        let chip = SimulatedDRV2605(clock: SystemClock.shared)
        weak var weakEngine: HapticEngine?
        do {
            let engine = try HapticEngine(
                bus: chip, configuration: DRV2605Configuration(actuator: .lra),
                clock: SystemClock.shared, options: .isolated)
            weakEngine = engine
            // Idle, nothing due soon: once the worker has gone to wait, it waits its longest (1 s).
            let worker = engine.worker
            let parked = SystemClock.shared.now.advanced(by: .seconds(2))
            while worker.waits == 0, SystemClock.shared.now < parked { Thread.sleep(forTimeInterval: 0.001) }
            #expect(worker.waits > 0)
            Thread.sleep(forTimeInterval: 0.005)
        }
        // The worker may be inside its timers at this instant; it must let go when they return.
        let deadline = SystemClock.shared.now.advanced(by: .milliseconds(300))
        while weakEngine != nil, SystemClock.shared.now < deadline { Thread.sleep(forTimeInterval: 0.001) }
        #expect(weakEngine == nil, "the engine outlived its last reference")
    }
}

/// Lower intensities of a single ROM effect play TI's own weaker variant when one matches, so the
/// chip keeps its waveform and a prepared trigger stays one write; otherwise a scaled stream.
@Suite struct WeakerVariantTests {
    @Test func tisVariantsAreFoundByName() {
        func variants(_ number: UInt8) -> [UInt8] { Effect(rawValue: number)?.weakerVariants.map(\.rawValue) ?? [] }
        #expect(variants(1) == [2, 3])  // Strong Click - 100% / 60% / 30%
        #expect(variants(17) == [18, 19, 20])  // Strong Click 1...4, a different series
        #expect(variants(47) == [48, 49, 50, 51])  // Buzz 1...5
        #expect(variants(24) == [25, 26])  // Sharp Tick 1...3
        #expect(variants(3).isEmpty)  // nothing weaker than the weakest
        #expect(variants(86).isEmpty)  // a ramp
        #expect(variants(16).isEmpty)  // 1000 ms Alert
    }

    @Test func aMatchingIntensityPlaysTheVariantOtherwiseAStream() throws {
        let rig = try EngineRig()
        // impact-heavy on an LRA is Strong Click - 100% (effect 1).
        #expect(rig.engine.mapping.plan(for: .impact(.heavy, intensity: 0.6)) == .rom(WaveformSequence(.strongClick60)))
        #expect(rig.engine.mapping.plan(for: .impact(.heavy, intensity: 0.32)) == .rom(WaveformSequence(.strongClick30)))
        guard case .realTime? = rig.engine.mapping.plan(for: .impact(.heavy, intensity: 0.45)) else {
            Issue.record("0.45 has no variant: expected a real-time stream")
            return
        }
        let weak = Feedback.impact(.heavy, intensity: 0.6)
        rig.engine.prepare(weak)
        rig.advance(.milliseconds(5))
        let before = rig.chip.transactionCount
        #expect(rig.engine.play(weak) == .played)
        #expect(rig.chip.transactionCount - before == 1)
        #expect(rig.chip.registers[.waveformSequence1] == 2)  // WAV_FRM_SEQ1 holds effect 2
    }
}

/// TI publishes no effect lengths, so ours are estimates. Completion follows GO clearing, so an
/// effect that really lasts twice (or half) the estimate plays to its end; one stuck far past it
/// is stopped (`CompletionTests`).
@Suite struct EffectLengthTests {
    @Test(arguments: [0.5, 2.0])
    func aWrongEstimateDoesNotCutTheEffect(scale: Double) throws {
        var chip = SimulatedDRV2605.Options()
        chip.effectLengthScale = scale
        let rig = try EngineRig(chipOptions: chip)
        let start = rig.clock.now
        #expect(rig.engine.play(.vibration(.default)) == .played)  // effect 16, estimated 1 s
        rig.advance(.seconds(4))
        let driven = rig.chip.output.activeSeconds(from: start, to: rig.clock.now)
        #expect(abs(driven - scale) < 0.05, "driven \(driven) s of an effect that lasts \(scale) s")
        #expect(rig.chip.registers[ModeRegister.self].standby, "standby once GO cleared")
        #expect(rig.engine.statistics.failures == 0)
    }
}
