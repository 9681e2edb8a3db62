// SPDX-License-Identifier: Apache-2.0

import Foundation
import HardwareAccess

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

    /// Ends pushed by the daemon (version 2) that no one has asked for yet.
    private let pushed = Locked<[UInt32: FeedbackEndReason]>([:])

    /// Sends `request` and waits up to `timeout` for the reply (a pattern's reply comes when it
    /// has played: allow its length). Messages the daemon pushes meanwhile (triggered feedback
    /// ending) are kept for `waitForEnd`.
    public func send(_ request: ServiceRequest, timeout: Duration = .seconds(10)) throws -> ServiceReply {
        try connection.send(try ServiceFrame.encode(request))
        while true {
            let message = try nextMessage(timeout: timeout)
            if let ended = message.ended {
                pushed.withLock { $0[ended] = message.endReason.flatMap(FeedbackEndReason.init(name:)) ?? .natural }
                continue
            }
            return message
        }
    }

    /// Starts feedbackd event `event` (`trigger`, protocol version 2) and returns its id: -1
    /// plays it once, 0 until `end`, N for N seconds. `waitForEnd` says when and why it ended.
    public func trigger(
        _ event: String, timeout: Int = -1, profile: FeedbackProfile? = nil, important: Bool = false, app: String? = nil
    ) throws -> UInt32 {
        var request = ServiceRequest(.trigger)
        request.event = event
        request.timeout = timeout
        request.profile = profile
        request.important = important
        request.app = app
        let reply = try send(request)
        guard reply.ok, let id = reply.trigger else {
            throw ServiceSocketError(operation: "trigger \(event) at", path: connection.path, errno: nil, detail: reply.reason ?? "refused")
        }
        return id
    }

    /// Ends triggered feedback `id` (`end`); false when it had already ended.
    @discardableResult
    public func end(_ id: UInt32) throws -> Bool {
        var request = ServiceRequest(.end)
        request.trigger = id
        return try send(request).ok
    }

    /// Waits up to `timeout` for triggered feedback `id` to end, and says why; nil at the timeout.
    public func waitForEnd(of id: UInt32, timeout: Duration) throws -> FeedbackEndReason? {
        let deadline = SystemClock.shared.now.advanced(by: timeout)
        while true {
            if let reason = pushed.withLock({ $0.removeValue(forKey: id) }) { return reason }
            let left = deadline.duration(since: SystemClock.shared.now)
            guard left > .zero, connection.waitForInput(timeout: left) == .readable else { return nil }
            let message = try nextMessage(timeout: .seconds(2))
            if let ended = message.ended {
                pushed.withLock { $0[ended] = message.endReason.flatMap(FeedbackEndReason.init(name:)) ?? .natural }
            }
        }
    }

    private func nextMessage(timeout: Duration) throws -> ServiceReply {
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
