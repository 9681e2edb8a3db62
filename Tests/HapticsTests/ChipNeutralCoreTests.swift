// SPDX-License-Identifier: Apache-2.0

import DRV2605
import HapticChip
import HapticEffects
import HardwareAccess
import HardwareAccessTesting
import Logging
import Testing

@testable import Haptics

/// A chip with the required core of `HapticChipDriver` only (power states, stop, the stream,
/// status): no effect library, no DRV2605 anywhere. What it was told is recorded on the clock.
final class StreamOnlyChip: HapticChipDriver {
    let clock: any HapticClock
    var power: HapticPowerState = .standby
    var readyInstant: ClockInstant = .zero
    let canShutDown = false
    var isStreaming = false
    let pollInterval: Duration = .milliseconds(5)
    let resetsDetected = 0
    var suppressedErrors = 0
    /// Every drive level set, with when (a stop or the end of the stream records 0).
    var drive: [(time: ClockInstant, level: Double)] = []
    /// Makes the stream write with this index (0 = the first) fail, as a bus error would.
    var failingWrite: Int?
    private var writes = 0

    init(clock: any HapticClock) { self.clock = clock }

    private func record(_ level: Double) { drive.append((clock.now, level)) }

    func wake() throws(HapticChipError) { power = .ready }
    func enterStandby() throws(HapticChipError) { power = .standby }
    func shutdown() throws(HapticChipError) {
        record(0)
        power = .standby
    }
    func stop() throws(HapticChipError) { record(0) }
    func stopQuietly() {
        record(0)
        isStreaming = false
        power = .standby
    }
    func beginRealTimePlayback() throws(HapticChipError) {
        power = .ready
        isStreaming = true
        record(0)
    }
    func setRealTime(amplitude: Double) throws(HapticChipError) {
        defer { writes += 1 }
        if writes == failingWrite { throw .bus(I2CError(.noAcknowledge, operation: "write", detail: "planted")) }
        record(amplitude)
    }
    func endRealTimePlayback(standby: Bool) throws(HapticChipError) {
        record(0)
        isStreaming = false
        if standby { power = .standby }
    }
    func playbackStatus() throws(HapticChipError) -> HapticChipStatus { HapticChipStatus(playing: false) }
    func clearFaults() throws(HapticChipError) {}
    func finishPlayback() throws(HapticChipError) {}
    func readBack() throws(HapticChipError) -> HapticChipReadBack {
        HapticChipReadBack(standby: power != .ready, driving: (drive.last?.level ?? 0) != 0)
    }
}

/// The engine's core drives any chip through `HapticChipDriver`: on a chip with only the required
/// core, every feedback plays as the stream, ends at zero drive and in standby, and a failed write
/// leaves the actuator stopped and the request reported as dropped.
@Suite struct ChipNeutralCoreTests {
    let clock = VirtualClock()
    let chip: StreamOnlyChip
    let core: EngineCore

    init() {
        chip = StreamOnlyChip(clock: clock)
        core = EngineCore(
            driver: chip, library: nil, bus: MonitoredBus(ExpectationBus([]), clock: clock), mapping: .standard(for: .lra),
            options: .isolated, logger: Logger(label: "test"))
    }

    /// Runs the core's timers until nothing is due, the way the engine's worker would.
    func runTimers() {
        while let next = core.tick() {
            clock.advance(to: max(next, clock.now.advanced(by: .microseconds(1))))
        }
    }

    @Test func everyFeedbackPlaysAsTheStreamOnAChipWithoutALibrary() {
        for kind in FeedbackKind.all {
            clock.advance(by: .seconds(2))
            chip.drive.removeAll()
            let start = clock.now
            let feedback = Feedback(kind: kind)
            guard case .realTime(let clip)? = core.mapping.plan(for: feedback).map(core.playable) else {
                Issue.record("\(kind): not planned as a stream")
                continue
            }
            #expect(core.play(feedback) == .played, "\(kind)")
            runTimers()
            #expect(chip.drive.contains { $0.level != 0 }, "\(kind): never driven")
            #expect(chip.drive.last?.level == 0, "\(kind): left driving")
            #expect(!chip.isStreaming && chip.power == .standby, "\(kind): not back in standby")
            let lastDriven = chip.drive.last { $0.level != 0 }?.time ?? start
            #expect(lastDriven.duration(since: start) < clip.duration, "\(kind): driven past its clip")
        }
        #expect(core.statistics.dropped == 0)
    }

    @Test func aFailedWriteStopsTheActuatorAndDropsTheRequest() {
        chip.failingWrite = 2
        #expect(core.play(.notification(.success)) == .played)  // the first sample went out
        runTimers()
        #expect(chip.drive.last?.level == 0, "left driving after the failed write")
        #expect(!chip.isStreaming)
        #expect(core.statistics.dropped == 1, "the failure was not reported")
    }

    /// A whole engine made from a chip-neutral driver: feedback, a pattern rendered for ROM clicks,
    /// a sequence with an effect note, all played as the stream, and the chip left at zero drive.
    @Test func anEngineOnAChipWithOnlyTheCorePlaysEverything() {
        let engine = HapticEngine(
            driver: chip, capabilities: .init(chip: "a stream-only chip", actuator: .lra, loop: .open, hasTriggerPin: false, hasEnablePin: false),
            mapping: .standard(for: .lra), bus: MonitoredBus(ExpectationBus([]), clock: clock), options: .isolated)
        #expect(engine.capabilities.library == nil)
        #expect(engine.play(.impact(.heavy)) == .played)
        clock.advance(by: .milliseconds(500))
        #expect(chip.drive.contains { $0.level != 0 } && chip.drive.last?.level == 0 && chip.power == .standby)

        chip.drive.removeAll()
        let clicks = PatternRenderer(strategy: .rom).render(
            HapticPattern(events: [.init(type: .hapticTransient, time: 0), .init(type: .hapticTransient, time: 0.2)]))
        let player = PatternPlayer(engine: engine, pattern: clicks)
        player.start(at: clock.now)
        #expect(player.runToCompletion() == .finished)
        #expect(chip.drive.filter { $0.level != 0 }.count > 2, "the clicks were not streamed")
        #expect(chip.drive.last?.level == 0)

        chip.drive.removeAll()
        let sequence = SequencePlayer(engine: engine, notes: [.feedback(.selection), .wait(0.1), .effect(.strongClick100)])
        sequence.start()
        #expect(sequence.runToCompletion() == .finished)
        clock.advance(by: .milliseconds(200))
        #expect(chip.drive.contains { $0.level != 0 } && chip.drive.last?.level == 0 && !chip.isStreaming)
        #expect(engine.statistics.dropped == 0)
        #expect(engine.shutdown())
    }
}

/// What the firmware's flash budget changed in the shared core keeps its meaning on Linux.
@Suite struct SharedCoreTests {
    @Test func feedbackKindsCompareAndHashByTheirPlaceInTheTable() {
        for (index, kind) in FeedbackKind.all.enumerated() {
            #expect(kind.ordinal == index, "\(kind.name)")
            #expect(Feedback(name: kind.name)?.kind == kind)
        }
        #expect(Set(FeedbackKind.all).count == 23)
        #expect(FeedbackKind.impact(.light) != FeedbackKind.impact(.medium))
        #expect(Feedback(name: "IMPACT-Heavy")?.kind == .impact(.heavy))
    }

    @Test func readBackDetailsCompareByNameNotOrder() {
        let one: HapticChipReadBack.Details = ["go": .bool(true), "rtp": .int(3)]
        let other: HapticChipReadBack.Details = ["rtp": .int(3), "go": .bool(true)]
        #expect(one == other)
        #expect(one["rtp"] == .int(3))
        #expect(one["mode"] == nil)
        #expect(one != ["go": .bool(true)])
        #expect(one != ["go": .bool(false), "rtp": .int(3)])
        #expect(Array(one.map { $0.0 }) == ["go", "rtp"])
    }
}
