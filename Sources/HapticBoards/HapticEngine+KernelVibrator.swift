// SPDX-License-Identifier: Apache-2.0

import DRV2605
import HapticChip
import HapticEffects
import Haptics
import HardwareAccess
import KernelVibrator
import Logging

extension HapticEngine {
    /// An engine on a vibrator Linux drives itself (`KernelVibratorDriver` over `output`, an
    /// evdev force-feedback device): every feedback, pattern and sequence is played as the drive
    /// stream (the kernel offers no effect library a client can name), on `clock`.
    ///
    /// `actuator` chooses the feedback table's shapes (a phone's vibrator is usually an ERM;
    /// drv260x's overlay often drives an LRA). The driver's rules (`KernelVibratorRules`: how its
    /// kernel driver reads levels, and the most it may be sent) are logged at notice level.
    public convenience init(
        kernelVibrator output: any ForceFeedbackOutput, actuator: ActuatorType = .erm, clock: any HapticClock = SystemClock.shared,
        options: Options = Options(), logger: Logger = Logger(label: "haptics")
    ) throws(HapticChipError) {
        let driver = try KernelVibratorDriver(output: output, clock: clock)
        // How levels reach the actuator is the kernel driver's business: said once, for the log.
        logger.notice("\(output.name.isEmpty ? output.path : output.name): \(driver.rules.summary)")
        let capabilities = Capabilities(
            chip: "kernel vibrator \(output.name.isEmpty ? output.path : output.name)", actuator: actuator, loop: .open,
            hasTriggerPin: false, hasEnablePin: false)
        self.init(
            driver: driver, capabilities: capabilities, mapping: options.mapping ?? FeedbackMapping.standard(for: actuator), bus: nil,
            options: options, logger: logger)
    }
}
