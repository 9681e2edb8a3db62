/// The chips of the family, told apart by STATUS[7:5] (DEVICE_ID).
public enum Part: UInt8, CaseIterable, Sendable, Codable, CustomStringConvertible {
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
        guard let part = Part.allCases.first(where: { $0.description.lowercased() == name.lowercased() }) else { return nil }
        self = part
    }

    /// The licensed ROM effect library (DRV2605, DRV2605L). The DRV2604s have RAM instead.
    public var hasROMLibrary: Bool { self == .drv2605 || self == .drv2605L }
    /// The low-voltage parts add CONTROL5, OL_LRA_PERIOD and ERM library F.
    public var isLowVoltage: Bool { self == .drv2605L || self == .drv2604L }

    /// Register reset values 0x00–0x22 (drv2605.md §2). Where the sources disagree (LIBRARY_SEL),
    /// the register-map value is used; drivers always write it.
    public var resetValues: [UInt8] {
        var values = [UInt8](repeating: 0, count: Int(Register.last) + 1)
        values[0x00] = rawValue << 5
        values[0x01] = 0x40
        values[0x03] = 0x00
        values[0x04] = 0x01
        values[0x11] = 0x05
        values[0x12] = 0x19
        values[0x13] = 0xFF
        values[0x14] = 0x19
        values[0x15] = 0xFF
        values[0x1A] = 0x36
        values[0x1B] = 0x93
        values[0x1C] = 0xF5
        values[0x1D] = 0xA0
        values[0x1E] = 0x20
        if isLowVoltage {
            values[0x16] = 0x3E
            values[0x17] = 0x8C
            values[0x18] = 0x0C
            values[0x19] = 0x6C
            values[0x1F] = 0x80
            values[0x20] = 0x33
        } else {
            values[0x16] = 0x3F
            values[0x17] = 0x89
            values[0x18] = 0x0D
            values[0x19] = 0x6D
        }
        return values
    }

    /// The last register worth writing in a configuration burst. CONTROL5 and OL_LRA_PERIOD
    /// exist on the L parts; on the others they may not exist (UNCONFIRMED), so they are left alone.
    public var lastConfigurationRegister: UInt8 { isLowVoltage ? 0x20 : 0x1E }
}
