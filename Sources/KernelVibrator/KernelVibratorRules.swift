// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// How one kernel driver turns what a force-feedback client sends into drive, as its source does
/// it: which magnitude reaches full drive, what the most a client may ask is so that the actuator
/// stays within its rating, and whether a playing effect may be updated.
///
/// Level 1 is the actuator's rated drive, as it is on our own I2C drivers: full scale for a
/// drv260x (its closed loop holds the rated voltage) or a pwm-vibrator, NOMMAX for a da7280.
public struct KernelVibratorRules: Sendable, Equatable {
    /// How a rumble's 16-bit magnitude is read.
    public var rumbleEncoding: RumbleEncoding
    /// How an FF_CONSTANT level is read.
    public var constantEncoding: ConstantEncoding
    /// Whether a playing effect takes a new upload in place (ff-memless does; da7280 refuses an
    /// upload with EBUSY while it drives, so each new level is a stop, an upload and a play).
    public var updatesWhilePlaying: Bool
    /// The shortest time between two new levels the device is sent: the stream's rate bound.
    /// Zero for ff-memless devices (each update is applied at once, and their driver's work item
    /// keeps the latest); 10 ms for da7280, where each new level stops the chip for a moment (its
    /// driver idles it, then drives again: two I2C writes each), so that a ramp is 100 steps a
    /// second rather than the engine's 200, with fewer gaps in the drive.
    public var minimumUpdateInterval: Duration
    /// Whether the master gain may be set (to full, so that levels are absolute: feedbackd sets
    /// 75 % and the kernel keeps it). Not on da7280: Linux lists FF_GAIN for it without a
    /// `set_gain` handler, and ff-core calls it anyway: a NULL pointer dereference in the kernel
    /// (seen in the VM on Debian 12's 6.1). It has no gain to leave behind either.
    public var setsGain: Bool
    /// How long a switched vibrator stays on once switched on, however short the drive asked
    /// (zero: as the stream says). gpio-vibrator switches its motor fully on or off, so a 10 ms
    /// tick is a 10 ms pulse, which a coin ERM (spin-up time constant about 20 ms) hardly starts
    /// in: it is held on for `switchedMinimumOnTime` instead, by the kernel's own replay length so
    /// that the device ends the pulse itself.
    public var minimumOnTime: Duration
    /// Where the rules came from, for a person reading `haptic probe` or hapticd's log.
    public var summary: String

    /// Rules as given.
    public init(
        rumbleEncoding: RumbleEncoding, constantEncoding: ConstantEncoding, updatesWhilePlaying: Bool, minimumUpdateInterval: Duration = .zero,
        setsGain: Bool = true, minimumOnTime: Duration = .zero, summary: String
    ) {
        self.rumbleEncoding = rumbleEncoding
        self.constantEncoding = constantEncoding
        self.updatesWhilePlaying = updatesWhilePlaying
        self.minimumUpdateInterval = minimumUpdateInterval
        self.setsGain = setsGain
        self.minimumOnTime = minimumOnTime
        self.summary = summary
    }

    /// The shortest pulse a switched vibrator is driven with: one and a half spin-up time
    /// constants of a coin ERM (`ActuatorPhysics.coinERM`: 20 ms), where its speed reaches 78 % of
    /// rated and its vibration (as speed squared) about 60 %: a tick that is felt, not a twitch.
    public static let switchedMinimumOnTime = Duration.milliseconds(30)

    /// A device that takes every magnitude as its share of full scale (pwm-vibrator's duty
    /// cycle), every update sent.
    public static let shareOfFullScale = KernelVibratorRules(
        rumbleEncoding: .share, constantEncoding: .share, updatesWhilePlaying: true, summary: "magnitudes as their share of full scale; every update sent")

    /// A driver these rules do not know, treated conservatively: its gain left as the system set
    /// it (a driver that lists FF_GAIN may have no handler for it, as da7280 has not, and a gain
    /// left lower only drives less), a new level at most every 10 ms, magnitudes as their share of
    /// full scale.
    public static let unknownDriver = KernelVibratorRules(
        rumbleEncoding: .share, constantEncoding: .share, updatesWhilePlaying: true, minimumUpdateInterval: .milliseconds(10), setsGain: false,
        summary: "a driver these rules do not know: its gain left as it is, a new level at most every 10 ms, magnitudes as their share of full scale")

    /// The rules of the driver behind a device named `name` ("drv260x:haptics", "da7280-haptic"),
    /// with `property` reading its firmware node (`ForceFeedbackOutput.firmwareProperty`): the
    /// drivers feedbackd's rules tag as vibrators and Linux names so (drv260x, da7280,
    /// pwm-vibrator, gpio-vibrator), each as its source reads a client's effects; any other as
    /// `unknownDriver`.
    public static func forDevice(named name: String, property: (String) -> [UInt8]?) -> KernelVibratorRules {
        if name.hasPrefix("drv260x") {
            return KernelVibratorRules(
                rumbleEncoding: .drv260xByte, constantEncoding: .share, updatesWhilePlaying: true,
                summary: "drv260x: the drive's byte in both bytes of the rumble's magnitude; every update sent")
        }
        if name.hasPrefix("da7280") {
            let limit = DA7280OverrideLimit(property: property)
            return KernelVibratorRules(
                rumbleEncoding: .share, constantEncoding: .da7280(limit), updatesWhilePlaying: false, minimumUpdateInterval: .milliseconds(10),
                setsGain: false, summary: limit.summary + "; a new level at most every 10 ms")
        }
        if name == "pwm-vibrator" { return .shareOfFullScale }
        if name == "gpio-vibrator" {
            // gpio-vibra.c: the line is on while either magnitude is non-zero (ff-memless).
            return KernelVibratorRules(
                rumbleEncoding: .share, constantEncoding: .share, updatesWhilePlaying: true, minimumOnTime: switchedMinimumOnTime,
                summary: "gpio-vibrator: switched on by any level, held on at least \(Int((switchedMinimumOnTime.secondsDouble * 1000).rounded())) ms; every update sent")
        }
        return .unknownDriver
    }

    /// How a device reads a rumble's 16-bit magnitude.
    public enum RumbleEncoding: Sendable, Equatable {
        /// Its share of 0xFFFF is the drive.
        case share
        /// drv260x: one byte of it is the chip's signed RTP drive (0x7F full), the low byte in
        /// Linux 6.1 and the high byte in 6.12, so the drive's byte goes in both (0x7F7F at full;
        /// 0x8000 would brake on one kernel and be nothing on the other).
        case drv260xByte

        /// The magnitude, as a share of 0xFFFF, that drives at `level` (0...1).
        public func magnitude(for level: Double) -> Double {
            switch self {
            case .share: return min(max(level, 0), 1)
            case .drv260xByte:
                let byte = (min(max(level, 0), 1) * 127).rounded()
                return byte * 257 / 0xFFFF
            }
        }
    }

    /// How a device reads an FF_CONSTANT level (a share of 0x7FFF).
    public enum ConstantEncoding: Sendable, Equatable {
        /// Its share of 0x7FFF is the drive.
        case share
        /// da7280 in DRO mode: OVERRIDE_VAL = level × 254 / 0x7FFF, which the chip reads as a
        /// signed byte when acceleration is off (127 is ABSMAX, 128 and above reverse the drive:
        /// Linux's full-scale 0x7FFF arrives as 254, -1.6 %) and as 0-127 of NOMMAX when it is on.
        /// Level 1 here is the override that reaches NOMMAX, and nothing above 127 is ever sent.
        case da7280(DA7280OverrideLimit)

        /// The FF_CONSTANT level, as a share of 0x7FFF, that drives at `level` (0...1 of rated).
        public func constantLevel(for level: Double) -> Double {
            switch self {
            case .share: return min(max(level, 0), 1)
            case .da7280(let limit):
                let override = limit.override(for: level)
                // The smallest level whose level × 254 / 0x7FFF (rounded down) is the override.
                return (Double(override) * 0x7FFF / 254).rounded(.up) / 0x7FFF
            }
        }
    }
}

/// The most OVERRIDE_VAL a client of Linux's da7280 may drive a DA7280 at without passing the
/// actuator's rating: with acceleration off (Linux's default, and always for an ERM coin) 127 is
/// ABSMAX, so the rated drive is 127 × NOMMAX / ABSMAX; with it on, 127 is NOMMAX. NOMMAX and ABSMAX
/// are what Linux wrote from `dlg,nom-microvolt` and `dlg,abs-max-microvolt` (µV / 23400 + 1); where
/// the firmware node does not say (a machine without a device tree, or a property left out) Linux
/// leaves the register at its reset value (NOMMAX 0x5A, ABSMAX 0x78), and so does this.
public struct DA7280OverrideLimit: Sendable, Equatable {
    /// OVERRIDE_VAL at the actuator's rated drive (1...127).
    public var ratedOverride: Int
    /// Where it came from.
    public var summary: String

    /// ACTUATOR_NOMMAX's reset value (the datasheet's register table).
    public static let resetNOMMAX = 0x5A
    /// ACTUATOR_ABSMAX's reset value.
    public static let resetABSMAX = 0x78

    /// A limit as given.
    public init(ratedOverride: Int, summary: String) {
        self.ratedOverride = min(max(ratedOverride, 1), 127)
        self.summary = summary
    }

    /// The limit from the device's firmware node, read as Linux's da7280 reads it.
    public init(property: (String) -> [UInt8]?) {
        func cell(_ name: String) -> Int? {
            guard let bytes = property(name), bytes.count == 4 else { return nil }
            return bytes.reduce(0) { $0 << 8 | Int($1) }
        }
        // Linux's da7280_haptic_of_volt_rating_set, for values below 6 V.
        func register(_ name: String) -> Int? { cell(name).flatMap { $0 < 6_000_000 ? min($0 / 23_400 + 1, 0xFF) : nil } }
        let type = property("dlg,actuator-type").map { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let acceleration = property("dlg,acc-enable") != nil && type != "ERM-coin"
        if acceleration {
            self.init(ratedOverride: 127, summary: "da7280, acceleration on: override 127 is NOMMAX")
            return
        }
        let nommax = register("dlg,nom-microvolt")
        let absmax = register("dlg,abs-max-microvolt")
        let nominal = nommax ?? Self.resetNOMMAX
        let absolute = absmax ?? Self.resetABSMAX
        let rated = absolute > 0 ? Int((127 * Double(min(nominal, absolute)) / Double(absolute)).rounded(.down)) : 1
        let source =
            nommax != nil && absmax != nil
            ? "from its device tree" : "\(nommax == nil && absmax == nil ? "the chip's reset values" : "partly the chip's reset values"): the firmware node does not say"
        self.init(
            ratedOverride: rated,
            summary: "da7280, acceleration off: rated drive at override \(rated) of 127 (NOMMAX \(Self.hex(nominal)) / ABSMAX \(Self.hex(absolute)), \(source))")
    }

    private static func hex(_ value: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + (digits.count < 2 ? "0" : "") + digits
    }

    /// The override that drives at `level` (0...1 of rated), rounded to the nearest step.
    public func override(for level: Double) -> Int {
        Int((min(max(level, 0), 1) * Double(ratedOverride)).rounded())
    }
}
