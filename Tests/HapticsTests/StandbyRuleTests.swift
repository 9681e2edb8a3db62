// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import HapticChip
import HapticEffects
import Haptics
import HapticsSimulation
import HardwareAccess
import Testing

/// Whether the chip ignores register writes in standby is not settled (one TI forum answer says it
/// does; TI's own Linux driver writes in standby): `ChipModel.ignoresWritesInStandby`. The driver
/// must work either way, so what a user relies on is checked on both chips.
@Suite struct StandbyRuleTests {
    private static func rig(ignoresWritesInStandby: Bool) throws -> EngineRig {
        var chipOptions = SimulatedDRV2605.Options()
        chipOptions.ignoresWritesInStandby = ignoresWritesInStandby
        return try EngineRig(chipOptions: chipOptions)
    }

    /// Every feedback kind, each from standby, drives the actuator and ends in standby.
    @Test(arguments: [false, true])
    func everyFeedbackPlaysFromStandby(ignoresWritesInStandby: Bool) throws {
        let rig = try Self.rig(ignoresWritesInStandby: ignoresWritesInStandby)
        for kind in FeedbackKind.all {
            let measured = rig.measure(Feedback(kind: kind))
            #expect(measured.onset != nil, "\(kind.name) did not move the actuator")
            #expect(rig.chip.registers[ModeRegister.self].standby, "\(kind.name) left the chip awake")
        }
    }

    /// A configuration written while the chip sleeps lands: RATED_VOLTAGE and OD_CLAMP read back,
    /// and the chip is back in standby.
    @Test(arguments: [false, true])
    func aNewConfigurationLandsFromStandby(ignoresWritesInStandby: Bool) throws {
        let rig = try Self.rig(ignoresWritesInStandby: ignoresWritesInStandby)
        rig.advance(.seconds(3))
        #expect(rig.chip.registers[ModeRegister.self].standby)
        var configuration = try rig.engine.withDriver { $0.configuration }
        configuration.ratedVoltage = 0x41
        configuration.overdriveClamp = 0x77
        try rig.engine.withDriver { try $0.reconfigure(configuration) }
        #expect(rig.chip.registers[.ratedVoltage] == 0x41 && rig.chip.registers[.overdriveClamp] == 0x77)
        #expect(rig.chip.registers[ModeRegister.self].standby)
    }

    /// Calibration and the fault reset, both started from standby, leave their values in the chip.
    @Test(arguments: [false, true])
    func calibrationAndFaultClearingWorkFromStandby(ignoresWritesInStandby: Bool) throws {
        let rig = try Self.rig(ignoresWritesInStandby: ignoresWritesInStandby)
        rig.advance(.seconds(3))
        let values = try rig.engine.withDriver { try $0.calibrate() }
        #expect(rig.chip.registers[.autoCalibrationCompensation] == values.compensation)
        rig.chip.raiseOverCurrent()
        try rig.engine.withDriver { try $0.clearFaults() }
        #expect(!rig.chip.registers[StatusRegister.self].overCurrent)
        #expect(rig.chip.registers[.autoCalibrationCompensation] == values.compensation, "the calibration was lost in the reset")
        #expect(rig.chip.registers[.ratedVoltage] == (try rig.engine.withDriver { $0.configuration }).ratedVoltage)
    }
}
