// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// What every haptic driver chip must do for the engine, whatever the chip: the power states,
/// stopping, a real-time drive stream, and its status and faults. Small on purpose, as Zephyr's
/// haptics API is (start and stop required, the rest optional): a chip module conforms its
/// driver to this and to the optional capabilities it has (`EffectLibraryPlayback`), and the
/// engine plans from what is there. A feedback a chip cannot play from a library of its own is
/// played as the stream (`setRealTime(amplitude:)`), never refused.
///
/// Not thread-safe: one owner (the engine) serializes calls. Every call that waits on the chip
/// has a deadline on `clock`; on an error during playback the driver leaves the actuator stopped
/// if it can before it throws.
public protocol HapticChipDriver: AnyObject {
    /// What every wait and poll deadline is measured on.
    var clock: any HapticClock { get }
    /// The power state as the driver last left the chip.
    var power: HapticPowerState { get }
    /// When playback may start after leaving standby (a chip's wake delay).
    var readyInstant: ClockInstant { get }
    /// Whether the chip can be shut down (its enable line is wired), below standby.
    var canShutDown: Bool { get }
    /// Whether the chip is in its real-time stream mode (between `beginRealTimePlayback` and
    /// `endRealTimePlayback`).
    var isStreaming: Bool { get }
    /// How often to ask `playbackStatus()` while something plays.
    var pollInterval: Duration { get }
    /// Chip resets noticed behind the driver's back (a brown-out) and repaired.
    var resetsDetected: Int { get }
    /// Errors `stopQuietly()` got past with a harder stop, so that they are counted somewhere.
    var suppressedErrors: Int { get }

    /// Out of standby (and out of shutdown), ready to play.
    func wake() throws(HapticChipError)
    /// Into standby: low power, settings kept.
    func enterStandby() throws(HapticChipError)
    /// Into shutdown where the enable line is wired, else standby.
    func shutdown() throws(HapticChipError)
    /// Stops whatever the chip plays; the actuator is not driven after it returns.
    func stop() throws(HapticChipError)
    /// Stops by whatever still works (a stop, zero drive, standby, the enable line), never
    /// throwing: for error and exit paths.
    func stopQuietly()

    /// Enters the real-time stream mode, out of standby, at zero drive.
    func beginRealTimePlayback() throws(HapticChipError)
    /// Drives the actuator at `amplitude`, −1...1 of full scale (negative: brake where the chip can).
    func setRealTime(amplitude: Double) throws(HapticChipError)
    /// The levels `setRealTime(amplitude:)` really drives: −1...1 where a negative level brakes
    /// (reverse phase), 0...1 where the chip clamps it to zero. Players mixed into one stream are
    /// each limited to it before they are summed, so that a brake that would do nothing alone does
    /// not cut another player's drive. A default of 0...1 (never braking) is given.
    var realTimeLevels: ClosedRange<Double> { get }
    /// Zero drive, leaves the stream mode, and into standby when `standby` is true.
    func endRealTimePlayback(standby: Bool) throws(HapticChipError)

    /// What the chip says now: whether it is still playing something it was started on, and
    /// its faults. Also where a driver notices a chip reset behind its back.
    func playbackStatus() throws(HapticChipError) -> HapticChipStatus
    /// Clears latched faults (a reset where that is the chip's only way) and restores the
    /// configuration, so the next feedback plays.
    func clearFaults() throws(HapticChipError)
    /// After something the chip played on its own ended: lets go of what started it (a
    /// DRV2605's IN/TRIG level). Nothing to do on most chips.
    func finishPlayback() throws(HapticChipError)
    /// What the chip's registers say now about power and drive: how a program checks, after it
    /// played, that the actuator really stopped and the chip really sleeps.
    func readBack() throws(HapticChipError) -> HapticChipReadBack
}

/// What `HapticChipDriver.playbackStatus()` read.
public struct HapticChipStatus: Sendable, Equatable {
    /// The chip is still playing an effect or sequence it was started on.
    public var playing: Bool
    /// The chip reported over-current (a short, or an actuator of too low impedance).
    public var overCurrent: Bool
    /// The chip reported over-temperature.
    public var overTemperature: Bool
    /// The chip sensed no back-EMF where it drove (a DA7280's actuator fault): the actuator is
    /// open, loose or stuck.
    public var actuatorFault: Bool
    /// The supply fell below the chip's under-voltage lock-out (a DA7280's E_UVLO): the chip went
    /// idle and drives nothing until the event is cleared.
    public var underVoltage: Bool
    /// The chip could not play a sequence from its waveform memory (a DA7280's E_SEQ_FAULT: a bad
    /// sequence number, memory or PWM input); it went idle until the event is cleared.
    public var sequenceFault: Bool
    /// The chip warned but kept driving (a DA7280's E_WARNING: drive limited, or the temperature
    /// warning below the critical one). Logged, never treated as a fault.
    public var warning: Bool
    /// What the warning was, for the log (a DA7280's diagnosis: "drive limited (E_LIM_DRIVE)").
    public var warningDetail: String?
    /// The read found the chip reset behind the driver's back (a brown-out), and the driver
    /// restored its configuration: whatever it was playing was cut short.
    public var resetDetected: Bool

    /// A status as a driver read it (no faults unless given).
    public init(
        playing: Bool, overCurrent: Bool = false, overTemperature: Bool = false, actuatorFault: Bool = false,
        underVoltage: Bool = false, sequenceFault: Bool = false, warning: Bool = false, warningDetail: String? = nil,
        resetDetected: Bool = false
    ) {
        self.warningDetail = warningDetail
        self.resetDetected = resetDetected
        self.playing = playing
        self.overCurrent = overCurrent
        self.overTemperature = overTemperature
        self.actuatorFault = actuatorFault
        self.underVoltage = underVoltage
        self.sequenceFault = sequenceFault
        self.warning = warning
    }

    /// Any fault: the chip stopped driving.
    public var hasFault: Bool { overCurrent || overTemperature || actuatorFault || underVoltage || sequenceFault }
    /// The fault as an error, for the log: the one that says most about what to do.
    public var fault: HapticChipError {
        if overCurrent || overTemperature { return .fault(overCurrent: overCurrent, overTemperature: overTemperature) }
        if actuatorFault { return .actuatorFault }
        if underVoltage { return .underVoltage }
        if sequenceFault { return .sequenceFault }
        return .fault(overCurrent: false, overTemperature: false)
    }
}

/// An optional capability: a library of effects in the chip (the DRV2605's ROM, a RAM or waveform
/// memory), played in sequences the chip runs by itself, so a prepared feedback is one write (or
/// none, with a trigger pin). `Sequence` is the chip's own description of what to play; the
/// feedback mapping that produces it is the chip module's.
public protocol EffectLibraryPlayback<Sequence>: HapticChipDriver {
    /// What the chip plays from its library (the DRV2605's `WaveformSequence`).
    associatedtype Sequence
    /// Loads `sequence` and wakes the chip, so the trigger that follows is as short as it can be.
    func prepare(_ sequence: Sequence) throws(HapticChipError)
    /// Plays `sequence` (loading it first when it is not already loaded).
    func play(_ sequence: Sequence) throws(HapticChipError)
    /// Whether `sequence` is loaded and the chip waits only for a trigger that any chip of a
    /// group could be sent at once (a DRV2605's GO broadcast through a switch).
    func isArmed(for sequence: Sequence) -> Bool
    /// Books a trigger that something else sent (a broadcast), as `play` would have.
    func noteExternalTrigger()
}

/// An optional capability: drive shapes the chip holds in memory of its own (a DA7280's waveform
/// memory, written at start-up), each played on one trigger. The engine asks whether the chip
/// holds a clip it is about to stream, and plays it from there when it does: the same feedback,
/// one write instead of one a tick. What the chip does not hold is streamed as before.
public protocol StoredWaveformPlayback: HapticChipDriver {
    /// The stored waveform that plays `levels` (−1...1, one every `tick`), if the chip holds one.
    func storedWaveform(levels: [Double], tick: Duration) -> StoredWaveform?
    /// Selects `waveform` and wakes the chip, so that the trigger that follows is one write.
    func prepare(_ waveform: StoredWaveform) throws(HapticChipError)
    /// Plays `waveform` (selecting it first when it is not selected); `playbackStatus()` says
    /// `playing` until it ends, and `finishPlayback()` is called then.
    func play(_ waveform: StoredWaveform) throws(HapticChipError)
}

/// A waveform a chip holds (`StoredWaveformPlayback`).
public struct StoredWaveform: Sendable, Hashable {
    /// The chip's number for it (a DA7280's sequence id).
    public var index: Int
    /// How long the chip plays it.
    public var duration: Duration

    public init(index: Int, duration: Duration) {
        self.index = index
        self.duration = duration
    }
}

extension HapticChipDriver {
    /// Negative levels clamp to zero: the safe reading for a chip that does not say.
    public var realTimeLevels: ClosedRange<Double> { 0...1 }
}
