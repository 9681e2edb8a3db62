// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticEffects
import HardwareAccess

// Real-time playback (RTP): stream amplitudes through RTP_INPUT.
extension DRV2605Driver {
    /// The RTP byte encoding for the current configuration.
    public var realTimeEncoding: RealTimeEncoding {
        var encoding = RealTimeEncoding(configuration)
        if fixedFrequency != nil { encoding.openLoop = true }
        return encoding
    }

    /// Enters real-time playback with the output at zero: one burst (MODE = RTP, RTP_INPUT = 0).
    public func beginRealTimePlayback() throws(DRV2605Error) {
        try ensureEnabled()
        try writeBurst(.mode, [ModeRegister(mode: .realTimePlayback).rawValue, realTimeEncoding.byte(for: 0)])
        noteStandby(false)
        mode = .realTimePlayback
    }

    /// One RTP update: a single 3-byte write.
    /// At a fixed frequency (`setDriveFrequency`) the level is made up for the distance from
    /// resonance and scaled to the rated voltage within open loop's OD_CLAMP full scale.
    public func setRealTime(amplitude: Double) throws(DRV2605Error) {
        lastAmplitude = amplitude
        try setRealTime(byte: realTimeEncoding.byte(for: openLoopLevel(for: amplitude)))
    }

    /// One RTP update with a raw RTP_INPUT byte.
    public func setRealTime(byte: UInt8) throws(DRV2605Error) {
        guard mode == .realTimePlayback else { throw .invalidArgument("not in real-time playback; call beginRealTimePlayback() first") }
        do {
            try bus.write(to: address, [Register.realTimePlaybackInput.rawValue, byte])
        } catch {
            stopQuietly()
            throw .bus(error)
        }
    }

    /// Leaves real-time playback: MODE back to internal trigger and RTP_INPUT zero, in one burst;
    /// the chip stays awake (`standby: true` puts it straight into standby in the same write).
    public func endRealTimePlayback(standby: Bool = false) throws(DRV2605Error) {
        // RTP_INPUT is zeroed while the chip is still awake (writes may be ignored in standby), so
        // the next real-time session never starts from a stale value.
        // Zero as the configured encoding reads it (MODE is already internal trigger when
        // RTP_INPUT lands, so an open-loop reading of it drives nothing).
        try writeBurst(.mode, [ModeRegister(mode: .internalTrigger).rawValue, RealTimeEncoding(configuration).byte(for: 0)])
        mode = .internalTrigger
        lastAmplitude = 0
        if fixedFrequency != nil { try restoreConfiguredLoop() }
        if standby { try enterStandby() }
    }
}
