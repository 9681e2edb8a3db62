// SPDX-License-Identifier: Apache-2.0

import DRV2605
import Foundation
import HapticChip
import HapticEffects
import Haptics

/// What a chip does at start-up about auto-calibration, set per driver in a board file
/// (`"calibration": "auto"`) or for every chip through `HapticBoard.Options.calibrationPolicy`.
///
/// The datasheet's initialisation procedure calibrates (or restores saved results) before the chip
/// drives an actuator in closed loop, and Linux's drv260x calibrates at every probe: closed loop
/// with the chip's reset values for A_CAL_COMP and A_CAL_BEMF is a drive nobody tuned. So a chip
/// is never driven closed loop uncalibrated: it is calibrated, refused, or driven open loop.
public enum CalibrationPolicy: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// The default. With no valid saved calibration (and no programmed OTP), start-up runs
    /// auto-calibration with the actuator's values and saves the result; a failed calibration
    /// (actuator not mounted, open, shorted) falls back to open loop with a warning.
    case auto
    /// Closed loop only with a saved (or OTP) calibration: opening refuses without one and says
    /// how to make it, for boards whose actuator must not move unattended.
    case saved
    /// Never calibrate: the chip drives open loop, from the actuator's datasheet values.
    case openLoop = "open-loop"

    public var description: String { rawValue }

    /// The accepted spellings, for error messages and help.
    public static var allowedValues: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// Why a board could not be opened as its calibration policy asks.
public struct CalibrationRequiredError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The driver's name in the board file.
    public let driver: String
    /// The board file's name, for people.
    public let board: String
    /// The command that makes the calibration, with the board as `--board` finds it: its name
    /// when that finds this file, else its path; `--actuator` without a board file.
    public let command: String

    /// The error for `driver` of `file`.
    public init(driver: String, file: BoardFile) {
        self.driver = driver
        board = file.name
        var command = "haptic calibrate"
        if file.path == BoardFile.single().path {
            command += " --actuator \(file.actuators.first?.specification.type.rawValue ?? "lra")"
        } else if (try? BoardFile.locate(file.name)).map({ URL(fileURLWithPath: $0).standardizedFileURL == URL(fileURLWithPath: file.path).standardizedFileURL }) == true {
            command += " --board \(file.name)"
        } else {
            command += " --board \(file.path.contains(" ") ? "'\(file.path)'" : file.path)"
        }
        if driver != file.drivers.first?.name { command += " --driver \(driver)" }
        self.command = command
    }

    public var description: String {
        "\(driver): calibration policy 'saved' and no saved calibration: run '\(command)' with the actuator mounted, or set \"calibration\" to \"auto\" or \"open-loop\" in the board file"
    }
}
