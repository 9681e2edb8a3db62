// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticEffects
import HardwareAccess

/// The chips of the family, told apart by STATUS[7:5] (DEVICE_ID).
public enum Part: UInt8, CaseIterable, Sendable, CustomStringConvertible {
    case drv2605 = 3
    case drv2604 = 4
    case drv2604L = 6
    case drv2605L = 7

    public var description: String {
        switch self {
        case .drv2605: return "DRV2605"
        case .drv2604: return "DRV2604"
        case .drv2604L: return "DRV2604L"
        case .drv2605L: return "DRV2605L"
        }
    }

    /// Parses "drv2605l", "DRV2605L", …
    public init?(name: String) {
        guard let part = Part.allCases.first(where: { $0.description.asciiLowercased().sameBytes(as: name.asciiLowercased()) }) else { return nil }
        self = part
    }

    /// The licensed ROM effect library (DRV2605, DRV2605L). The DRV2604s have RAM instead.
    public var hasROMLibrary: Bool { self == .drv2605 || self == .drv2605L }
    /// The low-voltage parts add CONTROL5, OL_LRA_PERIOD and ERM library F.
    public var isLowVoltage: Bool { self == .drv2605L || self == .drv2604L }

    /// Register reset values 0x00–0x22 (drv2605.md §2). Where the sources disagree (LIBRARY_SEL),
    /// the register-map value is used; drivers always write it.
    public var resetValues: RegisterFile {
        var file = RegisterFile()
        file[.status] = rawValue << 5
        file[.mode] = 0x40
        file[.librarySelection] = 0x00
        file[.waveformSequence1] = 0x01
        file[.audioToVibeControl] = 0x05
        file[.audioToVibeMinimumInput] = 0x19
        file[.audioToVibeMaximumInput] = 0xFF
        file[.audioToVibeMinimumDrive] = 0x19
        file[.audioToVibeMaximumDrive] = 0xFF
        file[.feedbackControl] = 0x36
        file[.control1] = 0x93
        file[.control2] = 0xF5
        file[.control3] = 0xA0
        file[.control4] = 0x20
        if isLowVoltage {
            file[.ratedVoltage] = 0x3E
            file[.overdriveClamp] = 0x8C
            file[.autoCalibrationCompensation] = 0x0C
            file[.autoCalibrationBackEMF] = 0x6C
            file[.control5] = 0x80
            file[.lraOpenLoopPeriod] = 0x33
        } else {
            file[.ratedVoltage] = 0x3F
            file[.overdriveClamp] = 0x89
            file[.autoCalibrationCompensation] = 0x0D
            file[.autoCalibrationBackEMF] = 0x6D
        }
        return file
    }

    /// The last register worth writing in a configuration burst. CONTROL5 and OL_LRA_PERIOD
    /// exist on the L parts; on the others they may not exist (UNCONFIRMED), so they are left alone.
    public var lastConfigurationRegister: Register { isLowVoltage ? .lraOpenLoopPeriod : .control4 }
}

#if !hasFeature(Embedded)
    // Saved in board files and calibration records on Linux; firmware has no Codable.
    extension Part: Codable {}
#endif
