// SPDX-License-Identifier: Apache-2.0

import HapticBoards
import Haptics

/// The chip families of this package beside the DRV2605 (which `HapticBoards` opens itself): what
/// the programs register before they read a board file. A new family is a module with its driver
/// and a `HapticChipFamily`, listed here; `Haptics` is not edited.
public enum StandardChipFamilies {
    /// Every family, by its board-file part.
    public static let all: [any HapticChipFamily] = [DA7280Family()]

    /// Registers every family with `ChipFamilyRegistry`, so that board files may name them.
    /// Calling it again changes nothing.
    public static func register() {
        for family in all { ChipFamilyRegistry.register(family) }
    }
}
