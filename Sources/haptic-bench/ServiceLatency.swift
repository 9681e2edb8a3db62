// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import Foundation
import Haptics
import HapticsService
import HardwareAccess

extension HapticBench {
    /// What `hapticd` adds: from a call to the GO write that starts the feedback, in-process and
    /// through the socket, interleaved in one run on the real clock and the simulated chip; then
    /// 20 clients sending as fast as replies come for `serviceSeconds`, counting what was lost.
    func measureService() throws -> [String: Any] {
        let chip = SimulatedDRV2605(clock: SystemClock.shared)
        chip.keepsTrace = false
        let lastGo = Locked<ClockInstant?>(nil)
        let engine = try HapticEngine(
            bus: chip, configuration: try DRV2605Configuration(.typicalLRA), clock: SystemClock.shared,
            options: benchOptions,
            observer: { transaction in
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

        var inProcess: [Double] = []
        var throughSocket: [Double] = []
        for _ in 0..<300 {
            for socket in [false, true] {
                lastGo.withLock { $0 = nil }
                let start = SystemClock.shared.now
                if socket { _ = try client.send(request) } else { engine.play(.impact(.heavy)) }
                guard let go = lastGo.withLock({ $0 }) else { continue }
                let microseconds = go.duration(since: start).secondsDouble * 1e6
                if socket { throughSocket.append(microseconds) } else { inProcess.append(microseconds) }
                engine.waitUntilIdle(timeout: .seconds(1))
            }
        }

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
            "socket": percentileFigures(&throughSocket),
            "concurrent": [
                "clients": 20, "seconds": serviceSeconds, "requests": sent, "played": played, "dropped": dropped,
                "unanswered": failed, "clientsFinished": finished, "stuck": stuck
            ]
        ]
    }
}
