// SPDX-License-Identifier: Apache-2.0

import DRV2605
import HapticChip
import HapticEffects
import HapticFeedback
import Haptics
import HardwareAccess
import Logging

/// The DRV2605 family's engine: its driver started on a bus, its ROM library as the engine's
/// effect library, and the driver itself for what only that chip has. Beside the board files,
/// which open the family; the engine itself knows no chip.
extension HapticEngine {
    /// Starts the chip on `bus` and makes an engine for it, with `configuration` as given: a
    /// closed-loop configuration without `calibration` drives on the chip's reset values for
    /// A_CAL_COMP and A_CAL_BEMF. `HapticBoard.open` (with `BoardFile.single` for one breakout)
    /// applies a `CalibrationPolicy` on top: calibrated at the first start-up, saved, restored.
    public convenience init(
        bus: any I2CBus, address: I2CAddress = .drv2605, configuration: DRV2605Configuration,
        enableLine: (any GPIOOutputLine)? = nil, triggerLine: (any GPIOOutputLine)? = nil,
        clock: any HapticClock = SystemClock.shared, options: Options = Options(), driverOptions: DRV2605Driver.Options = DRV2605Driver.Options(),
        logger: Logger = Logger(label: "haptics"),
        observer: ((BusTransaction) -> Void)? = nil
    ) throws(DRV2605Error) {
        let monitored = MonitoredBus(bus, clock: clock, observer: observer)
        let driver = DRV2605Driver(
            bus: monitored, address: address, configuration: configuration,
            enableLine: enableLine, triggerLine: triggerLine, clock: clock, options: driverOptions)
        let part = try driver.start()
        let capabilities = Capabilities(
            chip: part.description, actuator: configuration.actuator, library: part.hasROMLibrary ? "\(configuration.library)" : nil,
            loop: configuration.loop, hasTriggerPin: triggerLine != nil, hasEnablePin: enableLine != nil)
        // The DRV2604 parts have RAM, not the ROM library the standard mapping names: their plans stream.
        self.init(
            driver: driver, library: part.hasROMLibrary ? driver : nil, capabilities: capabilities,
            mapping: options.mapping ?? FeedbackMapping.standard(for: configuration.actuator), bus: monitored,
            options: options, logger: logger)
    }

    /// Direct access to the DRV2605's driver, serialized with everything else (dump, calibrate,
    /// diagnose): what only that chip has.
    public func withDriver<T>(_ body: (DRV2605Driver) throws -> T) throws -> T {
        try withChip { chip in
            guard let driver = chip as? DRV2605Driver else { throw HapticChipError.unsupported("this engine does not drive a DRV2605") }
            return try body(driver)
        }
    }
}
