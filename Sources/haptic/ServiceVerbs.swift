// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import HapticBoards
import Haptics
import HapticsService
import HardwareAccess

extension Importance: ExpressibleByArgument {}
extension FeedbackProfile: ExpressibleByArgument {}
extension CalibrationPolicy: ExpressibleByArgument {}

/// The verbs' path through `hapticd` (`--socket`, `$HAPTICD_SOCKET`): one request, the reply
/// reported as the local verb reports it, the same exit codes.
enum ServiceCall {
    /// Sends `request` to the daemon at `socket`, prints the outcome (`--json`: the local verb's
    /// keys where they apply) and throws when it was not played.
    static func run(
        _ global: GlobalOptions, socket: String, label: String, request: ServiceRequest,
        timeout: Duration = .seconds(10), extra: [String: Any] = [:]
    ) throws {
        let client = try connect(socket)
        defer { client.close() }
        let start = SystemClock.shared.now
        let reply = try client.send(request, timeout: timeout)
        let elapsed = SystemClock.shared.now.duration(since: start).secondsDouble
        if let code = reply.error { throw error(code, reply.reason ?? "refused", label: label) }
        let status = request.op == .status ? reply.status : (try? client.send(ServiceRequest(.status)))?.status
        let device = "hapticd at \(socket)" + (status.map { ": \($0.device)" } ?? "")
        if global.json {
            var object = extra
            object["device"] = device
            if let outcome = reply.outcome { object["outcome"] = outcome }
            if let reason = reply.reason { object["reason"] = reason }
            if request.op == .play { object["playedSeconds"] = reply.playedSeconds ?? elapsed }
            if let status {
                object["final"] = ["standby": status.standby, "go": status.go]
                if request.op == .status {
                    object["part"] = status.part
                    object["actuator"] = status.actuator
                    object["standby"] = status.standby
                    object["power"] = status.power
                    object["service"] = [
                        "clients": status.clients, "globalProfile": status.globalProfile.rawValue,
                        "appProfile": status.appProfile.map { $0.rawValue as Any } ?? NSNull(), "playing": status.playing.map { $0 as Any } ?? NSNull(),
                        "played": status.played, "dropped": status.dropped,
                        "awakeSeconds": status.awakeSeconds
                    ]
                }
            }
            if let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]) {
                print(String(decoding: data, as: UTF8.self))
            }
        } else {
            print("haptic: \(device)")
            if let status, request.op == .status {
                print("part:        \(status.part), \(status.actuator)")
                print("power:       \(status.power), standby \(status.standby ? "on" : "off")")
                print("profiles:    global \(status.globalProfile.rawValue)" + (status.appProfile.map { ", this app \($0.rawValue)" } ?? ""))
                print("service:     \(status.clients) client(s); \(status.played) played, \(status.dropped) dropped" + (status.playing.map { "; playing \($0)" } ?? ""))
            } else if let outcome = reply.outcome {
                print("\(label): \(outcome)" + (reply.reason.map { " (\($0))" } ?? ""))
            }
        }
        if reply.outcome == "dropped" {
            throw CLIError("\(label) was not played: \(reply.reason ?? "dropped by hapticd")", exitCode: CLIError.temporaryFailure)
        }
    }

    /// A client of the daemon at `socket`; none answering is exit 69 (unavailable).
    private static func connect(_ socket: String) throws -> HapticServiceClient {
        do {
            return try HapticServiceClient(socketPath: socket)
        } catch {
            throw CLIError(error.description, exitCode: CLIError.unavailable)
        }
    }

    /// Triggers feedbackd event `event` for `timeout` seconds (0: until the program is interrupted)
    /// through protocol version 2, and reports how it ended. Ctrl-C exits 130 as everywhere else;
    /// hapticd ends the feedback of a client that leaves, so the ringing stops with it.
    static func trigger(_ global: GlobalOptions, socket: String, event: String, timeout: Int, service: ServiceOptions) throws {
        let client = try connect(socket)
        defer { client.close() }
        let start = SystemClock.shared.now
        let id: UInt32
        do {
            id = try client.trigger(event, timeout: timeout, important: service.important, app: service.app)
        } catch let error as ServiceSocketError {
            throw CLIError("hapticd refused \(event): \(error.detail)", exitCode: CLIError.dataError)
        }
        if !global.json { print("haptic: \(event) triggered at hapticd (\(socket)), id \(id)" + (timeout == 0 ? "; Ctrl-C ends it" : "")) }
        var reason: FeedbackEndReason?
        let limit = SystemClock.shared.now.advanced(by: .seconds(timeout == 0 ? Int64.max / 2_000_000_000 : Int64(timeout) + 30))
        while reason == nil && SystemClock.shared.now < limit {
            reason = try client.waitForEnd(of: id, timeout: .seconds(1))
        }
        let seconds = SystemClock.shared.now.duration(since: start).secondsDouble
        let name = reason?.name ?? "unknown"
        if global.json {
            let object: [String: Any] = ["event": event, "trigger": Int(id), "ended": name, "playedSeconds": seconds]
            if let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]) {
                print(String(decoding: data, as: UTF8.self))
            }
        } else {
            print("\(event): ended (\(name)) after \(String(format: "%.1f", seconds)) s")
        }
        guard let reason, reason != .notFound else {
            throw CLIError("\(event) was not played (\(name)): see hapticd's log for why", exitCode: CLIError.temporaryFailure)
        }
    }

    private static func error(_ code: ServiceReply.ErrorCode, _ reason: String, label: String) -> CLIError {
        switch code {
        case .badRequest, .tooLarge: return CLIError("hapticd refused \(label): \(reason)", exitCode: CLIError.dataError)
        case .notPermitted: return CLIError("hapticd: \(reason)", exitCode: CLIError.permission)
        case .busy: return CLIError("hapticd: \(reason)", exitCode: CLIError.temporaryFailure)
        case .unsupportedVersion: return CLIError("hapticd: \(reason)", exitCode: CLIError.unavailable)
        case .fault: return CLIError("hapticd: \(reason)", exitCode: CLIError.runtime)
        }
    }
}

/// Options of a play through the daemon.
struct ServiceOptions: ParsableArguments {
    @Option(help: "With --socket: how much the feedback matters to the daemon's arbitration (alarm, call, notification, ui, ambient).")
    var importance: Importance?
    @Option(help: "With --socket: the application name profiles are kept under (default: this process's name).")
    var app: String?
    @Flag(help: "With --socket: ask to play through a quiet or silent profile (alarm and call importance only).")
    var important = false

    func apply(to request: inout ServiceRequest) {
        request.importance = importance
        request.app = app
        request.important = important ? true : nil
    }
}

struct Profile: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Set hapticd's feedback profile (full, quiet, silent) for this application, or with --global for every one.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "full: everything; quiet: notifications, calls, alarms; silent: nothing but important alarms and calls.")
    var profile: FeedbackProfile
    @Flag(help: "For every application (root or hapticd's user).") var everyone = false
    @Option(help: "The application (default: this process's name).") var app: String?

    func run() throws {
        try CLIError.reporting {
            guard let socket = global.serviceSocket else {
                throw CLIError("profile talks to hapticd: pass --socket PATH or set HAPTICD_SOCKET", exitCode: CLIError.usage)
            }
            var request = ServiceRequest(.profile)
            request.profile = profile
            request.scope = everyone ? .global : .app
            request.app = app
            try ServiceCall.run(global, socket: socket, label: "profile \(profile.rawValue)", request: request)
            if !global.json { print("profile \(profile.rawValue) set for \(everyone ? "every application" : app ?? "this application")") }
        }
    }
}
