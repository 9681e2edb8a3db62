// SPDX-License-Identifier: Apache-2.0

import Foundation
import Haptics
import HardwareAccess

/// The system service as a `FeedbackTarget`: an app's generators (`ImpactFeedbackGenerator`,
/// `SensoryFeedback`...) reach `hapticd` unchanged, with its arbitration and profiles.
///
///     ServiceFeedbackTarget.connectIfRunning()       // at start-up: use hapticd if it runs
///     ImpactFeedbackGenerator(style: .heavy).impactOccurred()
public final class ServiceFeedbackTarget: FeedbackTarget {
    private let client: Locked<HapticServiceClient?>
    /// The socket it talks to.
    public let socketPath: String
    /// The application name its profiles are kept under (nil: the process's name).
    public let app: String?
    /// How much its feedback matters (default UI).
    public let importance: Importance

    /// Connects to the daemon at `socketPath`.
    public init(
        socketPath: String = HapticServiceClient.defaultSocketPath, app: String? = nil,
        importance: Importance = .ui
    ) throws(ServiceSocketError) {
        self.socketPath = socketPath
        self.app = app
        self.importance = importance
        client = Locked(try HapticServiceClient(socketPath: socketPath))
    }

    /// Makes generators without an engine of their own use `hapticd` when its socket answers;
    /// returns whether it did.
    @discardableResult
    public static func connectIfRunning(socketPath: String = HapticServiceClient.defaultSocketPath, app: String? = nil) -> Bool {
        guard FileManager.default.fileExists(atPath: socketPath),
            let target = try? ServiceFeedbackTarget(socketPath: socketPath, app: app)
        else { return false }
        FeedbackTargets.service = target
        return true
    }

    /// Asks the daemon to play `feedback` (one round trip, about 0.2 ms); `.dropped(.service(reason))` says why not.
    public func play(_ feedback: Feedback) -> FeedbackOutcome {
        var request = ServiceRequest(.play)
        request.feedback = feedback.kind.name
        request.intensity = feedback.intensity
        request.importance = importance
        request.app = app
        guard let reply = send(request) else { return .dropped(.service("no answer from \(socketPath)")) }
        return reply.outcome == "played" ? .played : .dropped(.service(reply.reason ?? reply.error?.rawValue ?? "dropped"))
    }

    /// Asks the daemon to wake the chip and preload `feedback`.
    public func prepare(_ feedback: Feedback, holder: ObjectIdentifier?) {
        var request = ServiceRequest(.prepare)
        request.feedback = feedback.kind.name
        request.app = app
        _ = send(request)
    }

    /// The daemon's preparation lapses by itself (its prepared timeout).
    public func releasePreparation(holder: ObjectIdentifier) {}

    /// One round trip; reconnects once if the daemon restarted.
    private func send(_ request: ServiceRequest) -> ServiceReply? {
        client.withLock { client in
            for _ in 0..<2 {
                if client == nil { client = try? HapticServiceClient(socketPath: socketPath) }
                guard let connection = client else { return nil }
                if let reply = try? connection.send(request, timeout: .seconds(2)) { return reply }
                connection.close()
                client = nil
            }
            return nil
        }
    }
}
