// SPDX-License-Identifier: Apache-2.0

import HapticChip

/// The DRV2605's errors are the chip-neutral ones: the engine above handles every chip's the same way.
public typealias DRV2605Error = HapticChipError

extension HapticChipError {
    /// What `unknownDevice` says when STATUS holds a DEVICE_ID that is not a DRV2604/DRV2605 part.
    static func unknownDeviceText(_ status: StatusRegister) -> String {
        String(
            format: "no DRV2604/DRV2605: STATUS read 0x%02X (device ID %d; expected 3, 4, 6 or 7 at 0x5A)",
            status.rawValue, status.deviceID)
    }
}
