// SPDX-License-Identifier: Apache-2.0

/// What `HapticChipDriver.readBack()` read from the chip's registers: the same two questions for
/// every chip (does it sleep, is the actuator driven), and the chip's own fields for people and
/// for `--json` (a DRV2605's GO, RTP input and mode; a DA7280's operation mode and level).
public struct HapticChipReadBack: Sendable, Equatable {
    /// A field's value.
    public enum Value: Sendable, Equatable {
        case bool(Bool)
        case int(Int)
        case text(String)

        #if !hasFeature(Embedded)
        /// As JSON takes it (JSONSerialization's types; not in firmware, which has no `Any`).
        public var jsonValue: Any {
            switch self {
            case let .bool(value): return value
            case let .int(value): return value
            case let .text(value): return value
            }
        }
        #endif
    }

    /// In the chip's low-power state (standby or lower).
    public var standby: Bool
    /// The actuator is driven now: a sequence is running, or the stream's level is not zero.
    public var driving: Bool
    /// The chip's own fields, by the name `--json` uses.
    public var details: [String: Value]

    /// A read-back as a driver made it.
    public init(standby: Bool, driving: Bool, details: [String: Value] = [:]) {
        self.standby = standby
        self.driving = driving
        self.details = details
    }
}
