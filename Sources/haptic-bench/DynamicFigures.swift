// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import DRV2605
import DRV2605Simulator
import Foundation
import HapticPatterns
import Haptics
import HapticsSimulation
import HardwareAccess

/// Haptics that vary while they play, measured: how long a sent parameter takes to reach the drive,
/// and what mixing players costs per stream update. Each figure beside a baseline from the same run.
extension HapticBench {
    /// A continuous event of `seconds` at full intensity, as designed.
    static func buzz(seconds: Double) -> HapticPattern {
        HapticPattern(events: [.init(type: .hapticContinuous, time: 0, duration: seconds, intensity: 1, sharpness: 0.5)])
    }

    func measureDynamics() throws -> [String: Any] {
        ["parameterLatency": try measureParameterLatency(), "mixing": try measureMixingCost()]
    }

    /// From `sendParameters` (intensity 0.5, now) to the first changed level on the chip: on the
    /// virtual clock at 20 phases of an update (the renderer's 200 a second), and on the real clock
    /// on the simulated chip, 20 sends at the same phases. The baseline on the virtual clock is the same change designed
    /// into the pattern (its own dynamic parameter at the send's time); on the real clock, the
    /// player's own lateness after each write in the same runs.
    func measureParameterLatency() throws -> [String: Any] {
        var virtual: [Double] = []
        var designed: [Double] = []
        for phase in 0..<20 {
            let at = 0.3 + Double(phase) * 0.000_25
            let rig = try self.rig()
            let player = PatternPlayer(engine: rig.engine, designed: Self.buzz(seconds: 1))
            let start = rig.clock.now
            player.start(at: start)
            rig.advance(.secondsClamped(at))
            let sent = rig.clock.now
            let before = rig.chip.output.level(at: sent)
            try player.sendParameters([.init(id: .hapticIntensityControl, time: 0, value: 0.5)])
            rig.advance(.milliseconds(50))
            virtual.append(firstChange(in: rig.chip, after: sent, from: before).map { $0 * 1e6 } ?? .infinity)
            player.stop()
            // The same step designed in: a dynamic parameter of the pattern at `at`.
            var pattern = Self.buzz(seconds: 1)
            pattern.parameters = [.init(id: .hapticIntensityControl, time: at, value: 0.5)]
            let baseline = try self.rig()
            let own = PatternPlayer(engine: baseline.engine, designed: pattern)
            let origin = baseline.clock.now
            own.start(at: origin)
            baseline.advance(.secondsClamped(at + 0.05))
            let mark = origin.advanced(by: .secondsClamped(at))
            designed.append(firstChange(in: baseline.chip, after: mark, from: baseline.chip.output.level(at: mark.advanced(byNanoseconds: -1))).map { $0 * 1e6 } ?? .infinity)
        }
        // The real clock: the simulated chip dates each level as it is written.
        let clock = SystemClock.shared
        var real: [Double] = []
        var lateness: [Double] = []
        for phase in 0..<20 {
            let chip = SimulatedDRV2605(clock: clock, actuator: .typicalLRA)
            chip.keepsTrace = false
            let engine = try HapticEngine(bus: chip, configuration: try DRV2605Configuration(.typicalLRA), clock: clock, options: benchOptions)
            let player = PatternPlayer(engine: engine, designed: Self.buzz(seconds: 0.4))
            let start = clock.now.advanced(by: .milliseconds(10))
            player.start(at: start)
            // At 20 phases of an update, as on the virtual clock: the wait for the next update is
            // part of the figure (a sent value is written at the next update).
            clock.sleep(until: start.advanced(by: .microseconds(200_000 + phase * 250)))
            let sent = clock.now
            let before = chip.output.level(at: sent)
            try player.sendParameters([.init(id: .hapticIntensityControl, time: 0, value: 0.5)])
            player.waitUntilFinished(timeout: .seconds(5))
            real.append(firstChange(in: chip, after: sent, from: before).map { $0 * 1e6 } ?? .infinity)
            lateness += player.timing.latenessNanoseconds.map { Double($0) / 1000 }
        }
        return [
            "virtualClock": percentileFigures(&virtual), "virtualClockDesignedBaseline": percentileFigures(&designed),
            "realClock": percentileFigures(&real), "realClockWriteLatenessBaseline": percentileFigures(&lateness),
            "updateMicroseconds": 5000.0,
            "note": "sendParameters(intensity 0.5, now) to the first changed level on the simulated chip; a sent value waits for the next update"
        ]
    }

    /// Seconds from `after` to the chip's first level change from `level` (nil: none within the record).
    func firstChange(in chip: SimulatedDRV2605, after: ClockInstant, from level: Double) -> Double? {
        chip.output.samples.first { $0.time >= after && $0.level != level }.map { $0.time.duration(since: after).secondsDouble }
    }

    /// CPU time per stream update on the virtual clock (the engine, the players and the simulated
    /// chip; no sleeping): one player that does not mix (the baseline), then 1 and 8 mixing players
    /// of the same one-second pattern, each run 20 times.
    func measureMixingCost() throws -> [String: Any] {
        var result: [String: Any] = [:]
        for (name, count, mixes) in [("alone", 1, false), ("mixed1", 1, true), ("mixed8", 8, true)] {
            var perUpdate: [Double] = []
            for _ in 0..<20 {
                let rig = try self.rig()
                var options = PatternPlayer.Options()
                options.mixes = mixes
                options.recordsTiming = false
                let pattern = PatternRenderer().render(Self.buzz(seconds: 1))
                let players = (0..<count).map { _ in PatternPlayer(engine: rig.engine, pattern: pattern, options: options) }
                let start = rig.clock.now
                let cpu = processCPUSeconds()
                for player in players { player.start(at: start) }
                rig.advance(.milliseconds(1100))
                let updates = Double(pattern.samples.count)
                perUpdate.append((processCPUSeconds() - cpu) / updates * 1e6)
                if players.contains(where: { $0.outcome != .finished }) { throw ValidationError("a mixing player did not finish") }
            }
            result[name] = percentileFigures(&perUpdate)
        }
        result["note"] = "CPU per stream update (200 a second, one second, virtual clock: no sleeping), median of 20 runs; alone = one player that does not mix"
        return result
    }

    func printDynamics(_ figures: [String: Any]) {
        let latency = figures["parameterLatency"] as? [String: Any] ?? [:]
        let row = { (key: String) in latency[key] as? [String: Double] ?? [:] }
        print(
            String(
                format:
                    "sendParameters to the changed drive: virtual clock median %.0f µs, max %.0f µs (designed in the pattern: max %.0f µs; one update is 5000 µs); real clock, simulated chip median %.0f µs, p99 %.0f µs (the player's write lateness in the same runs: p99 %.1f µs)",
                row("virtualClock")["medianMicroseconds"] ?? 0, row("virtualClock")["maxMicroseconds"] ?? 0,
                row("virtualClockDesignedBaseline")["maxMicroseconds"] ?? 0, row("realClock")["medianMicroseconds"] ?? 0,
                row("realClock")["p99Microseconds"] ?? 0, row("realClockWriteLatenessBaseline")["p99Microseconds"] ?? 0))
        let mixing = figures["mixing"] as? [String: Any] ?? [:]
        let cost = { (key: String) in (mixing[key] as? [String: Double])?["medianMicroseconds"] ?? 0 }
        print(
            String(
                format: "CPU per stream update, virtual clock: one player alone %.2f µs (the baseline), mixed 1 %.2f µs, mixed 8 %.2f µs",
                cost("alone"), cost("mixed1"), cost("mixed8")))
    }
}
