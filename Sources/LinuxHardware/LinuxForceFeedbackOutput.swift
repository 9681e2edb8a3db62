// SPDX-License-Identifier: Apache-2.0

import CLinuxHardware
import Foundation
import HardwareAccess

/// A kernel force-feedback device opened as a client: `/dev/input/eventN` of a vibrator that
/// Linux drives itself (drv260x, da7280, pwm-vibrator, gpio-vibrator...), its capabilities
/// probed at open. Closing it makes the kernel erase, and so stop, what it uploaded. Opening writes
/// nothing: whether the gain may be set is the driver's (Linux's da7280 lists FF_GAIN without a
/// handler, and ff-core calls it: a null pointer in the kernel).
public final class LinuxForceFeedbackOutput: ForceFeedbackOutput {
    /// The device's name (`EVIOCGNAME`).
    public let name: String
    /// The node it was opened at.
    public let path: String
    /// What it can play, probed at open.
    public let capabilities: ForceFeedbackCapabilities
    /// Where sysfs is (`/sys`): the device's firmware node is read from it.
    public let sysfs: String
    private var descriptor: Int32

    /// Opens `path` for reading and writing (root, or the `input` group, or a udev rule), probes
    /// it, and refuses a device with no effect a vibration can be played with.
    public init(path: String, sysfs: String = "/sys") throws(ForceFeedbackDeviceError) {
        self.sysfs = sysfs
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            let error = errno
            throw ForceFeedbackDeviceError(
                operation: "open", path: path, errno: error,
                detail: error == ENOENT
                    ? "no such device (--device auto finds the vibrator feedbackd would use)"
                    : error == EACCES ? "permission denied: run as root, or add the user to the input group" : String(cString: strerror(error)))
        }
        var bits = [UInt8](repeating: 0, count: Int(FF_MAX) / 8 + 1)
        guard clh_evdev_ff_bits(fd, &bits, UInt32(bits.count)) >= 0 else {
            let error = errno
            Glibc.close(fd)
            throw ForceFeedbackDeviceError(operation: "probe", path: path, errno: error, detail: "not an input device (EVIOCGBIT refused)")
        }
        var effects: Int32 = 0
        _ = clh_evdev_effects(fd, &effects)
        var buffer = [CChar](repeating: 0, count: 256)
        _ = clh_evdev_name(fd, &buffer, UInt32(buffer.count))
        name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let has = { (bit: Int32) in clh_evdev_bit(bits, bit) != 0 }
        capabilities = ForceFeedbackCapabilities(
            rumble: has(FF_RUMBLE), constant: has(FF_CONSTANT), periodic: has(FF_PERIODIC), gain: has(FF_GAIN), effectsMaximum: Int(effects))
        guard capabilities.rumble || capabilities.constant || capabilities.periodic else {
            Glibc.close(fd)
            throw ForceFeedbackDeviceError(
                operation: "use", path: path, errno: nil,
                detail: "\(name.isEmpty ? "the device" : name) has no rumble, constant or periodic force feedback: not a vibrator")
        }
        descriptor = fd
        self.path = path
    }

    deinit { close() }

    /// The property from the device tree node of the device the input device belongs to
    /// (`VibratorFinder.firmwareProperty`).
    public func firmwareProperty(_ name: String) -> [UInt8]? {
        VibratorFinder(sysfs: sysfs).firmwareProperty(name, ofDeviceAt: path)
    }

    private func failure(_ operation: String) -> ForceFeedbackDeviceError {
        let error = errno
        let detail = error == ENODEV ? "the device went away" : String(cString: strerror(error))
        return ForceFeedbackDeviceError(operation: operation, path: path, errno: error, detail: detail)
    }

    /// Uploads (`EVIOCSFF`): a new effect for id -1, else effect `id` replaced in place.
    public func upload(_ effect: ForceFeedbackEffect) throws(ForceFeedbackDeviceError) -> Int {
        var raw = Self.kernelEffect(effect)
        guard clh_evdev_upload(descriptor, &raw) == 0 else { throw failure("upload an effect to") }
        return Int(raw.id)
    }

    /// The effect as the kernel takes it (input.h's `struct ff_effect`, flattened): FF_RUMBLE's
    /// magnitudes are unsigned, 0...0xFFFF; a periodic or constant effect's levels and its
    /// envelope are signed, -0x7FFF...0x7FFF.
    static func kernelEffect(_ effect: ForceFeedbackEffect) -> clh_ff_effect {
        var raw = clh_ff_effect()
        raw.id = Int32(effect.id)
        raw.length_ms = Int32(clamping: effect.length.milliseconds)
        raw.delay_ms = Int32(clamping: effect.delay.milliseconds)
        let signed = { (value: Double) in Int32((min(max(value, -1), 1) * 0x7FFF).rounded()) }
        let unsigned = { (value: Double) in Int32((min(max(value, 0), 1) * 0xFFFF).rounded()) }
        switch effect.kind {
        case let .rumble(strong, weak):
            raw.type = FF_RUMBLE
            raw.strong = unsigned(strong)
            raw.weak = unsigned(weak)
        case let .periodic(_, magnitude, offset, period):
            raw.type = FF_PERIODIC
            raw.waveform = FF_SINE
            raw.magnitude = signed(magnitude)
            raw.offset = signed(offset)
            raw.period_ms = Int32(clamping: period.milliseconds)
        case let .constant(level):
            raw.type = FF_CONSTANT
            raw.level = signed(level)
        }
        if case .rumble = effect.kind {
        } else {
            raw.attack_length_ms = Int32(clamping: effect.envelope.attackLength.milliseconds)
            raw.attack_level = signed(effect.envelope.attackLevel)
            raw.fade_length_ms = Int32(clamping: effect.envelope.fadeLength.milliseconds)
            raw.fade_level = signed(effect.envelope.fadeLevel)
        }
        return raw
    }

    /// Plays effect `id` `count` times (an EV_FF event of value `count`).
    public func play(id: Int, count: Int) throws(ForceFeedbackDeviceError) {
        guard clh_evdev_write(descriptor, UInt16(EV_FF), UInt16(clamping: id), Int32(clamping: max(count, 1))) == 0 else { throw failure("play an effect on") }
    }

    /// Stops effect `id` (an EV_FF event of value 0).
    public func stop(id: Int) throws(ForceFeedbackDeviceError) {
        guard clh_evdev_write(descriptor, UInt16(EV_FF), UInt16(clamping: id), 0) == 0 else { throw failure("stop an effect on") }
    }

    /// Erases effect `id` (`EVIOCRMFF`), stopping it.
    public func erase(id: Int) throws(ForceFeedbackDeviceError) {
        guard clh_evdev_erase(descriptor, Int32(id)) == 0 else { throw failure("erase an effect on") }
    }

    /// Sets the master gain (FF_GAIN, 0...0xFFFF).
    public func setGain(_ gain: Double) throws(ForceFeedbackDeviceError) {
        let value = Int32((min(max(gain, 0), 1) * 0xFFFF).rounded())
        guard clh_evdev_write(descriptor, UInt16(EV_FF), UInt16(FF_GAIN), value) == 0 else { throw failure("set the gain of") }
    }

    /// Closes the device: the kernel erases, and so stops, what this client uploaded.
    public func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }
}

extension Duration {
    /// Whole milliseconds, rounded down.
    fileprivate var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
