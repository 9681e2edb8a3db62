// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HardwareAccess

/// A vibrator that Linux drives itself, through its force-feedback device (drv260x bound by a
/// device-tree overlay, da7280, pwm-vibrator, gpio-vibrator: a phone's, a Pi's): the engine's
/// drive stream rendered into one effect, uploaded with the stream's first level and played until
/// stopped, then updated in place with each level, as the kernel lets a client update a playing
/// effect. (Uploaded at zero first, the first level would wait a second round through the kernel's
/// driver: measured in the VM on drv260x, 12 ms to the first drive instead of 4.)
///
/// The effect is the device's most direct: FF_CONSTANT where listed (da7280: a level), else
/// FF_RUMBLE (ff-memless devices: the strong motor's magnitude), else FF_PERIODIC (its magnitude,
/// which ff-memless drives a single motor with). Each update is an upload and a play (da7280
/// applies a new level only on a play; ff-memless takes either). The stream's rate is the
/// engine's (200 updates a second for patterns): a device's driver writes each on its own
/// schedule (ff-memless: at once, in a work item).
///
/// Levels are absolute: the gain is set to full at open, and a rumble's magnitude is encoded as the
/// device reads it (`RumbleEncoding`: drv260x writes one byte of the magnitude into a signed RTP
/// register whose full drive is 0x7F, the low byte in Linux 6.1 and the high byte in 6.12, so the
/// drive's byte goes in both; a magnitude of 0x8000 would brake on one kernel and be nothing on the
/// other; other devices take the magnitude's share of 0xFFFF). There is no standby to enter or leave here: the kernel's driver powers its chip
/// down when nothing plays; `enterStandby` and `shutdown` stop and erase the effect.
public final class KernelVibratorDriver: HapticChipDriver {
    /// The device.
    public let output: any ForceFeedbackOutput
    /// What every wait is measured on (the driver itself waits for nothing: the kernel does).
    public let clock: any HapticClock
    /// Ready while a stream may play; standby otherwise (the kernel powers its chip itself).
    public private(set) var power: HapticPowerState = .standby
    /// At once: there is no wake delay a client can see.
    public var readyInstant: ClockInstant { clock.now }
    /// No enable line of ours: the kernel's driver owns the chip.
    public var canShutDown: Bool { false }
    /// Between `beginRealTimePlayback` and the stream's end.
    public var isStreaming: Bool { streaming }
    /// How often the engine asks: nothing plays by itself here, so rarely matters.
    public var pollInterval: Duration { .milliseconds(10) }
    /// None: the kernel tells a client of no chip reset.
    public var resetsDetected: Int { 0 }
    /// Device errors `stopQuietly()` got past by erasing, or closing the device.
    public private(set) var suppressedErrors = 0
    /// How a rumble's magnitude is read by the device.
    public let rumbleEncoding: RumbleEncoding
    /// Which effect type the stream is rendered into.
    public let effectKind: EffectKind
    /// The level last sent, 0...1.
    public private(set) var level = 0.0

    /// How a device reads a rumble's 16-bit magnitude.
    public enum RumbleEncoding: Sendable, Equatable {
        /// Its share of 0xFFFF is the drive (pwm-vibrator's duty cycle; on or off for gpio-vibrator).
        case share
        /// drv260x: one byte of it is the chip's signed RTP drive (0x7F full), which byte
        /// depending on the kernel; the drive's byte is sent in both (0x7F7F at full).
        case drv260xByte

        /// The magnitude, as a share of 0xFFFF, that drives at `level` (0...1).
        public func magnitude(for level: Double) -> Double {
            switch self {
            case .share: return level
            case .drv260xByte:
                let byte = (min(max(level, 0), 1) * 127).rounded()
                return byte * 257 / 0xFFFF
            }
        }
    }

    /// The effect type the stream is rendered into.
    public enum EffectKind: String, Sendable {
        case constant = "FF_CONSTANT"
        case rumble = "FF_RUMBLE"
        case periodic = "FF_PERIODIC"
    }

    /// The id of the effect uploaded for the stream, while it exists.
    private var effect: Int?
    /// Between `beginRealTimePlayback` and the stream's end.
    private var streaming = false

    /// A driver for `output`; its rumble encoding by the device's name when not given.
    public init(output: any ForceFeedbackOutput, clock: any HapticClock, rumbleEncoding: RumbleEncoding? = nil) throws(HapticChipError) {
        self.output = output
        self.clock = clock
        self.rumbleEncoding = rumbleEncoding ?? Self.rumbleEncoding(forDeviceNamed: output.name)
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

    /// drv260x's input device is "drv260x:haptics"; every other takes the magnitude's share.
    public static func rumbleEncoding(forDeviceNamed name: String) -> RumbleEncoding {
        name.hasPrefix("drv260x") ? .drv260xByte : .share
    }

    /// The effect that drives the actuator at `level` (0...1), until stopped.
    private func effect(at level: Double, id: Int) -> ForceFeedbackEffect {
        let kind: ForceFeedbackEffect.Kind
        switch effectKind {
        case .constant: kind = .constant(level: level)
        case .rumble: kind = .rumble(strong: rumbleEncoding.magnitude(for: level), weak: 0)
        case .periodic: kind = .periodic(waveform: .sine, magnitude: level, offset: 0, period: .milliseconds(10))
        }
        return ForceFeedbackEffect(id: id, kind: kind, length: .zero)
    }

    private func device<T>(_ body: () throws(ForceFeedbackDeviceError) -> T) throws(HapticChipError) -> T {
        do { return try body() } catch { throw .forceFeedback(error) }
    }

    /// Ready at once: the kernel wakes its chip when an effect plays.
    public func wake() throws(HapticChipError) { power = .ready }

    /// Stops and erases the effect; the kernel's driver then puts its chip to sleep.
    public func enterStandby() throws(HapticChipError) {
        try stop()
        power = .standby
    }

    /// As standby: shutting the chip down is the kernel's.
    public func shutdown() throws(HapticChipError) { try enterStandby() }

    /// Stops the effect and erases it: the kernel's driver stops its actuator.
    public func stop() throws(HapticChipError) {
        streaming = false
        guard let id = effect else { return }
        level = 0
        try device { () throws(ForceFeedbackDeviceError) in try output.stop(id: id) }
        effect = nil
        try device { () throws(ForceFeedbackDeviceError) in try output.erase(id: id) }
    }

    /// Stop, else erase, else close the device (the kernel then erases, and stops, what this
    /// client uploaded).
    public func stopQuietly() {
        streaming = false
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

    /// The stream begins at zero drive: nothing is uploaded until a level is to be driven.
    public func beginRealTimePlayback() throws(HapticChipError) {
        power = .ready
        streaming = true
    }

    /// The level's magnitude: a kernel vibrator has no braking, so a negative level drives as
    /// its size (an ERM's reverse is a DRV2605's own).
    public func setRealTime(amplitude: Double) throws(HapticChipError) {
        guard streaming else { throw .notStarted }
        let next = min(abs(amplitude.isFinite ? amplitude : 0), 1)
        guard next != level else { return }
        level = next
        do {
            let id = try output.upload(effect(at: next, id: effect ?? -1))
            effect = id
            try output.play(id: id, count: 1)
        } catch {
            stopQuietly()
            throw .forceFeedback(error)
        }
    }

    /// Stops and erases the effect.
    public func endRealTimePlayback(standby: Bool) throws(HapticChipError) {
        try stop()
        if standby { power = .standby }
    }

    /// Nothing plays by itself on a kernel vibrator (only the stream), and the kernel reports no
    /// faults to its clients.
    public func playbackStatus() throws(HapticChipError) -> HapticChipStatus { HapticChipStatus(playing: false) }

    /// Nothing to clear: the kernel reports no faults to a client.
    public func clearFaults() throws(HapticChipError) {}

    /// Nothing plays by itself here.
    public func finishPlayback() throws(HapticChipError) {}

    /// What this client last asked of the device (the kernel tells a client nothing back).
    public func readBack() throws(HapticChipError) -> HapticChipReadBack {
        HapticChipReadBack(
            standby: !streaming && effect == nil, driving: effect != nil && level > 0,
            details: [
                "device": .text(output.path), "name": .text(output.name), "effect": .text(effectKind.rawValue),
                "level": .int(Int((level * 1000).rounded())), "effects": .text(output.capabilities.names.joined(separator: " "))
            ])
    }
}
