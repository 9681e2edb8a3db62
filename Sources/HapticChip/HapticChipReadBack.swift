// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

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
    public var details: Details

    /// A read-back as a driver made it.
    public init(standby: Bool, driving: Bool, details: Details = [:]) {
        self.standby = standby
        self.driving = driving
        self.details = details
    }
}

extension HapticChipReadBack {
    /// Named fields in the order the driver gave them, written as a dictionary literal. Not a
    /// `Dictionary`: hashing strings needs the standard library's Unicode tables, which firmware
    /// cannot spare the flash for. Two are equal when they hold the same names and values, in
    /// any order.
    public struct Details: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
        private var names: [String]
        private var values: [Value]

        public init(dictionaryLiteral elements: (String, Value)...) {
            names = elements.map { $0.0 }
            values = elements.map { $0.1 }
        }

        /// The field called `name`, if there is one.
        public subscript(name: String) -> Value? {
            names.firstIndex { $0.sameBytes(as: name) }.map { values[$0] }
        }

        /// How many fields.
        public var count: Int { names.count }

        public func makeIterator() -> Zip2Sequence<[String], [Value]>.Iterator { zip(names, values).makeIterator() }

        public static func == (lhs: Details, rhs: Details) -> Bool {
            lhs.count == rhs.count && lhs.allSatisfy { name, value in rhs[name] == value }
        }
    }
}
