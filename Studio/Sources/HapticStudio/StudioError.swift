// SPDX-License-Identifier: Apache-2.0

import Haptics

/// Why the studio refused a request; each maps onto one HTTP status, and its text says what to do.
public enum StudioError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not JSON at all (400), with line and column.
    case malformed(PatternFileError)
    /// JSON, but a field is wrong (422), with its JSON path.
    case invalid(PatternFileError)
    /// Larger than the pattern size limit (413).
    case tooLarge(bytes: Int, limit: Int)
    /// A request the API does not understand (400).
    case badRequest(String)
    /// A foreign web page, a missing token or a host name that is not ours (403).
    case forbidden(String)
    /// The chip could not be driven (503).
    case chip(String)

    /// One line for the page and for scripts.
    public var description: String {
        switch self {
        case let .malformed(error), let .invalid(error): return error.description
        case let .tooLarge(bytes, limit): return "the pattern is \(bytes) bytes; the studio takes \(limit) at most"
        case let .badRequest(text), let .forbidden(text), let .chip(text): return text
        }
    }

    /// The JSON path of the field at fault, when there is one.
    public var path: String? {
        switch self {
        case let .malformed(error), let .invalid(error): return error.path.isEmpty ? nil : error.path
        default: return nil
        }
    }
}
