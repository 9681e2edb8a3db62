// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A client of `hapticd`: one connection, one request at a time, each answered before the next.
/// What `haptic <verb> --socket PATH` uses, and what an app in another language reimplements
/// from `docs/service-protocol.md`.
public final class HapticServiceClient: Sendable {
    /// Where the daemon listens unless told otherwise: `$HAPTICD_SOCKET`, else
    /// `/run/haptics/hapticd.sock` (the systemd unit's).
    public static var defaultSocketPath: String {
        ProcessInfo.processInfo.environment["HAPTICD_SOCKET"] ?? "/run/haptics/hapticd.sock"
    }

    private let connection: UnixConnection

    /// Connects to the daemon at `socketPath`.
    public init(socketPath: String = HapticServiceClient.defaultSocketPath) throws(ServiceSocketError) {
        connection = try UnixConnection.connect(to: socketPath)
    }

    /// Sends `request` and waits up to `timeout` for the reply (a pattern's reply comes when it
    /// has played: allow its length).
    public func send(_ request: ServiceRequest, timeout: Duration = .seconds(10)) throws -> ServiceReply {
        try connection.send(try ServiceFrame.encode(request))
        guard connection.waitForInput(timeout: timeout) != .timedOut else {
            throw ServiceSocketError(operation: "wait for a reply from", path: connection.path, errno: nil, detail: "no reply within \(timeout)")
        }
        guard let payload = try connection.readFrame(timeout: .seconds(2)) else {
            throw ServiceSocketError(operation: "read from", path: connection.path, errno: nil, detail: "hapticd closed the connection")
        }
        return try ServiceFrame.decode(ServiceReply.self, from: payload)
    }

    /// Closes the connection; whatever this client was playing stops.
    public func close() { connection.close() }
}
