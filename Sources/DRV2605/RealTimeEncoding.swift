// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticEffects

/// How a real-time playback (RTP) amplitude becomes the RTP_INPUT byte. (What the chip makes of
/// the byte is `ChipModel.realTimeDrive`, in the simulator, written apart so one checks the other.)
///
/// The meaning of the byte depends on DATA_FORMAT_RTP (signed or unsigned), the loop and, in
/// closed loop, BIDIR_INPUT (datasheet figures 24–27, drv2605.md §3). Amplitude is −1...1 of full
/// scale (RATED_VOLTAGE in closed loop, OD_CLAMP in open loop); negative means brake (ERM) or
/// opposite phase (LRA) in open loop only. In closed loop with BIDIR_INPUT set, the datasheet's
/// table gives no drive for the lower half of the input (signed 0x81...0x00, unsigned
/// 0x00...0x7F): the loop brakes by itself, the input cannot ask for it. In closed loop without
/// BIDIR_INPUT the whole range is 0...full scale, in either format.
public struct RealTimeEncoding: Sendable, Hashable {
    public var unsigned: Bool
    public var openLoop: Bool
    public var bidirectional: Bool

    public init(unsigned: Bool, openLoop: Bool, bidirectional: Bool) {
        self.unsigned = unsigned
        self.openLoop = openLoop
        self.bidirectional = bidirectional
    }

    public init(_ configuration: DRV2605Configuration) {
        self.init(
            unsigned: configuration.unsignedRealTimeInput, openLoop: configuration.loop == .open,
            bidirectional: configuration.bidirectionalInput)
    }

    /// Whether negative amplitudes mean anything (brake / reverse phase): open loop only.
    public var hasNegativeHalf: Bool { openLoop }

    /// The RTP_INPUT byte for `amplitude` (clamped to −1...1; to 0...1 where there is no negative half).
    public func byte(for amplitude: Double) -> UInt8 {
        let value = amplitude.isFinite ? min(1, max(hasNegativeHalf ? -1 : 0, amplitude)) : 0
        if !openLoop && !bidirectional {
            // Closed loop, unidirectional: the whole input range is 0...full scale. Unsigned: 0x00 is
            // zero, 0xFF full (TI's example, e2e 1120884). Signed: the same range in two's
            // complement, so -128 (0x80) is zero, 0x00 half scale and 0x7F full, as PWM duty maps
            // 0 % / 50 % / 100 % (drv2605.md §3; the datasheet's table leaves this cell out:
            // UNCONFIRMED). Writing 0x00 for "no drive" here would drive half scale.
            let level = Int((value * 255).rounded())
            return unsigned ? UInt8(level) : UInt8(bitPattern: Int8(level - 128))
        }
        if unsigned {
            // Mid-scale 0x80 is zero drive; 0xFF full positive; 0x00 full negative.
            return UInt8(max(0, min(255, (128 + value * 127).rounded())))
        }
        return UInt8(bitPattern: Int8((value * 127).rounded()))
    }
}
