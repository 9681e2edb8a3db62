// SPDX-License-Identifier: Apache-2.0

import DA7280
import Foundation

/// What a DA7280 does, as one set of rules: the simulated chip applies them, and the kernel
/// fixture (Tests/KernelFixtures/i2c-da7280-sim) is built from the C this file generates, so the
/// two cannot drift. Each rule is tagged with its source: [DS §/T] the datasheet rev 3.0 (via
/// ../shared/reference/da7280.md), [Linux] its `da7280` driver; what no source settles is marked
/// (ours).
public enum DA7280Model {
    /// The registers after power-on, from the datasheet's register map [DS T19-T75]: CHIP_REV
    /// 0xBA, CIF_I2C1 0x40, FRQ_LRA_PER 0x21/0x4F, ACTUATOR1-3 0x5A/0x78/0x17, CALIB_V2I
    /// 0x01/0x0D, TOP_CFG1 0x1E, TOP_CFG2 0x01, TOP_CFG4 0x40, TOP_INT_CFG1 0x81, SEQ_CTL1 0x08
    /// (the map's value; T48 gives 0x00), SWG_C1-3 0x61/0xB4/0xEC, GPI_1/2_CTL 0x08/0x10,
    /// MEM_CTL1 0x84, MEM_CTL2 0x80, TOP_CFG5 0x01; everything else, IRQ_STATUS1 among them
    /// (nothing wrong now), 0.
    public static var resetValues: [UInt8] {
        var file = [UInt8](repeating: 0, count: 256)
        let values: [(UInt8, UInt8)] = [
            (0x00, DA7280Register.da7280Revision), (0x08, 0x40), (0x0A, 0x21), (0x0B, 0x4F), (0x0C, 0x5A), (0x0D, 0x78),
            (0x0E, 0x17), (0x0F, 0x01), (0x10, 0x0D), (0x13, 0x1E), (0x14, 0x01), (0x16, 0x40), (0x17, 0x81), (0x24, 0x08),
            (0x25, 0x61), (0x26, 0xB4), (0x27, 0xEC), (0x2A, 0x08), (0x2B, 0x10), (0x2C, 0x84), (0x2D, 0x80), (0x6E, 0x01)
        ]
        for (register, value) in values { file[Int(register)] = value }
        return file
    }

    /// Registers a write does not change: CHIP_REV, IRQ_STATUS1 and MEM_CTL1 are read-only
    /// [DS T20, T24, T56]; the two diagnosis registers are cleared through IRQ_EVENT1's
    /// E_WARNING and E_SEQ_FAULT, not written [DS T22, T23].
    public static let readOnly: Set<UInt8> = [
        DA7280Register.chipRevision.rawValue, DA7280Register.irqEventWarningDiagnostics.rawValue,
        DA7280Register.irqEventSequenceDiagnostics.rawValue, DA7280Register.irqStatus1.rawValue,
        DA7280Register.memoryControl1.rawValue
    ]

    /// IRQ_EVENT1: a 1 written clears the bit, a 0 leaves it [DS T21].
    public static let writeOneToClear: Set<UInt8> = [DA7280Register.irqEvent1.rawValue]

    /// The supply below which the chip latches E_UVLO and stays idle [DS §5.7.10: 2.8 V by default].
    public static let underVoltageLockoutVolts = 2.8

    /// `written` written to `register` in `registers`, with its side effects: read-only registers
    /// keep their value; IRQ_EVENT1's bits clear where 1s are written, and clearing E_WARNING or
    /// E_SEQ_FAULT clears the diagnosis register behind it [DS T21-T23].
    public static func write(_ written: UInt8, to register: UInt8, in registers: inout [UInt8]) {
        let index = Int(register)
        guard index < registers.count, !readOnly.contains(register) else { return }
        guard writeOneToClear.contains(register) else {
            registers[index] = written
            return
        }
        let cleared = DA7280Register.Event(rawValue: registers[index] & written)
        registers[index] &= ~written
        if cleared.contains(.warning) { registers[Int(DA7280Register.irqEventWarningDiagnostics.rawValue)] = 0 }
        if cleared.contains(.sequenceFault) { registers[Int(DA7280Register.irqEventSequenceDiagnostics.rawValue)] = 0 }
    }

    /// The drive the registers ask for, in units of the actuator's rated voltage (ACTUATOR_NOMMAX;
    /// above 1 is past the rating), negative for reversed drive:
    /// - nothing while an event that stops the drive is latched: the chip sits in IDLE until it
    ///   is cleared [DS §5.6.6];
    /// - nothing outside DRO mode; STANDBY_EN does not matter (it only chooses where the chip
    ///   returns after a drive [DS T46]);
    /// - with ACCELERATION_EN, OVERRIDE_VAL 0x00-0x7F is 0-100 % of NOMMAX and 0x80-0xFF drive
    ///   nothing [DS §5.2.4, T47];
    /// - without it, OVERRIDE_VAL is signed and full scale is ABSMAX: 0x7F is ABSMAX, 0x81 and
    ///   0x80 −ABSMAX [DS §5.9.1, T37].
    public static func drive(_ registers: [UInt8]) -> Double {
        let share = driveShare(registers)
        return Double(share.numerator) / Double(share.denominator)
    }

    /// The frequency the outputs drive an LRA at: LRA_PER's with FREQ_TRACK_EN off [DS §5.3,
    /// §5.7.5]; nil (the actuator's own resonance, which the chip tracks) with it on, and for an
    /// ERM, whose drive has no frequency.
    public static func driveHz(_ registers: [UInt8]) -> Double? {
        fixedPeriod(registers).flatMap(DA7280Equations.frequency(periodField:))
    }

    /// The LRA_PER field `driveHz` drives at; nil where the chip tracks resonance (or drives an
    /// ERM). The kernel fixture's `da_model_fixed_period` (0 for nil).
    public static func fixedPeriod(_ registers: [UInt8]) -> UInt16? {
        let top = DA7280Register.TopConfiguration1(rawValue: registers[Int(DA7280Register.topConfiguration1.rawValue)])
        guard !top.contains(.ermActuator), !top.contains(.frequencyTracking) else { return nil }
        let high = UInt16(registers[Int(DA7280Register.lraPeriodHigh.rawValue)])
        let low = UInt16(registers[Int(DA7280Register.lraPeriodHigh.rawValue) + 1] & 0x7F)
        return high << 7 | low
    }

    /// `drive(_:)` in whole thousandths, truncated toward zero: what the kernel fixture computes
    /// (`da_model_drive_permille`) and reports as `drive_permille`.
    public static func drivePermille(_ registers: [UInt8]) -> Int {
        let share = driveShare(registers)
        return share.numerator * 1000 / share.denominator
    }

    /// The drive as a fraction of NOMMAX, in integers, so the Swift and C forms agree exactly.
    private static func driveShare(_ registers: [UInt8]) -> (numerator: Int, denominator: Int) {
        func at(_ register: DA7280Register) -> Int { Int(registers[Int(register.rawValue)]) }
        guard DA7280Register.Event(rawValue: UInt8(at(.irqEvent1))).isDisjoint(with: .stopsDriving) else { return (0, 1) }
        guard DA7280Register.TopControl1(rawValue: UInt8(at(.topControl1))).mode == .directRegisterOverride else { return (0, 1) }
        let value = at(.topControl2)
        if DA7280Register.TopConfiguration1(rawValue: UInt8(at(.topConfiguration1))).contains(.acceleration) {
            return value > 0x7F ? (0, 1) : (value, 127)
        }
        guard at(.actuatorNominalMaximum) > 0 else { return (0, 1) }
        let signed = max(-127, Int(Int8(bitPattern: UInt8(value))))
        return (signed * at(.actuatorAbsoluteMaximum), 127 * at(.actuatorNominalMaximum))
    }

    /// Why the chip could not play a sequence from its waveform memory: E_SEQ_FAULT, with the
    /// cause in IRQ_EVENT_SEQ_DIAG [DS T23].
    public enum SequenceFault: Error, Sendable, Equatable {
        /// PS_SEQ_ID names no sequence in the memory: E_SEQ_ID_FAULT (bit 7).
        case sequenceID
        /// The memory is malformed where the sequence points: E_MEM_FAULT (bit 6).
        case memory

        /// The IRQ_EVENT_SEQ_DIAG bit.
        public var diagnosis: UInt8 { self == .sequenceID ? 0x80 : 0x40 }
    }

    /// What a sequence start finds wrong with the memory's data type: MEM_DATA_SIGNED must be the
    /// opposite of ACCELERATION_EN, or the chip raises E_WARNING with E_MEM_TYPE [DS T22]. A
    /// warning does not stop the drive: the memory plays, its amplitudes read as ACCELERATION_EN
    /// says (ours: the datasheet names the warning, not what the decoder then does).
    public static func memoryTypeMismatch(_ registers: [UInt8]) -> Bool {
        let acceleration = DA7280Register.TopConfiguration1(rawValue: registers[Int(DA7280Register.topConfiguration1.rawValue)]).contains(.acceleration)
        let signed = DA7280Register.TopConfiguration2(rawValue: registers[Int(DA7280Register.topConfiguration2.rawValue)]).contains(.memoryDataSigned)
        return acceleration == signed
    }

    /// What a RTWM trigger (SEQ_START in OPERATION_MODE 3) drives: the sequence PS_SEQ_ID of
    /// the waveform memory (from WAV_MEM_BASE_ADDR), PS_SEQ_LOOP + 1 times, as level changes
    /// in milliseconds from the trigger (levels in units of NOMMAX, as `drive(_:)`), and how
    /// long it lasts. As Dialog's waveform-memory decoder plays it [DS §5.8]: each frame plays
    /// its snippet SNP_ID_LOOP + 1 times; each point lasts TIME + 1 timebases (5.44, 21.76,
    /// 43.52 or 87.04 ms, a quarter of that with FREQ_WAVEFORM_TIMEBASE [DS T48]), stepping or
    /// ramping to AMP; AMP is 0...15 of NOMMAX with ACCELERATION_EN, else −7...7 of ABSMAX; each
    /// GAIN step halves it.
    public static func sequencePlayback(_ registers: [UInt8]) -> Result<(changes: [(milliseconds: Double, level: Double)], milliseconds: Double), SequenceFault> {
        func at(_ register: DA7280Register) -> Int { Int(registers[Int(register.rawValue)]) }
        let base = max(at(.memoryControl1), 0x84)
        let image = Array(registers[base..<min(registers.count, 0xE8)])
        let control = at(.sequenceControl2)
        let sequence = control & 0x0F
        guard image.count >= 2, sequence < Int(image[1]) else { return .failure(.sequenceID) }
        guard let frames = DA7280WaveformMemory.frames(of: sequence, in: image) else { return .failure(.memory) }
        let acceleration = DA7280Register.TopConfiguration1(rawValue: UInt8(at(.topConfiguration1))).contains(.acceleration)
        let fast = at(.sequenceControl1) & 0x04 != 0
        let timebases = fast ? [1.36, 5.44, 21.76, 43.52] : DA7280WaveformMemory.timebaseMilliseconds
        let nominal = max(1, at(.actuatorNominalMaximum))
        // Levels in millionths of NOMMAX, in integers truncated as the fixture's C truncates them,
        // so that the two agree to the thousandth: each gain step (-6 dB) halves.
        func level(_ amplitude: UInt8, gain: Int) -> Int {
            if acceleration { return Int(amplitude) * 1_000_000 / 15 / (1 << gain) }
            let signed = amplitude > 7 ? max(-7, Int(amplitude) - 16) : Int(amplitude)
            return signed * 1_000_000 * at(.actuatorAbsoluteMaximum) / (7 * nominal) / (1 << gain)
        }
        var changes: [(milliseconds: Double, level: Double)] = []
        var time = 0.0
        var current = 0
        for _ in 0...(control >> 4) {
            for frame in frames {
                guard let points = DA7280WaveformMemory.points(of: frame.snippet, in: image) else { return .failure(.memory) }
                for _ in 0...frame.loops {
                    for point in points {
                        let target = level(point.amplitude, gain: frame.gain)
                        let unit = timebases[frame.timebase]
                        if point.ramp {
                            // A ramp, held one timebase a step.
                            for index in 1...point.timebases {
                                changes.append((time, Double(current + (target - current) * index / point.timebases) / 1_000_000))
                                time += unit
                            }
                        } else {
                            changes.append((time, Double(target) / 1_000_000))
                            time += Double(point.timebases) * unit
                        }
                        current = target
                    }
                }
            }
        }
        changes.append((time, 0))
        return .success((changes, time))
    }

    /// A level change of a played sequence as the kernel fixture's `sequence_timeline` shows it:
    /// "microseconds:permille", the level in whole thousandths of NOMMAX truncated toward zero.
    public static func levelChangeText(milliseconds: Double, level: Double) -> String {
        "\(Int((milliseconds * 1000).rounded())):\(Int((level * 1_000_000).rounded()) / 1000)"
    }

    /// What the chip does when it drives a faulty actuator: the event it latches (in IRQ_EVENT1
    /// and, while the condition lasts, IRQ_STATUS1); the drive then stops until it is cleared
    /// [DS §5.6.6]. A short is over-current [DS §5.1]; an open actuator gives no back-EMF, an
    /// actuator fault when back-EMF sensing is on [DS T7, §5.3].
    public static func faultEvent(actuatorShorted: Bool, actuatorOpen: Bool, backEMFSense: Bool) -> DA7280Register.Event {
        if actuatorShorted { return .overCurrent }
        if actuatorOpen && backEMFSense { return .actuatorFault }
        return []
    }

    /// The fault conditions that last only while a faulty actuator is driven: a drive that
    /// raises none of them clears them from IRQ_STATUS1 (IRQ_EVENT1 keeps them latched). The
    /// supply's bit is not among them: it follows VDD.
    public static let actuatorConditions: DA7280Register.Event = [.overTemperatureCritical, .actuatorFault, .overCurrent]
}
