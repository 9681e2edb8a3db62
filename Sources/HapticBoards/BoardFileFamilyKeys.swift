// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A value a board file gives under a key that a chip family owns (`HapticChipFamily`'s
/// `actuatorKeys` and `driverKeys`), kept as the JSON gave it: the family reads and checks it, so
/// a family's keys need no field here and a new family edits nothing in this module.
public enum BoardFileValue: Sendable, Hashable, CustomStringConvertible {
    case number(Double)
    case string(String)
    case bool(Bool)
    case list([BoardFileValue])
    case object([String: BoardFileValue])
    case null

    /// A value decoded by `JSONSerialization`, which gives true and false as a boolean NSNumber.
    init(json: Any) {
        switch json {
        case let number as NSNumber where String(describing: type(of: number)).contains("Boolean"): self = .bool(number.boolValue)
        case let number as NSNumber: self = .number(number.doubleValue)
        case let text as String: self = .string(text)
        case let list as [Any]: self = .list(list.map(BoardFileValue.init(json:)))
        case let object as [String: Any]: self = .object(object.mapValues(BoardFileValue.init(json:)))
        default: self = .null
        }
    }

    /// As JSON would write it: `2.5`, `"bar"`.
    public var description: String {
        switch self {
        case let .number(number): return number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
        case let .string(text): return "'\(text)'"
        case let .bool(flag): return String(flag)
        case let .list(values): return "[" + values.map(\.description).joined(separator: ", ") + "]"
        case let .object(values): return "{" + values.keys.sorted().map { "\($0): \(values[$0]!)" }.joined(separator: ", ") + "}"
        case .null: return "null"
        }
    }
}

/// The keys of one actuator preset or driver entry that no common field takes, with where they
/// came from: what a family reads its own keys from, each read failing with the field named.
public struct BoardFileFamilyKeys: Sendable, Hashable {
    /// The board file's path, for errors.
    public var file: String
    /// The entry's field: `actuators.lra`, `drivers[0]`.
    public var field: String
    /// The values, by key.
    public var values: [String: BoardFileValue]

    /// Keys kept from `object`, every key but `common`.
    init(file: String, field: String, object: [String: Any], common: Set<String>) {
        self.file = file
        self.field = field
        values = object.filter { !common.contains($0.key) }.mapValues(BoardFileValue.init(json:))
    }

    /// No keys: an entry made in code.
    public init(file: String = "", field: String = "", values: [String: BoardFileValue] = [:]) {
        self.file = file
        self.field = field
        self.values = values
    }

    public subscript(key: String) -> BoardFileValue? { values[key] }

    /// The error for `key`: `actuators.lra.impedanceOhms is 0 (allowed: a positive number)`.
    public func error(_ key: String, _ problem: String, allowed: String? = nil) -> BoardFileError {
        BoardFileError(file: file, field: "\(field).\(key)", problem: problem, allowed: allowed)
    }

    /// The number under `key`, nil when absent; any other value is refused.
    public func number(_ key: String) throws(BoardFileError) -> Double? {
        switch values[key] {
        case nil: return nil
        case let .number(number)? where number.isFinite: return number
        case let value?: throw error(key, "is \(value)", allowed: "a number")
        }
    }

    /// The number under `key` when it is above zero, nil when absent.
    public func positiveNumber(_ key: String) throws(BoardFileError) -> Double? {
        guard let number = try number(key) else { return nil }
        guard number > 0 else { throw error(key, "is \(BoardFileValue.number(number))", allowed: "a positive number") }
        return number
    }

    /// The text under `key`, nil when absent; any other value is refused.
    public func string(_ key: String) throws(BoardFileError) -> String? {
        switch values[key] {
        case nil: return nil
        case let .string(text)?: return text
        case let value?: throw error(key, "is \(value)", allowed: "a string")
        }
    }
}
