// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import ChipFamilies
import DRV2605
import DRV2605Simulator
import Foundation
import HapticBoards
import HapticChip
import HapticEffects
import Haptics
import HapticsSimulation
import HardwareAccess
import LinuxHardware

extension HapticBench {
    /// Plays a stream whose level changes at every update at 200, 500 and 1000 updates/s on the
    /// real clock, one second at a time, each second followed by a second of a bare loop that
    /// sleeps to the same absolute deadlines with the player's thread settings (timer slack, spin,
    /// SCHED_FIFO when granted) and writes nothing. The bare loop's p99 is what this machine allows
    /// at that moment: the player's figures mean something only beside it.
    func measurePlayer() throws -> [String: Any] {
        var result: [String: Any] = [:]
        let granted = Locked(true)
        let setup: @Sendable () -> Void = {
            LinuxRealtime.reduceTimerSlack()
            let fifo = LinuxRealtime.requestRealtimePriority()
            granted.withLock { $0 = $0 && fifo }
        }
        let spin = PatternPlayer.Options().spin
        for rate in [200.0, 500.0, 1000.0] {
            let clock = SystemClock.shared
            let chip = SimulatedDRV2605(clock: clock, actuator: .typicalLRA)
            chip.keepsTrace = false
            let engine = try HapticEngine(
                bus: chip, configuration: try DRV2605Configuration(.typicalLRA),
                clock: clock, options: benchOptions)
            let perSecond = Int(rate)
            let samples = (0..<perSecond).map { 0.5 + 0.4 * sin(Double($0) * 0.7) }
            let pattern = RenderedPattern(
                mode: .realTime, rate: rate, samples: samples + [0], hits: [], intensity: [], sharpness: [],
                designedSeconds: 1, warnings: [])
            var options = PatternPlayer.Options()
            options.threadSetup = setup
            var lateness: [Double] = []
            var floor: [Double] = []
            var missed = 0
            var cpu = 0.0
            var wall = 0.0
            for _ in 0..<max(1, Int(playerSeconds)) {
                let player = PatternPlayer(engine: engine, pattern: pattern, options: options)
                let cpuBefore = processCPUSeconds()
                let wallBefore = clock.now
                player.start(at: clock.now.advanced(by: .milliseconds(20)))
                player.waitUntilFinished(timeout: .seconds(10))
                wall += clock.now.duration(since: wallBefore).secondsDouble
                cpu += processCPUSeconds() - cpuBefore
                lateness += player.timing.latenessNanoseconds.map { Double($0) / 1000 }
                missed += player.timing.missedUpdates
                floor += bareLoopLateness(rate: rate, count: perSecond, spin: spin, setup: setup)
            }
            let figures = percentileFigures(&lateness)
            let floorFigures = percentileFigures(&floor)
            var row: [String: Double] = figures
            row["seconds"] = Double(max(1, Int(playerSeconds)))
            row["updates"] = Double(lateness.count)
            row["missedUpdates"] = Double(missed)
            row["cpuPercentOfOneCore"] = wall > 0 ? cpu / wall * 100 : 0
            row["floorMedianMicroseconds"] = floorFigures["medianMicroseconds"]
            row["floorP99Microseconds"] = floorFigures["p99Microseconds"]
            row["floorMaxMicroseconds"] = floorFigures["maxMicroseconds"]
            result[String(perSecond)] = row
        }
        result["realtimeScheduling"] = granted.withLock { $0 } ? "granted" : "refused (not root, no CAP_SYS_NICE)"
        return result
    }

    /// Median, p99 and maximum of `values` (µs), sorting them.
    func percentileFigures(_ values: inout [Double]) -> [String: Double] {
        values.sort()
        guard let last = values.last else { return ["medianMicroseconds": 0, "p99Microseconds": 0, "maxMicroseconds": 0] }
        return [
            "medianMicroseconds": values[values.count / 2],
            "p99Microseconds": values[min(values.count - 1, values.count * 99 / 100)], "maxMicroseconds": last
        ]
    }

    /// `count` absolute deadlines `1/rate` apart on a thread set up like the player's, slept to
    /// with clock_nanosleep and spun the last `spin`; returns how late each wake-up was (µs).
    func bareLoopLateness(rate: Double, count: Int, spin: Duration, setup: @escaping @Sendable () -> Void) -> [Double] {
        let result = Locked<[Double]>([])
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            setup()
            let clock = SystemClock.shared
            let start = clock.now.advanced(by: .milliseconds(20))
            var values: [Double] = []
            values.reserveCapacity(count)
            for index in 0..<count {
                let deadline = start.advanced(by: .nanoseconds(Int64(Double(index) / rate * 1e9)))
                let sleepUntil = deadline.advanced(byNanoseconds: -spin.nanoseconds)
                if clock.now < sleepUntil { clock.sleep(until: sleepUntil) }
                while clock.now < deadline {}
                values.append(Double(clock.now.nanoseconds - deadline.nanoseconds) / 1000)
            }
            result.withLock { $0 = values }
            done.signal()
        }
        thread.name = "haptics-bench-floor"
        thread.start()
        done.wait()
        return result.withLock { $0 }
    }

    /// Parse-and-render time for each corpus file and for a generated 10 000-event file.
    func measureAHAP() throws -> [String: Any] {
        var inputs: [(String, [UInt8])] = []
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: corpus)) ?? []).filter { $0.hasSuffix(".ahap") }.sorted()
        for file in files {
            if let data = FileManager.default.contents(atPath: corpus + "/" + file) { inputs.append((file, Array(data))) }
        }
        var generated = #"{"Version":1,"Pattern":["#
        generated += (0..<10_000).map { index in
            index % 10 == 0
                ? #"{"Event":{"Time":\#(Double(index) * 0.003),"EventType":"HapticContinuous","EventDuration":0.02,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":0.4}]}}"#
                : #"{"Event":{"Time":\#(Double(index) * 0.003),"EventType":"HapticTransient","EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":0.7},{"ParameterID":"HapticSharpness","ParameterValue":0.5}]}}"#
        }.joined(separator: ",")
        generated += "]}"
        inputs.append(("generated-10000-events.ahap", Array(generated.utf8)))
        var result: [String: Any] = [:]
        for (name, bytes) in inputs {
            var times: [Double] = []
            for _ in 0..<20 {
                let start = SystemClock.shared.now
                let document = try PatternFileReader.parse(bytes, file: name)
                _ = PatternRenderer().render(document.pattern)
                times.append(SystemClock.shared.now.duration(since: start).secondsDouble * 1000)
            }
            times.sort()
            result[name] = times[times.count / 2]
        }
        return result
    }

    /// A group of chips behind one TCA9548A: the bus traffic between the first and the last GO.
    func measureGroupSkew() throws -> [String: Any] {
        // A board of `groupSize` LRAs behind one TCA9548A, opened as an app would open it.
        let drivers = (0..<groupSize).map { #"{ "name": "chip\#($0)", "mux": { "address": "0x70", "channel": \#($0) } }"# }
        let file = try BoardFile.parse(
            Data(
                #"""
                { "format": 1, "name": "bench", "bus": "/dev/i2c-1", "supplyVolts": 5,
                  "actuators": { "lra": { "type": "lra", "ratedVrms": 2.0, "maximumVrms": 2.5, "resonantHz": 175 } },
                  "defaultActuator": "lra", "drivers": [\#(drivers.joined(separator: ", "))] }
                """#.utf8), path: "bench.json")
        let clock = VirtualClock()
        let hardware = LoggingHardware(try SimulatedHardware(board: file, clock: clock, keepsTrace: false), clock: clock)
        var options = HapticBoard.Options()
        options.engine = benchOptions
        options.calibrations = nil
        let board = try HapticBoard.open(file, hardware: hardware, clock: clock, options: options)
        let engines = board.chips.map(\.engine)
        var result: [String: Any] = [
            "chips": groupSize,
            "computedOneRegisterWriteMicroseconds400kHz": I2CWire.seconds(wireBytes: 3, transactions: 1, clockHz: 400_000) * 1e6
        ]
        for (name, group) in [("broadcast", board.group), ("sequential", HapticGroup(engines: engines, clock: clock))] {
            clock.advance(by: .seconds(3))
            for engine in engines { engine.runDueWork() }
            hardware.clearLog()
            group.play(.impact(.heavy))
            let log = hardware.log
            let first = log.firstIndex { $0.written == Register.go.write(1) } ?? 0
            let last = log.lastIndex { $0.written == Register.go.write(1) } ?? 0
            let between = last > first ? Array(log[(first + 1)...last]) : []
            let bytes = between.reduce(0) { $0 + $1.wireBytes }
            let seconds = I2CWire.seconds(wireBytes: bytes, transactions: between.count, clockHz: 400_000)
            result[name] = [
                "transactions": between.count, "bytes": bytes, "computedBusMicroseconds400kHz": seconds * 1e6,
                "computedPerExtraChipMicroseconds400kHz": groupSize > 1 ? seconds * 1e6 / Double(groupSize - 1) : 0
            ]
        }
        return result
    }
}

/// User plus system CPU time of this process so far, in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}
