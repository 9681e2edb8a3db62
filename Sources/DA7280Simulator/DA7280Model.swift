// SPDX-License-Identifier: Apache-2.0

import DA7280

/// What a DA7280 does, as one set of rules: the simulated chip applies them, and so can an
/// emulation elsewhere (a kernel fixture), so the two cannot drift. Facts are from the chip's
/// register map as Linux's `da7280` driver and SparkFun's library use it on silicon; where the
/// datasheet is not in our notes the rule says so (UNCONFIRMED).
public enum DA7280Model {
    /// The registers after power-on: CHIP_REV 0xBA; FRQ_LRA_PER 0x39/0x32, ACTUATOR1-3
    /// 0x5A/0x78/0x17 and CALIB_V2I 0x01/0x0D as SparkFun's library documents them; TOP_CFG1
    /// 0x1E (back-EMF sensing, tracking, acceleration and rapid stop on: UNCONFIRMED, from
    /// SparkFun's comments); everything else 0.
    public static var resetValues: [UInt8] {
        var file = [UInt8](repeating: 0, count: 256)
        file[Int(DA7280Register.chipRevision.rawValue)] = DA7280Register.da7280Revision
        file[Int(DA7280Register.irqStatus1.rawValue)] = DA7280Register.Event.underVoltage.rawValue  // STA_UVLO_VBAT_OK: supply fine
        file[Int(DA7280Register.lraPeriodHigh.rawValue)] = 0x39
        file[Int(DA7280Register.lraPeriodLow.rawValue)] = 0x32
        file[Int(DA7280Register.actuatorNominalMaximum.rawValue)] = 0x5A
        file[Int(DA7280Register.actuatorAbsoluteMaximum.rawValue)] = 0x78
        file[Int(DA7280Register.actuatorCurrentMaximum.rawValue)] = 0x17
        file[Int(DA7280Register.calibrationV2IHigh.rawValue)] = 0x01
        file[Int(DA7280Register.calibrationV2ILow.rawValue)] = 0x0D
        file[Int(DA7280Register.topConfiguration1.rawValue)] = 0x1E
        return file
    }

    /// Registers a write does not change.
    public static let readOnly: Set<UInt8> = [
        DA7280Register.chipRevision.rawValue, DA7280Register.irqStatus1.rawValue, DA7280Register.memoryControl1.rawValue
    ]

    /// IRQ_EVENT1 and the two diagnostics registers: a 1 written clears the bit, a 0 leaves it.
    public static let writeOneToClear: Set<UInt8> = [
        DA7280Register.irqEvent1.rawValue, DA7280Register.irqEventWarningDiagnostics.rawValue,
        DA7280Register.irqEventSequenceDiagnostics.rawValue
    ]

    /// The value a register holds after `written` is written over `old`.
    public static func afterWrite(register: UInt8, old: UInt8, written: UInt8) -> UInt8 {
        if readOnly.contains(register) { return old }
        if writeOneToClear.contains(register) { return old & ~written }
        return written
    }

    /// The drive, −1...1 of ACTUATOR_NOMMAX, that TOP_CTL1/TOP_CTL2 and TOP_CFG1 ask for:
    /// only in DRO mode out of IDLE (STANDBY_EN set: ours, UNCONFIRMED; every driver run on the
    /// chip sets it first). With ACCELERATION_EN, OVERRIDE_VAL is 0...0x7F (above is full
    /// scale); without it, two's complement (negative: reverse drive, UNCONFIRMED).
    public static func drive(topControl1: UInt8, topControl2: UInt8, topConfiguration1: UInt8) -> Double {
        let control = DA7280Register.TopControl1(rawValue: topControl1)
        guard control.standbyEnabled, control.mode == .directRegisterOverride else { return 0 }
        if DA7280Register.TopConfiguration1(rawValue: topConfiguration1).contains(.acceleration) {
            return min(Double(topControl2), 127) / 127
        }
        return max(-1, Double(Int8(bitPattern: topControl2)) / 127)
    }

    /// What the chip does when it drives a faulty actuator: the event it latches (in IRQ_EVENT1
    /// and, while the condition lasts, IRQ_STATUS1), after which OPERATION_MODE falls back to
    /// inactive and the drive stops (ours, UNCONFIRMED: Linux's driver clears the mode itself
    /// after E_SEQ_FAULT "otherwise the fault may happen continually").
    public static func faultEvent(actuatorShorted: Bool, actuatorOpen: Bool, backEMFSense: Bool) -> DA7280Register.Event {
        if actuatorShorted { return .overCurrent }
        if actuatorOpen && backEMFSense { return .actuatorFault }
        return []
    }
}
