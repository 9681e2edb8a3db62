// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticEffects
import HardwareAccess

/// The DRV2605 as the engine sees every chip: the required core, and its ROM library (or a
/// DRV2604's RAM) as the optional effect-library capability.
extension DRV2605Driver: HapticChipDriver, EffectLibraryPlayback {
    /// EN is wired.
    public var canShutDown: Bool { enableLine != nil }
    /// MODE is real-time playback (RTP).
    public var isStreaming: Bool { mode == .realTimePlayback }
    /// −1...1 in open loop (RTP's negative half brakes); 0...1 in closed loop, where the chip
    /// brakes by itself and a negative input means no drive (`RealTimeEncoding`).
    public var realTimeLevels: ClosedRange<Double> { realTimeEncoding.hasNegativeHalf ? -1...1 : 0...1 }
    /// `Options.pollInterval`: how often GO is polled while a sequence plays.
    public var pollInterval: Duration { options.pollInterval }

    /// GO and STATUS's fault bits, from one snapshot (which also notices a reset chip and repairs it).
    public func playbackStatus() throws(HapticChipError) -> HapticChipStatus {
        let snapshot = try snapshot()
        return HapticChipStatus(playing: snapshot.go, overCurrent: snapshot.status.overCurrent, overTemperature: snapshot.status.overTemperature)
    }

    /// MODE through GO in one read: GO set or a non-zero RTP input in RTP mode is driving.
    public func readBack() throws(HapticChipError) -> HapticChipReadBack {
        let file = try readFile(from: .mode, through: .go)
        let mode = file[ModeRegister.self]
        let go = file[GoRegister.self].go
        let rtp = file[.realTimePlaybackInput]
        return HapticChipReadBack(
            standby: mode.standby, driving: go || (!mode.standby && mode.mode == .realTimePlayback && rtp != 0),
            details: ["go": .bool(go), "rtp": .int(Int(rtp)), "mode": .text(mode.mode.description)])
    }

    /// Lowers IN/TRIG when it was held high for the sequence (level mode).
    public func finishPlayback() throws(HapticChipError) { try releaseTriggerPin() }

    /// In internal-trigger mode with `sequence` in the slots: a GO write (one broadcast to a
    /// group) plays it.
    public func isArmed(for sequence: WaveformSequence) -> Bool {
        guard mode == .internalTrigger, let slots = loadedSlots else { return false }
        return sequence.matches(slots: slots)
    }
}
