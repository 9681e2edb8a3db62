// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The wire format of `hapticd`'s socket: each message is a 4-byte big-endian length, then that
/// many bytes of UTF-8 JSON. A length says up front how much to read, so a reader never parses a
/// half message and a peer that lies about it is caught before anything is allocated.
public enum ServiceFrame {
    /// The protocol version this build speaks: 2 adds `trigger`, `end` and the pushed "ended"
    /// message (feedbackd's model: a feedback started by id, ended later, its end told).
    public static let version = 2
    /// The versions served: a client of version 1 is answered as before.
    public static let supportedVersions = 1...2
    /// The largest message accepted: 1 MiB holds an AHAP pattern of several thousand events,
    /// far more than any actuator plays in a minute. Longer frames are refused and the
    /// connection closed (its remaining bytes cannot be trusted to be a frame boundary).
    public static let maximumLength = 1 << 20

    /// Why bytes on the socket are not a message.
    public enum FrameError: Error, Equatable, CustomStringConvertible {
        /// The announced length is over `maximumLength`.
        case tooLarge(Int)
        /// A zero length.
        case empty
        /// The peer closed the connection in the middle of a frame.
        case truncated
        /// The payload is not the JSON this message needs.
        case malformed(String)

        /// What went wrong, for a reply's `reason` and the log.
        public var description: String {
            switch self {
            case let .tooLarge(length): return "a message of \(length) bytes is over the limit of \(ServiceFrame.maximumLength)"
            case .empty: return "an empty message"
            case .truncated: return "the connection closed in the middle of a message"
            case let .malformed(detail): return "not a valid message: \(detail)"
            }
        }
    }

    /// The frame of `message`: its length, then its JSON.
    public static func encode<Message: Encodable>(_ message: Message) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let payload = [UInt8](try encoder.encode(message))
        let length = UInt32(payload.count)
        return [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)] + payload
    }

    /// The payload length a 4-byte header announces, checked against the limit.
    public static func length(ofHeader header: [UInt8]) throws(FrameError) -> Int {
        guard header.count == 4 else { throw .truncated }
        let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        guard length > 0 else { throw .empty }
        guard length <= maximumLength else { throw .tooLarge(length) }
        return length
    }

    /// Decodes a payload, saying which field was wrong when it does not fit.
    public static func decode<Message: Decodable>(_ type: Message.Type, from payload: [UInt8]) throws(FrameError) -> Message {
        do {
            return try JSONDecoder().decode(type, from: Data(payload))
        } catch let DecodingError.keyNotFound(key, _) {
            throw .malformed("the field '\(key.stringValue)' is missing")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw .malformed("'\(context.codingPath.map(\.stringValue).joined(separator: "."))': \(context.debugDescription)")
        } catch let DecodingError.dataCorrupted(context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw .malformed((path.isEmpty ? "" : "'\(path)': ") + context.debugDescription)
        } catch {
            throw .malformed(String(describing: error))
        }
    }
}
