// SPDX-License-Identifier: Apache-2.0

import Foundation

/// System-wide haptics settings, as iOS's System Haptics switch: respected by every engine and
/// every verb. Kept in a JSON file so an administrator can turn haptics off for a whole kiosk.
public struct HapticsPolicy: Sendable, Codable, Equatable {
    /// Off drops every feedback (with one log line), as the System Haptics switch does.
    public var enabled: Bool = true
    /// Scales every feedback's intensity, 0...1.
    public var intensityScale: Double = 1
    /// Selection feedback closer together than this is coalesced (dropped): a fast-spinning
    /// picker should not turn into a buzz.
    public var selectionMinimumIntervalSeconds: Double = 0.025
    /// At most this many feedbacks a second; more are dropped (protects the actuator from overuse).
    public var maximumFeedbackPerSecond: Int = 40

    public init() {}

    /// Where the policy is read from: `$HAPTICS_POLICY`, else `/etc/haptics/policy.json`.
    public static var defaultPath: String {
        ProcessInfo.processInfo.environment["HAPTICS_POLICY"] ?? "/etc/haptics/policy.json"
    }

    /// The system policy, if its file exists (`nil` otherwise: nothing to combine with).
    public static func loadSystemPolicy(from path: String = defaultPath) throws -> HapticsPolicy? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try load(from: path)
    }

    /// Loads the policy file; a missing file gives the defaults. A malformed file is an error
    /// naming the file (it is never half applied).
    public static func load(from path: String = defaultPath) throws -> HapticsPolicy {
        guard FileManager.default.fileExists(atPath: path) else { return HapticsPolicy() }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try decode(data, path: path)
    }

    /// A policy from a policy file's bytes (`path` only names it in errors). Values out of range
    /// are brought into range: a scale within 0...1, at least one feedback a second, a
    /// non-negative selection interval.
    public static func decode(_ data: Data, path: String) throws(PolicyFileError) -> HapticsPolicy {
        guard data.count <= 1 << 16 else { throw PolicyFileError(path: path, reason: "larger than 64 KiB") }
        do {
            var policy = try JSONDecoder().decode(HapticsPolicy.self, from: data)
            policy.intensityScale = policy.intensityScale.isFinite ? min(1, max(0, policy.intensityScale)) : 1
            policy.maximumFeedbackPerSecond = max(1, policy.maximumFeedbackPerSecond)
            policy.selectionMinimumIntervalSeconds =
                policy.selectionMinimumIntervalSeconds.isFinite
                ? min(10, max(0, policy.selectionMinimumIntervalSeconds)) : 0.025
            return policy
        } catch {
            throw PolicyFileError(path: path, reason: String(describing: error))
        }
    }

    /// This policy under a system policy: off if either is off, scales multiplied, the stricter
    /// coalescing and rate limit. The system file can only make haptics quieter, as iOS's switch.
    public func combined(with system: HapticsPolicy) -> HapticsPolicy {
        var result = self
        result.enabled = enabled && system.enabled
        result.intensityScale = intensityScale * system.intensityScale
        result.selectionMinimumIntervalSeconds = max(selectionMinimumIntervalSeconds, system.selectionMinimumIntervalSeconds)
        result.maximumFeedbackPerSecond = min(maximumFeedbackPerSecond, system.maximumFeedbackPerSecond)
        return result
    }

    enum CodingKeys: String, CodingKey {
        case enabled, intensityScale, selectionMinimumIntervalSeconds, maximumFeedbackPerSecond
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled) ?? true
        intensityScale = try container.decodeIfPresent(Double.self, forKey: .intensityScale) ?? 1
        selectionMinimumIntervalSeconds = try container.decodeIfPresent(Double.self, forKey: .selectionMinimumIntervalSeconds) ?? 0.025
        maximumFeedbackPerSecond = try container.decodeIfPresent(Int.self, forKey: .maximumFeedbackPerSecond) ?? 40
    }
}

/// The policy file could not be read.
public struct PolicyFileError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "haptics policy file \(path) is malformed: \(reason)" }
}
