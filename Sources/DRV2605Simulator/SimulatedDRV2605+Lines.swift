// SPDX-License-Identifier: Apache-2.0

import HardwareSimulation

// The chip's EN and IN/TRIG pins as GPIO lines a driver can be given.
extension SimulatedDRV2605 {
    /// An EN line wired to this chip (starts low: the chip is off until the driver raises it).
    /// It records every level it is driven to.
    public func makeEnableLine() -> RecordingGPIOLine {
        enablePin = false
        let line = RecordingGPIOLine(name: "simulated EN", clock: clock)
        line.onChange = { [unowned self] in self.setEnablePin($0) }
        return line
    }

    /// An IN/TRIG line wired to this chip.
    public func makeTriggerLine() -> RecordingGPIOLine {
        let line = RecordingGPIOLine(name: "simulated IN/TRIG", clock: clock)
        line.onChange = { [unowned self] in self.setTriggerPin($0) }
        return line
    }
}
