// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Audio
import Foundation
import HardwareAccess
import LinuxAudio
import LinuxHardware

/// Where sounds go: an ALSA device, or a WAV recording of the audio timeline.
struct AudioOptions: ParsableArguments {
    @Option(help: "ALSA PCM to play sounds on (see `aplay -L`): default, hw:0, plughw:Loopback,0 ... Default: default.")
    var audioDevice: String?

    @Option(help: "Audio buffer in milliseconds: more survives a busy machine, less answers faster (5-1000).")
    var audioLatency: Int = 40

    @Option(help: "Record the audio timeline instead of playing it: wav:PATH (sample 0 = time 0 of --trace with --virtual-time).")
    var audioOutput: String?

    /// Opens the output and starts the sound engine on `session`'s clock; on failure, leaves the
    /// chip stopped in standby and throws (69 for a device, 73 for a recording). `what` names
    /// what needs sound, for the message.
    func open(for session: DeviceSession, what: String) throws -> SoundEngine {
        do {
            return try engine(for: session)
        } catch {
            session.finish()
            let cli = CLIError.from(error)
            throw CLIError("\(cli.message) (needed for \(what))", exitCode: cli.exitCode)
        }
    }

    /// The sound engine on `session`'s clock, or the reason there is none; the chip is not touched.
    func engine(for session: DeviceSession) throws -> SoundEngine {
        guard (5...1000).contains(audioLatency) else {
            throw CLIError("--audio-latency must be 5-1000 ms, not \(audioLatency)", exitCode: CLIError.usage)
        }
        let output: any AudioOutput
        if let audioOutput {
            guard audioOutput.hasPrefix("wav:"), audioOutput.count > 4 else {
                throw CLIError("--audio-output takes wav:PATH, not '\(audioOutput)'", exitCode: CLIError.usage)
            }
            let origin = session.clock is VirtualClock ? ClockInstant.zero : session.clock.now
            output = try WAVFileOutput(path: String(audioOutput.dropFirst(4)), origin: origin)
        } else {
            output = try ALSAOutput(device: audioDevice ?? "default", latency: .milliseconds(audioLatency))
        }
        var options = SoundEngine.Options()
        options.threadSetup = { LinuxRealtime.preparePacingThread() }
        return try SoundEngine(output: output, clock: session.clock, options: options)
    }
}

extension SoundEngine.Report {
    /// The `audio` object of `--json`.
    var json: [String: Any] {
        var object: [String: Any] = [
            "device": device, "latencySeconds": latencySeconds, "periodSeconds": periodSeconds,
            "compensationSeconds": compensationSeconds, "originSeconds": originSeconds, "underruns": underruns,
            "lateStarts": lateStarts, "framesSkipped": framesSkipped, "clippedSamples": clippedSamples
        ]
        if let failure { object["failure"] = failure }
        return object
    }

    /// One line for people.
    var line: String {
        String(
            format: "audio: %@, %.1f ms buffer, sounds %.1f ms ahead; %d underrun(s), %d late start(s)%@", device, latencySeconds * 1000,
            compensationSeconds * 1000, underruns, lateStarts, failure.map { "; FAILED: \($0)" } ?? "")
    }
}

/// Waits for the sounds to be heard and closes the output; its report, or the error as a CLI error.
func finishSounds(_ engine: SoundEngine?) throws -> SoundEngine.Report? {
    guard let engine else { return nil }
    do {
        try engine.finish()
    } catch {
        throw CLIError.from(error)
    }
    return engine.report
}
