// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import HapticChip
import HapticEffects
import Testing

@Suite struct RegisterFieldTests {
    @Test func modeFieldsRoundTrip() {
        var mode = ModeRegister(rawValue: 0x40)
        #expect(mode.standby && !mode.deviceReset && mode.mode == .internalTrigger)
        mode.standby = false
        mode.mode = .realTimePlayback
        #expect(mode.rawValue == 0x05)
        mode.deviceReset = true
        #expect(mode.rawValue == 0x85)
        for raw in UInt8.min...UInt8.max {
            #expect(ModeRegister(rawValue: raw).rawValue == raw)
        }
    }

    @Test func feedbackControlDefaultDecodes() {
        let value = FeedbackControlRegister(rawValue: 0x36)
        #expect(!value.isLRA)
        #expect(value.brakeFactor == 3)
        #expect(value.loopGain == 1)
        #expect(value.backEMFGain == 2)
        var lra = value
        lra.isLRA = true
        lra.brakeFactor = 2
        lra.loopGain = 2
        #expect(lra.rawValue == 0xAA)
    }

    @Test func controlRegistersMatchTheirDefaults() {
        let control1 = Control1Register(rawValue: 0x93)
        #expect(control1.startupBoost && control1.driveTime == 19)
        let control2 = Control2Register(rawValue: 0xF5)
        #expect(control2.bidirectionalInput && control2.brakeStabilizer && control2.sampleTime == 3)
        #expect(control2.blankingTimeLow == 1 && control2.idissTimeLow == 1)
        let control3 = Control3Register(rawValue: 0xA0)
        #expect(control3.ermOpenLoop && control3.noiseGateThreshold == 2 && !control3.lraOpenLoop)
        let control4 = Control4Register(rawValue: 0x20)
        #expect(control4.autoCalibrationTime == 2 && control4.zeroCrossingTime == 0)
        let control5 = Control5Register(rawValue: 0x80)
        #expect(control5.autoOpenLoopAttempts == 2 && !control5.oneMillisecondInterval)
    }

    @Test func partsAndResetValues() {
        #expect(Part(rawValue: 7) == .drv2605L)
        #expect(Part(rawValue: 3) == .drv2605)
        #expect(Part(rawValue: 5) == nil)
        #expect(Part.drv2605L.resetValues[.status] == 0xE0)
        #expect(Part.drv2605.resetValues[.status] == 0x60)
        #expect(Part.drv2605L.resetValues[.ratedVoltage] == 0x3E && Part.drv2605.resetValues[.ratedVoltage] == 0x3F)
        #expect(Part.drv2605L.resetValues[.control2] == 0xF5)
        #expect(Part.drv2605L.resetValues.bytes.count == 0x23)
    }
}

@Suite struct EffectCatalogueTests {
    @Test func hasAllEffectsWithTINames() {
        #expect(Effect.all.count == 123)
        #expect(Effect.strongClick100.name == "Strong Click - 100%")
        #expect(Effect(123)?.name == "Smooth Hum 5 (No kick or brake pulse) - 10%")
        #expect(Effect(0) == nil && Effect(124) == nil)
        #expect(Effect.lookup("47") == Effect(47))
        #expect(Effect.lookup("sharp tick 1") == Effect(24))
        #expect(Effect.lookup("click") == nil)  // ambiguous
    }

    @Test func profilesFollowTheNames() {
        #expect(Effect.alert750ms.estimatedDuration == .milliseconds(750))
        #expect(Effect.alert1000ms.estimatedDuration == .milliseconds(1000))
        #expect(Effect.strongClick30.profile.strength == 0.3)
        let rampDown = Effect(70)!.profile
        #expect(rampDown.family == .rampDown && rampDown.startStrength == 1 && rampDown.endStrength == 0)
        let rampUpHalf = Effect(106)!.profile
        #expect(rampUpHalf.family == .rampUp && rampUpHalf.endStrength == 0.5)
        #expect(Effect.sharpTick100.estimatedDuration < Effect.strongClick100.estimatedDuration)
    }

    @Test func sequenceLimitsAreChecked() throws {
        #expect(throws: DRV2605Error.self) { try WaveformSequence([]) }
        #expect(throws: DRV2605Error.self) { try WaveformSequence(Array(repeating: .effect(.strongClick100), count: 9)) }
        #expect(throws: DRV2605Error.self) { try WaveformSequence.wait(.milliseconds(1300)) }
        let sequence = try WaveformSequence([.effect(.strongClick100), try WaveformSequence.wait(.milliseconds(50)), .effect(.sharpTick100)])
        #expect(sequence.slotBytes == [1, 0x85, 24, 0, 0, 0, 0, 0])
        #expect(WaveformSequence(slotBytes: sequence.slotBytes) == sequence)
    }
}

@Suite struct ActuatorEquationTests {
    /// drv2605.md §7.4: 2.0 Vrms at 175 Hz.
    @Test func lraWorkedExample() throws {
        let registers = try ActuatorEquations.registers(for: .lra(ratedVrms: 2.0, maximumVrms: 2.0, resonantHz: 175), loop: .closed)
        #expect(registers.ratedVoltage == 0x53)
        #expect(registers.overdriveClamp == 0x65)
        #expect(registers.driveTime == 24)
        #expect(registers.lraOpenLoopPeriod == 58)
        let hotter = try ActuatorEquations.registers(for: .typicalLRA, loop: .closed)
        #expect(hotter.overdriveClamp == 0x7E)
        let hottest = try ActuatorEquations.registers(for: .lra(ratedVrms: 2.0, maximumVrms: 3.0, resonantHz: 175), loop: .closed)
        #expect(hottest.overdriveClamp == 0x97)
    }

    @Test(arguments: [(205.0, UInt8(19)), (235, 16), (170, 24), (150, 28)])
    func lraDriveTimes(hz: Double, expected: UInt8) throws {
        let registers = try ActuatorEquations.registers(for: .lra(ratedVrms: 1.8, maximumVrms: 2.0, resonantHz: hz), loop: .closed)
        #expect(registers.driveTime == expected)
    }

    /// SAMPLE_TIME 250/200/150 µs (fields 2/1/0) give 85.4/87.3/89.2 (drv2605.md §7.4).
    @Test(arguments: [(UInt8(2), 85.4), (1, 87.3), (0, 89.2)])
    func lraRatedVoltageDependsOnSampleTime(field: UInt8, expected: Double) {
        #expect(abs(ActuatorEquations.lraRatedVoltage(vrms: 2.0, hz: 175, sampleTimeField: field) - expected) < 0.1)
    }

    @Test func ermWorkedExample() throws {
        let closed = try ActuatorEquations.registers(for: .typicalERM, loop: .closed)
        #expect(closed.ratedVoltage == 0x8E)
        #expect(closed.overdriveClamp == 0xB7)
        let lower = try ActuatorEquations.registers(for: .erm(ratedVolts: 3.0, maximumVolts: 3.2), loop: .closed)
        #expect(lower.overdriveClamp == 0xA2)
        let open = try ActuatorEquations.registers(for: .erm(ratedVolts: 3.0, maximumVolts: 3.0), loop: .open)
        #expect(open.overdriveClamp == 0x8B)
    }

    @Test func conversions() {
        #expect(abs(ActuatorEquations.supplyVolts(register: 0xB9) - 4.06) < 0.01)
        #expect(abs(ActuatorEquations.supplyVolts(register: 0xE7) - 5.07) < 0.01)
        #expect(abs((ActuatorEquations.frequency(periodField: 58) ?? 0) - 175.1) < 0.1)
    }

    @Test func rejectsWhatTheFieldsCannotExpress() {
        #expect(throws: DRV2605Error.self) { try ActuatorEquations.registers(for: .lra(ratedVrms: 2, maximumVrms: 2, resonantHz: 120), loop: .closed) }
        #expect(throws: DRV2605Error.self) { try ActuatorEquations.registers(for: .erm(ratedVolts: 3, maximumVolts: 6), loop: .closed) }
        #expect(throws: DRV2605Error.self) { try ActuatorEquations.registers(for: .lra(ratedVrms: 2, maximumVrms: 1, resonantHz: 175), loop: .closed) }
    }
}

@Suite struct ConfigurationTests {
    @Test func libraryMustFitTheActuator() throws {
        var configuration = DRV2605Configuration(actuator: .lra)
        try configuration.validate(for: .drv2605L)
        configuration.library = .ermB
        #expect(throws: DRV2605Error.self) { try configuration.validate(for: .drv2605L) }
        var erm = DRV2605Configuration(actuator: .erm, library: .ermF)
        try erm.validate(for: .drv2605L)
        #expect(throws: DRV2605Error.self) { try erm.validate(for: .drv2605) }
        erm.library = .ermA
        erm.loop = .closed
        #expect(throws: DRV2605Error.self) { try erm.validate(for: .drv2605L) }
        #expect(DRV2605Configuration(actuator: .erm, library: .ermA).loop == .open)
    }

    @Test func registerImageForAnLRA() throws {
        let configuration = try DRV2605Configuration(.lra(ratedVrms: 2.0, maximumVrms: 2.0, resonantHz: 175))
        let image = configuration.registerImage(for: .drv2605L, slots: [1])
        #expect(image.count == 0x20 - 0x02 + 1)
        func at(_ register: Register) -> UInt8 { image[Int(register.rawValue) - 2] }
        #expect(at(.librarySelection) == 6)
        #expect(at(.waveformSequence1) == 1 && at(.waveformSequence2) == 0)
        #expect(at(.ratedVoltage) == 0x53 && at(.overdriveClamp) == 0x65)
        #expect(FeedbackControlRegister(rawValue: at(.feedbackControl)).isLRA)
        #expect(Control1Register(rawValue: at(.control1)).driveTime == 24)
        #expect(!Control3Register(rawValue: at(.control3)).lraOpenLoop)
        #expect(at(.lraOpenLoopPeriod) == 58)
        #expect(configuration.registerImage(for: .drv2605, slots: []).count == 0x1E - 0x02 + 1)
    }

    /// What the chip (ChipModel) makes of a byte under an encoding's format and loop.
    private func drive(_ encoding: RealTimeEncoding, _ byte: UInt8) -> Double {
        ChipModel.realTimeDrive(
            input: byte, unsigned: encoding.unsigned, openLoop: encoding.openLoop,
            bidirectional: encoding.bidirectional)
    }

    @Test func realTimeEncodings() {
        let signed = RealTimeEncoding(unsigned: false, openLoop: false, bidirectional: true)
        #expect(signed.byte(for: 1) == 0x7F && signed.byte(for: 0) == 0 && signed.byte(for: 0.5) == 0x40)
        // Closed loop, BIDIR_INPUT: the lower half of the input is no drive, not a brake
        // (datasheet table, drv2605.md §3): a negative amplitude is sent as zero.
        #expect(signed.byte(for: -1) == 0 && drive(signed, 0x81) == 0 && drive(signed, 0xC0) == 0)
        let unsignedClosed = RealTimeEncoding(unsigned: true, openLoop: false, bidirectional: true)
        #expect(drive(unsignedClosed, 0x00) == 0 && drive(unsignedClosed, 0x7F) == 0)
        #expect(abs(drive(unsignedClosed, 0xBF) - 0.5) < 0.01 && drive(unsignedClosed, 0xFF) == 1)
        let unsigned = RealTimeEncoding(unsigned: true, openLoop: true, bidirectional: true)
        #expect(unsigned.byte(for: 1) == 0xFF && unsigned.byte(for: 0) == 0x80 && unsigned.byte(for: -1) == 0x01)
        // Open loop: the negative half is a brake (ERM) or the opposite phase (LRA), in both formats.
        #expect(drive(unsigned, 0x01) == -1 && drive(unsigned, 0x80) == 0)
        let signedOpen = RealTimeEncoding(unsigned: false, openLoop: true, bidirectional: true)
        #expect(signedOpen.byte(for: -1) == 0x81 && drive(signedOpen, 0x81) == -1 && abs(drive(signedOpen, 0xC0) + 0.5) < 0.01)
        let unidirectional = RealTimeEncoding(unsigned: true, openLoop: false, bidirectional: false)
        #expect(unidirectional.byte(for: 1) == 0xFF && unidirectional.byte(for: -1) == 0)
        // Closed loop, unidirectional, signed: the range is -128...127, so no drive is 0x80 and
        // 0x00 is half scale; a stop that wrote 0x00 would leave the actuator at half.
        let signedUnidirectional = RealTimeEncoding(unsigned: false, openLoop: false, bidirectional: false)
        #expect(signedUnidirectional.byte(for: 0) == 0x80 && signedUnidirectional.byte(for: 1) == 0x7F)
        #expect(drive(signedUnidirectional, 0x80) == 0 && abs(drive(signedUnidirectional, 0x00) - 0.5) < 0.01)
        for encoding in [signed, unsigned, unidirectional, signedUnidirectional] {
            for amplitude in stride(from: 0.0, through: 1.0, by: 0.125) {
                #expect(abs(drive(encoding, encoding.byte(for: amplitude)) - amplitude) < 0.01)
            }
        }
        #expect(signed.byte(for: .nan) == 0)
    }
}
