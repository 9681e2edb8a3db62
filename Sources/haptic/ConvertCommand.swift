// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Audio
import DRV2605
import DRV2605Simulator
import Foundation
import HapticChip
import HapticEffects
import Haptics
import HapticsService
import HapticsSimulation
import HardwareAccess
import LinuxHardware

/// `haptic convert`: a sound into a haptic pattern, as designers' tools do, or a pattern from AHAP
/// to Meta's `.haptic` and back.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract:
            "Turn a sound (WAV, FLAC, Ogg, MP3) into a pattern (transients at its onsets, a continuous event following its loudness and brightness), or convert a pattern between AHAP and Meta's .haptic.",
        discussion: "The output's extension chooses its format (.ahap or .haptic); what it cannot hold is named in a warning.")
    @Argument(help: "The sound file, or a pattern (.ahap, .haptic).") var input: String
    @Option(name: .shortAndLong, help: "The pattern to write (.ahap or .haptic).") var output: String
    @Option(help: "0-1: higher finds quieter onsets.") var sensitivity: Double = 0.5
    @Option(help: "Onsets closer than this many seconds are one.") var minimumGap: Double = 0.05
    @Option(help: "Control points a second in the intensity and sharpness curves (1-200).") var pointsPerSecond: Double = 20
    @Flag(help: "Print a JSON summary.") var json = false

    func run() throws {
        try CLIError.reporting {
            let toMeta = output.lowercased().hasSuffix(".haptic")
            guard toMeta || output.lowercased().hasSuffix(".ahap") else {
                throw CLIError("-o must name an .ahap or a .haptic file", exitCode: CLIError.usage)
            }
            guard (0...1).contains(sensitivity), minimumGap.isFinite, minimumGap >= 0, (1...200).contains(pointsPerSecond) else {
                throw CLIError("--sensitivity must be 0-1, --minimum-gap 0 or more, --points-per-second 1-200", exitCode: CLIError.usage)
            }
            let lowered = input.lowercased()
            let pattern: HapticPattern
            var warnings: [String] = []
            var seconds: Double
            if lowered.hasSuffix(".ahap") || lowered.hasSuffix(".haptic") {
                let document = try PatternFileReader.read(path: input)
                pattern = document.pattern
                warnings += document.warnings
                seconds = pattern.duration
            } else {
                let sound = try Sound.decode(path: input)
                var options = AudioToHaptics.Options()
                options.sensitivity = sensitivity
                options.minimumGap = minimumGap
                options.pointsPerSecond = pointsPerSecond
                pattern = AudioToHaptics(options: options).pattern(from: sound)
                seconds = sound.duration
            }
            let text: String
            if toMeta {
                let written = try MetaHapticWriter.write(pattern, source: (input as NSString).lastPathComponent)
                text = written.text
                warnings += written.warnings
            } else {
                text = try AHAPWriter.write(pattern)
                warnings += AHAPWriter.warnings(for: pattern)
            }
            // Written beside and renamed into place: a failed run never leaves half a file.
            do { try text.write(toFile: output, atomically: true, encoding: .utf8) } catch {
                throw CLIError("cannot write \(output): \(error.localizedDescription)", exitCode: CLIError.cannotCreate)
            }
            for warning in warnings { FileHandle.standardError.write(Data("haptic: warning: \(warning)\n".utf8)) }
            let transients = pattern.events.filter { $0.type == .hapticTransient }
            let continuous = pattern.events.filter { $0.type == .hapticContinuous }.count
            if json {
                let data = try JSONSerialization.data(
                    withJSONObject: [
                        "input": input, "output": output, "seconds": seconds, "transients": transients.map(\.time),
                        "continuousEvents": continuous, "curves": pattern.curves.count, "warnings": warnings
                    ], options: [.prettyPrinted, .sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            } else {
                print(
                    String(
                        format: "%@ (%.2f s): %d transient(s), %d continuous event(s), %d curves -> %@", (input as NSString).lastPathComponent,
                        seconds, transients.count, continuous, pattern.curves.count, output))
            }
        }
    }
}
