// SPDX-License-Identifier: Apache-2.0

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

    /// The frame of a request: its length, then its JSON.
    public static func encode(_ request: ServiceRequest) throws(FrameError) -> [UInt8] { try frame(request) }

    /// The frame of a reply (or a pushed message): its length, then its JSON.
    public static func encode(_ reply: ServiceReply) throws(FrameError) -> [UInt8] { try frame(reply) }

    static func frame(_ message: some ServiceMessage) throws(FrameError) -> [UInt8] {
        var object = JSONObjectWriter(framed: true)
        try message.write(to: &object)
        return object.finish()
    }

    /// The payload length a 4-byte header announces, checked against the limit.
    public static func length(ofHeader header: some Collection<UInt8>) throws(FrameError) -> Int {
        guard header.count == 4 else { throw .truncated }
        let length = header.reduce(0) { $0 << 8 | Int($1) }
        guard length > 0 else { throw .empty }
        guard length <= maximumLength else { throw .tooLarge(length) }
        return length
    }

    /// Decodes a request's payload, saying which field was wrong when it does not fit.
    public static func decode(_ type: ServiceRequest.Type, from payload: [UInt8]) throws(FrameError) -> ServiceRequest {
        try ServiceRequest(JSONObjectReader(payload))
    }

    /// Decodes a reply's payload (or a pushed message's), saying which field was wrong when it does
    /// not fit.
    public static func decode(_ type: ServiceReply.Type, from payload: [UInt8]) throws(FrameError) -> ServiceReply {
        try ServiceReply(JSONObjectReader(payload))
    }
}
