// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// A ROM effect of the DRV2605's licensed library (TouchSense 2200), numbered 1...123.
///
/// The same number plays in every ROM library; the library sets how it is shaped for the actuator.
public struct Effect: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The effect's number, 1...123, as written to a WAV_FRM_SEQ register.
    public let rawValue: UInt8
    /// `nil` outside 1...123.
    public init?(rawValue: UInt8) {
        guard Effect.range.contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }
    /// `nil` outside 1...123.
    public init?(_ number: Int) {
        guard let byte = UInt8(exactly: number) else { return nil }
        self.init(rawValue: byte)
    }
    init(unchecked value: UInt8) { rawValue = value }

    /// The numbers the ROM library has.
    public static let range: ClosedRange<UInt8> = 1...123
    /// All 123 effects, in number order.
    public static let all: [Effect] = range.map { Effect(unchecked: $0) }

    /// TI's name, e.g. "Strong Click - 100%".
    public var name: String { romEffectNames[Int(rawValue) - 1] }
    /// "47 Buzz 1 - 100%".
    public var description: String { "\(rawValue) \(name)" }
    /// Derived from the names once, at first use: playback asks for durations on every trigger.
    private static let profiles: [EffectProfile] = range.map { EffectProfile(name: romEffectNames[Int($0) - 1], number: $0) }
    /// Its family, strength and estimated length, derived from its name.
    public var profile: EffectProfile { Effect.profiles[Int(rawValue) - 1] }
    /// An estimate: TI publishes no durations (see `EffectProfile`).
    public var estimatedDuration: Duration { profile.estimatedDuration }

    /// By number.
    public static func < (lhs: Effect, rhs: Effect) -> Bool { lhs.rawValue < rhs.rawValue }

    /// TI's weaker versions of this effect, strongest first: the same waveform at a lower
    /// percentage ("Strong Click - 60%" for "Strong Click - 100%", "Buzz 2 - 80%" ... "Buzz 5 -
    /// 20%" for "Buzz 1 - 100%"), told apart from other waveforms by name. Empty for most effects.
    public var weakerVariants: [Effect] { Effect.variants[Int(rawValue) - 1] }

    /// Worked out from the names once, at first use (scaled feedback asks on every play).
    private static let variants: [[Effect]] = all.map { effect in
        guard let key = variantKey(effect.name) else { return [] }
        return all.filter { $0 != effect && variantKey($0.name) == key && $0.profile.strength < effect.profile.strength }
            .sorted { $0.profile.strength > $1.profile.strength }
    }

    /// "Strong Click 1 - 100%" and "Strong Click 4 - 30%" share "strong click #"; "Strong Click -
    /// 60%" is "strong click" (TI's two strong-click series are different waveforms). Ramps and
    /// names without a percentage have no variants.
    private static func variantKey(_ name: String) -> String? {
        let lower = name.asciiLowercased()
        guard let before = lower.prefix(before: " - "), lower.endsWith("%"), !lower.hasSubstring(" to ") else { return nil }
        var base = before
        if let last = base.split(separator: " ").last, Int(last) != nil {
            base = base.split(separator: " ").dropLast().joined(separator: " ") + " #"
        }
        return base
    }

    /// Finds an effect by number ("47") or by name, case-insensitively: an exact name, or a unique
    /// name that contains the text ("sharp tick 1").
    public static func lookup(_ text: String) -> Effect? {
        let trimmed = text.trimmingSpaces()
        if let number = Int(trimmed) { return Effect(number) }
        let needle = trimmed.asciiLowercased()
        if let exact = all.first(where: { $0.name.asciiLowercased().sameBytes(as: needle) }) { return exact }
        let prefixed = all.filter { $0.name.asciiLowercased().beginsWith(needle) }
        if prefixed.count == 1 { return prefixed[0] }
        let matches = all.filter { $0.name.asciiLowercased().hasSubstring(needle) }
        return matches.count == 1 ? matches[0] : nil
    }

    // Effects the feedback mappings name.
    /// ROM effect 1, "Strong Click - 100%".
    public static let strongClick100 = Effect(unchecked: 1)
    /// ROM effect 2, "Strong Click - 60%".
    public static let strongClick60 = Effect(unchecked: 2)
    /// ROM effect 3, "Strong Click - 30%".
    public static let strongClick30 = Effect(unchecked: 3)
    /// ROM effect 4, "Sharp Click - 100%".
    public static let sharpClick100 = Effect(unchecked: 4)
    /// ROM effect 5, "Sharp Click - 60%".
    public static let sharpClick60 = Effect(unchecked: 5)
    /// ROM effect 6, "Sharp Click - 30%".
    public static let sharpClick30 = Effect(unchecked: 6)
    /// ROM effect 7, "Soft Bump - 100%".
    public static let softBump100 = Effect(unchecked: 7)
    /// ROM effect 8, "Soft Bump - 60%".
    public static let softBump60 = Effect(unchecked: 8)
    /// ROM effect 9, "Soft Bump - 30%".
    public static let softBump30 = Effect(unchecked: 9)
    /// ROM effect 10, "Double Click - 100%".
    public static let doubleClick100 = Effect(unchecked: 10)
    /// ROM effect 11, "Double Click - 60%".
    public static let doubleClick60 = Effect(unchecked: 11)
    /// ROM effect 12, "Triple Click - 100%".
    public static let tripleClick100 = Effect(unchecked: 12)
    /// ROM effect 13, "Soft Fuzz - 60%".
    public static let softFuzz60 = Effect(unchecked: 13)
    /// ROM effect 14, "Strong Buzz - 100%".
    public static let strongBuzz100 = Effect(unchecked: 14)
    /// ROM effect 15, "750 ms Alert 100%".
    public static let alert750ms = Effect(unchecked: 15)
    /// ROM effect 16, "1000 ms Alert 100%".
    public static let alert1000ms = Effect(unchecked: 16)
    /// ROM effect 21, "Medium Click 1 - 100%".
    public static let mediumClick100 = Effect(unchecked: 21)
    /// ROM effect 24, "Sharp Tick 1 - 100%".
    public static let sharpTick100 = Effect(unchecked: 24)
    /// ROM effect 25, "Sharp Tick 2 - 80%".
    public static let sharpTick80 = Effect(unchecked: 25)
    /// ROM effect 26, "Sharp Tick 3 - 60%".
    public static let sharpTick60 = Effect(unchecked: 26)
    /// ROM effect 27, "Short Double Click Strong 1 - 100%".
    public static let shortDoubleClickStrong100 = Effect(unchecked: 27)
    /// ROM effect 34, "Short Double Sharp Tick 1 - 100%".
    public static let shortDoubleSharpTick100 = Effect(unchecked: 34)
    /// ROM effect 37, "Long Double Sharp Click Strong 1 - 100%".
    public static let longDoubleSharpClickStrong100 = Effect(unchecked: 37)
    /// ROM effect 47, "Buzz 1 - 100%".
    public static let buzz100 = Effect(unchecked: 47)
    /// ROM effect 52, "Pulsing Strong 1 - 100%".
    public static let pulsingStrong100 = Effect(unchecked: 52)
    /// ROM effect 58, "Transition Click 1 - 100%".
    public static let transitionClick100 = Effect(unchecked: 58)
    /// ROM effect 64, "Transition Hum 1 - 100%".
    public static let transitionHum100 = Effect(unchecked: 64)
    /// ROM effect 86, "Transition Ramp Up Short Smooth 1 - 0 to 100%".
    public static let rampUpShortSmooth100 = Effect(unchecked: 86)
    /// ROM effect 74, "Transition Ramp Down Short Smooth 1 - 100 to 0%".
    public static let rampDownShortSmooth100 = Effect(unchecked: 74)
    /// ROM effect 118, "Long buzz for programmatic stopping - 100%".
    public static let longBuzzForProgrammaticStopping = Effect(unchecked: 118)
}

/// What an effect is like: its family, strength and an estimated length.
///
/// TI publishes no effect durations: only 15 and 16 say theirs (750 ms, 1000 ms), and 118 is meant
/// to be stopped by the host. The lengths here are estimates, chosen from the effect families'
/// descriptions and typical ERM/LRA rise and brake times; completion waits use them only as the
/// time to start polling GO, never as the truth, and the simulator uses them to hold GO.
public struct EffectProfile: Sendable, Hashable {
    /// The kind of effect, from TI's name: what its envelope looks like.
    public enum Family: String, Sendable, CaseIterable {
        case click, sharpClick, tick, bump, doubleClick, tripleClick, doubleTick, fuzz, buzz, alert
        case pulsing, transitionClick, transitionHum, rampUp, rampDown, longBuzz, smoothHum
    }
    /// The kind of effect.
    public var family: Family
    /// Peak strength, 0...1, from the percentage in the name.
    public var strength: Double
    /// For ramps: the strength at the start and at the end; for other families both equal `strength`.
    public var startStrength: Double
    /// See `startStrength`.
    public var endStrength: Double
    /// Sharp ramps and clicks have a kick and a brake; smooth ones do not.
    public var isSharp: Bool
    /// How long it plays, estimated (see above); the simulator holds GO this long.
    public var estimatedDuration: Duration

    init(name: String, number: UInt8) {
        let lower = name.asciiLowercased()
        // The trailing percentage, e.g. "- 60%"; ramps say "0 to 100%" or "100 to 0%".
        let numbers = PlainText.integers(in: lower).map { Double($0) }
        var percent = numbers.last ?? 100
        var start = percent
        if lower.hasSubstring(" to ") && numbers.count >= 2 {
            start = numbers[numbers.count - 2]
            percent = numbers[numbers.count - 1]
        }
        strength = min(1, percent / 100)
        startStrength = min(1, start / 100)
        endStrength = strength
        isSharp = !lower.hasSubstring("smooth") && !lower.hasSubstring("soft")
        let length: Int
        if lower.hasSubstring("ramp") {
            family = start > percent ? .rampDown : .rampUp
            // For ramps, `strength` is the peak and `startStrength` where it starts.
            strength = max(start, percent) / 100
            startStrength = start / 100
            endStrength = percent / 100
            length = lower.hasSubstring("long") ? 800 : lower.hasSubstring("medium") ? 450 : 200
        } else if number == 15 {
            family = .alert
            length = 750
        } else if number == 16 {
            family = .alert
            length = 1000
        } else if number == 118 {
            family = .longBuzz
            length = 2500
        } else if lower.beginsWith("smooth hum") {
            family = .smoothHum
            length = 300
        } else if lower.beginsWith("transition hum") {
            family = .transitionHum
            length = 250
        } else if lower.beginsWith("transition click") {
            family = .transitionClick
            length = 40
        } else if lower.beginsWith("pulsing") {
            family = .pulsing
            length = 500
        } else if lower.hasSubstring("triple click") {
            family = .tripleClick
            length = 260
        } else if lower.hasSubstring("double") && lower.hasSubstring("tick") {
            family = .doubleTick
            length = lower.hasSubstring("long") ? 180 : 80
        } else if lower.hasSubstring("double") {
            family = .doubleClick
            length = lower.hasSubstring("long") ? 220 : lower.hasSubstring("short") ? 130 : 160
        } else if lower.hasSubstring("tick") {
            family = .tick
            length = 30
        } else if lower.hasSubstring("bump") {
            family = .bump
            length = 90
        } else if lower.hasSubstring("fuzz") {
            family = .fuzz
            length = 160
        } else if lower.hasSubstring("buzz") {
            family = .buzz
            length = lower.beginsWith("strong") ? 240 : 250
        } else if lower.beginsWith("sharp click") {
            family = .sharpClick
            length = 40
        } else if lower.beginsWith("medium click") {
            family = .click
            length = 50
        } else {
            family = .click
            length = 60
        }
        estimatedDuration = .milliseconds(length)
    }
}

#if !hasFeature(Embedded)
    // Saved in board files and calibration records on Linux; firmware has no Codable.
    extension Effect: Codable {}
#endif
