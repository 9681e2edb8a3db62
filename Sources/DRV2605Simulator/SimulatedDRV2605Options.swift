// SPDX-License-Identifier: Apache-2.0

import DRV2605
import HapticChip
import HapticEffects
import HardwareAccess

extension SimulatedDRV2605 {
    /// Behaviours the reference marks as unconfirmed, and timings it does not give.
    public struct Options: Sendable {
        /// Which member of the family it is (STATUS device ID, ROM or RAM).
        public var part: Part = .drv2605L
        /// The address it answers at.
        public var address: I2CAddress = .drv2605
        /// TI e2e 295607: "many register writes are ignored while in standby". UNCONFIRMED; on by
        /// default so that drivers are tested against the stricter chip. MODE is always written.
        public var ignoresWritesInStandby = ChipModel.ignoresWritesInStandby
        /// A GO within this time of leaving standby starts playback only when it has passed.
        public var wakeDelay: Duration = .milliseconds(ChipModel.wakeMilliseconds)
        /// How long DEV_RESET takes (the datasheet gives no figure).
        public var resetDuration: Duration = .milliseconds(ChipModel.resetMilliseconds)
        /// Whether the chip NACKs while it resets (drivers must tolerate it).
        public var nacksDuringReset = true
        /// Whether registers survive EN low. UNCONFIRMED; `false` resets them on EN high.
        public var registersSurviveShutdown = true
        /// The diagnostic routine's length (not given by the datasheet).
        public var diagnosticsDuration: Duration = .milliseconds(ChipModel.diagnosticsMilliseconds)
        /// Calibration length for AUTO_CAL_TIME 0...3, inside the datasheet's ranges.
        public var calibrationDurations: [Duration] = ChipModel.calibrationMilliseconds.map { .milliseconds($0) }
        /// Whether a converged LRA calibration writes the resonance into OL_LRA_PERIOD (0x20). Only
        /// a forum answer says so (TI e2e 1120884); UNCONFIRMED. LRA_PERIOD (0x22) is always set.
        public var calibrationWritesOpenLoopPeriod = true
        /// STATUS bits a read of STATUS clears (`ChipModel.statusClearedOnRead`: not OC_DETECT).
        public var statusClearedOnRead: UInt8 = ChipModel.statusClearedOnRead
        /// STATUS bits DEV_RESET keeps (`ChipModel.statusKeptByReset`: none, as a power cycle).
        public var statusKeptByReset: UInt8 = ChipModel.statusKeptByReset
        /// Whether EN low then high clears OC_DETECT and OVER_TEMP (`ChipModel.shutdownClearsFaults`).
        public var shutdownClearsFaults = ChipModel.shutdownClearsFaults
        /// Whether a DRV2605 (not the L) zeroes MODE, LIBRARY_SEL and WAV_FRM_SEQ1 after a sequence
        /// started by GO (`ChipModel.nonLPartLosesSequenceRegisters`; other parts never do).
        public var nonLPartLosesSequenceRegisters = ChipModel.nonLPartLosesSequenceRegisters
        /// Inference (drv2605.md §6): PLAYBACK_INTERVAL = 1 ms plays ROM effects 5× faster.
        public var oneMillisecondIntervalShortensEffects = true
        /// How long ROM effects really last, as a multiple of `Effect.estimatedDuration`. TI
        /// publishes no effect lengths, so the estimates are ours; a test sets this to 2 (or 0.5)
        /// to show that nothing depends on an estimate being right.
        public var effectLengthScale = 1.0
        /// The defaults above: the stricter chip where the datasheet is silent.
        public init() {}
    }
}
