// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Haptics
import Logging

/// `haptic`: drive a DRV2605 haptic driver from the command line, on the board or on the simulated chip.
@main
struct HapticCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "haptic",
        abstract: "Haptic feedback on a TI DRV2605/DRV2605L over Linux I2C (or on a simulated chip).",
        discussion: """
            Without a board (no /dev/i2c-* bus), every verb runs on the simulated DRV2605L and says so.
            Exit codes: 0 ok, 1 runtime failure, 64 usage, 65 bad input data (a corrupt sound too), 66 a sound file missing,
            69 device unavailable (chip or audio device), 73 a recording cannot be written, 77 permission,
            75 feedback not played (rate limit, coalesced), 78 feedback not played (haptics off in the policy).
            """,
        version: SwiftHaptics.version,
        subcommands: [
            Demo.self, Play.self, StopCommand.self, EffectCommand.self, Effects.self, Probe.self, Dump.self,
            Calibrate.self, Diagnose.self, Status.self, Boards.self,
            PatternCommand.self, Render.self, ConvertCommand.self, SequenceCommand.self, Profile.self, StudioCommand.self
        ],
        defaultSubcommand: nil
    )

    /// Signals are set up before anything starts a thread (see `ExitGuard`).
    static func main() {
        ExitGuard.install()
        // Log lines go to stderr: stdout carries results, and `--json` must stay parseable.
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        main(nil)
    }
}
