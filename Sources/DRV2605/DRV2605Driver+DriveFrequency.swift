// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticEffects
import HardwareAccess

/// Sharpness on a DRV2605L's LRA: the stream driven in open loop at OL_LRA_PERIOD (CONTROL3
/// LRA_OPEN_LOOP) away from resonance; closed loop drives at resonance only. The DRV2605 and
/// DRV2604 have no OL_LRA_PERIOD. Open loop's full scale is OD_CLAMP, V_rms = 21.32 mV ×
/// OD_CLAMP × √(1 − 800 µs·f) (`ActuatorEquations.lraOverdriveClamp`), above the rating, so
/// each level is scaled to the rated voltage (RATED_VOLTAGE's, `ActuatorEquations
/// .lraRatedVoltage`) and made up for the distance from resonance within it. The stream's end,
/// a stop and standby give closed loop back.
extension DRV2605Driver: DriveFrequencyControl {
    /// The LRA's resonance (calibration's, else the configured OL_LRA_PERIOD's) and assumed Q.
    var resonantResponse: ResonantResponse? {
        guard configuration.actuator == .lra, part?.isLowVoltage == true else { return nil }
        guard let hz = configuration.calibration?.resonantHz ?? ActuatorEquations.frequency(periodField: configuration.lraOpenLoopPeriod) else {
            return nil
        }
        return ResonantResponse(resonantHz: hz)
    }

    /// The rated band around resonance, on a DRV2605L or DRV2604L with an LRA.
    public var driveFrequencyBand: DriveFrequencyBand? {
        guard let response = resonantResponse else { return nil }
        if let cached = bandCache, cached.resonantHz == response.resonantHz { return cached.band }
        let band = DriveFrequencyBand.rated(response)
        bandCache = (response.resonantHz, band)
        return band
    }

    public var driveFrequencyUnavailable: String {
        if configuration.actuator == .erm {
            return "an ERM has no drive frequency: its vibration follows its speed, so only the transients' shape renders sharpness"
        }
        return "the \(part.map { "\($0)" } ?? "chip") has no OL_LRA_PERIOD: its LRA drive tracks resonance in closed loop"
    }

    public var driveFrequency: Double? { fixedFrequency }

    /// CONTROL3 as the chip should hold it now: open loop while at a fixed frequency.
    var expectedControl3: Control3Register {
        var value = configuration.control3
        if fixedFrequency != nil { value.lraOpenLoop = true }
        return value
    }

    /// The RTP level for `amplitude` (a share of the rated drive at resonance): as it is as
    /// configured; at a fixed frequency, made up for the distance from resonance, limited to
    /// the rating, and scaled to open loop's OD_CLAMP full scale at that frequency.
    func openLoopLevel(for amplitude: Double) -> Double {
        guard let hz = fixedFrequency, let response = resonantResponse else { return amplitude }
        let driven = Self.periodFrequency(hz, within: driveFrequencyBand)
        let level = response.drive(for: amplitude, at: driven) * ratedShareOfOpenLoopFullScale(at: driven)
        // Whole RTP steps toward zero: RTP_INPUT's rounding to the nearest would pass the rating
        // by up to half a step.
        return (level * 127).rounded(.towardZero) / 127
    }

    /// The frequency the chip drives at for `hz`: its OL_LRA_PERIOD's.
    static func periodFrequency(_ hz: Double, within band: DriveFrequencyBand?) -> Double {
        guard let band else { return hz }
        return ActuatorEquations.frequency(periodField: periodField(for: hz, within: band)) ?? hz
    }

    /// The rated voltage as a share of open loop's full scale at `hz` (at most 1).
    func ratedShareOfOpenLoopFullScale(at hz: Double) -> Double {
        guard let response = resonantResponse,
            let rated = ActuatorEquations.lraRatedVrms(field: configuration.ratedVoltage, hz: response.resonantHz, sampleTimeField: configuration.sampleTime),
            let full = ActuatorEquations.lraOpenLoopFullScaleVrms(clampField: configuration.overdriveClamp, hz: hz), full > 0
        else { return 0 }
        return min(1, rated / full)
    }

    /// Open loop at `hz`'s OL_LRA_PERIOD, or the configured loop back with nil. Entering leaves
    /// RTP for internal trigger with RTP_INPUT at open loop's zero (the byte that is zero in one
    /// encoding drives in the other), then CONTROL3 and OL_LRA_PERIOD, then RTP again at the
    /// level held; a new frequency after that is one write of OL_LRA_PERIOD (when its field
    /// changes) and one of RTP_INPUT.
    public func setDriveFrequency(_ hz: Double?) throws(DRV2605Error) {
        guard mode == .realTimePlayback else {
            throw .invalidArgument("setDriveFrequency outside real-time playback: call beginRealTimePlayback() first")
        }
        guard let hz else {
            guard fixedFrequency != nil else { return }
            try writeBurst(.mode, [ModeRegister(mode: .internalTrigger).rawValue, RealTimeEncoding(configuration).byte(for: 0)])
            mode = .internalTrigger
            try restoreConfiguredLoop()
            try writeBurst(.mode, [ModeRegister(mode: .realTimePlayback).rawValue, realTimeEncoding.byte(for: lastAmplitude)])
            mode = .realTimePlayback
            return
        }
        guard let band = driveFrequencyBand, hz.isFinite else {
            throw .unsupported("the stream cannot be driven at a frequency of its own: \(driveFrequencyUnavailable)")
        }
        let target = min(band.upperHz, max(band.lowerHz, hz))
        let period = Self.periodField(for: target, within: band)
        if fixedFrequency == nil {
            fixedFrequency = target
            do {
                try writeBurst(.mode, [ModeRegister(mode: .internalTrigger).rawValue, realTimeEncoding.byte(for: 0)])
                mode = .internalTrigger
                try write(.control3, expectedControl3.rawValue)
                try write(.lraOpenLoopPeriod, period)
                try writeBurst(.mode, [ModeRegister(mode: .realTimePlayback).rawValue, realTimeEncoding.byte(for: openLoopLevel(for: lastAmplitude))])
                mode = .realTimePlayback
            } catch {
                stopQuietly()
                throw error
            }
            return
        }
        let previous = fixedFrequency.map { Self.periodField(for: $0, within: band) }
        fixedFrequency = target
        if period != previous { try write(.lraOpenLoopPeriod, period) }
        try setRealTime(amplitude: lastAmplitude)
    }

    /// OL_LRA_PERIOD nearest `hz`, or one step nearer resonance where the nearest falls outside
    /// the band (its 98.46 µs steps are 3 Hz apart at 175 Hz: the rated band holds only a few).
    static func periodField(for hz: Double, within band: DriveFrequencyBand) -> UInt8 {
        let exact = ActuatorEquations.lraPeriodField(hz: hz)
        var field = max(1, min(127, exact.rounded()))
        let inside = band.lowerHz - 1e-9...band.upperHz + 1e-9
        if let driven = ActuatorEquations.frequency(periodField: UInt8(field)), !inside.contains(driven) {
            // A longer period is a lower frequency: step towards resonance's period.
            field += driven < band.resonantHz ? -1 : 1
        }
        return UInt8(max(1, min(127, field)))
    }

    /// CONTROL3 and OL_LRA_PERIOD back as configured, when a stream drove at a fixed frequency.
    func restoreConfiguredLoop() throws(DRV2605Error) {
        guard fixedFrequency != nil else { return }
        try write(.control3, configuration.control3.rawValue)
        try write(.lraOpenLoopPeriod, configuration.lraOpenLoopPeriod)
        fixedFrequency = nil
    }
}
