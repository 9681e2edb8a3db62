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

extension DA7280Model {
    /// The model as a C header, for the kernel fixture (Tests/KernelFixtures/i2c-da7280-sim):
    /// `drv2605-model header --chip da7280` prints it, and a test checks the committed copy. The
    /// two functions are `write(_:to:in:)` and `drive(_:)` rule for rule, in the same order.
    public static func cHeader() -> String {
        func hex(_ value: UInt8) -> String { "0x" + String(format: "%02X", value) }
        typealias Register = DA7280Register
        let reset = resetValues.map(hex).joined(separator: ", ")
        let lines =
            [
                "/* SPDX-License-Identifier: GPL-2.0-only OR Apache-2.0 */",
                "/* Generated by `drv2605-model header --chip da7280` from Sources/DA7280Simulator/DA7280Model.swift: do not edit. */",
                "#ifndef DA7280_MODEL_H",
                "#define DA7280_MODEL_H",
                "",
                "#define DA_MODEL_REGISTER_COUNT \(resetValues.count)",
                "static const u8 da_model_reset_values[\(resetValues.count)] = { \(reset) };",
                "static const u8 da_model_read_only[] = { \(readOnly.sorted().map(hex).joined(separator: ", ")) };",
                "#define DA_MODEL_REG_IRQ_EVENT1 \(hex(Register.irqEvent1.rawValue))",
                "#define DA_MODEL_REG_WARNING_DIAG \(hex(Register.irqEventWarningDiagnostics.rawValue))",
                "#define DA_MODEL_REG_SEQ_DIAG \(hex(Register.irqEventSequenceDiagnostics.rawValue))",
                "#define DA_MODEL_REG_IRQ_STATUS1 \(hex(Register.irqStatus1.rawValue))",
                "#define DA_MODEL_REG_NOMMAX \(hex(Register.actuatorNominalMaximum.rawValue))",
                "#define DA_MODEL_REG_ABSMAX \(hex(Register.actuatorAbsoluteMaximum.rawValue))",
                "#define DA_MODEL_REG_TOP_CFG1 \(hex(Register.topConfiguration1.rawValue))",
                "#define DA_MODEL_REG_TOP_CTL1 \(hex(Register.topControl1.rawValue))",
                "#define DA_MODEL_REG_TOP_CTL2 \(hex(Register.topControl2.rawValue))",
                "#define DA_MODEL_MODE_MASK 0x07",
                "#define DA_MODEL_MODE_DRO \(Register.OperationMode.directRegisterOverride.rawValue)",
                "#define DA_MODEL_ACCELERATION_EN \(hex(Register.TopConfiguration1.acceleration.rawValue))",
                "#define DA_MODEL_BEMF_SENSE_EN \(hex(Register.TopConfiguration1.backEMFSense.rawValue))",
                "#define DA_MODEL_E_UVLO \(hex(Register.Event.underVoltage.rawValue))",
                "#define DA_MODEL_E_WARNING \(hex(Register.Event.warning.rawValue))",
                "#define DA_MODEL_E_SEQ_FAULT \(hex(Register.Event.sequenceFault.rawValue))",
                "#define DA_MODEL_E_OC_FAULT \(hex(Register.Event.overCurrent.rawValue))",
                "#define DA_MODEL_E_ACTUATOR_FAULT \(hex(Register.Event.actuatorFault.rawValue))",
                "#define DA_MODEL_STOPS_DRIVING \(hex(Register.Event.stopsDriving.rawValue))",
                "#define DA_MODEL_ACTUATOR_CONDITIONS \(hex(actuatorConditions.rawValue))",
                "#define DA_MODEL_UVLO_MV \(Int(underVoltageLockoutVolts * 1000))",
                "#define DA_MODEL_REG_SEQ_CTL1 \(hex(Register.sequenceControl1.rawValue))",
                "#define DA_MODEL_REG_SEQ_CTL2 \(hex(Register.sequenceControl2.rawValue))",
                "#define DA_MODEL_REG_MEM_CTL1 \(hex(Register.memoryControl1.rawValue))",
                "#define DA_MODEL_MODE_RTWM \(Register.OperationMode.registerTriggeredWaveform.rawValue)",
                "#define DA_MODEL_SEQ_START \(hex(Register.TopControl1(mode: .inactive, standbyEnabled: false, sequenceStart: true).rawValue))",
                "#define DA_MODEL_E_SEQ_DONE \(hex(Register.Event.sequenceDone.rawValue))",
                "#define DA_MODEL_E_SEQ_ID_FAULT \(hex(SequenceFault.sequenceID.diagnosis))",
                "#define DA_MODEL_E_MEM_FAULT \(hex(SequenceFault.memory.diagnosis))",
                "#define DA_MODEL_REG_TOP_CFG2 \(hex(Register.topConfiguration2.rawValue))",
                "#define DA_MODEL_MEM_DATA_SIGNED \(hex(Register.TopConfiguration2.memoryDataSigned.rawValue))",
                "#define DA_MODEL_E_MEM_TYPE \(hex(Register.Warning.memoryType.rawValue))",
                "#define DA_MODEL_REG_LRA_PER_H \(hex(Register.lraPeriodHigh.rawValue))",
                "#define DA_MODEL_FREQ_TRACK_EN \(hex(Register.TopConfiguration1.frequencyTracking.rawValue))",
                "#define DA_MODEL_ERM_ACTUATOR \(hex(Register.TopConfiguration1.ermActuator.rawValue))",
                "",
                "/* DA7280Model.write: read-only registers keep their value; IRQ_EVENT1 is write-1-to-clear, and",
                "   clearing E_WARNING or E_SEQ_FAULT clears its diagnosis register. */",
                "static inline void da_model_write(u8 *regs, u8 reg, u8 value)",
                "{",
                "\tsize_t index;",
                "\tu8 cleared;",
                "",
                "\tfor (index = 0; index < sizeof(da_model_read_only); index++)",
                "\t\tif (da_model_read_only[index] == reg)",
                "\t\t\treturn;",
                "\tif (reg != DA_MODEL_REG_IRQ_EVENT1) {",
                "\t\tregs[reg] = value;",
                "\t\treturn;",
                "\t}",
                "\tcleared = regs[reg] & value;",
                "\tregs[reg] &= ~value;",
                "\tif (cleared & DA_MODEL_E_WARNING)",
                "\t\tregs[DA_MODEL_REG_WARNING_DIAG] = 0;",
                "\tif (cleared & DA_MODEL_E_SEQ_FAULT)",
                "\t\tregs[DA_MODEL_REG_SEQ_DIAG] = 0;",
                "}",
                "",
                "/* DA7280Model.fixedPeriod: the LRA_PER an LRA is driven at with FREQ_TRACK_EN off; 0 where the chip",
                "   tracks resonance, and for an ERM. */",
                "static inline int da_model_fixed_period(const u8 *regs)",
                "{",
                "\tif (regs[DA_MODEL_REG_TOP_CFG1] & (DA_MODEL_FREQ_TRACK_EN | DA_MODEL_ERM_ACTUATOR))",
                "\t\treturn 0;",
                "\treturn regs[DA_MODEL_REG_LRA_PER_H] << 7 | (regs[DA_MODEL_REG_LRA_PER_H + 1] & 0x7F);",
                "}",
                "",
                "/* DA7280Model.drive, in thousandths of ACTUATOR_NOMMAX: nothing while a stopping event is latched",
                "   or outside DRO mode (STANDBY_EN does not matter); with ACCELERATION_EN 0-127 of NOMMAX and 0x80-0xFF",
                "   nothing; without it signed, full scale ABSMAX. */",
                "static inline int da_model_drive_permille(const u8 *regs)",
                "{",
                "\tint value;",
                "",
                "\tif (regs[DA_MODEL_REG_IRQ_EVENT1] & DA_MODEL_STOPS_DRIVING)",
                "\t\treturn 0;",
                "\tif ((regs[DA_MODEL_REG_TOP_CTL1] & DA_MODEL_MODE_MASK) != DA_MODEL_MODE_DRO)",
                "\t\treturn 0;",
                "\tif (regs[DA_MODEL_REG_TOP_CFG1] & DA_MODEL_ACCELERATION_EN)",
                "\t\treturn regs[DA_MODEL_REG_TOP_CTL2] > 0x7F ? 0 : regs[DA_MODEL_REG_TOP_CTL2] * 1000 / 127;",
                "\tif (regs[DA_MODEL_REG_NOMMAX] == 0)",
                "\t\treturn 0;",
                "\tvalue = (s8)regs[DA_MODEL_REG_TOP_CTL2];",
                "\tif (value < -127)",
                "\t\tvalue = -127;",
                "\treturn value * 1000 * regs[DA_MODEL_REG_ABSMAX] / (127 * regs[DA_MODEL_REG_NOMMAX]);",
                "}",
                ""
            ] + sequencePlaybackC + ["", "#endif", ""]
        return lines.joined(separator: "\n")
    }

    /// `sequencePlayback(_:)` in C, rule for rule: the frames and points read as
    /// `DA7280WaveformMemory.frames(of:in:)` and `points(of:in:)` read them, levels in
    /// thousandths of NOMMAX (truncated), times in microseconds.
    static let sequencePlaybackC = [
        "/* DA7280Model.memoryTypeMismatch: MEM_DATA_SIGNED not the opposite of ACCELERATION_EN. */",
        "static inline bool da_model_memory_type_mismatch(const u8 *regs)",
        "{",
        "\treturn !(regs[DA_MODEL_REG_TOP_CFG1] & DA_MODEL_ACCELERATION_EN) == !(regs[DA_MODEL_REG_TOP_CFG2] & DA_MODEL_MEM_DATA_SIGNED);",
        "}",
        "",
        "/* DA7280Model.sequencePlayback: what SEQ_START in RTWM plays from the waveform memory. Fills up to `max`",
        "   level changes (microseconds from the trigger, thousandths of NOMMAX) and returns the length in",
        "   microseconds, or -1 (no such sequence: E_SEQ_ID_FAULT) or -2 (malformed memory: E_MEM_FAULT). */",
        "static inline long da_model_snippet(const u8 *image, int size, int snippet, int *start, int *end)",
        "{",
        "\tif (snippet == 0)",
        "\t\treturn 0;",
        "\tif (snippet > image[0])",
        "\t\treturn -2;",
        "\t*start = snippet == 1 ? 2 + image[0] + image[1] : image[2 + snippet - 2] + 1;",
        "\t*end = image[2 + snippet - 1];",
        "\treturn (*start <= *end && *end < size) ? 0 : -2;",
        "}",
        "",
        "static inline long da_model_sequence_playback(const u8 *regs, long *times_us, int *levels, int max, int *count)",
        "{",
        "\tstatic const long timebase_us[2][4] = { { 5440, 21760, 43520, 87040 }, { 1360, 5440, 21760, 43520 } };",
        "\tint base = regs[DA_MODEL_REG_MEM_CTL1] < 0x84 ? 0x84 : regs[DA_MODEL_REG_MEM_CTL1];",
        "\tconst u8 *image = regs + base;",
        "\tint size = 0xE8 - base, sequence = regs[DA_MODEL_REG_SEQ_CTL2] & 0x0F, repeat, index, start, end;",
        "\tint acceleration = regs[DA_MODEL_REG_TOP_CFG1] & DA_MODEL_ACCELERATION_EN;",
        "\tint fast = (regs[DA_MODEL_REG_SEQ_CTL1] & 0x04) ? 1 : 0, nominal = regs[DA_MODEL_REG_NOMMAX] ? regs[DA_MODEL_REG_NOMMAX] : 1;",
        "\tlong time = 0, previous = 0;",
        "",
        "\t*count = 0;",
        "\tif (size < 2 || sequence >= image[1])",
        "\t\treturn -1;",
        "\tif (2 + image[0] + image[1] > size)",
        "\t\treturn -2;",
        "\tstart = sequence == 0 ? (image[0] == 0 ? 2 + image[0] + image[1] : image[2 + image[0] - 1] + 1) : image[2 + image[0] + sequence - 1] + 1;",
        "\tend = image[2 + image[0] + sequence];",
        "\tif (start > end || end >= size)",
        "\t\treturn -2;",
        "\tfor (repeat = 0; repeat <= (regs[DA_MODEL_REG_SEQ_CTL2] >> 4); repeat++) {",
        "\t\tfor (index = start; index <= end;) {",
        "\t\t\tu8 first = image[index++];",
        "\t\t\tint snippet = first & 0x07, loops = 0, loop, point, first_point = 0, last_point = -1, gain = (first >> 5) & 0x03;",
        "\t\t\tlong unit = timebase_us[fast][(first >> 3) & 0x03];",
        "",
        "\t\t\tif (first & 0x80)",
        "\t\t\t\treturn -2;",
        "\t\t\tif (index <= end && (image[index] & 0x80)) {",
        "\t\t\t\tu8 second = image[index++];",
        "",
        "\t\t\t\tsnippet |= (second & 0x01) << 3;",
        "\t\t\t\tloops = (second >> 3) & 0x0F;",
        "\t\t\t\tif (second & 0x04)",
        "\t\t\t\t\tindex++;",
        "\t\t\t}",
        "\t\t\tif (da_model_snippet(image, size, snippet, &first_point, &last_point))",
        "\t\t\t\treturn -2;",
        "\t\t\tfor (loop = 0; loop <= loops; loop++) {",
        "\t\t\t\tfor (point = first_point; snippet == 0 ? point == first_point : point <= last_point; point++) {",
        "\t\t\t\t\tu8 byte = snippet == 0 ? 0x10 : image[point];",
        "\t\t\t\t\tint amplitude = byte & 0x0F, timebases = ((byte >> 4) & 0x07) + 1, step;",
        "\t\t\t\t\tlong target;",
        "",
        "\t\t\t\t\t/* millionths of NOMMAX, as the Swift model computes them */",
        "\t\t\t\t\tif (acceleration)",
        "\t\t\t\t\t\ttarget = amplitude * 1000000L / 15 / (1 << gain);",
        "\t\t\t\t\telse",
        "\t\t\t\t\t\ttarget = (amplitude > 7 ? (amplitude - 16 < -7 ? -7 : amplitude - 16) : amplitude) * 1000000L * regs[DA_MODEL_REG_ABSMAX] / (7 * nominal) / (1 << gain);",
        "\t\t\t\t\tif (byte & 0x80) {",
        "\t\t\t\t\t\tfor (step = 1; step <= timebases; step++) {",
        "\t\t\t\t\t\t\tif (*count < max) {",
        "\t\t\t\t\t\t\t\ttimes_us[*count] = time;",
        "\t\t\t\t\t\t\t\tlevels[(*count)++] = (previous + (target - previous) * step / timebases) / 1000;",
        "\t\t\t\t\t\t\t}",
        "\t\t\t\t\t\t\ttime += unit;",
        "\t\t\t\t\t\t}",
        "\t\t\t\t\t} else {",
        "\t\t\t\t\t\tif (*count < max) {",
        "\t\t\t\t\t\t\ttimes_us[*count] = time;",
        "\t\t\t\t\t\t\tlevels[(*count)++] = target / 1000;",
        "\t\t\t\t\t\t}",
        "\t\t\t\t\t\ttime += timebases * unit;",
        "\t\t\t\t\t}",
        "\t\t\t\t\tprevious = target;",
        "\t\t\t\t}",
        "\t\t\t}",
        "\t\t}",
        "\t}",
        "\tif (*count < max) {",
        "\t\ttimes_us[*count] = time;",
        "\t\tlevels[(*count)++] = 0;",
        "\t}",
        "\treturn time;",
        "}"
    ]
}
