// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticEffects
import HardwareAccess

/// The DRV2605's errors are the chip-neutral ones: the engine above handles every chip's the same way.
public typealias DRV2605Error = HapticChipError

extension HapticChipError {
    /// What `unknownDevice` says when STATUS holds a DEVICE_ID that is not a DRV2604/DRV2605 part.
    static func unknownDeviceText(_ status: StatusRegister) -> String {
        "no DRV2604/DRV2605: STATUS read \(PlainText.hex(status.rawValue)) (device ID \(status.deviceID); expected 3, 4, 6 or 7 at 0x5A)"
    }
}
