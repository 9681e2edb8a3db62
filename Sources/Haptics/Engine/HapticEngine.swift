// SPDX-License-Identifier: Apache-2.0

import Foundation
import HapticChip
import HapticEffects
import HardwareAccess
import Logging

/// One engine per chip: it owns the driver, serializes every request, manages power the way iOS
/// manages the Taptic Engine (quick when prepared, asleep otherwise) and applies system policy.
///
/// Feedback calls never throw ("trust the system"): a request that cannot be met — haptics off,
/// rate limited, chip faulted or gone — is dropped with one log line. Creating the engine,
/// loading files and the driver escape hatch do throw. Thread-safe; calls are short (bus writes
/// only) and never wait for a feedback to finish.
public final class HapticEngine: Sendable {
    /// The power state machine's timings, the policy, the mapping and the driver's options.
    public struct Options: Sendable {
        /// How long `prepare()` keeps the chip ready (Apple: "on the order of seconds").
        public var preparedDuration: Duration = .seconds(2)
        /// Repeated `prepare()` calls extend the ready state up to this long after the first one;
        /// past it they are ignored until something is triggered (as Apple documents).
        public var prepareCap: Duration = .seconds(10)
        /// After this long without feedback the chip goes to EN shutdown (when EN is wired).
        public var shutdownAfterIdle: Duration = .seconds(30)
        /// Extra time to wait for GO to clear beyond `completionFactor` × an effect's estimated length.
        public var completionMargin: Duration = .milliseconds(500)
        /// Completion follows GO clearing; only a GO still set after this many times the estimated
        /// length (plus `completionMargin`) counts as stuck and is stopped. Generous, because TI
        /// publishes no effect lengths and ours are estimates: a real effect twice as long as
        /// estimated still plays to its end.
        public var completionFactor = 3.0
        /// The app's own policy. The system policy file (`HapticsPolicy.defaultPath`) is combined
        /// with it at start-up when `readsSystemPolicy` is set: it can only make haptics quieter.
        public var policy = HapticsPolicy()
        /// Whether the system policy file is read at start-up (tests turn it off: `isolated`).
        public var readsSystemPolicy = true
        /// `nil`: the standard table for the actuator.
        public var mapping: FeedbackMapping?
        /// The defaults: iOS-like power timings, the policy file combined, the standard mapping.
        public init() {}

        /// The defaults without the system policy file: for tests (of this package or an app's
        /// own), which must not change behaviour with the machine they run on.
        public static var isolated: Options {
            var options = Options()
            options.readsSystemPolicy = false
            return options
        }
    }

    /// What an app may ask about, as Core Haptics' `capabilitiesForHardware()`.
    public struct Capabilities: Sendable, Equatable {
        /// A chip answered and was configured: feedback can be felt.
        public var supportsHaptics: Bool
        /// The chip found, as its module names it ("DRV2605L").
        public var chip: String
        /// What the chip is configured to drive.
        public var actuator: ActuatorType
        /// The library effects come from, as the chip's module names it (a DRV2605's "TS2200
        /// library A"); nil for a chip without one, whose effects are streamed.
        public var library: String?
        /// Closed loop (back-EMF) or open loop.
        public var loop: LoopMode
        /// Real-time (RTP) playback, used by patterns: available on every part.
        public var supportsRealTimePlayback: Bool
        /// IN/TRIG is wired, so a prepared trigger needs no bus write.
        public var hasTriggerPin: Bool
        /// EN is wired, so the chip can be shut down when idle.
        public var hasEnablePin: Bool

        /// What a chip module found at start-up.
        public init(
            supportsHaptics: Bool = true, chip: String, actuator: ActuatorType, library: String? = nil,
            loop: LoopMode, supportsRealTimePlayback: Bool = true, hasTriggerPin: Bool, hasEnablePin: Bool
        ) {
            self.supportsHaptics = supportsHaptics
            self.chip = chip
            self.actuator = actuator
            self.library = library
            self.loop = loop
            self.supportsRealTimePlayback = supportsRealTimePlayback
            self.hasTriggerPin = hasTriggerPin
            self.hasEnablePin = hasEnablePin
        }
    }

    /// Counters for `--json`, the benchmark and tests.
    public struct Statistics: Sendable, Equatable {
        /// Every transaction so far, with wire bytes and errors.
        public var bus = BusCounters()
        /// The bus cost of the last trigger alone (from the request to playback starting).
        public var lastTrigger = BusCounters()
        /// Feedbacks triggered on the chip.
        public var played = 0
        /// Feedbacks not played (policy, rate limit, coalescing, a fault): see `FeedbackOutcome`.
        public var dropped = 0
        /// Total time the chip spent out of standby.
        public var awakeSeconds = 0.0
        /// Times the chip was found reset behind the engine's back (a brown-out) and reconfigured.
        public var resetsDetected = 0
        /// Warnings the chip raised while it still drove (a DA7280's drive limited, its
        /// temperature warning), each logged.
        public var warnings = 0
        /// Faults the chip reported (over-current, over-temperature, an actuator fault, an
        /// under-voltage, a sequence it could not play), each also logged and cleared.
        public var faults = 0
        /// The last of them: what a program that played a feedback tells its user when the chip
        /// stopped during it.
        public var lastFault: HapticChipError?
        /// Bus or GPIO errors met outside a request, where there is no caller to throw to: the
        /// completion check, the return to standby, the idle shutdown, a stop that needed a
        /// harder fallback. Each is also logged; the chip was stopped by whatever still worked.
        public var failures = 0
    }

    /// The clock the engine's timers run on (a `VirtualClock` in tests).
    public let clock: any HapticClock
    /// What this chip can do, found at start-up.
    public let capabilities: Capabilities
    let core: Locked<EngineCore>
    /// The engine's timers (completion, return to standby, idle shutdown, real-time clips), run by
    /// the clock: a thread on a real clock, the test's `advance` on a virtual one.
    let worker: ScheduledWork
    /// What must live as long as the engine drives its chip: the chip's claim (its lock and its
    /// dead-man guard, `HardwareProvider.claim`), which a program that keeps only the engine of
    /// the board it opened would otherwise give up with the board.
    let held = Locked<[any ChipOwnership]>([])

    /// Keeps `ownership` until the engine goes.
    package func hold(_ ownership: any ChipOwnership) {
        held.withLock { $0.append(ownership) }
    }

    /// An engine for any chip: `driver`, started by its own module, driven through the
    /// chip-neutral `HapticChipDriver`; `library` when the chip plays effects from a library of its
    /// own (without one, every plan is played as the stream); `mapping`, the chip module's table of
    /// what each feedback plays; `bus`, the bus the driver talks through, as the engine counts it
    /// for `statistics` (nil for a device on no bus the engine sees: a kernel vibrator). Timers
    /// run on the driver's clock.
    public init(
        driver: any HapticChipDriver, library: (any EffectLibraryPlayback<WaveformSequence>)? = nil, capabilities: Capabilities,
        mapping: FeedbackMapping, bus: MonitoredBus?, options: Options = Options(), logger: Logger = Logger(label: "haptics")
    ) {
        clock = driver.clock
        self.capabilities = capabilities
        var options = options
        if options.readsSystemPolicy {
            do {
                if let system = try HapticsPolicy.loadSystemPolicy() { options.policy = options.policy.combined(with: system) }
            } catch {
                logger.error("haptics: \(error); using the app's policy alone")
            }
        }
        core = Locked(EngineCore(driver: driver, library: library, bus: bus, mapping: mapping, options: options, logger: logger))
        // The step reaches the engine through a weak reference set below, once the engine exists:
        // an app that lets go of its engine gets it (and its GPIO lines) released at once, not
        // when the worker next wakes (seen: the next request of the same line got EBUSY).
        let engineForWorker = Locked(WeakEngine())
        worker = clock.schedule(WorkOptions(name: "haptics-engine", waitsForWake: true)) {
            engineForWorker.withLock { $0.engine }?.runDueWork()
        }
        engineForWorker.withLock { $0.engine = self }
        ExitGuard.register(self)
    }

    /// An engine that goes away stops its actuator and puts the chip to sleep first.
    deinit {
        worker.cancel()
        core.withLock { $0.stopAll(standby: true) }
    }

    // MARK: - Feedback

    /// Plays a feedback now. Never throws; drops it with a log line if it cannot be played, and
    /// says so in the result for callers that care (a command-line tool, a service's client).
    @discardableResult
    public func play(_ feedback: Feedback) -> FeedbackOutcome {
        let outcome = withCore { $0.play(feedback) }
        finish()
        return outcome
    }

    /// Plays a SwiftUI-style feedback value: `engine.play(sensory: .impact(weight: .heavy))`.
    /// (Labelled, because `.selection`, `.success` and friends name both a `Feedback` and a
    /// `SensoryFeedback`, and an unlabelled call would be ambiguous.)
    @discardableResult
    public func play(sensory feedback: SensoryFeedback) -> FeedbackOutcome { play(feedback.feedback) }

    /// Plays a plan directly (patterns, sequences, board-file overrides).
    @discardableResult
    public func play(plan: FeedbackPlan, label: String) -> FeedbackOutcome {
        // At the policy's intensity scale, as every feedback is (a weaker ROM variant or a stream).
        let outcome = withCore { $0.play(plan: plan.scaled(by: $0.options.policy.intensityScale), label: label, selection: false) }
        finish()
        return outcome
    }

    /// Wakes the chip and preloads what `feedback` plays, so the trigger that follows is one GO
    /// write (or one IN/TRIG edge). See `Options.preparedDuration` and `prepareCap`.
    public func prepare(_ feedback: Feedback, holder: ObjectIdentifier? = nil) {
        withCore { $0.prepare(feedback, holder: holder) }
        worker.wake()
    }

    /// A generator that held the prepared state is gone; with no holder left the chip may sleep.
    public func releasePreparation(holder: ObjectIdentifier) {
        withCore { $0.release(holder: holder) }
        worker.wake()
    }

    /// Stops whatever plays and puts the chip in standby. Never throws.
    public func stop() {
        withCore { $0.stopAll(standby: true) }
    }

    /// Stops the actuator and lowers EN (or standby): for exit paths and signal handlers.
    /// Returns false when the final standby or EN write failed: the chip may still be driving.
    @discardableResult
    public func shutdown() -> Bool {
        worker.cancel()
        return withCore { core in
            core.stopAll(standby: true)
            defer { core.noteAwake(false) }
            do {
                try core.driver.shutdown()
                return true
            } catch {
                core.logger.error("haptics: could not shut the chip down: \(error)")
                return false
            }
        }
    }

    /// Runs the timers (return to standby, idle shutdown, real-time clips) due at `clock.now`.
    /// The clock calls it (a worker thread, or a virtual clock's `advance`); call it yourself to
    /// run what is due without moving time.
    @discardableResult
    public func runDueWork() -> ClockInstant? {
        withCore { $0.tick() }
    }

    /// Blocks until nothing plays (for the CLI and scripts). On a virtual clock the timers run
    /// meanwhile and time moves to each of their deadlines.
    public func waitUntilIdle(timeout: Duration = .seconds(35)) {
        _ = clock.wait(until: { !withCore { $0.isBusy } }, timeout: timeout)
    }

    /// The counters now, the current awake stretch included.
    public var statistics: Statistics { withCore { $0.statistics } }
    /// Shutdown (EN low), standby or ready, as the driver last left the chip.
    public var powerState: HapticPowerState { withCore { $0.driver.power } }
    /// What each feedback plays on this actuator.
    public var mapping: FeedbackMapping { withCore { $0.mapping } }
    /// The policy in force (the app's combined with the system's).
    public var policy: HapticsPolicy {
        withCore { $0.options.policy }
    }
    /// Replaces the policy (e.g. a settings screen's haptics switch); it is not combined again.
    public func setPolicy(_ policy: HapticsPolicy) { withCore { $0.options.policy = policy } }
    /// Replaces the mapping (e.g. a board file's overrides, or an app's own table).
    public func setMapping(_ mapping: FeedbackMapping) { withCore { $0.mapping = mapping } }
    /// What this chip plays for `feedback`: the mapping's plan at the policy's intensity scale, as
    /// a stream (`FeedbackPlan.streamed`) where the chip has no ROM effect library. Nil: unmapped.
    public func plan(for feedback: Feedback) -> FeedbackPlan? {
        withCore { core in core.mapping.plan(for: feedback, scale: core.options.policy.intensityScale).map(core.playable) }
    }

    /// For groups: whether a broadcast GO would play `feedback` here, and the bookkeeping after one.
    func readyForBroadcast(_ feedback: Feedback) -> Bool { withCore { $0.readyForBroadcast(feedback) } }
    func noteBroadcastTrigger(_ feedback: Feedback) {
        withCore { $0.noteBroadcastTrigger(feedback) }
        worker.wake()
    }
    /// Whether the chip plays effects from a library of its own (a DRV2605's ROM); without one,
    /// every plan and pattern is streamed.
    /// Whether the chip has a library of effects it plays by itself (a DRV2604 has none: its
    /// feedback and patterns stream).
    public var hasEffectLibrary: Bool { withCore { $0.library != nil } }
    /// How this chip renders a stream's sharpness: the band of drive frequencies it maps sharpness
    /// to (`DriveFrequencyControl`), or nil and why not (an ERM, a closed-loop-only part, a chip
    /// with no frequency to set).
    public var sharpnessRendering: (band: DriveFrequencyBand?, unavailable: String) {
        withCore { core in
            guard let frequency = core.frequency else {
                return (nil, "this chip has no drive frequency to set: its actuator is driven at its own resonance")
            }
            return (frequency.driveFrequencyBand, frequency.driveFrequencyUnavailable)
        }
    }
    /// When the chip can start playing (after the wake delay once it left standby).
    var readyInstant: ClockInstant { withCore { $0.driver.readyInstant } }

    /// Hands the chip to a pattern player until `endExclusive`; stops whatever plays.
    func beginExclusive() -> UInt64 { withCore { $0.beginExclusive() } }

    /// Whether a pattern may start now under the policy (nil) or why not; an admitted pattern
    /// counts as one trigger against the rate limit, a refused one as a dropped feedback.
    func admitPattern(label: String, countsAsTrigger: Bool) -> DropReason? {
        withCore { $0.admitPattern(label: label, countsAsTrigger: countsAsTrigger) }
    }

    /// Runs `body` with the driver if `token` still owns the chip; `nil` when it was taken back
    /// (a newer feedback preempted the player, or `stop()` was called).
    func withExclusive<T>(_ token: UInt64, _ body: (EngineCore) throws -> T) throws -> T? {
        try core.withLock { core in
            guard core.owns(token) else { return nil }
            defer { core.noteAwake(core.driver.power == .ready) }  // a pattern's time counts as awake
            return try body(core)
        }
    }

    /// Whether `token` still owns the chip.
    func owns(_ token: UInt64) -> Bool { withCore { $0.owns(token) } }

    /// Gives the chip back after exclusive playback: output zero, back to standby.
    func endExclusive(_ token: UInt64) {
        withCore { $0.endExclusive(token) }
        worker.wake()
    }

    /// Direct access to whatever chip the engine drives, through the chip-neutral protocol,
    /// serialized with everything else (a read-back after playing).
    public func withChip<T>(_ body: (any HapticChipDriver) throws -> T) rethrows -> T {
        try core.withLock { core in try body(core.driver) }
    }

    func withCore<T>(_ body: (EngineCore) -> T) -> T {
        core.withLock { body($0) }
    }

    /// New work for the timers (a clip to play, a standby to schedule): run them now.
    private func finish() {
        worker.wake()
    }
}

/// The engine as its timers' step sees it: weakly, so the step never keeps an engine alive.
struct WeakEngine {
    weak var engine: HapticEngine?
}
