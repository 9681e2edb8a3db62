// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import Foundation
import HapticChip
import HapticEffects
import HapticStudio
import Haptics
import HardwareAccess
import Logging
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The studio over HTTP on loopback, as a page and a script see it (simulated chip, real clock).
@Suite(.serialized) struct StudioServerTests {
    let chip: RealTimeChip
    let server: StudioServer

    init() throws {
        chip = try RealTimeChip()
        var configuration = StudioServer.Configuration()
        configuration.port = 0
        var limits = StudioPlayback.Limits()
        limits.maximumPatternBytes = 64 << 10
        let device = chip.device
        // Cancelling the server at the end of each test is logged as an error by Hummingbird.
        var logger = Logger(label: "studio-test")
        logger.logLevel = .critical
        server = StudioServer(
            playback: StudioPlayback(device: device, limits: limits),
            page: StudioPage(html: Array("<!doctype html><title>Haptic studio</title>".utf8)), configuration: configuration,
            logger: logger)
    }

    /// Runs the server on a free port for `body`, then stops it.
    func serving(_ body: (URL) async throws -> Void) async throws {
        let port = Locked(0)
        let server = server
        let running = Task { try await server.run { bound in port.withLock { $0 = bound } } }
        defer { running.cancel() }
        #expect(await eventually(timeout: .seconds(10)) { port.withLock { $0 } != 0 }, "the server did not start")
        try await body(URL(string: "http://127.0.0.1:\(port.withLock { $0 })")!)
    }

    static func send(_ base: URL, _ path: String, method: String = "GET", body: Data? = nil, headers: [String: String] = [:]) async throws -> (Int, Data) {
        var request = URLRequest(url: URL(string: path, relativeTo: base)!)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    @Test func playAnswersWhenThePatternEndedAndRefusalsSayWhy() async throws {
        try await serving { base in
            let (pageStatus, page) = try await Self.send(base, "/")
            #expect(pageStatus == 200 && String(decoding: page, as: UTF8.self).contains("Haptic studio"))

            let before = SystemClock.shared.now
            let (status, data) = try await Self.send(base, "/api/play?name=tap.ahap", method: "POST", body: Data(tapAndBuzz.utf8))
            #expect(status == 200)
            let report = try JSONDecoder().decode(StudioPlayback.PlayReport.self, from: data)
            #expect(report.outcome == "finished" && report.file == "tap.ahap")
            #expect(SystemClock.shared.now.duration(since: before) >= .milliseconds(400), "answered before the pattern ended")
            #expect(report.drive.levels.contains { $0 > 0.5 })

            let (invalid, why) = try await Self.send(base, "/api/play", method: "POST", body: Data(#"{"Version":1,"Pattern":[{"Event":{"Time":0}}]}"#.utf8))
            #expect(invalid == 422)
            #expect(String(decoding: why, as: UTF8.self).contains("Pattern[0].Event.EventType"))
            #expect(try await Self.send(base, "/api/play", method: "POST", body: Data("{".utf8)).0 == 400)
            #expect(try await Self.send(base, "/api/play", method: "POST", body: Data(count: 65 << 10)).0 == 413)
            let foreign = try await Self.send(base, "/api/play", method: "POST", body: Data(tapAndBuzz.utf8), headers: ["Origin": "http://evil.example"])
            #expect(foreign.0 == 403)
            #expect(try await Self.send(base, "/api/effects", headers: ["Host": "evil.example"]).0 == 403)
            #expect(try await Self.send(base, "/%2e%2e/%2e%2e/etc/passwd").0 == 404)
            #expect(try await Self.send(base, "/api/effects").0 == 200)
        }
        #expect(chip.level() == 0)
    }

    @Test func stopEndsAPatternMidWay() async throws {
        try await serving { base in
            let long =
                #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous","EventDuration":5,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":1}]}}]}"#
            async let played = Self.send(base, "/api/play", method: "POST", body: Data(long.utf8))
            let chip = chip
            #expect(await eventually { chip.level() > 0 }, "the pattern never started")
            #expect(try await Self.send(base, "/api/stop", method: "POST").0 == 200)
            let (status, data) = try await played
            #expect(status == 200)
            let report = try JSONDecoder().decode(StudioPlayback.PlayReport.self, from: data)
            #expect(report.outcome == "stopped" && report.playedSeconds < 4)
            #expect(chip.level() == 0)
        }
    }
}
