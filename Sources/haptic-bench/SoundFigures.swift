// SPDX-License-Identifier: Apache-2.0

import Audio
import DRV2605
import DRV2605Simulator
import Foundation
import HapticChip
import HapticEffects
import Haptics
import HardwareAccess
import LinuxAudio
import LinuxHardware

extension HapticBench {
    /// Sound with haptics on the real clock: a sequence of taps, each with an impact, recorded to a
    /// WAV (sample 0 dated on the clock) while the simulated chip's trace dates each GO; the figure
    /// is GO minus the tap's recorded instant, beside a bare sleep loop's lateness in the same run.
    /// With `--audio-device`, also how long that device takes to start (open to trigger timestamp).
    func measureSound() throws -> [String: Any] {
        let clock = SystemClock.shared
        let chip = SimulatedDRV2605(clock: clock, actuator: .typicalLRA)
        let engine = try HapticEngine(bus: chip, configuration: try DRV2605Configuration(.typicalLRA), clock: clock, options: benchOptions)
        let path = NSTemporaryDirectory() + "haptic-bench-sound-\(getpid()).wav"
        defer { unlink(path) }
        var soundOptions = SoundEngine.Options()
        soundOptions.threadSetup = { LinuxRealtime.preparePacingThread() }
        let sounds = try SoundEngine(output: try WAVFileOutput(path: path, origin: clock.now), clock: clock, options: soundOptions)
        let tap = Sound(name: "tap", mono: [Float](repeating: 0.8, count: 240))
        let pairs = 20
        var notes: [SequenceNote] = [.sound(tap), .feedback(.impact(.heavy))]
        for _ in 1..<pairs { notes += [.wait(0.15), .sound(tap), .feedback(.impact(.heavy))] }
        var playerOptions = PatternPlayer.Options()
        playerOptions.threadSetup = { LinuxRealtime.preparePacingThread() }
        chip.clearTrace()
        let player = SequencePlayer(engine: engine, notes: notes, playerOptions: playerOptions, sounds: sounds)
        player.start()
        player.waitUntilFinished(timeout: .seconds(30))
        try sounds.finish()
        let report = sounds.report
        let goes = chip.trace.filter { $0.kind == .write && $0.written == [0x0C, 0x01] }.map(\.time)
        // Onsets: a loud frame after at least 50 ms of silence.
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var onsets: [ClockInstant] = []
        var quiet = 48_000
        var index = 44
        while index + 1 < data.count {
            let value = abs(Int32(Int16(bitPattern: UInt16(data[index]) | UInt16(data[index + 1]) << 8)))
            if value >= 3277, quiet >= 2400 {
                onsets.append(sounds.origin.advanced(byNanoseconds: Int64((index - 44) / 4) * 1_000_000_000 / 48_000))
            }
            quiet = value < 300 ? quiet + 1 : 0
            index += 4
        }
        var offsets = zip(goes, onsets).map { Double($0.nanoseconds - $1.nanoseconds) / 1000 }
        let magnitudes = offsets.map(abs)
        var sortedMagnitudes = magnitudes
        let figures = percentileFigures(&offsets)
        let magnitudeFigures = percentileFigures(&sortedMagnitudes)
        var floor = bareLoopLateness(rate: 1 / 0.15, count: pairs, spin: playerOptions.spin, setup: { LinuxRealtime.preparePacingThread() })
        var result: [String: Any] = [
            "pairs": min(goes.count, onsets.count), "goWrites": goes.count, "soundOnsets": onsets.count,
            "goMinusSoundMedianMicroseconds": figures["medianMicroseconds"] ?? 0,
            "goMinusSoundP99MagnitudeMicroseconds": magnitudeFigures["p99Microseconds"] ?? 0,
            "floorP99Microseconds": percentileFigures(&floor)["p99Microseconds"] ?? 0,
            "compensationSeconds": report.compensationSeconds, "underruns": report.underruns, "lateStarts": report.lateStarts
        ]
        if let device = audioDevice {
            let opened = clock.now
            let output = try ALSAOutput(device: device)
            let started = try output.start(clock: clock)
            result["device"] = [
                "name": device, "latencySeconds": output.latency.secondsDouble, "periodSeconds": output.period.secondsDouble,
                "openToFirstFrameHeardSeconds": started.duration(since: opened).secondsDouble
            ]
            try output.close(drainTimeout: .zero)
        }
        return result
    }

    func printSound(_ sound: [String: Any]) {
        print(
            String(
                format:
                    "sound with haptics (real clock, simulated chip, WAV recording, %d pairs): GO minus the sound's instant median %.0f µs, p99 |offset| %.0f µs (sleep-loop floor p99 %.0f µs); sounds placed %.0f ms ahead; %d underrun(s), %d late start(s)",
                sound["pairs"] as? Int ?? 0, sound["goMinusSoundMedianMicroseconds"] as? Double ?? 0,
                sound["goMinusSoundP99MagnitudeMicroseconds"] as? Double ?? 0, sound["floorP99Microseconds"] as? Double ?? 0,
                (sound["compensationSeconds"] as? Double ?? 0) * 1000, sound["underruns"] as? Int ?? 0, sound["lateStarts"] as? Int ?? 0))
        if let device = sound["device"] as? [String: Any] {
            print(
                String(
                    format: "audio device %@: %.1f ms buffer, %.1f ms period; open to the first frame heard %.1f ms", device["name"] as? String ?? "",
                    (device["latencySeconds"] as? Double ?? 0) * 1000, (device["periodSeconds"] as? Double ?? 0) * 1000,
                    (device["openToFirstFrameHeardSeconds"] as? Double ?? 0) * 1000))
        }
    }
}
