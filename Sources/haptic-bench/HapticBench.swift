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

/// `haptic-bench`: what each feedback costs on the bus and the CPU, measured on the simulated
/// chip (the bus traffic is exactly what a board would see). Run in release mode:
/// `swift run -c release haptic-bench [--json]`.
@main
struct HapticBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "haptic-bench",
        abstract: "Bus transactions, wire bytes and CPU time per feedback, from prepared, standby and shutdown.")

    @Flag(help: "Print JSON instead of a table.") var json = false
    @Option(help: "Prepared triggers timed for the CPU figures.") var iterations = 20_000
    @Option(help: "Seconds of real-time playback measured at each player rate (200, 500, 1000 updates/s).") var playerSeconds: Double = 10
    @Option(help: "The AHAP corpus to time (skipped when absent).") var corpus = "../shared/ahap-corpus"
    @Option(help: "Chips in the group-skew measurement (behind one TCA9548A).") var groupSize = 4
    @Option(help: "Seconds of 20 concurrent hapticd clients.") var serviceSeconds: Double = 10
    @Option(help: "Also measure this ALSA device's start (open to the first frame heard).") var audioDevice: String?
    @Flag(help: "Measure hapticd alone: call to GO write in-process and through its socket, and 20 clients at once.")
    var serviceOnly = false

    func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0) }

    var benchOptions: HapticEngine.Options {
        var options = HapticEngine.Options()
        options.policy.maximumFeedbackPerSecond = Int.max
        options.policy.selectionMinimumIntervalSeconds = 0
        return options
    }

    /// Median and p99 CPU time (µs) of `play()` right after `prepare()`: the prepared trigger.
    func timePreparedTriggers(_ engine: HapticEngine, _ clock: VirtualClock) -> (median: Double, p99: Double) {
        let feedback = Feedback.impact(.heavy)
        var samples: [Double] = []
        samples.reserveCapacity(iterations)
        for _ in 0..<iterations {
            engine.prepare(feedback)
            clock.advance(by: .milliseconds(2))
            let start = SystemClock.shared.now
            engine.play(feedback)
            samples.append(SystemClock.shared.now.duration(since: start).secondsDouble * 1e6)
            clock.advance(by: .milliseconds(100))
            engine.runDueWork()
        }
        let figures = percentileFigures(&samples)
        return (figures["medianMicroseconds"] ?? 0, figures["p99Microseconds"] ?? 0)
    }

    /// An engine on the simulated chip (no trace kept) with the benchmark's options.
    func rig(enable: Bool = false, trigger: Bool = false) throws -> EngineRig {
        let rig = try EngineRig(enable: enable, trigger: trigger, options: benchOptions)
        rig.chip.keepsTrace = false
        return rig
    }

    func run() throws {
        // The DA7280 figures open DA7280 board files.
        StandardChipFamilies.register()
        if serviceOnly {
            let service = try measureService()
            if json {
                let data = try JSONSerialization.data(withJSONObject: ["service": service], options: [.prettyPrinted, .sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            } else {
                printService(service)
            }
            return
        }
        var rows: [[String: Any]] = []
        let initCost = try rig().engine.statistics.bus
        for kind in FeedbackKind.all {
            let feedback = Feedback(kind: kind)
            // Prepared.
            let prepared = try rig()
            let engine = prepared.engine
            engine.prepare(feedback)
            prepared.advance(.milliseconds(50))
            engine.play(feedback)
            let preparedCost = engine.statistics.lastTrigger
            prepared.advance(.seconds(3))
            // Standby: an unprepared trigger; how long the chip stays out of standby for it.
            let awakeBefore = engine.statistics.awakeSeconds
            engine.play(feedback)
            let standby = engine.statistics.lastTrigger
            prepared.advance(.seconds(3))
            let awake = engine.statistics.awakeSeconds - awakeBefore
            // Shutdown (EN wired, idle past the shutdown delay).
            let enabled = try rig(enable: true)
            enabled.advance(.seconds(40))
            enabled.engine.play(feedback)
            let shutdown = enabled.engine.statistics.lastTrigger
            // IN/TRIG wired and prepared.
            let pinned = try rig(trigger: true)
            pinned.engine.prepare(feedback)
            pinned.advance(.milliseconds(50))
            pinned.engine.play(feedback)
            let pin = pinned.engine.statistics.lastTrigger
            let duration = engine.mapping.plan(for: feedback)?.estimatedDuration.secondsDouble ?? 0
            func cost(_ counters: BusCounters) -> [String: Any] {
                [
                    "transactions": counters.transactions, "bytes": counters.wireBytes,
                    "computedBusMicroseconds100kHz": I2CWire.seconds(wireBytes: counters.wireBytes, transactions: counters.transactions, clockHz: 100_000) * 1e6,
                    "computedBusMicroseconds400kHz": I2CWire.seconds(wireBytes: counters.wireBytes, transactions: counters.transactions, clockHz: 400_000) * 1e6
                ]
            }
            rows.append([
                "feedback": kind.name,
                "prepared": cost(preparedCost), "standby": cost(standby), "shutdown": cost(shutdown), "pinPrepared": cost(pin),
                "awakeSeconds": awake, "effectSeconds": duration
            ])
        }
        // CPU per prepared trigger, on the simulated chip and on a bare register file (the engine
        // and driver alone, without the simulator's timing model and actuator record).
        let simulated = try rig()
        let (median, p99) = timePreparedTriggers(simulated.engine, simulated.clock)
        let bareClock = VirtualClock()
        let bare = try HapticEngine(
            bus: RegisterFileBus(), configuration: try DRV2605Configuration(.typicalLRA),
            clock: bareClock, options: benchOptions)
        let (bareMedian, bareP99) = timePreparedTriggers(bare, bareClock)
        // The DRV2605 (not the L): MODE, LIBRARY_SEL and the slots rewritten in the GO burst (TI
        // e2e 1128661). Bus cost on a simulated DRV2605; CPU on the bare bus with the rewrite forced,
        // measured right after the L part's figure above, in the same run.
        var nonLDriver = DRV2605Driver.Options()
        nonLDriver.rewritesSequenceRegistersWithGo = true
        let nonLClock = VirtualClock()
        let nonLBare = try HapticEngine(
            bus: RegisterFileBus(), configuration: try DRV2605Configuration(.typicalLRA),
            clock: nonLClock, options: benchOptions, driverOptions: nonLDriver)
        let (nonLMedian, nonLP99) = timePreparedTriggers(nonLBare, nonLClock)
        var nonLChip = SimulatedDRV2605.Options()
        nonLChip.part = .drv2605
        let nonL = try EngineRig(options: benchOptions, chipOptions: nonLChip)
        nonL.engine.prepare(.impact(.heavy))
        nonL.advance(.milliseconds(50))
        nonL.engine.play(.impact(.heavy))
        let nonLCost = nonL.engine.statistics.lastTrigger
        let heavy = rows.first { ($0["feedback"] as? String) == "impact-heavy" }
        let preparedHeavy = ((heavy?["prepared"] as? [String: Any]) ?? [:]).compactMapValues { $0 as? Int }
        let standbyHeavy = ((heavy?["standby"] as? [String: Any]) ?? [:]).compactMapValues { $0 as? Int }
        let busTime = { (bytes: Int, transactions: Int, hz: Double) in I2CWire.seconds(wireBytes: bytes, transactions: transactions, clockHz: hz) * 1e6 }
        var summary: [String: Any] = [
            "init": [
                "transactions": initCost.transactions, "bytes": initCost.wireBytes,
                "computedBusMicroseconds100kHz": busTime(initCost.wireBytes, initCost.transactions, 100_000),
                "computedBusMicroseconds400kHz": busTime(initCost.wireBytes, initCost.transactions, 400_000)
            ],
            "trigger": [
                "prepared": [
                    "transactions": preparedHeavy["transactions"] ?? 0, "bytes": preparedHeavy["bytes"] ?? 0,
                    "computedBusMicroseconds100kHz": busTime(preparedHeavy["bytes"] ?? 0, preparedHeavy["transactions"] ?? 0, 100_000),
                    "computedBusMicroseconds400kHz": busTime(preparedHeavy["bytes"] ?? 0, preparedHeavy["transactions"] ?? 0, 400_000)
                ],
                "standby": [
                    "transactions": standbyHeavy["transactions"] ?? 0, "bytes": standbyHeavy["bytes"] ?? 0,
                    "computedBusMicroseconds100kHz": busTime(standbyHeavy["bytes"] ?? 0, standbyHeavy["transactions"] ?? 0, 100_000),
                    "computedBusMicroseconds400kHz": busTime(standbyHeavy["bytes"] ?? 0, standbyHeavy["transactions"] ?? 0, 400_000)
                ]
            ],
            "cpuPerPreparedTrigger": [
                "medianMicroseconds": bareMedian, "p99Microseconds": bareP99, "iterations": iterations,
                "note": "engine + driver on a bare register-file bus, one GO write"
            ],
            "nonLPartPreparedTrigger": [
                "transactions": nonLCost.transactions, "bytes": nonLCost.wireBytes,
                "computedBusMicroseconds100kHz": busTime(nonLCost.wireBytes, nonLCost.transactions, 100_000),
                "computedBusMicroseconds400kHz": busTime(nonLCost.wireBytes, nonLCost.transactions, 400_000),
                "cpuMedianMicroseconds": nonLMedian, "cpuP99Microseconds": nonLP99,
                "note": "DRV2605 (not L): MODE, LIBRARY_SEL and the slots rewritten with GO in one burst"
            ],
            "cpuPerPreparedTriggerWithSimulator": [
                "medianMicroseconds": median, "p99Microseconds": p99,
                "note": "engine + driver + simulated chip (timing model and actuator record)"
            ],
            "feedbacks": rows
        ]
        let player = try measurePlayer()
        summary["player"] = player
        let ahap = try measureAHAP()
        summary["ahap"] = ahap
        let skew = try measureGroupSkew()
        summary["groupSkew"] = skew
        let service = try measureService()
        summary["service"] = service
        let da7280 = try measureDA7280()
        summary["da7280"] = da7280
        let sound = try measureSound()
        summary["soundWithHaptics"] = sound
        let dynamics = try measureDynamics()
        summary["dynamics"] = dynamics
        if json {
            let data = try JSONSerialization.data(withJSONObject: summary, options: [.prettyPrinted, .sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        print("start-up: \(initCost.transactions) transactions, \(initCost.wireBytes) wire bytes (bus times in the JSON are computed from these at 100 and 400 kHz, not measured)")
        print(
            String(
                format: "CPU per prepared trigger (impact-heavy, %d runs): engine + driver median %.2f µs, p99 %.2f µs; with the simulated chip median %.2f µs, p99 %.2f µs",
                iterations, bareMedian, bareP99, median, p99))
        print(
            String(
                format:
                    "DRV2605 (not L) prepared trigger, MODE, LIBRARY_SEL and slots rewritten with GO: %d transaction, %d wire bytes (computed %.0f µs at 400 kHz, %.0f µs at 100 kHz); CPU median %.2f µs, p99 %.2f µs (the L part's GO write above: %.2f µs)",
                nonLCost.transactions, nonLCost.wireBytes, busTime(nonLCost.wireBytes, nonLCost.transactions, 400_000),
                busTime(nonLCost.wireBytes, nonLCost.transactions, 100_000), nonLMedian, nonLP99, bareMedian))
        if let startUp = da7280["startUp"] as? [String: Any], let heavy = (da7280["feedbacks"] as? [String: Any])?["impact-heavy"] as? [String: Any],
            let until = heavy["untilDriving"] as? [String: Any], let whole = heavy["whole"] as? [String: Any]
        {
            print(
                "DA7280 (simulated, SparkFun's LRA): start-up \(startUp["transactions"] ?? 0) transactions, \(startUp["bytes"] ?? 0) wire bytes; "
                    + "impact-heavy \(until["transactions"] ?? 0) transactions until the drive starts, \(whole["transactions"] ?? 0) in all")
        }
        if let prepared = (da7280["prepared"] as? [String: Any])?["success"] as? [String: Any],
            let memory = prepared["memory"] as? [String: Any], let stream = prepared["stream"] as? [String: Any],
            let memoryTrigger = memory["trigger"] as? [String: Any], let streamTrigger = stream["trigger"] as? [String: Any],
            let memoryWhole = memory["whole"] as? [String: Any], let streamWhole = stream["whole"] as? [String: Any]
        {
            print(
                "DA7280 prepared success: from the waveform memory \(memoryTrigger["transactions"] ?? 0) transaction to trigger, \(memoryWhole["transactions"] ?? 0) in all; "
                    + "streamed (the memory left alone) \(streamTrigger["transactions"] ?? 0) to start, \(streamWhole["transactions"] ?? 0) in all")
        }
        print("")
        print("")
        print("player timing error after each write (real clock, simulated chip, every update a write; SCHED_FIFO \(player["realtimeScheduling"] as? String ?? "?")),")
        print("beside the floor: a bare sleep loop with the same thread settings, interleaved second by second in this run:")
        for rate in ["200", "500", "1000"] {
            guard let row = player[rate] as? [String: Double] else { continue }
            print(
                String(
                    format: "  %4@ updates/s over %.0f s: median %.2f µs, p99 %.2f µs (floor p99 %.2f µs), max %.1f µs (floor max %.1f µs), missed %.0f, %.1f %% of a core",
                    rate, row["seconds"] ?? 0, row["medianMicroseconds"] ?? 0, row["p99Microseconds"] ?? 0, row["floorP99Microseconds"] ?? 0,
                    row["maxMicroseconds"] ?? 0, row["floorMaxMicroseconds"] ?? 0, row["missedUpdates"] ?? 0, row["cpuPercentOfOneCore"] ?? 0))
        }
        printSound(sound)
        printDynamics(dynamics)
        print("AHAP parse + render (median of 20):")
        for (name, value) in ahap.sorted(by: { $0.key < $1.key }) {
            print(String(format: "  %@ %8.3f ms", pad(name, 52), (value as? Double ?? 0)))
        }
        for name in ["broadcast", "sequential"] {
            let row = skew[name] as? [String: Any] ?? [:]
            print(
                String(
                    format:
                        "group of %d chips behind a TCA9548A, %@ GO: %d transactions, %d wire bytes between the first and last GO: computed %.1f µs at 400 kHz (%.1f µs per extra chip; one register write is %.1f µs)",
                    groupSize, name, row["transactions"] as? Int ?? 0, row["bytes"] as? Int ?? 0, row["computedBusMicroseconds400kHz"] as? Double ?? 0,
                    row["computedPerExtraChipMicroseconds400kHz"] as? Double ?? 0, skew["computedOneRegisterWriteMicroseconds400kHz"] as? Double ?? 0))
        }
        printService(service)
        print("")
        print("feedback           prepared  standby  shutdown  IN/TRIG   awake ms  effect ms   (transactions/bytes; awake = out of standby for an unprepared trigger)")
        for row in rows {
            func cell(_ key: String) -> String {
                let value = row[key] as? [String: Any] ?? [:]
                return "\(value["transactions"] as? Int ?? 0)/\(value["bytes"] as? Int ?? 0)"
            }
            print(
                String(
                    format: "%@ %@ %@ %@ %@ %8.1f  %8.1f", pad(row["feedback"] as? String ?? "", 18), pad(cell("prepared"), 9), pad(cell("standby"), 8),
                    pad(cell("shutdown"), 9), pad(cell("pinPrepared"), 9), (row["awakeSeconds"] as? Double ?? 0) * 1000, (row["effectSeconds"] as? Double ?? 0) * 1000))
        }
    }
}
