// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import HapticChip
import HapticEffects
import Haptics
import HardwareAccess
import HardwareAccessTesting
import HardwareSimulation
import Testing

/// What a cell of a fault matrix needs of its rig, whatever the chip: the fault-injecting bus, the
/// engine on it, its virtual clock, and whether the actuator is stopped.
protocol FaultMatrixRig: AnyObject, SendableMetatype {
    var clock: VirtualClock { get }
    var faults: FaultInjectingBus { get }
    var engine: HapticEngine { get }
    /// What the actuator was driven with, over time.
    var output: ActuatorRecord { get }
    /// Nothing drives the actuator now or in the next 50 ms.
    var actuatorStopped: Bool { get }
}

extension FaultMatrixRig {
    /// Everything the engine reports going wrong: drops, chip faults, and failures met with no
    /// caller to throw to.
    var reportedErrors: Int {
        let statistics = engine.statistics
        return statistics.dropped + statistics.faults + statistics.failures
    }
}

/// A simulated chip behind a fault-injecting bus (optionally behind a TCA9548A, with EN and
/// IN/TRIG lines), an engine on it and a virtual clock: one fresh rig per cell of the matrix.
final class FaultRig: FaultMatrixRig {
    let clock = VirtualClock()
    let chip: SimulatedDRV2605
    let faults: FaultInjectingBus
    let enable: RecordingGPIOLine?
    let trigger: RecordingGPIOLine?
    let engine: HapticEngine

    init(
        enable: Bool = false, trigger: Bool = false, multiplexed: Bool = false,
        options: HapticEngine.Options = .isolated
    ) throws {
        chip = SimulatedDRV2605(clock: clock)
        self.enable = enable ? chip.makeEnableLine() : nil
        self.trigger = trigger ? chip.makeTriggerLine() : nil
        let engineBus: any I2CBus
        if multiplexed {
            // Faults hit the channel selects as well as the chip's own transactions.
            let mux = SimulatedTCA9548A()
            mux.attach(chip, channel: 2)
            faults = FaultInjectingBus(mux)
            engineBus = try #require(TCA9548A(parent: faults).channel(2))
        } else {
            faults = FaultInjectingBus(chip)
            engineBus = faults
        }
        var options = options
        options.shutdownAfterIdle = .milliseconds(400)
        engine = try HapticEngine(
            bus: engineBus, configuration: try DRV2605Configuration(.typicalLRA),
            enableLine: self.enable, triggerLine: self.trigger, clock: clock, options: options)
    }

    var output: ActuatorRecord { chip.output }

    /// Nothing drives the actuator now or in the next 50 ms: GO clear, and no level scheduled
    /// (a ROM waveform in flight or an RTP value held).
    var actuatorStopped: Bool {
        chip.advance()
        return chip.registers[.go] & 1 == 0
            && chip.output.peak(from: clock.now, to: clock.now.advanced(by: .milliseconds(50))) == 0
    }
}

/// One operation of the matrix, driven step by step so that the state can be checked right after
/// the step in which a fault fired, not after the actuator would have stopped by itself.
struct FaultedOperation<Rig: FaultMatrixRig>: CustomStringConvertible, Sendable {
    let name: String
    /// A fresh rig brought to just before the operation.
    let prepare: @Sendable () throws -> Rig
    /// Runs the operation to its end. `step` is called after each call into the library with
    /// whether that call reported a failure to its caller (a throw, a drop, a failed outcome).
    let run: @Sendable (Rig, _ step: (Bool) -> Void) -> Void
    /// The operation again, fault-free: true when it worked.
    let recovers: @Sendable (Rig) -> Bool

    var description: String { name }
}

/// Runs the engine's timers until it is idle, reporting each timer step. Time is moved with
/// `sleep(until:)`, which runs no scheduled work, so each step is this function's own call.
func settle(_ rig: some FaultMatrixRig, for duration: Duration = .seconds(2), _ step: (Bool) -> Void) {
    let end = rig.clock.now.advanced(by: duration)
    while true {
        let errorsBefore = rig.reportedErrors
        let next = rig.engine.runDueWork()
        step(rig.reportedErrors > errorsBefore)
        guard let next, next <= end else { break }
        rig.clock.sleep(until: max(next, rig.clock.now.advanced(byNanoseconds: 1)))
    }
}

func playsAndStops(_ rig: some FaultMatrixRig, _ feedback: Feedback = .impact(.heavy)) -> Bool {
    let start = rig.clock.now
    guard rig.engine.play(feedback) == .played else { return false }
    settle(rig) { _ in }
    return rig.output.peak(from: start, to: rig.clock.now) > 0 && rig.actuatorStopped
}

let realTimeClip = PatternRenderer(strategy: .realTime).render(
    HapticPattern(events: [
        .init(type: .hapticContinuous, time: 0, duration: 0.05, intensity: 0.5),
        .init(type: .hapticContinuous, time: 0.05, duration: 0.05, intensity: 1.0)
    ]))

func streams(_ rig: some FaultMatrixRig, step: (Bool) -> Void) -> PatternPlayer.Outcome? {
    let player = PatternPlayer(engine: rig.engine, pattern: realTimeClip)
    player.start()
    while true {
        let errorsBefore = rig.reportedErrors
        let next = player.pump()
        step(rig.reportedErrors > errorsBefore || (player.outcome.map { $0 != .finished } ?? false))
        guard let next else { break }
        rig.clock.sleep(until: max(next, rig.clock.now.advanced(byNanoseconds: 1)))
    }
    settle(rig, step)
    return player.outcome
}

/// A feedback played on a rig that `prepare` made, then the engine's timers until idle.
func feedbackOperation<Rig>(_ name: String, _ feedback: Feedback, prepare: @escaping @Sendable () throws -> Rig) -> FaultedOperation<Rig> {
    FaultedOperation(
        name: name, prepare: prepare,
        run: { rig, step in
            step(rig.engine.play(feedback) != .played)
            settle(rig, step)
        }, recovers: { playsAndStops($0) })
}

/// A pattern streamed by a `PatternPlayer` on a rig that `prepare` made.
func patternStreamOperation<Rig>(_ name: String, prepare: @escaping @Sendable () throws -> Rig) -> FaultedOperation<Rig> {
    FaultedOperation(
        name: name, prepare: prepare,
        run: { rig, step in
            _ = streams(rig, step: step)
        }, recovers: { rig in streams(rig) { _ in } == .finished && rig.actuatorStopped })
}

/// The engine's clean-up (`shutdown()`) 30 ms into a long feedback, on a rig that `make` made.
func cleanUpWhilePlayingOperation<Rig>(_ name: String, make: @escaping @Sendable () throws -> Rig) -> FaultedOperation<Rig> {
    FaultedOperation(
        name: name,
        prepare: {
            let rig = try make()
            rig.engine.play(.vibration(.default))
            rig.clock.advance(by: .milliseconds(30))
            return rig
        },
        run: { rig, step in
            let errorsBefore = rig.reportedErrors
            step(!rig.engine.shutdown() || rig.reportedErrors > errorsBefore)
        }, recovers: { playsAndStops($0) })
}

/// A rig whose engine was asked to prepare `feedback` (awake, slots loaded).
private func preparedRig(_ feedback: Feedback, trigger: Bool = false) throws -> FaultRig {
    let rig = try FaultRig(trigger: trigger)
    rig.engine.prepare(feedback)
    rig.clock.advance(by: .milliseconds(5))
    return rig
}

let faultedOperations: [FaultedOperation<FaultRig>] = [
    feedbackOperation("ROM play from standby", .notification(.warning)) { try FaultRig() },
    feedbackOperation("prepared trigger", .impact(.heavy)) { try preparedRig(.impact(.heavy)) },
    feedbackOperation("prepared trigger through IN/TRIG", .impact(.heavy)) { try preparedRig(.impact(.heavy), trigger: true) },
    feedbackOperation("play behind a TCA9548A", .notification(.success)) { try FaultRig(multiplexed: true) },
    feedbackOperation("EN wake from shutdown", .notification(.error)) {
        let rig = try FaultRig(enable: true)
        settle(rig, for: .seconds(1)) { _ in }  // idle: EN low
        return rig
    },
    patternStreamOperation("RTP stream") { try FaultRig() },
    FaultedOperation(
        name: "calibration", prepare: { try FaultRig() },
        run: { rig, step in
            do {
                _ = try rig.engine.withDriver { try $0.calibrate() }
                step(false)
            } catch { step(true) }
        }, recovers: { rig in ((try? rig.engine.withDriver { try $0.calibrate() }) != nil) && rig.actuatorStopped }),
    FaultedOperation(
        name: "diagnostics", prepare: { try FaultRig() },
        run: { rig, step in
            do {
                let verdict = try rig.engine.withDriver { try $0.diagnose() }
                step(verdict != .fine)
            } catch { step(true) }
        }, recovers: { rig in (try? rig.engine.withDriver { try $0.diagnose() }) == .fine && rig.actuatorStopped }),
    cleanUpWhilePlayingOperation("clean-up while playing") { try FaultRig(enable: true) }
]

/// Every transaction of a fault-free run of each operation, failed in turn in each way a bus
/// fails. Right after the call in which the fault fired: the actuator is stopped and the caller
/// was told (or the operation still completed correctly, as when a NACK during reset is retried).
/// Then the same operation, fault-free, works.
@Suite struct FaultMatrixTests {
    static let faultKinds: [FaultInjectingBus.Fault] = [
        .lost(.noAcknowledge), .lost(.busError), .acknowledgeLost(.noAcknowledge)
    ]

    @Test(arguments: faultedOperations)
    func everyTransactionFailedInTurn(operation: FaultedOperation<FaultRig>) throws {
        try failEveryTransaction(of: operation, in: Self.faultKinds)
    }
}

/// The matrix for one operation: its transactions counted on a clean run (which must report
/// nothing: a matrix whose clean run reports a failure could not see a fault go untold), then each
/// failed in turn in each way of `kinds`.
func failEveryTransaction<Rig>(of operation: FaultedOperation<Rig>, in kinds: [FaultInjectingBus.Fault]) throws {
    let clean = try operation.prepare()
    let first = clean.faults.count
    var cleanReports: [Int] = []
    var call = 0
    operation.run(clean) { reported in
        if reported { cleanReports.append(call) }
        call += 1
    }
    let transactions = clean.faults.count - first
    #expect(transactions > 0, "\(operation): the operation made no transactions")
    #expect(cleanReports.isEmpty, "\(operation): the fault-free run reported a failure at calls \(cleanReports)")
    #expect(clean.reportedErrors == 0 && clean.actuatorStopped, "\(operation): the fault-free run reported errors or left the actuator driven")
    for kind in kinds {
        for index in 0..<transactions {
            let rig = try operation.prepare()
            let target = rig.faults.count + index
            rig.faults.inject(kind, at: target)
            var checked = false
            var reported = false
            operation.run(rig) { callReported in
                reported = reported || callReported
                guard !checked, rig.faults.fired.contains(target) else { return }
                checked = true
                #expect(
                    rig.actuatorStopped,
                    "\(operation): \(kind) at transaction \(index) of \(transactions): actuator driven right after the failing call")
            }
            #expect(checked, "\(operation): the fault at \(index) never fired")
            #expect(rig.actuatorStopped, "\(operation): \(kind) at \(index): actuator driven at the end")
            let completed = operation.recovers(rig)
            #expect(completed, "\(operation): \(kind) at \(index): the next call did not recover")
            #expect(reported, "\(operation): \(kind) at \(index) of \(transactions): the caller was not told")
        }
    }
}

/// The same for the GPIO lines: each EN or IN/TRIG `set` of an operation refused in turn.
@Suite struct GPIOFaultMatrixTests {
    @Test(arguments: [GPIOError.Kind.lineBusy, .permissionDenied, .other])
    func everyPinChangeFailedInTurn(kind: GPIOError.Kind) throws {
        func rig() throws -> FaultRig {
            let rig = try FaultRig(enable: true, trigger: true)
            settle(rig, for: .seconds(1)) { _ in }  // EN shutdown
            return rig
        }
        func operation(_ rig: FaultRig) -> [Bool] {
            var reports: [Bool] = []
            let errorsBefore = rig.reportedErrors
            rig.engine.prepare(.impact(.heavy))  // EN high, configuration, slots loaded
            reports.append(rig.reportedErrors > errorsBefore)
            rig.clock.sleep(for: .milliseconds(5))  // time passes; the timers run only in settle
            reports.append(rig.engine.play(.impact(.heavy)) != .played)  // an IN/TRIG pulse
            settle(rig) { reports.append($0) }  // standby, then EN low after idle
            return reports
        }
        let clean = try rig()
        let enableBefore = clean.enable?.setCalls ?? 0
        let triggerBefore = clean.trigger?.setCalls ?? 0
        #expect(!operation(clean).contains(true))
        let lines: [(String, KeyPath<FaultRig, RecordingGPIOLine?>, Int)] = [
            ("EN", \.enable, (clean.enable?.setCalls ?? 0) - enableBefore),
            ("IN/TRIG", \.trigger, (clean.trigger?.setCalls ?? 0) - triggerBefore)
        ]
        for (name, line, calls) in lines {
            #expect(calls > 0, "\(name) never changed")
            for index in 0..<calls {
                let rig = try rig()
                let pin = try #require(rig[keyPath: line])
                pin.failSet(at: pin.setCalls + index, with: kind)
                let reports = operation(rig)
                #expect(reports.contains(true), "\(name) set \(index) failed (\(kind)) and nobody was told")
                #expect(rig.actuatorStopped, "\(name) set \(index) failed (\(kind)): actuator driven")
                #expect(playsAndStops(rig), "\(name) set \(index) failed (\(kind)): no recovery")
            }
        }
    }
}

/// Start-up (creating an engine: identify, reset, configuration, standby) with each of its
/// transactions failed in turn: the caller gets the error or a started engine, nothing drives the
/// actuator, and a second start-up on the same bus works.
@Suite struct StartupFaultMatrixTests {
    @Test(arguments: FaultMatrixTests.faultKinds)
    func everyStartupTransactionFailedInTurn(kind: FaultInjectingBus.Fault) throws {
        func start(_ bus: FaultInjectingBus, _ clock: VirtualClock) throws -> HapticEngine {
            try HapticEngine(
                bus: bus, configuration: try DRV2605Configuration(.typicalLRA),
                clock: clock, options: .isolated)
        }
        let cleanClock = VirtualClock()
        let clean = FaultInjectingBus(SimulatedDRV2605(clock: cleanClock))
        let cleanEngine = try start(clean, cleanClock)
        let transactions = clean.count
        #expect(transactions >= 5)
        #expect(clean.fired.isEmpty && cleanEngine.statistics.faults + cleanEngine.statistics.failures == 0, "the fault-free start-up reported a failure")
        for index in 0..<transactions {
            let clock = VirtualClock()
            let chip = SimulatedDRV2605(clock: clock)
            let bus = FaultInjectingBus(chip)
            bus.inject(kind, at: index)
            let started = try? start(bus, clock)
            #expect(bus.fired == [index])
            chip.advance()
            #expect(
                chip.registers[.go] & 1 == 0 && chip.output.peak(from: .zero, to: clock.now.advanced(by: .milliseconds(50))) == 0,
                "\(kind) at start-up transaction \(index): the actuator was driven")
            if let started {
                // Carried on (a NACK while the chip resets is retried): it must really be configured.
                #expect(
                    chip.registers[.ratedVoltage] == 0x53 && chip.registers[.mode] & 0x40 != 0,
                    "\(kind) at start-up transaction \(index): started without the configuration or standby")
                #expect(started.play(.impact(.heavy)) == .played)
            }
            let again: HapticEngine
            do { again = try start(bus, clock) } catch {
                Issue.record("\(kind) at \(index): \(error)")
                continue
            }
            #expect(again.play(.impact(.heavy)) == .played, "\(kind) at \(index): a second start-up did not recover")
        }
    }
}
