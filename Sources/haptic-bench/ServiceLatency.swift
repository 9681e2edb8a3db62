// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import Foundation
import HapticChip
import HapticEffects
import Haptics
import HapticsService
import HardwareAccess

extension HapticBench {
    /// The service's lines: latency beside in-process, where it goes, and the concurrent clients.
    func printService(_ service: [String: Any]) {
        func figures(_ value: Any?) -> [String: Double] { value as? [String: Double] ?? [:] }
        let inProcess = figures(service["inProcess"])
        let socket = figures(service["socket"])
        let handled = figures(service["handledInProcess"])
        let firstWrite = service["firstWrite"] as? [String: Any] ?? [:]
        let breakdown = service["breakdown"] as? [String: Any] ?? [:]
        let concurrent = service["concurrent"] as? [String: Any] ?? [:]
        let median = { (row: [String: Double]) in row["medianMicroseconds"] ?? 0 }
        let p99 = { (row: [String: Double]) in row["p99Microseconds"] ?? 0 }
        print(
            String(
                format:
                    "call to GO write (real clock, simulated chip, 300 each, interleaved): in-process median %.1f µs, p99 %.1f µs; through hapticd's socket median %.1f µs, p99 %.1f µs (%.1f µs more)",
                median(inProcess), p99(inProcess), median(socket), p99(socket), median(socket) - median(inProcess)))
        print(
            String(
                format:
                    "  call to the first write (the chip's wake; GO follows its 1 ms): in-process median %.1f µs, the daemon's handling called in-process %.1f µs, through the socket %.1f µs",
                median(figures(firstWrite["inProcess"])), median(figures(firstWrite["handledInProcess"])), median(figures(firstWrite["socket"]))))
        let wake = figures(breakdown["socketWakeAfter2ms"])
        let idle = figures(breakdown["socketWakeAfter40ms"])
        let number = { (key: String) in breakdown[key] as? Double ?? 0 }
        print(
            String(
                format:
                    "  where the socket's time goes: the daemon's request handling called in-process median %.1f µs (the engine alone %.1f); a request's JSON %.1f µs to encode, %.1f µs to decode back to back, %.1f and %.1f µs 40 ms after the last (code out of the caches, as for each request here), a reply's %.1f µs to decode; a thread asleep in a Unix socket receive woken median %.1f µs, p99 %.1f µs 2 ms after its last wake-up, median %.1f µs, p99 %.1f µs 40 ms after (the floor of any socket round trip here; the bench's requests come 40 ms or more apart)",
                median(handled), median(inProcess), number("requestEncodeMicroseconds"), number("requestDecodeMicroseconds"),
                number("requestEncodeAfter40msMicroseconds"), number("requestDecodeAfter40msMicroseconds"), number("replyDecodeMicroseconds"),
                median(wake), p99(wake), median(idle), p99(idle)))
        print(
            "hapticd, 20 clients for \(serviceSeconds) s: \(concurrent["requests"] ?? 0) requests, \(concurrent["played"] ?? 0) played, \(concurrent["dropped"] ?? 0) dropped, \(concurrent["unanswered"] ?? 0) unanswered, \(concurrent["clientsFinished"] ?? 0) of 20 clients finished, stuck: \(concurrent["stuck"] ?? true)"
        )
    }

    /// What `hapticd` adds: from a call to the GO write that starts the feedback, in-process and
    /// through the socket, interleaved in one run on the real clock and the simulated chip; then
    /// 20 clients sending as fast as replies come for `serviceSeconds`, counting what was lost.
    func measureService() throws -> [String: Any] {
        let chip = SimulatedDRV2605(clock: SystemClock.shared)
        chip.keepsTrace = false
        let lastGo = Locked<ClockInstant?>(nil)
        let firstWrite = Locked<ClockInstant?>(nil)
        let engine = try HapticEngine(
            bus: chip, configuration: try DRV2605Configuration(.typicalLRA), clock: SystemClock.shared,
            options: benchOptions,
            observer: { transaction in
                if transaction.kind == .write { firstWrite.withLock { $0 = $0 ?? transaction.time } }
                if transaction.kind == .write, transaction.written.first == Register.go.rawValue, transaction.written.last == 1 {
                    lastGo.withLock { $0 = transaction.time }
                }
            })
        let server = HapticServer(engine: engine, device: "simulated")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("haptic-bench-\(getpid()).sock").path
        try server.start(socketPath: path)
        defer { server.stop() }
        let client = try HapticServiceClient(socketPath: path)
        defer { client.close() }
        var request = ServiceRequest(.play)
        request.feedback = "impact-heavy"

        // Three paths to the same GO write, interleaved: the engine called directly, the server's
        // request handling called directly (what the daemon adds besides the socket), and a client
        // on the socket.
        var inProcess: [Double] = []
        var handled: [Double] = []
        var throughSocket: [Double] = []
        var firstWrites: [[Double]] = [[], [], []]
        let caller = HapticServer.Client(id: 0, app: "haptic-bench", uid: getuid())
        for _ in 0..<300 {
            for path in 0..<3 {
                lastGo.withLock { $0 = nil }
                firstWrite.withLock { $0 = nil }
                let start = SystemClock.shared.now
                switch path {
                case 0: engine.play(.impact(.heavy))
                case 1: _ = server.handle(request, from: caller)
                default: _ = try client.send(request)
                }
                guard let go = lastGo.withLock({ $0 }) else { continue }
                let microseconds = go.duration(since: start).secondsDouble * 1e6
                if let first = firstWrite.withLock({ $0 }) { firstWrites[path].append(first.duration(since: start).secondsDouble * 1e6) }
                switch path {
                case 0: inProcess.append(microseconds)
                case 1: handled.append(microseconds)
                default: throughSocket.append(microseconds)
                }
                engine.waitUntilIdle(timeout: .seconds(1))
            }
        }
        let breakdown = try measureSocketBreakdown(request)

        // 20 clients at once.
        let deadline = SystemClock.shared.now.advanced(by: .secondsClamped(serviceSeconds))
        let totals = Locked((sent: 0, played: 0, dropped: 0, failed: 0, finished: 0))
        let group = DispatchGroup()
        for index in 0..<20 {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                guard let mine = try? HapticServiceClient(socketPath: path) else {
                    totals.withLock { $0.failed += 1 }
                    return
                }
                var play = ServiceRequest(.play)
                play.feedback = index % 2 == 0 ? "selection" : "impact-light"
                while SystemClock.shared.now < deadline {
                    totals.withLock { $0.sent += 1 }
                    switch (try? mine.send(play))?.outcome {
                    case "played"?: totals.withLock { $0.played += 1 }
                    case "dropped"?: totals.withLock { $0.dropped += 1 }
                    default: totals.withLock { $0.failed += 1 }
                    }
                }
                mine.close()
                totals.withLock { $0.finished += 1 }
            }
            thread.start()
        }
        let stuck = group.wait(timeout: .now() + serviceSeconds + 10) == .timedOut
        let (sent, played, dropped, failed, finished) = totals.withLock { $0 }
        return [
            "inProcess": percentileFigures(&inProcess),
            "handledInProcess": percentileFigures(&handled),
            "socket": percentileFigures(&throughSocket),
            "breakdown": breakdown,
            "firstWrite": [
                "inProcess": percentileFigures(&firstWrites[0]), "handledInProcess": percentileFigures(&firstWrites[1]),
                "socket": percentileFigures(&firstWrites[2])
            ],
            "concurrent": [
                "clients": 20, "seconds": serviceSeconds, "requests": sent, "played": played, "dropped": dropped,
                "unanswered": failed, "clientsFinished": finished, "stuck": stuck
            ]
        ]
    }

    /// Where the socket's time goes besides the daemon's own work: the JSON of a request and of a
    /// reply (median µs of 2000 back to back, and of 100 each 40 ms after the last, when the code
    /// has left the caches as it has for each of the bench's requests), and the floor any socket
    /// round trip pays on this machine: a thread asleep receiving on a Unix socket (the sleep the
    /// daemon's client thread is in between requests) woken by one byte, 2 ms and 40 ms after its
    /// previous wake-up.
    func measureSocketBreakdown(_ request: ServiceRequest) throws -> [String: Any] {
        func median(_ runs: Int, idle: Duration = .zero, _ body: () throws -> Void) rethrows -> Double {
            var times: [Double] = []
            for _ in 0..<runs {
                if idle > .zero { SystemClock.shared.sleep(for: idle) }
                let start = SystemClock.shared.now
                try body()
                times.append(SystemClock.shared.now.duration(since: start).secondsDouble * 1e6)
            }
            times.sort()
            return times[times.count / 2]
        }
        let frame = try ServiceFrame.encode(request)
        let payload = Array(frame[4...])
        let reply = try ServiceFrame.encode(ServiceReply(id: nil, ok: true, outcome: "played"))
        let encode = try median(2000) { _ = try ServiceFrame.encode(request) }
        let decode = try median(2000) { _ = try ServiceFrame.decode(ServiceRequest.self, from: payload) }
        let replyDecode = try median(2000) { _ = try ServiceFrame.decode(ServiceReply.self, from: Array(reply[4...])) }
        let coldEncode = try median(100, idle: .milliseconds(40)) { _ = try ServiceFrame.encode(request) }
        let coldDecode = try median(100, idle: .milliseconds(40)) { _ = try ServiceFrame.decode(ServiceRequest.self, from: payload) }

        let busy = wakeFloor(gap: .milliseconds(2))
        let idle = wakeFloor(gap: .milliseconds(40))
        return [
            "requestEncodeMicroseconds": encode, "requestDecodeMicroseconds": decode, "replyDecodeMicroseconds": replyDecode,
            "requestEncodeAfter40msMicroseconds": coldEncode, "requestDecodeAfter40msMicroseconds": coldDecode,
            "socketWakeAfter2ms": busy, "socketWakeAfter40ms": idle
        ]
    }

    /// A thread asleep receiving on a Unix socket, woken by one byte sent `gap` after its previous
    /// wake-up: from the send to its wake-up, 200 times. An idle machine (a CPU that has gone to
    /// sleep) wakes it later than a busy one.
    func wakeFloor(gap: Duration) -> [String: Double] {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else { return [:] }
        defer {
            close(ends[0])
            close(ends[1])
        }
        let woken = Locked<[Double]>([])
        let sent = Locked<ClockInstant>(.zero)
        let done = DispatchSemaphore(value: 0)
        let sleeper = Thread { [ends] in
            var byte: UInt8 = 0
            var limit = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(ends[1], SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            for _ in 0..<200 {
                guard recv(ends[1], &byte, 1, 0) == 1 else { break }
                let now = SystemClock.shared.now
                woken.withLock { $0.append(now.duration(since: sent.withLock { $0 }).secondsDouble * 1e6) }
                done.signal()
            }
        }
        sleeper.start()
        var byte: UInt8 = 1
        for _ in 0..<200 {
            SystemClock.shared.sleep(for: gap)
            sent.withLock { $0 = SystemClock.shared.now }
            _ = send(ends[0], &byte, 1, 0)
            guard done.wait(timeout: .now() + 2) == .success else { break }
        }
        var wakes = woken.withLock { $0 }
        return percentileFigures(&wakes)
    }
}
