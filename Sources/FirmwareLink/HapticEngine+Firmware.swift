// SPDX-License-Identifier: Apache-2.0

import DRV2605
import HapticChip
import HapticEffects
import Haptics
import HardwareAccess
import Logging

extension HapticEngine {
    /// An engine on the chip of a microcontroller that runs the haptics firmware
    /// (`FirmwareChipDriver` over the firmware's serial line): the feedback table, policies,
    /// patterns and sequences of this machine, the ROM sequences and short clips played by the
    /// firmware on its own timer.
    ///
    /// The feedback table is the one for the actuator the firmware reports (`status`'s
    /// `actuator=`), else `actuator`.
    public convenience init(
        firmware driver: FirmwareChipDriver, actuator: ActuatorType = .lra, options: Options = Options(), logger: Logger = Logger(label: "haptics")
    ) {
        let status = driver.firmware
        let actuator = status.actuator.flatMap(ActuatorType.init(rawValue:)) ?? actuator
        let part = Part.allCases.first { $0.description == status.chip }
        logger.notice("\(driver.device.line.name): haptics firmware on \(status.board), chip \(status.chip), \(actuator)")
        let capabilities = Capabilities(
            chip: "\(status.chip) on \(status.board) (firmware)", actuator: actuator, library: nil, loop: actuator == .lra ? .closed : .open,
            hasTriggerPin: false, hasEnablePin: false)
        self.init(
            driver: driver, library: part?.hasROMLibrary == false ? nil : driver, capabilities: capabilities,
            mapping: options.mapping ?? FeedbackMapping.standard(for: actuator), bus: nil, options: options, logger: logger)
    }
}
