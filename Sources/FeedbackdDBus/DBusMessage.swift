// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// A message's contents, read and written in the order its signature gives (sd-bus's
// `sd_bus_message_read`/`append` family), with D-Bus's types as feedbackd's API uses them.

/// A message that does not hold what its signature promised, or that could not be built.
struct DBusWireError: Error, CustomStringConvertible {
    var description: String
}

/// Typed reads from a message, in order.
struct DBusReader {
    let message: OpaquePointer

    private func check(_ result: Int32, _ what: String) throws(DBusWireError) {
        guard result > 0 else { throw DBusWireError(description: "expected \(what)") }
    }

    func string() throws(DBusWireError) -> String {
        var value: UnsafePointer<CChar>?
        try check(sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &value), "a string")
        return value.map { String(cString: $0) } ?? ""
    }

    func int32() throws(DBusWireError) -> Int32 {
        var value: Int32 = 0
        try check(sd_bus_message_read_basic(message, CChar(UInt8(ascii: "i")), &value), "an int32")
        return value
    }

    func uint32() throws(DBusWireError) -> UInt32 {
        var value: UInt32 = 0
        try check(sd_bus_message_read_basic(message, CChar(UInt8(ascii: "u")), &value), "a uint32")
        return value
    }

    /// A variant holding a basic value; other contents are skipped and reported by signature.
    func variant() throws(DBusWireError) -> DBusValue {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        try check(sd_bus_message_peek_type(message, &type, &contents), "a variant")
        guard type == CChar(UInt8(ascii: "v")), let contents else { throw DBusWireError(description: "expected a variant") }
        let signature = String(cString: contents)
        try check(sd_bus_message_enter_container(message, CChar(UInt8(ascii: "v")), contents), "a variant")
        let value: DBusValue
        switch signature {
        case "s": value = .string(try string())
        case "b":
            var flag: Int32 = 0
            try check(sd_bus_message_read_basic(message, CChar(UInt8(ascii: "b")), &flag), "a boolean")
            value = .bool(flag != 0)
        case "i": value = .int(Int64(try int32()))
        case "u": value = .int(Int64(try uint32()))
        default:
            try check(sd_bus_message_skip(message, signature) >= 0 ? 1 : 0, "a \(signature) value")
            value = .other(signature)
        }
        try check(sd_bus_message_exit_container(message) >= 0 ? 1 : 0, "the variant's end")
        return value
    }

    /// An `a(du)`: feedbackd's vibration pattern, (magnitude, milliseconds) pairs; the first
    /// `limit` are kept, the rest read past.
    func magnitudesAndDurations(limit: Int) throws(DBusWireError) -> [(magnitude: Double, milliseconds: UInt32)] {
        try check(sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "(du)"), "an a(du)")
        var pairs: [(magnitude: Double, milliseconds: UInt32)] = []
        while sd_bus_message_enter_container(message, CChar(UInt8(ascii: "r")), "du") > 0 {
            var magnitude = 0.0
            try check(sd_bus_message_read_basic(message, CChar(UInt8(ascii: "d")), &magnitude), "a double")
            let milliseconds = try uint32()
            if pairs.count < limit { pairs.append((magnitude, milliseconds)) }
            try check(sd_bus_message_exit_container(message) >= 0 ? 1 : 0, "a pair's end")
        }
        try check(sd_bus_message_exit_container(message) >= 0 ? 1 : 0, "the a(du)'s end")
        return pairs
    }

    /// An `a{sv}` dictionary (hints, changed properties).
    func dictionary() throws(DBusWireError) -> [String: DBusValue] {
        try check(sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "{sv}"), "an a{sv}")
        var entries: [String: DBusValue] = [:]
        while sd_bus_message_enter_container(message, CChar(UInt8(ascii: "e")), "sv") > 0 {
            let key = try string()
            entries[key] = try variant()
            try check(sd_bus_message_exit_container(message) >= 0 ? 1 : 0, "an entry's end")
        }
        try check(sd_bus_message_exit_container(message) >= 0 ? 1 : 0, "the a{sv}'s end")
        return entries
    }
}

/// A basic value inside a variant.
enum DBusValue: Equatable {
    case string(String)
    case bool(Bool)
    case int(Int64)
    /// A value of another type (its signature), skipped.
    case other(String)
}

/// Typed appends to a message being built.
struct DBusWriter {
    let message: OpaquePointer

    private func check(_ result: Int32) throws(DBusWireError) {
        guard result >= 0 else { throw DBusWireError(description: "could not build the message: \(String(cString: strerror(-result)))") }
    }

    func string(_ value: String) throws(DBusWireError) {
        try check(value.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) })
    }

    func uint32(_ value: UInt32) throws(DBusWireError) {
        var value = value
        try check(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "u")), &value))
    }

    func bool(_ value: Bool) throws(DBusWireError) {
        var flag: Int32 = value ? 1 : 0
        try check(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "b")), &flag))
    }

    /// A variant holding a string.
    func variant(string value: String) throws(DBusWireError) {
        try check(sd_bus_message_open_container(message, CChar(UInt8(ascii: "v")), "s"))
        try string(value)
        try check(sd_bus_message_close_container(message))
    }

    /// An `a{sv}` of string values.
    func dictionary(strings entries: [(String, String)]) throws(DBusWireError) {
        try check(sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "{sv}"))
        for (key, value) in entries {
            try check(sd_bus_message_open_container(message, CChar(UInt8(ascii: "e")), "sv"))
            try string(key)
            try variant(string: value)
            try check(sd_bus_message_close_container(message))
        }
        try check(sd_bus_message_close_container(message))
    }

    /// An empty `as`.
    func emptyStringArray() throws(DBusWireError) {
        try check(sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "s"))
        try check(sd_bus_message_close_container(message))
    }
}
