// SPDX-License-Identifier: Apache-2.0

import CLinuxHardware
import Foundation
import HardwareAccess

/// A force-feedback input device made through `/dev/uinput`: SDL, feedbackd and `fftest` see a
/// vibrator (`/dev/input/eventN`, EV_FF with rumble, periodic, constant and gain) and upload,
/// play and erase effects; this type answers the uploads and erasures the kernel forwards and
/// hands every request on as a `ForceFeedbackEvent`.
public final class UInputForceFeedbackDevice: ForceFeedbackDevice, @unchecked Sendable {
    /// How many effects clients may hold at once.
    public let effectsMaximum: Int
    /// The device's name (`/sys/class/input/inputN/name`).
    public let name: String
    /// "input12": the device in /sys/class/input.
    public let sysfsName: String
    private let lock = NSLock()
    private var descriptor: Int32

    /// Creates the device. Needs write access to /dev/uinput (root, or a udev rule) and the
    /// uinput module (`modprobe uinput`).
    public init(name: String = "hapticd DRV2605 haptics", effectsMaximum: Int = 16, path: String = "/dev/uinput") throws(ForceFeedbackDeviceError) {
        let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let error = errno
            throw ForceFeedbackDeviceError(
                operation: "open", path: path, errno: error,
                detail: error == ENOENT
                    ? "no uinput device: modprobe uinput"
                    : "cannot open it: run as root, or give hapticd's group write access with a udev rule (Packaging/60-hapticd.rules, which the package installs)")
        }
        guard clh_uinput_create_ff(fd, name, UInt32(effectsMaximum)) == 0 else {
            let error = errno
            Glibc.close(fd)
            throw ForceFeedbackDeviceError(operation: "create a force-feedback device on", path: path, errno: error, detail: "UI_DEV_SETUP or UI_DEV_CREATE refused")
        }
        var buffer = [CChar](repeating: 0, count: 64)
        _ = clh_uinput_sysname(fd, &buffer, UInt32(buffer.count))
        sysfsName = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        descriptor = fd
        self.name = name
        self.effectsMaximum = effectsMaximum
    }

    deinit { close() }

    /// The event node clients open (`/dev/input/eventN`), found through sysfs.
    public var eventNode: String? {
        let folder = "/sys/class/input/\(sysfsName)"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return entries.first { $0.hasPrefix("event") }.map { "/dev/input/\($0)" }
    }

    public func nextEvent(timeout: Duration) throws -> ForceFeedbackEvent? {
        let fd = lock.withLock { descriptor }
        guard fd >= 0 else { return nil }
        let deadline = SystemClock.shared.now.advanced(by: timeout)
        while true {
            let remaining = deadline.duration(since: SystemClock.shared.now)
            guard remaining > .zero else { return nil }
            var type: UInt16 = 0
            var code: UInt16 = 0
            var value: Int32 = 0
            let result = clh_input_read(fd, Int32(clamping: max(1, remaining.nanoseconds / 1_000_000)), &type, &code, &value)
            if result == 0 { return nil }
            if result < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                throw ForceFeedbackDeviceError(operation: "read", path: "/dev/uinput", errno: errno, detail: "the force-feedback device failed")
            }
            switch Int32(type) {
            case EV_UINPUT where Int32(code) == UI_FF_UPLOAD:
                var effect = clh_ff_effect()
                guard clh_uinput_upload(fd, UInt32(bitPattern: value), &effect) == 0 else { continue }
                if let converted = Self.effect(effect) { return .upload(converted) }
            case EV_UINPUT where Int32(code) == UI_FF_ERASE:
                var id: Int32 = 0
                guard clh_uinput_erase(fd, UInt32(bitPattern: value), &id) == 0 else { continue }
                return .erase(id: Int(id))
            case EV_FF where Int32(code) == FF_GAIN:
                return .gain(Double(min(0xFFFF, max(0, value))) / 65535)
            case EV_FF:
                return value > 0 ? .play(id: Int(code), count: Int(value)) : .stop(id: Int(code))
            default:
                continue
            }
        }
    }

    public func close() {
        let fd = lock.withLock { () -> Int32 in
            defer { descriptor = -1 }
            return descriptor
        }
        guard fd >= 0 else { return }
        _ = clh_uinput_destroy(fd)
        Glibc.close(fd)
    }

    /// The kernel's effect in our terms; nil for a type we do not render (the input core refuses
    /// those before they reach us).
    static func effect(_ raw: clh_ff_effect) -> ForceFeedbackEffect? {
        let signed = { (value: Int32) in Double(value) / 32767 }
        let unsigned = { (value: Int32) in Double(UInt16(truncatingIfNeeded: value)) / 65535 }
        // Envelope levels are absolute and top out at 0x7fff (input.h; ff-memless clamps them there).
        let envelopeLevel = { (value: Int32) in Double(min(0x7FFF, UInt16(truncatingIfNeeded: value))) / 32767 }
        let kind: ForceFeedbackEffect.Kind
        switch Int32(raw.type) {
        case FF_RUMBLE:
            kind = .rumble(strong: unsigned(raw.strong), weak: unsigned(raw.weak))
        case FF_PERIODIC:
            let waveform: ForceFeedbackEffect.Waveform
            switch Int32(raw.waveform) {
            case FF_SQUARE: waveform = .square
            case FF_TRIANGLE: waveform = .triangle
            case FF_SAW_UP: waveform = .sawUp
            case FF_SAW_DOWN: waveform = .sawDown
            default: waveform = .sine
            }
            kind = .periodic(
                waveform: waveform, magnitude: signed(Int32(Int16(truncatingIfNeeded: raw.magnitude))),
                offset: signed(Int32(Int16(truncatingIfNeeded: raw.offset))), period: .milliseconds(Int(UInt16(truncatingIfNeeded: raw.period_ms))))
        case FF_CONSTANT:
            kind = .constant(level: signed(Int32(Int16(truncatingIfNeeded: raw.level))))
        default:
            return nil
        }
        let milliseconds = { (value: Int32) in Duration.milliseconds(Int(UInt16(truncatingIfNeeded: value))) }
        var envelope = ForceFeedbackEffect.Envelope()  // rumble has none
        if case .rumble = kind {
        } else {
            envelope = .init(
                attackLength: milliseconds(raw.attack_length_ms), attackLevel: envelopeLevel(raw.attack_level),
                fadeLength: milliseconds(raw.fade_length_ms), fadeLevel: envelopeLevel(raw.fade_level))
        }
        return ForceFeedbackEffect(
            id: Int(raw.id), kind: kind, length: milliseconds(raw.length_ms),
            delay: milliseconds(raw.delay_ms), envelope: envelope)
    }
}
