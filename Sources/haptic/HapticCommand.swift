// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import ChipFamilies
import Haptics
import Logging

/// `haptic`: drive a haptic driver chip (TI's DRV2605 family, Dialog's DA7280) from the command
/// line, on the board, through hapticd, or on a simulated chip.
@main
struct HapticCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "haptic",
        abstract: "Haptic feedback on a TI DRV2605/DRV2605L/DRV2604L or Dialog DA7280 over Linux I2C, through hapticd, or on a simulated chip.",
        discussion: """
            Without a board file and with no /dev/i2c-* bus, the verbs that drive a chip run on the simulated DRV2605L and say so.
            --simulate runs the board file's chips simulated.
            With --socket (or $HAPTICD_SOCKET) they go through hapticd, or refuse if they need the chip to themselves.

            Exit codes:
            \(CLIError.tableText)
            """,
        version: SwiftHaptics.version,
        subcommands: [
            Demo.self, Play.self, StopCommand.self, EffectCommand.self, Effects.self, Probe.self, Dump.self,
            Calibrate.self, Diagnose.self, Status.self, Boards.self,
            PatternCommand.self, Render.self, ConvertCommand.self, ThemeCommand.self, SequenceCommand.self, Profile.self, StudioCommand.self
        ],
        defaultSubcommand: nil
    )

    /// Signals are set up before anything starts a thread (see `ExitGuard`).
    static func main() {
        ExitGuard.install()
        // Board files may name every chip family of the package (the DA7280 beside the DRV2605).
        StandardChipFamilies.register()
        // Log lines go to stderr: stdout carries results, and `--json` must stay parseable.
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        main(nil)
    }
}
