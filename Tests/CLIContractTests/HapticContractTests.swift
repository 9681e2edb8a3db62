// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What `haptic` promises whoever calls it, a shell script as much as a person: exit codes, one-line
/// errors, parseable `--json`, the stop at the end of the trace, a feedback that was not played
/// reported as such. Run on the built program and the simulated chip.
@Suite struct HapticContractTests {
    let haptic: Program
    let scratch: ScratchFolder
    /// Calibrations made here (the first start-up calibrates) go to a scratch file, not the machine's.
    let environment: [String: String]

    init() throws {
        haptic = try Program("haptic")
        scratch = try ScratchFolder()
        environment = [
            "HAPTIC_CALIBRATION_FILE": scratch.file("calibration.json"), "STATE_DIRECTORY": scratch.path, "HAPTIC_BOARD": "", "HAPTICD_SOCKET": ""
        ]
    }

    @Test func anEffectPlaysAndTheTraceEndsInStandby() throws {
        let run = try haptic.run(["effect", "1", "--simulate", "--virtual-time", "--trace"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let writes = run.stderr.split(separator: "\n").filter { $0.contains("W 0x5A") }
        #expect(writes.contains { $0.hasSuffix("[0C 01]") }, "no GO written:\n\(run.stderr)")
        #expect(writes.last?.hasSuffix("[01 40]") == true, "the trace does not end in standby:\n\(run.stderr)")
        #expect(!run.stdout.split(separator: "\n").contains { $0.hasPrefix("  bus ") }, "the trace is on stdout:\n\(run.stdout)")
    }

    /// A DRV2604L (no ROM effect library) plays what an app asks for most, as a stream: exit 0,
    /// `played`, the plan saying so, the chip read back with RTP 0 and in standby.
    @Test(arguments: ["success", "impact-heavy", "selection", "warning"])
    func aChipWithoutROMPlaysEveryFeedback(feedback: String) throws {
        let board = Program.packageRoot.appendingPathComponent("Boards/bare-drv2604l.json").path
        let run = try haptic.run(["play", feedback, "--board", board, "--simulate", "--virtual-time", "--json"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let json = run.json
        #expect(json?["outcome"] as? String == "played", "\(run.stdout.suffix(600))")
        #expect((json?["plan"] as? String)?.contains("as a real-time stream") == true)
        #expect((json?["final"] as? [String: Any])?["rtp"] as? Int == 0)
        #expect((json?["final"] as? [String: Any])?["standby"] as? Bool == true)
    }

    @Test func theDemoWritesJSON() throws {
        let run = try haptic.run(["demo", "--simulate", "--virtual-time", "--json"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect((try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) != nil, "not JSON:\n\(run.stdout.prefix(400))")
    }

    /// The first start-up calibrates and saves; `status` then says the calibration is restored.
    @Test func aSavedCalibrationIsRestored() throws {
        let board = ["--board", "adafruit-drv2605l", "--simulate", "--virtual-time"]
        let calibrate = try haptic.run(["calibrate"] + board, environment: environment)
        #expect(calibrate.status == 0, "\(calibrate.stderr)")
        let status = try haptic.run(["status"] + board, environment: environment)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("calibration: restored"), "\(status.stdout)")
    }

    /// Every file of the shared AHAP corpus plays and leaves the chip in standby.
    @Test func theCorpusPlaysAndEndsInStandby() throws {
        let corpus = Program.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/ahap-corpus")
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []).filter { $0.hasSuffix(".ahap") }.sorted()
        try #require(!files.isEmpty || !FileManager.default.fileExists(atPath: corpus.path), "the corpus folder holds no .ahap file")
        for file in files {
            let run = try haptic.run(["pattern", corpus.appendingPathComponent(file).path, "--simulate", "--virtual-time", "--json"], environment: environment)
            #expect(run.status == 0, "\(file): \(run.stderr)")
            let final = run.json?["final"] as? [String: Any]
            #expect(final?["standby"] as? Bool == true && final?["rtp"] as? Int == 0, "\(file): chip not stopped in standby after playing: \(final ?? [:])")
        }
    }

    /// `--acceleration-csv`: what the simulated actuator did, at 8 kHz from the start of
    /// playback: a heavy impact on the LRA is felt (over half its rated 1.4 g) and has died away
    /// by the end of the file; without `--simulate` there is nothing to model, and it says so.
    @Test func theAccelerationCSVIsWhatTheActuatorDid() throws {
        let csv = scratch.file("impact.csv")
        let run = try haptic.run(["play", "impact-heavy", "--simulate", "--virtual-time", "--acceleration-csv", csv], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "time_s,drive,acceleration_g")
        let rows = lines.dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
        #expect(rows.count > 800 && rows.allSatisfy { $0.count == 3 }, "\(rows.count) rows")
        let times = rows.map { $0[0] }
        #expect(zip(times, times.dropFirst()).allSatisfy { abs($1 - $0 - 0.000125) < 1e-6 }, "not 8 kHz")
        #expect(rows.map { abs($0[2]) }.max() ?? 0 > 0.7, "the impact is not felt")
        #expect(rows.suffix(80).map { abs($0[2]) }.max() ?? 1 < 0.05, "still moving at the end: \(rows.suffix(3))")
        let refused = try haptic.run(["play", "impact-heavy", "--acceleration-csv", csv, "--bus", "/dev/i2c-99"], environment: environment)
        #expect(refused.status == 64 && refused.stderr.contains("--acceleration-csv needs --simulate"), "\(refused.stderr)")
    }

    /// `--parameter intensity=0.5@0.3` on a continuous pattern of the corpus: from 0.35 s on,
    /// the actuator's acceleration (its envelope, 20 ms windows) is half (±1.5 dB) of what it is
    /// without the parameter, and before 0.3 s it is the same.
    @Test func anIntensityParameterHalvesWhatIsFeltFromItsTime() throws {
        let corpus = Program.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/ahap-corpus")
        let file = corpus.appendingPathComponent("williamwei2025__Haptic-Tests__Inflate.ahap").path
        try #require(FileManager.default.fileExists(atPath: file), "the shared corpus's continuous pattern is missing")
        func envelope(_ extra: [String]) throws -> [Double] {
            let csv = scratch.file("inflate-\(extra.count).csv")
            let run = try haptic.run(["pattern", file, "--simulate", "--virtual-time", "--acceleration-csv", csv] + extra, environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
            // The peak |acceleration| of each 20 ms window.
            return stride(from: 0, to: rows.count, by: 160).map { start in rows[start..<min(rows.count, start + 160)].map { abs($0[2]) }.max() ?? 0 }
        }
        let plain = try envelope([])
        let halved = try envelope(["--parameter", "intensity=0.5@0.3"])
        try #require(plain.count > 60 && halved.count == plain.count, "\(plain.count) and \(halved.count) windows")
        let early = (2..<14).map { halved[$0] / max(plain[$0], 1e-9) }
        #expect(early.allSatisfy { abs($0 - 1) < 0.02 }, "changed before 0.3 s: \(early)")
        let late = (18..<80).filter { plain[$0] > 0.1 }
        try #require(late.count > 20, "too little felt after 0.35 s")
        let ratio = late.map { halved[$0] }.reduce(0, +) / late.map { plain[$0] }.reduce(0, +)
        let decibels = 20 * log10(ratio / 0.5)
        #expect(abs(decibels) <= 1.5, "\(ratio) of the acceleration after 0.35 s: \(decibels) dB from half")
        let bad = try haptic.run(["pattern", file, "--simulate", "--virtual-time", "--parameter", "loudness=2@1"], environment: environment)
        #expect(bad.status == 64, "\(bad.stderr)")
    }

    /// `--mix FILE@SECONDS`: the drive is the clipped sum of each pattern's drive played alone (the
    /// second moved by its offset), within one drive step on all but the rows at a level's edge
    /// (the rumble at resonance, so that no drive frequency rescales the chip's steps);
    /// the JSON says how each ended; a bad mixed file fails before anything plays.
    @Test func aMixedPatternDrivesTheSumOfBoth() throws {
        let rumble = scratch.file("rumble.ahap")
        let taps = scratch.file("taps.ahap")
        try
            #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous","EventDuration":0.8,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":0.6},{"ParameterID":"HapticSharpness","ParameterValue":0.5}]}}]}"#
            .write(toFile: rumble, atomically: true, encoding: .utf8)
        try
            #"{"Version":1,"Pattern":[{"Event":{"Time":0.1,"EventType":"HapticTransient","EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":0.9}]}},{"Event":{"Time":0.35,"EventType":"HapticTransient","EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":0.9}]}}]}"#
            .write(toFile: taps, atomically: true, encoding: .utf8)
        func drive(_ arguments: [String], _ name: String) throws -> (drive: [Double], json: [String: Any]) {
            let csv = scratch.file("\(name).csv")
            let run = try haptic.run(
                ["pattern"] + arguments + ["--strategy", "realtime", "--simulate", "--virtual-time", "--json", "--acceleration-csv", csv], environment: environment)
            #expect(run.status == 0, "\(name): \(run.stderr)")
            let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
            let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any] ?? [:]
            return (rows.map { $0[1] }, json)
        }
        let alone = try drive([rumble], "rumble").drive
        let tapsAlone = try drive([taps], "taps").drive
        let (both, json) = try drive([rumble, "--mix", "\(taps)@0.1"], "both")
        let offset = 800  // 0.1 s at 8 kHz
        let step = 1.0 / 127
        let level = { (rows: [Double], index: Int) in index >= 0 && index < rows.count ? rows[index] : 0 }
        var off = 0
        var clipped = 0
        for index in both.indices {
            let expected = min(1, level(alone, index) + level(tapsAlone, index - offset))
            if abs(both[index] - expected) > step + 1e-9 { off += 1 }
            if expected == 1, level(alone, index) > 0.3 { clipped += 1 }
        }
        #expect(both.count >= alone.count && off <= both.count / 100, "\(off) of \(both.count) rows off the clipped sum by more than a step")
        #expect(clipped > 0, "the taps never took the sum to full scale")
        let mixed = json["mixed"] as? [[String: Any]]
        #expect(json["outcome"] as? String == "finished" && mixed?.first?["outcome"] as? String == "finished", "\(json)")
        let missing = try haptic.run(["pattern", rumble, "--mix", scratch.file("none.ahap"), "--simulate"], environment: environment)
        #expect(missing.status != 0 && missing.errorLines.count == 1, "\(missing.stderr)")
        let looped = try haptic.run(["pattern", rumble, "--mix", taps, "--loop", "--simulate"], environment: environment)
        #expect(looped.status == 64, "\(looped.stderr)")
    }

    @Test func renderWritesAPlot() throws {
        let plot = scratch.file("plot.svg")
        let run = try haptic.run(["render", "Examples/patterns/heartbeat.ahap", "-o", plot], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let svg = try String(contentsOfFile: plot, encoding: .utf8)
        #expect(svg.hasPrefix("<svg") || svg.hasPrefix("<?xml"), "\(svg.prefix(80))")
    }

    /// Bad input and a wrong bus: a meaningful exit code and one line on stderr.
    @Test(arguments: [
        (["pattern", "BAD_AHAP", "--simulate"], Int32(65), "a malformed AHAP file"),
        (["play", "success", "--bus", "/dev/i2c-99"], Int32(69), "a bus that does not exist"),
        (["effect", "200", "--simulate"], Int32(65), "an effect number outside 1-123")
    ])
    func badInputGivesItsExitCodeAndOneLine(arguments: [String], status: Int32, what: String) throws {
        let bad = scratch.file("bad.ahap")
        try #"{"Pattern":[{"Event":{"Time":-1,"EventType":"HapticTransient"}}]}"#.write(toFile: bad, atomically: true, encoding: .utf8)
        let run = try haptic.run(arguments.map { $0 == "BAD_AHAP" ? bad : $0 }, environment: environment)
        #expect(run.status == status, "\(what): exit \(run.status), stderr: \(run.stderr)")
        #expect(run.errorLines.count == 1, "\(what): stderr is not one line:\n\(run.stderr)")
    }

    /// SIGINT and SIGTERM mid-pattern: "actuator stopped", exit 130, and the trace ends with the
    /// stop: RTP 0 and standby written after the signal.
    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalStopsTheActuator(signal: Int32) throws {
        let running = try haptic.start(["pattern", "Examples/patterns/heartbeat.ahap", "--simulate", "--loop", "--trace"], environment: environment)
        // The pattern is playing once RTP writes (mode 5) show in the trace.
        try running.waitUntil("real-time playback in the trace") { running.standardError.contains("W 0x5A [01 05") }
        running.signal(signal)
        let run = try running.wait(deadline: .seconds(30))
        #expect(run.status == 130, "exit \(run.status) after signal \(signal): \(run.stderr)")
        #expect(run.stderr.contains("actuator stopped"), "\(run.stderr)")
        let writes = run.stderr.split(separator: "\n").filter { $0.contains("W 0x5A") }
        #expect(writes.last?.hasSuffix("[01 40]") == true, "the trace does not end with the standby write:\n\(writes.suffix(3).joined(separator: "\n"))")
        #expect(
            writes.suffix(4).contains { $0.contains("W 0x5A [01 00 00") || $0.contains("W 0x5A [02 00]") },
            "no RTP 0 in the trace's stop:\n\(writes.suffix(4).joined(separator: "\n"))")
    }

    /// Haptics turned off in the policy: not played is not a success. Exit 78, one line saying
    /// why, and `--json` still valid.
    @Test func aFeedbackTheUserTurnedOffIsReportedNotPlayed() throws {
        let policy = scratch.file("policy.json")
        try #"{"enabled": false}"#.write(toFile: policy, atomically: true, encoding: .utf8)
        // A machine where the chip was used before: the first start-up's calibration note is not part of this.
        #expect(try haptic.run(["play", "success", "--simulate", "--virtual-time"], environment: environment).status == 0)
        var environment = environment
        environment["HAPTICS_POLICY"] = policy
        let run = try haptic.run(["play", "success", "--simulate", "--virtual-time", "--json"], environment: environment)
        #expect(run.status == 78)
        #expect(run.errorLines.count == 1 && run.stderr.contains("not played: haptics are turned off"), "\(run.stderr)")
        #expect(run.json != nil, "--json output is not JSON:\n\(run.stdout)")
    }
}
