// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import DRV2605
import HapticBoards
import HapticChip
import HapticEffects
import Haptics

// The closed sets of values options take, as enums: argument-parser checks them and lists them
// in `--help`, so no verb checks strings by hand.

/// `--curve-times`: how curve control-point times are read.
enum CurveTimesValue: String, CaseIterable, ExpressibleByArgument {
    /// Detect exporters that write absolute times.
    case automatic
    /// Apple's rule: relative to the curve's own Time.
    case relative
    case absolute

    var option: PatternFileReader.CurveTimeOption {
        switch self {
        case .automatic: return .automatic
        case .relative: return .relative
        case .absolute: return .absolute
        }
    }
}

/// `--strategy`: how a pattern is rendered for the chip.
enum StrategyValue: String, CaseIterable, ExpressibleByArgument {
    case automatic
    /// One real-time (RTP) stream.
    case realtime
    /// ROM clicks for transients.
    case rom

    var strategy: PatternRenderer.Strategy {
        switch self {
        case .automatic: return .automatic
        case .realtime: return .realTime
        case .rom: return .rom
        }
    }
}

/// `--actuator` where no board file names actuators.
enum ActuatorValue: String, CaseIterable, ExpressibleByArgument {
    case lra, erm

    var type: ActuatorType { self == .lra ? .lra : .erm }
}

/// `--simulated-part`: which member of the family the simulated chip is.
enum SimulatedPartValue: String, CaseIterable, ExpressibleByArgument {
    case drv2605l, drv2605, drv2604l, drv2604, da7280

    /// The DRV2605-family part (nil for a DA7280).
    var part: Part? { Part(name: rawValue) }
    /// The chip family simulated.
    var family: BoardFile.ChipFamily { self == .da7280 ? .da7280 : .drv2605 }
}

/// `--parameter NAME=VALUE@SECONDS`: a Core Haptics dynamic parameter, `SECONDS` into the pattern.
struct DynamicParameterValue: ExpressibleByArgument {
    /// The names on the command line, and the parameters they send.
    static let names: [(String, HapticPattern.ParameterID)] = [
        ("intensity", .hapticIntensityControl), ("sharpness", .hapticSharpnessControl), ("attack", .hapticAttackTimeControl),
        ("decay", .hapticDecayTimeControl), ("release", .hapticReleaseTimeControl)
    ]
    let parameter: HapticPattern.Parameter

    init?(argument: String) {
        let nameAndRest = argument.split(separator: "=", maxSplits: 1).map(String.init)
        guard nameAndRest.count == 2, let id = Self.names.first(where: { $0.0 == nameAndRest[0].lowercased() })?.1 else { return nil }
        let valueAndTime = nameAndRest[1].split(separator: "@", maxSplits: 1).map(String.init)
        guard let value = Double(valueAndTime[0]), value.isFinite, id.range.contains(value) else { return nil }
        var time = 0.0
        if valueAndTime.count == 2 {
            guard let seconds = Double(valueAndTime[1]), seconds.isFinite, seconds >= 0 else { return nil }
            time = seconds
        }
        parameter = HapticPattern.Parameter(id: id, time: time, value: value)
    }

}

/// `--mix FILE[@SECONDS]`: another pattern, played on a player of its own, mixed with the first,
/// from SECONDS after its start (0 when left out).
struct MixedPatternValue: ExpressibleByArgument {
    let file: String
    let offset: Double

    init?(argument: String) {
        // The last "@" starts the offset only when what follows is one: a path may hold an "@".
        if let at = argument.lastIndex(of: "@"), let seconds = Double(argument[argument.index(after: at)...]) {
            guard seconds.isFinite, seconds >= 0, at > argument.startIndex else { return nil }
            file = String(argument[..<at])
            offset = seconds
        } else {
            guard !argument.isEmpty else { return nil }
            file = argument
            offset = 0
        }
    }
}
