// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticEffects
import HardwareAccess

/// LIBRARY_SEL[2:0]: which ROM library shapes the effects. Each is tuned for an actuator class.
public enum EffectLibrary: UInt8, CaseIterable, Sendable, CustomStringConvertible {
    case empty = 0
    /// TS2200 Library A: ERM, 1.3 V rated, 3 V overdrive, built-in overdrive (open loop only).
    case ermA = 1
    case ermB = 2
    case ermC = 3
    case ermD = 4
    case ermE = 5
    /// The LRA library (closed loop).
    case lra = 6
    /// TS2200 Library F: ERM, 4.5 V rated, 5 V overdrive. DRV2605L only.
    case ermF = 7

    public var description: String {
        switch self {
        case .empty: return "empty"
        case .ermA: return "ERM library A"
        case .ermB: return "ERM library B"
        case .ermC: return "ERM library C"
        case .ermD: return "ERM library D"
        case .ermE: return "ERM library E"
        case .lra: return "LRA library"
        case .ermF: return "ERM library F"
        }
    }

    /// Board files and the CLI spell libraries "A"..."F", "LRA" or the number.
    public init?(name: String) {
        let key = name.asciiLowercased().removingEvery("erm").removingEvery("library").trimmingSpaces()
        switch key {
        case "a", "1": self = .ermA
        case "b", "2": self = .ermB
        case "c", "3": self = .ermC
        case "d", "4": self = .ermD
        case "e", "5": self = .ermE
        case "lra", "6": self = .lra
        case "f", "7": self = .ermF
        case "empty", "0": self = .empty
        default: return nil
        }
    }

    /// The short name used in board files.
    public var fileName: String {
        switch self {
        case .empty: return "empty"
        case .ermA: return "A"
        case .ermB: return "B"
        case .ermC: return "C"
        case .ermD: return "D"
        case .ermE: return "E"
        case .lra: return "LRA"
        case .ermF: return "F"
        }
    }

    /// The actuator class this library was made for; `nil` for the empty library.
    public var actuator: ActuatorType? {
        switch self {
        case .empty: return nil
        case .lra: return .lra
        default: return .erm
        }
    }
}

#if !hasFeature(Embedded)
    // Saved in board files and calibration records on Linux; firmware has no Codable.
    extension EffectLibrary: Codable {}
#endif
