// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HardwareAccess

// The waveform memory: written at start-up, played in RTWM [DS §5.6.5.4, §5.8].
extension DA7280Driver: StoredWaveformPlayback {
    /// Writes `options.storedFeedbacks`, compiled (`DA7280StoredFeedbacks`), at
    /// WAV_MEM_BASE_ADDR in one burst, when the memory is unlocked (MEM_CTL2's WAV_MEM_LOCK is 1
    /// [DS §5.6.4]) and holds the image; start-up has already made the chip inactive. Otherwise
    /// `memoryNote` says why nothing was written, and every feedback streams. With acceleration
    /// off (a coin ERM) the memory's amplitudes are signed shares of ABSMAX, a seventh a step
    /// [DS T17]: too coarse to keep under the rated voltage, so a coin ERM streams.
    func writeWaveformMemory() throws(HapticChipError) {
        stored = nil
        storedLevels = nil
        memoryNote = nil
        selectedSequence = nil
        guard !options.storedFeedbacks.isEmpty else { return }
        guard DA7280Configuration.topConfiguration1Fields(for: actuator.kind).contains(.acceleration) else {
            memoryNote = "a coin ERM streams: the memory's amplitudes without acceleration are sevenths of ABSMAX"
            return
        }
        let compiled = DA7280StoredFeedbacks(options.storedFeedbacks, resonantHz: actuator.kind == .lra ? actuator.resonantHz : nil)
        guard let image = compiled.memory.bytes, !compiled.names.isEmpty else {
            memoryNote = "none of the feedbacks fits the waveform memory"
            return
        }
        let control = try read(.memoryControl1, count: 2)
        guard control[1] & 0x80 != 0 else {
            memoryNote = "the waveform memory is locked (MEM_CTL2 WAV_MEM_LOCK = 0): every feedback streams"
            return
        }
        let base = Int(control[0])
        guard base >= 0x84, base + image.count <= 0xE8 else {
            memoryNote = "WAV_MEM_BASE_ADDR reads 0x\(String(base, radix: 16)): \(max(0, 0xE8 - base)) bytes, not the \(image.count) needed"
            return
        }
        do { try bus.write(to: address, [UInt8(base)] + image) } catch { throw .bus(error) }
        stored = compiled
    }

    /// The sequence that plays `levels`, when start-up stored the envelope they were sampled
    /// from: a dictionary lookup on every feedback, the envelopes sampled once per tick length.
    public func storedWaveform(levels: [Double], tick: Duration) -> StoredWaveform? {
        guard let stored else { return nil }
        if storedLevels?.tick != tick {
            storedLevels = (tick, stored.sequencesByLevels(tickMilliseconds: tick.secondsDouble * 1000))
        }
        guard let index = storedLevels?.table[levels] else { return nil }
        return StoredWaveform(index: index, duration: stored.durations[index])
    }

    /// A reset check when not armed (one read), PS_SEQ_ID (once per sequence: PS_SEQ_LOOP 0,
    /// played once), then TOP_CTL1 = RTWM with STANDBY_EN and SEQ_START clear: armed, the chip in
    /// STANDBY. Nothing when already prepared for it.
    public func prepare(_ waveform: StoredWaveform) throws(HapticChipError) {
        try requireStarted()
        // Arming is where a drive from the memory starts: a reset chip's memory is empty and its
        // ratings the reset values (`checkForReset()` writes both again).
        if !armed { try checkForReset() }
        guard let stored, stored.names.indices.contains(waveform.index) else {
            throw .invalidArgument("sequence \(waveform.index) is not in the DA7280's waveform memory")
        }
        if selectedSequence != waveform.index {
            try write(.sequenceControl2, [UInt8(waveform.index)])
            selectedSequence = waveform.index
        }
        guard !armed else { return }
        try write(.topControl1, [DA7280Register.TopControl1(mode: .registerTriggeredWaveform, standbyEnabled: true).rawValue])
        if power != .ready { readyInstant = clock.now.advanced(by: options.wakeDelay) }
        power = .ready
        armed = true
    }

    /// Prepares `waveform` if it is not, then SEQ_START: one write when prepared.
    public func play(_ waveform: StoredWaveform) throws(HapticChipError) {
        try prepare(waveform)
        try write(.topControl1, [DA7280Register.TopControl1(mode: .registerTriggeredWaveform, standbyEnabled: true, sequenceStart: true).rawValue])
        memoryPlaying = true
    }
}
