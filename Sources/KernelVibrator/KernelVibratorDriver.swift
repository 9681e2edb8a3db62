// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HardwareAccess

/// A vibrator that Linux drives itself, through its force-feedback device (drv260x bound by a
/// device-tree overlay, da7280, pwm-vibrator, gpio-vibrator: a phone's, a Pi's): the engine's
/// drive stream rendered into one effect, uploaded at zero, played until stopped, and updated in
/// place with each level, as the kernel lets a client update a playing effect.
///
/// The effect is the device's most direct: FF_CONSTANT where listed (da7280: a level), else
/// FF_RUMBLE (ff-memless devices: the strong motor's magnitude), else FF_PERIODIC (its magnitude,
/// which ff-memless drives a single motor with). Each update is an upload and a play (da7280
/// applies a new level only on a play; ff-memless takes either). The stream's rate is the
/// engine's (200 updates a second for patterns): a device's driver writes each on its own
/// schedule (ff-memless: at once, in a work item).
///
/// Levels are absolute: the gain is set to full at open, and a rumble's magnitude is scaled to the
/// device's full scale (`rumbleFullScale`: drv260x writes the magnitude's high byte into a
/// signed RTP register, so 0x7FFF of 0xFFFF is its full drive; a magnitude above it would wrap
/// to braking). There is no standby to enter or leave here: the kernel's driver powers its chip
/// down when nothing plays; `enterStandby` and `shutdown` stop and erase the effect.
public final class KernelVibratorDriver: HapticChipDriver {
    /// The device.
    public let output: any ForceFeedbackOutput
    public let clock: any HapticClock
    public private(set) var power: HapticPowerState = .standby
    public var readyInstant: ClockInstant { clock.now }
    public var canShutDown: Bool { false }
    public var isStreaming: Bool { effect != nil }
    public var pollInterval: Duration { .milliseconds(10) }
    public var resetsDetected: Int { 0 }
    public private(set) var suppressedErrors = 0
    /// The share of 0xFFFF at which a rumble drives the actuator at full scale.
    public let rumbleFullScale: Double
    /// Which effect type the stream is rendered into.
    public let effectKind: EffectKind
    /// The level last sent, 0...1.
    public private(set) var level = 0.0

    /// The effect type the stream is rendered into.
    public enum EffectKind: String, Sendable {
        case constant = "FF_CONSTANT"
        case rumble = "FF_RUMBLE"
        case periodic = "FF_PERIODIC"
    }

    /// The id of the effect uploaded for the stream, while it exists.
    private var effect: Int?

    /// A driver for `output`; `rumbleFullScale` by the device's name when not given (drv260x:
    /// 0x7FFF of 0xFFFF; others: all of it).
    public init(output: any ForceFeedbackOutput, clock: any HapticClock, rumbleFullScale: Double? = nil) throws(HapticChipError) {
        self.output = output
        self.clock = clock
        self.rumbleFullScale = rumbleFullScale ?? Self.rumbleFullScale(forDeviceNamed: output.name)
        let capabilities = output.capabilities
        if capabilities.constant {
            effectKind = .constant
        } else if capabilities.rumble {
            effectKind = .rumble
        } else if capabilities.periodic {
            effectKind = .periodic
        } else {
            throw .unsupported("\(output.name) at \(output.path) has no rumble, constant or periodic force feedback")
        }
    }

    /// drv260x reads the rumble magnitude's high byte as a signed drive (0x7F full): 0x7FFF is its
    /// full scale. Devices that take all 16 bits (pwm-vibrator's duty cycle) reach it at 0xFFFF.
    public static func rumbleFullScale(forDeviceNamed name: String) -> Double {
        name.hasPrefix("drv260x") ? Double(0x7FFF) / Double(0xFFFF) : 1
    }

    /// The effect that drives the actuator at `level` (0...1), until stopped.
    private func effect(at level: Double, id: Int) -> ForceFeedbackEffect {
        let kind: ForceFeedbackEffect.Kind
        switch effectKind {
        case .constant: kind = .constant(level: level)
        case .rumble: kind = .rumble(strong: level * rumbleFullScale, weak: 0)
        case .periodic: kind = .periodic(waveform: .sine, magnitude: level, offset: 0, period: .milliseconds(10))
        }
        return ForceFeedbackEffect(id: id, kind: kind, length: .zero)
    }

    private func device<T>(_ body: () throws(ForceFeedbackDeviceError) -> T) throws(HapticChipError) -> T {
        do { return try body() } catch { throw .forceFeedback(error) }
    }

    public func wake() throws(HapticChipError) { power = .ready }

    public func enterStandby() throws(HapticChipError) {
        try stop()
        power = .standby
    }

    public func shutdown() throws(HapticChipError) { try enterStandby() }

    /// Stops the effect and erases it: the kernel's driver stops its actuator.
    public func stop() throws(HapticChipError) {
        guard let id = effect else { return }
        level = 0
        try device { () throws(ForceFeedbackDeviceError) in try output.stop(id: id) }
        effect = nil
        try device { () throws(ForceFeedbackDeviceError) in try output.erase(id: id) }
    }

    /// Stop, else erase, else close the device (the kernel then erases, and stops, what this
    /// client uploaded).
    public func stopQuietly() {
        guard let id = effect else { return }
        level = 0
        effect = nil
        do {
            try output.stop(id: id)
            try output.erase(id: id)
        } catch {
            suppressedErrors += 1
            do { try output.erase(id: id) } catch {
                suppressedErrors += 1
                output.close()
            }
        }
    }

    public func beginRealTimePlayback() throws(HapticChipError) {
        power = .ready
        guard effect == nil else { return }
        let id = try device { () throws(ForceFeedbackDeviceError) in try output.upload(effect(at: 0, id: -1)) }
        effect = id
        level = 0
        try device { () throws(ForceFeedbackDeviceError) in try output.play(id: id, count: 1) }
    }

    /// The level's magnitude: a kernel vibrator has no braking, so a negative level drives as
    /// its size (an ERM's reverse is a DRV2605's own).
    public func setRealTime(amplitude: Double) throws(HapticChipError) {
        guard let id = effect else { throw .notStarted }
        let next = min(abs(amplitude.isFinite ? amplitude : 0), 1)
        guard next != level else { return }
        level = next
        do {
            _ = try output.upload(effect(at: next, id: id))
            try output.play(id: id, count: 1)
        } catch {
            stopQuietly()
            throw .forceFeedback(error)
        }
    }

    public func endRealTimePlayback(standby: Bool) throws(HapticChipError) {
        try stop()
        if standby { power = .standby }
    }

    /// Nothing plays by itself on a kernel vibrator (only the stream), and the kernel reports no
    /// faults to its clients.
    public func playbackStatus() throws(HapticChipError) -> HapticChipStatus { HapticChipStatus(playing: false) }

    public func clearFaults() throws(HapticChipError) {}

    public func finishPlayback() throws(HapticChipError) {}

    /// What this client last asked of the device (the kernel tells a client nothing back).
    public func readBack() throws(HapticChipError) -> HapticChipReadBack {
        HapticChipReadBack(
            standby: effect == nil, driving: effect != nil && level > 0,
            details: [
                "device": .text(output.path), "name": .text(output.name), "effect": .text(effectKind.rawValue),
                "level": .int(Int((level * 1000).rounded())), "effects": .text(output.capabilities.names.joined(separator: " "))
            ])
    }
}
