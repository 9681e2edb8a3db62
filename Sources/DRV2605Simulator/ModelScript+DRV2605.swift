// SPDX-License-Identifier: Apache-2.0

import DRV2605
import HapticChip
import HapticEffects
import HardwareAccess
import HardwareSimulation

extension ModelScript {
    /// Runs the script on a fresh simulated DRV2605L on a virtual clock.
    public func runOnSimulator(options: SimulatedDRV2605.Options = .init()) -> [Answer] {
        let clock = VirtualClock()
        let chip = SimulatedDRV2605(clock: clock, options: options)
        chip.keepsTrace = false
        return run(
            on: chip, address: options.address, wait: { clock.advance(by: .milliseconds($0)) },
            setActuator: { state in
                chip.actuator.connected = state != .open
                chip.actuator.shorted = state == .short
            }, setSupply: { chip.actuator.supplyVolts = Double($0) / 1000 }, setStandbyWritesIgnored: { chip.options.ignoresWritesInStandby = $0 })
    }
}
