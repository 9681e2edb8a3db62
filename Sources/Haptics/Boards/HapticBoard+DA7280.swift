// SPDX-License-Identifier: Apache-2.0

import DA7280
import HapticChip
import HardwareAccess

extension HapticBoard {
    /// A DA7280 driver entry opened: the chip checked and configured for the board's actuator,
    /// and an engine on it through the chip-neutral protocol, with the DA7280 module's own
    /// feedback table (`DA7280FeedbackTable`) under the board file's overrides (an app's
    /// `Options.engine.mapping` replaces both). The table's short feedbacks are written into the
    /// chip's waveform memory at start-up and play from there; the rest stream (DRO).
    static func openDA7280(
        _ driver: BoardFile.Driver, preset: BoardFile.Actuator, file: BoardFile, bus: any I2CBus, clock: any HapticClock,
        engineOptions: HapticEngine.Options, options: Options
    ) throws -> HapticEngine {
        let actuator = try preset.da7280Actuator(file: file.path)
        let monitored = MonitoredBus(bus, clock: clock, observer: options.observer)
        var chipOptions = DA7280Driver.Options()
        if options.usesChipMemory { chipOptions.storedFeedbacks = DA7280FeedbackTable.storedFeedbacks(for: actuator) }
        let chip = DA7280Driver(bus: monitored, address: driver.address, actuator: actuator, clock: clock, options: chipOptions)
        try chip.start()
        if let note = chip.memoryNote { options.warn("DA7280 at \(driver.address): \(note)") }
        let capabilities = HapticEngine.Capabilities(
            chip: "DA7280", actuator: preset.specification.type, loop: actuator.kind == .ermCoin ? .open : .closed,
            hasTriggerPin: false, hasEnablePin: false)
        return HapticEngine(
            driver: chip, library: nil, capabilities: capabilities,
            mapping: options.engine.mapping ?? mapping(for: actuator, preset: preset, file: file), bus: monitored,
            options: engineOptions, logger: options.logger)
    }

    /// The chip's table where it has one for the actuator, else the standard table; the board's overrides on top.
    static func mapping(for actuator: DA7280Actuator, preset: BoardFile.Actuator, file: BoardFile) -> FeedbackMapping {
        let standard = FeedbackMapping.standard(for: preset.specification.type)
        guard let envelopes = DA7280FeedbackTable.envelopes(for: actuator) else { return file.mapping(over: standard) }
        return file.mapping(over: FeedbackMapping(envelopes: envelopes, fallback: standard))
    }
}
