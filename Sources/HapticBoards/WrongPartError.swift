// SPDX-License-Identifier: Apache-2.0

import DRV2605
import HapticChip
import HapticEffects
import Haptics
import HardwareAccess

/// The chip found is not the part the board file names (nor one it also accepts): the rated
/// voltages, the ROM library and the calibration rules were worked out for the part named, so
/// nothing is played on another. The chip was shut down again before this was thrown.
public struct WrongPartError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The board file's name.
    public let board: String
    /// Where it was read from.
    public let file: String
    /// The driver's name in it.
    public let driver: String
    /// The part the board file names.
    public let expected: Part
    /// The part the chip said it is.
    public let found: Part
    /// Where it was found.
    public let bus: String
    /// Its address.
    public let address: I2CAddress

    public var description: String {
        "board \(board) expects a \(expected) for \(driver), but the chip at \(bus) \(address) is a \(found). "
            + "Hint: use the board file written for the chip fitted (see 'haptic boards'), fix \"part\" in \(file), "
            + "or add \"alsoAccepts\": [\"\(found.description.lowercased())\"] to that driver if the board works with either"
    }
}
