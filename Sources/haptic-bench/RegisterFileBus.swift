// SPDX-License-Identifier: Apache-2.0

import DRV2605
import HapticChip
import HapticEffects
import HardwareAccess

/// A DRV2605L reduced to its register file: writes store, reads return, DEV_RESET and GO clear at
/// once. It costs next to nothing, so timing the engine on it isolates the engine and driver.
final class RegisterFileBus: I2CBus {
    private var registers = Part.drv2605L.resetValues
    func write(to address: I2CAddress, _ bytes: [UInt8]) throws(I2CError) {
        guard let start = bytes.first else { return }
        let status = registers[.status]
        registers.store(bytes.dropFirst(), from: start)
        registers[.status] = status  // read-only
        registers[ModeRegister.self].deviceReset = false
        registers[GoRegister.self].go = false
    }
    func writeRead(to address: I2CAddress, _ bytes: [UInt8], count: Int) throws(I2CError) -> [UInt8] {
        registers.read(from: bytes.first ?? 0, count: count)
    }
}
