// SPDX-License-Identifier: Apache-2.0

import DRV2605
import Foundation
import HapticChip
import HapticEffects

/// The one description of the DRV2605L that both emulations take their facts from: this
/// package's `SimulatedDRV2605` reads it directly, and the kernel fixture
/// (Tests/KernelFixtures/i2c-drv2605-sim) includes the C header `cHeader()` prints, generated at
/// build time by `drv2605-model header`. `drv2605-model check` runs the same transaction scripts
/// against both and compares what they answer.
///
/// Sources: [DS] TI SLOS854D; [E2E n] a TI forum thread; [OURS] a choice of ours where the
/// datasheet gives no figure, kept configurable in `SimulatedDRV2605.Options`.
public enum ChipModel {
    /// Registers only the chip writes; writes to them are ignored. [DS: STATUS is read-only.
    /// VBAT and LRA_PERIOD are marked R/W in the register map, but both are measurements the chip
    /// overwrites while it drives (every driver run on silicon treats them as read-only); what a
    /// write to them does is not published. OURS: ignored.]
    public static let readOnlyRegisters: [Register] = [.status, .supplyVoltage, .lraResonancePeriod]

    /// STATUS bits that clear when STATUS is read: DIAG_RESULT, FB_STS and OVER_TEMP [DS]. The
    /// datasheet does not say OC_DETECT clears on read, and users report it stuck until a power
    /// cycle [E2E 1554535], so it stays latched until a reset (`statusKeptByReset`), EN
    /// shutdown (`shutdownClearsFaults`) or power loss.
    public static let statusClearedOnRead: UInt8 = 0x0E

    /// STATUS bits a DEV_RESET keeps: none. [DS: DEV_RESET "has the same effect as power
    /// cycling": every register returns to its default, so a latched OC_DETECT or OVER_TEMP
    /// clears.] A short that is still there latches OC_DETECT again at the next drive.
    public static let statusKeptByReset: UInt8 = 0x00
    /// EN taken low and high again clears OC_DETECT and OVER_TEMP. [OURS: the datasheet only says
    /// EN low shuts the device down; whether the latches survive is not published. Taken as the
    /// power cycle users report clearing a stuck OC_DETECT (E2E 1554535). UNCONFIRMED]
    public static let shutdownClearsFaults = true

    /// What a GO written over I2C starts.
    public enum GoAction: UInt8, Sendable {
        /// Nothing: GO reads back 0.
        case nothing = 0
        /// The waveform sequence in 0x04-0x0B.
        case sequence = 1
        /// The diagnostic routine.
        case diagnostics = 2
        /// Auto-calibration.
        case calibration = 3
    }
    /// GO's action by MODE 0-7. [DS: "the process fired by GO is selected by MODE": the sequence in
    /// internal trigger (0), diagnostics (6), auto-calibration (7).] [OURS: in the external trigger
    /// modes (1, 2) IN/TRIG sets GO, and a GO written over I2C is taken to do the same; in PWM or
    /// analog (3), audio-to-vibe (4) and real-time playback (5) GO starts nothing.]
    public static let goActions: [GoAction] = [.sequence, .sequence, .sequence, .nothing, .nothing, .nothing, .diagnostics, .calibration]
    /// LRA_PERIOD is updated only while an LRA is driven in closed loop: it is the resonance the
    /// chip measures by back-EMF [DS: "the measured resonance period"]; in open loop the chip
    /// drives at OL_LRA_PERIOD and measures nothing. [OURS: inferred; the datasheet does not say
    /// what LRA_PERIOD reads in open loop. UNCONFIRMED]
    public static let lraPeriodOnlyInClosedLoop = true

    /// The DRV2605 (not the L) reads back MODE, LIBRARY_SEL and WAV_FRM_SEQ1 as 0 after a sequence
    /// started by GO, and plays nothing at the next GO until they are written again. [E2E 1128661:
    /// one user's report, no explanation from TI; UNCONFIRMED] Modelled after the sequence ends.
    public static let nonLPartLosesSequenceRegisters = true

    /// The drive RTP_INPUT asks for, −1...1 of full scale (RATED_VOLTAGE in closed loop, OD_CLAMP
    /// in open loop), by DATA_FORMAT_RTP, the loop and BIDIR_INPUT. [DS table (drv2605.md §3):
    /// open loop, signed −128...127 and unsigned 0x00...0xFF with 0x80 as zero, negative being a
    /// brake (ERM) or the opposite phase (LRA); closed loop with BIDIR_INPUT, the lower half of
    /// the input (signed 0x81...0x00, unsigned 0x00...0x7F) is no drive. Closed loop without
    /// BIDIR_INPUT, unsigned 0x00...0xFF is zero to full (TI's example, e2e 1120884).] [Signed
    /// closed loop without BIDIR_INPUT: the table leaves the cell out; taken as the same range in
    /// two's complement, 0x80 zero and 0x7F full, as a PWM duty of 0...100 % (drv2605.md §3).
    /// UNCONFIRMED] The driver's encoder (`RealTimeEncoding`) is written apart from this, so
    /// the simulated chip checks it rather than repeats it.
    public static func realTimeDrive(input: UInt8, unsigned: Bool, openLoop: Bool, bidirectional: Bool) -> Double {
        let twosComplement = Double(Int8(bitPattern: input))
        if !openLoop && !bidirectional {
            return unsigned ? Double(input) / 255 : (twosComplement + 128) / 255
        }
        let signed = unsigned ? (Double(input) - 128) / 127 : twosComplement / 127
        return min(1, max(openLoop ? -1 : 0, signed))
    }

    /// How long DEV_RESET takes; the chip does not acknowledge meanwhile. [OURS: no figure in DS]
    public static let resetMilliseconds = 1
    /// A GO within this time of leaving standby starts when it has passed. [OURS]
    public static let wakeMilliseconds = 1
    /// The diagnostic routine's length. [OURS: no figure in DS]
    public static let diagnosticsMilliseconds = 100
    /// Auto-calibration's length for AUTO_CAL_TIME 0...3, inside the datasheet's ranges
    /// (150-350, 250-450, 500-700, 1000-1200 ms). [DS ranges, OURS values]
    public static let calibrationMilliseconds = [250, 350, 600, 1100]
    /// Whether register writes other than MODE are ignored in standby: no, by default. For it,
    /// one TI engineer's forum answer ("many register writes are ignored while in standby",
    /// E2E 295607); against it, TI's own Linux driver (drv260x), run on silicon, writes
    /// RATED_VOLTAGE and OD_CLAMP in standby at probe. The datasheet is silent. UNCONFIRMED: an
    /// option of both emulations (`SimulatedDRV2605.Options.ignoresWritesInStandby`, the fixture's
    /// `standby_writes_ignored`, a script's `standby-writes ignored`), and this project's driver is
    /// tested with it both ways.
    public static let ignoresWritesInStandby = false
    /// Standby or another mode while GO is set stops playback and clears GO. [OURS: DS silent]
    public static let modeChangeStopsPlayback = true
    /// PLAYBACK_INTERVAL = 1 ms (CONTROL5 bit 4, L parts) plays ROM effects this many times
    /// faster than the 5 ms default. [Inference: drv2605.md §6]
    public static let oneMillisecondIntervalSpeedUp = 5
    /// The registers OTP keeps: RATED_VOLTAGE, OD_CLAMP, A_CAL_COMP, A_CAL_BEMF, FEEDBACK_CONTROL;
    /// a reset (and a power-up) loads them from OTP once it is programmed. [DS]
    public static let otpRegisters: ClosedRange<UInt8> = 0x16...0x1A
    /// OTP programming needs VDD within this range [DS]; outside it, the emulations do not burn
    /// (OTP_STATUS stays 0). What silicon does outside the range is not published. [OURS]
    public static let otpSupplyMillivolts: ClosedRange<Int> = 4000...4400
    /// The supply both emulations run from; VBAT reads VDD × 255 / 5.6 V while driving. [The
    /// conversion is in every driver (SparkFun, Zephyr, mbed) and fits a published dump at 5 V; the
    /// 5 V supply is OURS, a Raspberry Pi's 5 V rail.]
    public static let supplyVolts = 5.0
    /// The resonance of the LRA both emulations drive, and so the LRA_PERIOD they report
    /// while driving (period field = 10^6 / (f × 98.46 µs)). [DS equation]
    public static let lraResonantHz = 175.0

    /// VBAT's reading while driving from `supplyVolts`.
    public static func supplyReading(volts: Double = supplyVolts) -> UInt8 {
        UInt8(max(0, min(255, (volts * 255 / 5.6).rounded())))
    }

    /// LRA_PERIOD for `hz`.
    public static func periodField(hz: Double = lraResonantHz) -> UInt8 {
        UInt8(max(1, min(255, ActuatorEquations.lraPeriodField(hz: hz).rounded())))
    }

    /// How long ROM effect `number` plays, in milliseconds. TI publishes no lengths: these are
    /// estimates from the effects' names (`Effect.estimatedDuration`), so nothing may depend on
    /// them being right; both emulations can scale them. [OURS]
    public static func effectMilliseconds(_ number: UInt8) -> Int {
        Effect(rawValue: number).map { Int($0.estimatedDuration.secondsDouble * 1000) } ?? 0
    }

    /// What a converged calibration writes, from RATED_VOLTAGE: deterministic and plausible, not
    /// TI's algorithm (which is unpublished). [OURS]
    /// A_CAL_COMP = round(8 + rated / 40), A_CAL_BEMF = round(96 + rated / 4), BEMF_GAIN 2 for an
    /// LRA and 1 for an ERM.
    public static func calibrationResults(ratedVoltage: UInt8, lra: Bool) -> (compensation: UInt8, backEMF: UInt8, gain: UInt8) {
        let rated = Int(ratedVoltage)
        return (UInt8(min(255, (8 * 40 + rated + 20) / 40)), UInt8(min(255, (96 * 4 + rated + 2) / 4)), lra ? 2 : 1)
    }

    /// The C header the kernel fixture is built with: the same facts as C constants.
    public static func cHeader(part: Part = .drv2605L) -> String {
        let reset = part.resetValues.bytes
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "0x%02X", $0) }.joined(separator: ", ") }
        let lengths = (0...127).map { String(effectMilliseconds(UInt8($0))) }
        var lines = [
            "/* SPDX-License-Identifier: GPL-2.0-only OR Apache-2.0 */",
            "/* Generated by `drv2605-model header` from Sources/DRV2605Simulator/ChipModel.swift: do not edit. */",
            "#ifndef DRV2605_MODEL_H",
            "#define DRV2605_MODEL_H",
            "",
            "#define DRV_MODEL_REGISTER_COUNT \(reset.count)",
            "static const u8 drv_model_reset_values[\(reset.count)] = { \(hex(reset)) };",
            "static const u8 drv_model_read_only[] = { \(hex(readOnlyRegisters.map(\.rawValue))) };",
            String(format: "#define DRV_MODEL_STATUS_CLEARED_ON_READ 0x%02X", statusClearedOnRead),
            String(format: "#define DRV_MODEL_STATUS_KEPT_BY_RESET 0x%02X", statusKeptByReset),
            "#define DRV_MODEL_RESET_MS \(resetMilliseconds)",
            "#define DRV_MODEL_WAKE_MS \(wakeMilliseconds)",
            "#define DRV_MODEL_DIAGNOSTICS_MS \(diagnosticsMilliseconds)",
            "static const unsigned int drv_model_calibration_ms[4] = { \(calibrationMilliseconds.map(String.init).joined(separator: ", ")) };",
            "#define DRV_MODEL_IGNORES_WRITES_IN_STANDBY \(ignoresWritesInStandby ? 1 : 0)",
            "#define DRV_MODEL_MODE_CHANGE_STOPS_PLAYBACK \(modeChangeStopsPlayback ? 1 : 0)",
            "/* What a GO written over I2C starts, by MODE 0-7 (ChipModel.goActions). */",
            "#define DRV_MODEL_GO_NOTHING 0",
            "#define DRV_MODEL_GO_SEQUENCE 1",
            "#define DRV_MODEL_GO_DIAGNOSTICS 2",
            "#define DRV_MODEL_GO_CALIBRATION 3",
            "static const u8 drv_model_go_action[8] = { \(goActions.map { String($0.rawValue) }.joined(separator: ", ")) };",
            "#define DRV_MODEL_LRA_PERIOD_ONLY_IN_CLOSED_LOOP \(lraPeriodOnlyInClosedLoop ? 1 : 0)",
            "#define DRV_MODEL_ONE_MS_INTERVAL_SPEED_UP \(oneMillisecondIntervalSpeedUp)",
            "#define DRV_MODEL_SUPPLY_MV \(Int(supplyVolts * 1000))",
            "/* VBAT's reading for a supply in mV: mV × 255 / 5600, rounded. */",
            "#define DRV_MODEL_SUPPLY_READING(mv) (((mv) * 255 + 2800) / 5600)",
            "#define DRV_MODEL_OTP_FIRST 0x\(String(otpRegisters.lowerBound, radix: 16, uppercase: true))",
            "#define DRV_MODEL_OTP_LAST 0x\(String(otpRegisters.upperBound, radix: 16, uppercase: true))",
            "#define DRV_MODEL_OTP_MIN_MV \(otpSupplyMillivolts.lowerBound)",
            "#define DRV_MODEL_OTP_MAX_MV \(otpSupplyMillivolts.upperBound)",
            "#define DRV_MODEL_LRA_PERIOD \(periodField())",
            "/* Calibration results from RATED_VOLTAGE (see ChipModel.calibrationResults). */",
            "#define DRV_MODEL_CAL_COMPENSATION(rated) ((8 * 40 + (rated) + 20) / 40)",
            "#define DRV_MODEL_CAL_BACK_EMF(rated) ((96 * 4 + (rated) + 2) / 4)",
            "#define DRV_MODEL_CAL_GAIN(lra) ((lra) ? 2 : 1)",
            "/* Estimated ROM effect lengths in ms, by effect number (0 and 124-127: none). */",
            "static const unsigned short drv_model_effect_ms[128] = { \(lengths.joined(separator: ", ")) };",
            "",
            "#endif"
        ]
        lines.append("")
        return lines.joined(separator: "\n")
    }
}
