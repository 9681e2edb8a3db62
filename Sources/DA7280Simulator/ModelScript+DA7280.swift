// SPDX-License-Identifier: Apache-2.0

import DA7280
import HardwareAccess
import HardwareSimulation

extension ModelScript {
    /// Runs the script on a fresh simulated DA7280 on a virtual clock: `actuator` opens or
    /// shorts its actuator, `supply` sets its VDD; `standby-writes` is the DRV2605's and means
    /// nothing here.
    public func runOnSimulatedDA7280() -> [Answer] {
        let clock = VirtualClock()
        let chip = SimulatedDA7280(clock: clock)
        chip.keepsTrace = false
        return run(
            on: chip, address: .da7280, wait: { clock.advance(by: .milliseconds($0)) },
            setActuator: { state in
                chip.actuatorOpen = state == .open
                chip.actuatorShorted = state == .short
            }, setSupply: { chip.supplyVolts = Double($0) / 1000 }, setStandbyWritesIgnored: { _ in },
            readDrive: { DA7280Model.drivePermille(chip.registers) },
            readSequence: { chip.lastSequence.map { DA7280Model.levelChangeText(milliseconds: $0.milliseconds, level: $0.level) } })
    }
}
