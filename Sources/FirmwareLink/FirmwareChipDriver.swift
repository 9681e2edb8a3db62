// SPDX-License-Identifier: Apache-2.0

import DRV2605
import Dispatch
import Foundation
import HapticChip
import HapticEffects
import Haptics
import HardwareAccess

/// The chip on a microcontroller that runs the haptics firmware (Firmware/), driven through its
/// serial protocol as if it were on this machine's bus: what lets `hapticd --device serial:PORT`
/// serve the microcontroller's actuator with the whole engine (policies, patterns, sequences,
/// feedbackd's API, force feedback).
///
/// The firmware does the real-time part: a ROM sequence plays with `rom` (the firmware checks
/// its end and puts the chip in standby), and a real-time clip that fits one command line is
/// uploaded and streamed from the firmware's timer (`pattern`, levels in whole percent), and a
/// pattern is uploaded as designed and rendered there (`upload`, `start`: the same renderer as
/// here). What the firmware cannot hold (a pattern too long for its memory) is streamed from here
/// one level a command (`level`), each held on the microcontroller until the next.
///
/// Nothing outlives this process: while something plays, a timer here sends `ping` every
/// `keepAlive` (half a second), so that when the process dies the firmware's link watchdog
/// (2 s by default) stops the actuator.
public final class FirmwareChipDriver: HapticChipDriver, EffectLibraryPlayback, StoredWaveformPlayback, PatternRenderingDevice, @unchecked Sendable {
    /// The firmware's link.
    public let device: FirmwareDevice
    /// What the firmware said about itself when this driver was made.
    public let firmware: FirmwareDevice.Status
    /// This machine's clock, the engine's (the firmware keeps its own).
    public let clock: any HapticClock

    private let state = NSLock()
    private var powerState: HapticPowerState
    private var ready: ClockInstant
    private var streaming = false
    /// Whether the firmware plays a sequence or clip it was given (until its `done`).
    private var firmwarePlays = false
    /// What the firmware said went wrong while something played, until `clearFaults()`.
    private var failure: String?
    private var armed: WaveformSequence?
    private var suppressed = 0
    /// The `pattern` commands of the clips `storedWaveform` accepted, by index: the firmware
    /// takes a clip's levels when it plays it, so they are kept here until then (the latest few).
    private var clips: [Int: String] = [:]
    private var nextClip = 0
    private var keepAlive: (any DispatchSourceTimer)?
    /// The actuator this driver tells the firmware, at start and again after each reset.
    public let actuator: FirmwareActuator?
    /// Resets of the microcontroller seen (its `hello` line), and whether the actuator is still
    /// to be told since the last.
    private var resets = 0
    private var actuatorOwed = false

    /// The driver for the firmware behind `device`; asks for its status (the check that it
    /// answers and has a chip). `actuator`: the motor on the firmware's chip, told before the
    /// status and again after every reset of the board, whose firmware then starts as the coin
    /// LRA (nil: the firmware's own, as it reports it). `keepAlive`: how often to ping while
    /// something plays, well under the firmware's link watchdog (2 s unless it was told otherwise).
    public init(
        device: FirmwareDevice, actuator: FirmwareActuator? = nil, clock: any HapticClock = SystemClock.shared, keepAlive: Duration = .milliseconds(500)
    ) throws(HapticChipError) {
        self.device = device
        self.actuator = actuator
        self.clock = clock
        do {
            if let actuator { try device.setActuator(actuator) }
            firmware = try device.status()
        } catch {
            throw .remote(error.description)
        }
        guard firmware.chip != "none" else {
            throw .remote(
                "the firmware on \(device.line.name) (board \(firmware.board)) found no chip. Hint: check the chip's wiring to the board (SDA, SCL, power), then reset the board")
        }
        powerState = HapticPowerState(rawValue: firmware.power) ?? .standby
        ready = clock.now
        device.unsolicited = { [weak self] line in self?.heard(line) }
        let timer = DispatchSource.makeTimerSource(queue: .global())
        let interval = max(1, Int(keepAlive.nanoseconds / 1_000_000))
        timer.schedule(deadline: .now() + .milliseconds(interval), repeating: .milliseconds(interval))
        timer.setEventHandler { [weak self] in self?.pingWhilePlaying() }
        timer.resume()
        self.keepAlive = timer
    }

    deinit { keepAlive?.cancel() }

    /// The chip's power state as the firmware last reported it or was told.
    public var power: HapticPowerState { state.withLock { powerState } }
    /// When the chip was last woken (the firmware answers `wake` once it is awake).
    public var readyInstant: ClockInstant { state.withLock { ready } }
    /// The firmware keeps its chip powered (standby is its lowest state).
    public var canShutDown: Bool { false }
    /// Whether levels are being sent a command each (`level`).
    public var isStreaming: Bool { state.withLock { streaming } }
    /// A status request's round trip is about a millisecond at 115200 baud.
    public var pollInterval: Duration { .milliseconds(5) }
    /// Resets of the microcontroller seen: the firmware's `hello` line, which it sends when it
    /// starts.
    public var resetsDetected: Int { state.withLock { resets } }
    /// Stops and pings that failed without a caller to tell.
    public var suppressedErrors: Int { state.withLock { suppressed } }

    /// A line the firmware sent on its own: what played ended, or the board started again
    /// (nothing plays, nothing is armed, the chip in standby, the actuator the coin LRA).
    private func heard(_ line: String) {
        state.withLock {
            if line.hasPrefix("hello haptics-firmware") {
                resets += 1
                actuatorOwed = actuator != nil
                firmwarePlays = false
                streaming = false
                armed = nil
                powerState = .standby
            } else if line.hasPrefix("done ") {
                firmwarePlays = false
                // The firmware leaves the chip in standby after a sequence or clip.
                powerState = .standby
            } else if line.hasPrefix("error ") {
                firmwarePlays = false
                streaming = false
                powerState = .standby
                failure = line
            }
        }
    }

    private func pingWhilePlaying() {
        guard state.withLock({ streaming || firmwarePlays }) else { return }
        do {
            try device.send("ping", expecting: "ok ping")
        } catch {
            state.withLock { suppressed += 1 }
        }
    }

    /// One command and its answer; a failure as a chip error that says what to do.
    @discardableResult
    private func send(_ command: String, expecting prefix: String) throws(HapticChipError) -> String {
        try tellActuatorAfterReset()
        do {
            return try device.send(command, expecting: prefix)
        } catch {
            throw .remote(error.description)
        }
    }

    /// Before a command: a board that was reset since the last (its `hello` already arrived)
    /// is told the actuator again, so that nothing plays on the coin LRA's settings.
    private func tellActuatorAfterReset() throws(HapticChipError) {
        guard let actuator else { return }
        do {
            try device.takeArrivedLines()
            guard state.withLock({ actuatorOwed }) else { return }
            try device.setActuator(actuator)
            state.withLock { actuatorOwed = false }
        } catch {
            throw .remote(error.description)
        }
    }

    private func setPower(_ value: HapticPowerState) {
        state.withLock {
            if value == .ready && powerState != .ready { ready = clock.now }
            powerState = value
        }
    }

    /// Wakes the chip (`wake`).
    public func wake() throws(HapticChipError) {
        try send("wake", expecting: "ok wake")
        setPower(.ready)
    }

    /// Nothing plays any more and the chip is in standby, as the firmware leaves it after `stop`
    /// and `standby`.
    private func settledInStandby() {
        state.withLock {
            streaming = false
            firmwarePlays = false
            armed = nil
        }
        setPower(.standby)
    }

    /// Stops what plays and puts the chip in standby (`standby`).
    public func enterStandby() throws(HapticChipError) {
        try send("standby", expecting: "ok standby")
        settledInStandby()
    }

    /// The firmware's lowest state is standby (it keeps the chip's EN high).
    public func shutdown() throws(HapticChipError) { try enterStandby() }

    /// Stops the actuator now (`stop`); the firmware leaves the chip in standby.
    public func stop() throws(HapticChipError) {
        try send("stop", expecting: "ok stop")
        settledInStandby()
    }

    /// `stop()`, counting a failure instead of throwing it.
    public func stopQuietly() {
        do { try stop() } catch { state.withLock { suppressed += 1 } }
    }

    /// Streaming starts with the first level, which the firmware holds until the next.
    public func beginRealTimePlayback() throws(HapticChipError) {
        state.withLock { streaming = true }
        setPower(.ready)
    }

    /// Drives `amplitude` (-1...1) until the next level (`level`, in millionths).
    public func setRealTime(amplitude: Double) throws(HapticChipError) {
        let clamped = amplitude.isFinite ? min(1, max(-1, amplitude)) : 0
        // Millionths: far finer than the chip's drive step, so the firmware's driver writes the
        // byte this machine's would have.
        let millionths = Int((clamped * 1_000_000).rounded())
        try send("level \(millionths)", expecting: "ok level")
        state.withLock { streaming = true }
    }

    /// Ends the stream (`level end`), and puts the chip in standby when asked.
    public func endRealTimePlayback(standby: Bool) throws(HapticChipError) {
        try send("level end", expecting: "ok level end")
        state.withLock { streaming = false }
        if standby { try enterStandby() }
    }

    /// Whether the firmware still plays what it was given (`status`); what the firmware said went
    /// wrong while it played (`error playback`, `error link-lost`) is thrown, once.
    public func playbackStatus() throws(HapticChipError) -> HapticChipStatus {
        let status = try firmwareStatus()
        let reported: String? = state.withLock {
            if status.playing == nil { firmwarePlays = false }
            defer { failure = nil }
            return failure
        }
        if let reported { throw .remote(FirmwareDevice.refusal(reported).description) }
        return HapticChipStatus(playing: state.withLock { firmwarePlays })
    }

    private func firmwareStatus() throws(HapticChipError) -> FirmwareDevice.Status {
        let status: FirmwareDevice.Status
        do {
            status = try device.status()
        } catch {
            throw .remote(error.description)
        }
        if let reported = HapticPowerState(rawValue: status.power) { setPower(reported) }
        return status
    }

    /// A failure the firmware reported is thrown once by `playbackStatus()`; nothing else to clear.
    public func clearFaults() throws(HapticChipError) { state.withLock { failure = nil } }

    /// The firmware ends its playback itself (the chip back in standby).
    public func finishPlayback() throws(HapticChipError) { state.withLock { firmwarePlays = false } }

    /// The firmware's status as the engine's read-back: board, chip, power, what plays, the port.
    public func readBack() throws(HapticChipError) -> HapticChipReadBack {
        let status = try firmwareStatus()
        return HapticChipReadBack(
            standby: status.power != HapticPowerState.ready.rawValue, driving: status.playing != nil,
            details: [
                "board": .text(status.board), "chip": .text(status.chip), "power": .text(status.power), "playing": .text(status.playing ?? "-"),
                "port": .text(device.line.name)
            ])
    }

    // MARK: The chip's effect library, through the firmware

    private static func slotWords(_ sequence: WaveformSequence) -> String {
        sequence.steps.map { String($0.slotByte) }.joined(separator: " ")
    }

    /// Loads `sequence` and wakes the chip (`arm`), so that playing it is one GO on the board.
    public func prepare(_ sequence: WaveformSequence) throws(HapticChipError) {
        try send("arm " + Self.slotWords(sequence), expecting: "ok arm")
        state.withLock { armed = sequence }
        setPower(.ready)
    }

    /// Plays `sequence` from the chip's ROM (`rom`); its end comes back as `done rom`.
    public func play(_ sequence: WaveformSequence) throws(HapticChipError) {
        state.withLock {
            armed = nil
            failure = nil
        }
        try send("rom " + Self.slotWords(sequence), expecting: "ok rom")
        state.withLock { firmwarePlays = true }
        setPower(.ready)
    }

    /// Whether `sequence` was armed and the chip is still awake.
    public func isArmed(for sequence: WaveformSequence) -> Bool {
        state.withLock { armed == sequence && powerState == .ready }
    }

    /// The board has no IN/TRIG line this machine could pulse.
    public func noteExternalTrigger() {}

    // MARK: Clips streamed from the firmware's timer

    /// The firmware's command line (240 bytes) bounds an uploaded clip; a longer one, or a tick
    /// that is not whole milliseconds from 1 to 100, is streamed from here instead (nil).
    public func storedWaveform(levels: [Double], tick: Duration) -> StoredWaveform? {
        let nanoseconds = tick.nanoseconds
        guard !levels.isEmpty, nanoseconds % 1_000_000 == 0, (1...100).contains(nanoseconds / 1_000_000) else { return nil }
        let command = FirmwareDevice.patternCommand(levels: levels, tickMilliseconds: Int(nanoseconds / 1_000_000))
        guard command.utf8.count < Self.lineLimit else { return nil }
        // The firmware ends a clip at zero drive, one tick more when its last level is not 0.
        let count = command.hasSuffix(" 0") ? levels.count : levels.count + 1
        return state.withLock {
            nextClip += 1
            clips[nextClip] = command
            clips = clips.filter { $0.key > nextClip - 8 }
            return StoredWaveform(index: nextClip, duration: tick * count)
        }
    }

    /// The firmware's longest command line, newline excluded.
    static let lineLimit = 240

    /// Nothing can be uploaded ahead (the firmware takes a clip and plays it at once): wakes the chip.
    public func prepare(_ waveform: StoredWaveform) throws(HapticChipError) { try wake() }

    /// Uploads the clip `storedWaveform(levels:tick:)` kept and starts it on the firmware's timer
    /// (`pattern`); its end comes back as `done pattern`.
    public func play(_ waveform: StoredWaveform) throws(HapticChipError) {
        guard let command = state.withLock({ clips[waveform.index] }) else {
            throw .invalidArgument("waveform \(waveform.index) was not made by this driver's storedWaveform(levels:tick:)")
        }
        state.withLock {
            armed = nil
            failure = nil
        }
        try send(command, expecting: "ok pattern")
        state.withLock { firmwarePlays = true }
        setPower(.ready)
    }

    // MARK: Patterns rendered on the firmware

    /// The firmware renders as this build does by default: 200 steps a second, ROM clicks for a
    /// pattern of transients alone.
    public var deviceRenderer: PatternRenderer { PatternRenderer(rate: 200, strategy: .automatic) }

    /// Uploads `pattern` and starts it on the firmware's timer (`upload`, `start`); its end comes
    /// back as `done pattern`. Nil when the firmware refuses it as `too-long` (nothing plays).
    public func startRendering(_ pattern: HapticPattern) throws(HapticChipError) -> Duration? {
        state.withLock {
            armed = nil
            failure = nil
        }
        try tellActuatorAfterReset()
        let started: FirmwareDevice.Rendering
        do {
            started = try device.startPattern(pattern)
        } catch {
            if case .refused(kind: "too-long", _) = error { return nil }
            throw .remote(error.description)
        }
        state.withLock { firmwarePlays = true }
        setPower(.ready)
        return started.length
    }
}
