// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HardwareAccess

/// The chip's status (still playing, the faults and warnings of IRQ_EVENT1 and IRQ_STATUS1),
/// its faults cleared, the read-back, and the bus access every part of the driver uses.
extension DA7280Driver {

    /// IRQ_EVENT1 through TOP_CFG2 in one read: the events, the two diagnosis registers and
    /// IRQ_STATUS1, and the configuration a power-on reset changes back (`checkForReset()`: a
    /// reset found here is repaired at once, so nothing plays at the reset values after it). A
    /// sequence from the waveform memory plays until E_SEQ_DONE [DS T21; its mask SEQ_DONE_M is
    /// not the flag, T25]; the faults are the latched events that hold the chip idle until
    /// cleared (over-current, actuator, critical over-temperature, sequence and under-voltage
    /// [DS §5.6.6]). E_WARNING is a warning (the chip still drives): counted by its diagnosis in
    /// `warningsSeen`, cleared, and reported once in the status.
    public func playbackStatus() throws(HapticChipError) -> HapticChipStatus {
        try requireStarted()
        let first = DA7280Register.irqEvent1.rawValue
        let bytes = try read(.irqEvent1, count: Int(DA7280Register.topConfiguration2.rawValue - first) + 1)
        let events = DA7280Register.Event(rawValue: bytes[0])
        lastEvents = events
        lastWarningDiagnosis = bytes[1]
        lastSequenceDiagnosis = bytes[2]
        if let written, !written.matches(bytes, from: first) {
            // A reset cleared the events too: what was latched before it is gone with it.
            try restoreAfterReset()
            return HapticChipStatus(playing: false, resetDetected: true)
        }
        var warning: String?
        if events.contains(.warning) {
            let kinds = DA7280Register.Warning.all.filter { bytes[1] & $0.rawValue != 0 }
            for kind in kinds { warningsSeen[kind, default: 0] += 1 }
            warning = kinds.isEmpty ? "E_WARNING without a diagnosis" : kinds.map { $0.description }.joined(separator: ", ")
            try write(.irqEvent1, [DA7280Register.Event.warning.rawValue])
        }
        return HapticChipStatus(
            playing: memoryPlaying && !events.contains(.sequenceDone), overCurrent: events.contains(.overCurrent), overTemperature: events.contains(.overTemperatureCritical),
            actuatorFault: events.contains(.actuatorFault), underVoltage: events.contains(.underVoltage),
            sequenceFault: events.contains(.sequenceFault), warning: events.contains(.warning), warningDetail: warning)
    }

    /// Inactive and IDLE first (so a fault does not fire again at once, as Linux's driver does),
    /// then the latched events cleared by writing 1s. The configuration is not lost on a fault.
    public func clearFaults() throws(HapticChipError) {
        try requireStarted()
        try write(.topControl1, [0, 0])
        try write(.irqEvent1, [0xFF])
        power = .standby
        isStreaming = false
        lastOverride = 0
        driving = false
        armed = false
        memoryPlaying = false
    }

    /// After a sequence from memory ended: SEQ_START cleared (the chip stays armed in RTWM, so
    /// the next trigger is again one write) and E_SEQ_DONE cleared.
    public func finishPlayback() throws(HapticChipError) {
        guard memoryPlaying else { return }
        memoryPlaying = false
        try write(.topControl1, [DA7280Register.TopControl1(mode: .registerTriggeredWaveform, standbyEnabled: true).rawValue])
        try write(.irqEvent1, [DA7280Register.Event.sequenceDone.rawValue])
    }

    /// TOP_CTL1 and TOP_CTL2 as the chip has them.
    public func readBack() throws(HapticChipError) -> HapticChipReadBack {
        try requireStarted()
        let bytes = try read(.topControl1, count: 2)
        let control = DA7280Register.TopControl1(rawValue: bytes[0])
        let driving: Bool
        switch control.mode {
        case .inactive: driving = false
        case .directRegisterOverride, .pwm: driving = bytes[1] != 0 || control.mode == .pwm
        case .registerTriggeredWaveform, .edgeTriggeredWaveform: driving = control.sequenceStart
        }
        return HapticChipReadBack(
            standby: !control.standbyEnabled, driving: driving,
            details: [
                "operationMode": .int(Int(control.mode.rawValue)), "standbyEnabled": .bool(control.standbyEnabled),
                "overrideValue": .int(Int(bytes[1]))
            ])
    }

    // MARK: - Bus

    func requireStarted() throws(HapticChipError) {
        guard started else { throw .notStarted }
    }

    func write(_ register: DA7280Register, _ values: [UInt8]) throws(HapticChipError) {
        do { try bus.write(to: address, [register.rawValue] + values) } catch { throw .bus(error) }
    }

    func read(_ register: DA7280Register, count: Int) throws(HapticChipError) -> [UInt8] {
        let bytes: [UInt8]
        do { bytes = try bus.writeRead(to: address, [register.rawValue], count: count) } catch { throw .bus(error) }
        guard bytes.count == count else {
            throw .bus(I2CError(.busError, operation: "read of \(register)", address: address, detail: "got \(bytes.count) of \(count) bytes"))
        }
        return bytes
    }

    func hex(_ value: UInt8) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return text.count == 1 ? "0" + text : text
    }
}
