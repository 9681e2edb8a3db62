// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `haptic`'s options doing what its help and the README say, on the simulated chip: the board by
/// name in `$HAPTIC_BOARD`, a chip that is not the board's part refused, the trace apart from
/// `--json`, a switch's traffic in the trace and the counts, the policy's scale on every path,
/// the `saved` policy's hint a command that works, simulated calibrations kept apart.
@Suite struct HapticOptionsContractTests {
    let haptic: Program
    let scratch: ScratchFolder
    let environment: [String: String]

    init() throws {
        haptic = try Program("haptic")
        scratch = try ScratchFolder()
        environment = [
            "HAPTIC_CALIBRATION_FILE": scratch.file("calibration.json"), "STATE_DIRECTORY": scratch.path, "HAPTIC_BOARD": "", "HAPTICD_SOCKET": ""
        ]
    }

    /// The bus writes of a `--trace` (on stderr), as "ADDRESS [BYTES]".
    func writes(_ run: Run) -> [String] {
        run.stderr.split(separator: "\n").filter { $0.hasPrefix("  bus ") }.compactMap { line in
            line.range(of: " W ").map { String(line[$0.upperBound...]) }
        }
    }

    /// One exit-code table: `haptic --help` prints the code's (`CLIError.table`), and the README's
    /// is the same, code for code and word for word.
    @Test func theREADMEsExitCodesAreTheHelps() throws {
        let help = try haptic.run(["--help"], environment: environment)
        let start = try #require(help.stdout.range(of: "Exit codes:"), "\(help.stdout)")
        let end = try #require(help.stdout.range(of: "USAGE:"))
        let fromHelp = help.stdout[start.upperBound..<end.lowerBound].split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let readme = try String(contentsOf: Program.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let rows = readme.split(separator: "\n").drop { $0 != "| exit | meaning |" }.dropFirst(2).prefix { $0.hasPrefix("| ") }
        let fromREADME = rows.map { row in
            row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        }.joined(separator: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(rows.count >= 10 && fromREADME == fromHelp, "README: \(fromREADME)\nhelp:   \(fromHelp)")
    }

    /// `--device`: a kernel vibrator. One that is not there is refused (69, one line naming it);
    /// simulated, a feedback is streamed into its effect and the device is left with none.
    @Test func aKernelVibratorIsNamedWithDevice() throws {
        let missing = try haptic.run(["play", "success", "--device", "/dev/input/event-none"], environment: environment)
        #expect(missing.status == 69, "\(missing.stderr)")
        #expect(missing.errorLines.count == 1 && missing.stderr.contains("open /dev/input/event-none: no such device"), "\(missing.stderr)")
        let played = try haptic.run(["play", "success", "--device", "/dev/input/event7", "--simulate", "--json"], environment: environment)
        #expect(played.status == 0, "\(played.stderr)")
        let final = try #require(played.json?["final"] as? [String: Any], "\(played.stdout)")
        #expect(final["effect"] as? String == "FF_RUMBLE" && final["standby"] as? Bool == true && final["driving"] as? Bool == false, "\(final)")
        #expect((played.json?["device"] as? String)?.contains("kernel vibrator") == true, "\(played.stdout)")
        #expect(try haptic.run(["play", "success", "--device", "auto", "--bus", "1"], environment: environment).status == 64)
    }

    @Test func aBoardNamedInTheEnvironmentIsFoundByName() throws {
        var environment = environment
        environment["HAPTIC_BOARD"] = "sparkfun-qwiic-da7280"
        let run = try haptic.run(["play", "success", "--simulate", "--virtual-time"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("DA7280") && run.stdout.contains("board sparkfun-qwiic-da7280"), "\(run.stdout)")
        environment["HAPTIC_BOARD"] = "no-such-board"
        let unknown = try haptic.run(["play", "success", "--simulate", "--virtual-time"], environment: environment)
        #expect(unknown.status == 65 && unknown.stderr.contains("is not a known board"), "\(unknown.status): \(unknown.stderr)")
    }

    /// `--device` names the vibrator to drive: with `$HAPTICD_SOCKET` set, a kernel vibrator or a
    /// microcontroller named on the command line is still the one opened (here absent, so the
    /// error names it), never hapticd's chip behind the socket.
    @Test func theDeviceOptionWinsOverHapticdsSocket() throws {
        var environment = environment
        environment["HAPTICD_SOCKET"] = scratch.file("hapticd-elsewhere.sock")
        for device in [scratch.file("event-absent"), "serial:" + scratch.file("tty-absent")] {
            let run = try haptic.run(["play", "success", "--device", device], environment: environment)
            #expect(run.status != 0, "\(device): \(run.stdout)")
            #expect(run.stderr.contains(device.replacingOccurrences(of: "serial:", with: "")), "\(device): \(run.stderr)")
            #expect(!run.stderr.contains("hapticd-elsewhere.sock"), "\(device) went to hapticd's socket: \(run.stderr)")
        }
    }

    /// `--board` on the command line wins over `$HAPTIC_BOARD`: the board named is the one driven,
    /// whichever board the environment names (a known one, or one that does not exist).
    @Test func theBoardOptionWinsOverTheEnvironment() throws {
        for named in ["sparkfun-qwiic-da7280", "no-such-board"] {
            var environment = environment
            environment["HAPTIC_BOARD"] = named
            let run = try haptic.run(["play", "success", "--board", "adafruit-drv2605l", "--simulate", "--virtual-time"], environment: environment)
            #expect(run.status == 0, "HAPTIC_BOARD=\(named): \(run.stderr)")
            #expect(run.stdout.contains("board adafruit-drv2605l") && !run.stdout.contains("DA7280"), "HAPTIC_BOARD=\(named): \(run.stdout)")
        }
    }

    /// Another part than the board's is refused before anything plays (exit 69, both parts
    /// named); the board's own part, and every part the project supports, are accepted.
    @Test func aChipThatIsNotTheBoardsPartIsRefused() throws {
        let wrong = try haptic.run(
            ["play", "success", "--board", "adafruit-drv2605l", "--simulate", "--virtual-time", "--simulated-part", "drv2604", "--trace"], environment: environment)
        #expect(wrong.status == 69, "\(wrong.stderr)")
        #expect(wrong.stderr.contains("expects a DRV2605L") && wrong.stderr.contains("is a DRV2604"), "\(wrong.stderr)")
        #expect(!writes(wrong).contains("0x5A [0C 01]"), "a GO was written to the wrong chip")
        for (board, part) in [("adafruit-drv2605l", "drv2605l"), ("sparkfun-qwiic-da7280", "da7280"), ("bare-drv2604l", "drv2604l")] {
            let run = try haptic.run(["play", "success", "--board", board, "--simulate", "--virtual-time", "--simulated-part", part], environment: environment)
            #expect(run.status == 0, "\(board) with \(part): \(run.stderr)")
        }
        let other = try haptic.run(["play", "success", "--board", "adafruit-drv2605l", "--simulate", "--virtual-time", "--simulated-part", "da7280"], environment: environment)
        #expect(other.status == 69, "a DA7280 where the board has a DRV2605L: \(other.stderr)")
    }

    /// `haptic diagnose` on a DRV2604L, which has no ROM library: the supply and resonance are
    /// measured during a full-scale RTP drive (MODE 0x05, RTP_INPUT written), not ROM effect 47.
    @Test func diagnoseMeasuresADRV2604LThroughRealTimePlayback() throws {
        let run = try haptic.run(
            ["diagnose", "--board", "bare-drv2604l", "--simulate", "--virtual-time", "--simulated-part", "drv2604l", "--json", "--trace"],
            environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.json?["verdict"] as? String == "fine", "\(run.stdout)")
        let volts = run.json?["supplyVolts"] as? Double ?? 0
        #expect(volts > 3 && volts < 5.6, "supply \(volts) V")
        #expect(writes(run).contains { $0.hasPrefix("0x5A [01 05") }, "no RTP drive in the trace:\n\(run.stderr)")
        #expect(writes(run).contains("0x5A [02 7F]"), "not driven at full scale:\n\(run.stderr)")
        #expect(!writes(run).contains { $0.hasPrefix("0x5A [04 2F") }, "ROM effect 47 loaded on a chip without ROM")
    }

    /// `--json --trace`: stdout is one JSON document, the trace is on stderr.
    @Test func theTraceLeavesJSONValid() throws {
        let run = try haptic.run(["play", "success", "--simulate", "--virtual-time", "--json", "--trace"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.json?["outcome"] as? String == "played", "not JSON:\n\(run.stdout.prefix(300))")
        #expect(writes(run).contains("0x5A [0C 01]"), "\(run.stderr)")
    }

    /// Four chips behind a TCA9548A: the trace shows the switch's channel selections and the one
    /// GO broadcast through all four, and the trigger's count is that selection and GO (2
    /// transactions, 5 bytes on the wire).
    @Test func aSwitchsTrafficIsTracedAndCounted() throws {
        let run = try haptic.run(["play", "success", "--board", "tca9548a-four-lra", "--all", "--simulate", "--virtual-time", "--trace", "--json"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let trace = writes(run)
        #expect(Set(trace.filter { $0.hasPrefix("0x70") }).isSuperset(of: ["0x70 [01]", "0x70 [02]", "0x70 [04]", "0x70 [08]", "0x70 [0F]"]), "\(trace)")
        let broadcast = try #require(trace.firstIndex(of: "0x70 [0F]"))
        #expect(trace.dropFirst(broadcast + 1).first == "0x5A [0C 01]", "no GO after selecting every channel: \(trace.suffix(12))")
        let trigger = try #require(run.json?["trigger"] as? [String: Any])
        #expect(trigger["transactions"] as? Int == 2 && trigger["bytes"] as? Int == 5, "\(trigger)")
        let bus = try #require(run.json?["bus"] as? [String: Any])
        #expect(
            bus["transactions"] as? Int == trace.count + run.stderr.split(separator: "\n").filter { $0.hasPrefix("  bus ") && $0.contains(" R 0x") }.count,
            "the counts are not the trace's")
    }

    /// Under the policy's `intensityScale` 0.4, an effect plays TI's 40 % variant of itself
    /// (effect 47 "Buzz 1 - 100%" becomes 50 "Buzz 4 - 40%"), and a pattern streams at 0.4 of
    /// the levels it streams unscaled.
    @Test func thePolicysScaleReachesEffectsAndPatterns() throws {
        let policy = scratch.file("policy.json")
        try #"{"intensityScale": 0.4}"#.write(toFile: policy, atomically: true, encoding: .utf8)
        var scaled = environment
        scaled["HAPTICS_POLICY"] = policy
        // Calibrated first: calibration's own check plays effect 47 at full strength.
        #expect(try haptic.run(["calibrate", "--simulate", "--virtual-time"], environment: environment).status == 0)
        let effect = try haptic.run(["effect", "47", "--simulate", "--virtual-time", "--trace", "--json"], environment: scaled)
        #expect(effect.status == 0, "\(effect.stderr)")
        #expect(writes(effect).contains { $0.hasPrefix("0x5A [01 00 00 06 32") } && !writes(effect).contains { $0.hasPrefix("0x5A [01 00 00 06 2F") }, "\(writes(effect))")
        #expect((effect.json?["plan"] as? String)?.contains("intensityScale 0.40") == true, "\(effect.stdout)")
        func peakRTP(_ environment: [String: String]) throws -> Int {
            let heartbeat = Program.packageRoot.appendingPathComponent("Examples/patterns/heartbeat.ahap").path
            let run = try haptic.run(["pattern", heartbeat, "--simulate", "--virtual-time", "--trace"], environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            return writes(run).filter { $0.hasPrefix("0x5A [02 ") }.compactMap { Int($0.dropFirst(9).prefix(2), radix: 16) }.max() ?? -1
        }
        let full = try peakRTP(environment)
        let reduced = try peakRTP(scaled)
        #expect(full == 0x7F && abs(reduced - Int((Double(full) * 0.4).rounded())) <= 1, "peak RTP \(reduced) under 0.4, \(full) without")
    }

    /// Haptics turned off in the policy: a pattern and a sequence are not played either, and say
    /// so as a feedback does (exit 78, one line), with no GO or RTP written.
    @Test func hapticsTurnedOffStopPatternsAndSequencesToo() throws {
        let policy = scratch.file("off.json")
        try #"{"enabled": false}"#.write(toFile: policy, atomically: true, encoding: .utf8)
        #expect(try haptic.run(["calibrate", "--simulate", "--virtual-time"], environment: environment).status == 0)
        var off = environment
        off["HAPTICS_POLICY"] = policy
        let heartbeat = Program.packageRoot.appendingPathComponent("Examples/patterns/heartbeat.ahap").path
        for arguments in [["pattern", heartbeat], ["sequence", "success, effect 47"]] {
            let run = try haptic.run(arguments + ["--simulate", "--virtual-time", "--trace"], environment: off)
            #expect(run.status == 78, "\(arguments[0]): exit \(run.status): \(run.stderr)")
            #expect(run.errorLines.filter { !$0.hasPrefix("  bus ") }.count == 1 && run.stderr.contains("turned off"), "\(run.stderr)")
            #expect(!writes(run).contains { $0 == "0x5A [0C 01]" || $0.hasPrefix("0x5A [02 ") || $0.hasPrefix("0x5A [01 05") }, "\(arguments[0]) drove the chip: \(writes(run))")
        }
    }

    /// The `saved` policy refuses to play without a calibration, and its hint is a command that
    /// makes one: run as printed (on the simulated chip), it succeeds, and then the feedback plays.
    @Test func theSavedPolicysHintIsACommandThatWorks() throws {
        for (index, board) in [["--board", "adafruit-drv2605l"], []].enumerated() {
            var environment = environment
            environment["HAPTIC_CALIBRATION_FILE"] = scratch.file("saved-\(index).json")
            let arguments = board + ["--simulate", "--virtual-time", "--calibration", "saved"]
            let refused = try haptic.run(["play", "success"] + arguments, environment: environment)
            #expect(refused.status == 78, "\(refused.stderr)")
            let hint = try #require(refused.stderr.range(of: "run '"), "\(refused.stderr)")
            let quoted = String(refused.stderr[hint.upperBound...].prefix { $0 != "'" })
            #expect(quoted.hasPrefix("haptic calibrate"), "\(refused.stderr)")
            let words = quoted.split(separator: " ").dropFirst().map(String.init)
            let calibrate = try haptic.run(words + ["--simulate", "--virtual-time"], environment: environment)
            #expect(calibrate.status == 0, "'\(quoted)' failed: \(calibrate.stderr)")
            #expect(try haptic.run(["play", "success"] + arguments, environment: environment).status == 0)
        }
    }

    /// A simulated run keeps its calibration in `simulated-calibration.json` beside the store,
    /// never in the store real chips restore from: checked with the real default path (no
    /// `HAPTIC_CALIBRATION_FILE`; a scratch home for a user, /var/lib/haptics for root).
    @Test func aSimulatedRunLeavesTheRealStoreUntouched() throws {
        let home = scratch.file("home")
        let environment = ["HOME": home, "HAPTIC_CALIBRATION_FILE": "", "HAPTIC_BOARD": "", "HAPTICD_SOCKET": ""]
        let folder = getuid() == 0 ? "/var/lib/haptics" : home + "/.local/state/haptics"
        let real = folder + "/calibration.json"
        let before = try? Data(contentsOf: URL(fileURLWithPath: real))
        let run = try haptic.run(["calibrate", "--simulate", "--virtual-time"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect((try? Data(contentsOf: URL(fileURLWithPath: real))) == before, "a simulated run changed \(real)")
        let simulated = folder + "/simulated-calibration.json"
        #expect(FileManager.default.fileExists(atPath: simulated), "no \(simulated)")
        #expect(run.stdout.contains(simulated) || run.stderr.contains(simulated), "\(run.stdout)\(run.stderr)")
    }
}
