// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HardwareAccess

/// Sharpness on a DA7280's LRA: the stream driven at a frequency of its own. With FREQ_TRACK_EN
/// the chip follows the actuator's resonance whatever LRA_PER says; with it off, it drives at
/// LRA_PER [DS §5.3, §5.7.5]. Acceleration and rapid stop need tracking [DS §5.4], so they go
/// off with it, and OVERRIDE_VAL is then signed with ABSMAX full scale (`DA7280Configuration
/// .atFixedFrequency`): level 1 stays the rated voltage through `overrideFullScale`. Each level
/// is made up for the distance from resonance (`ResonantResponse.drive(for:at:)`) and limited
/// to the rating. The stream's end, a stop and standby give tracking back.
extension DA7280Driver: DriveFrequencyControl {
    /// `actuator`'s resonance and assumed Q, for an LRA.
    static func resonantResponse(of actuator: DA7280Actuator) -> ResonantResponse? {
        guard actuator.kind == .lra, let hz = actuator.resonantHz else { return nil }
        return ResonantResponse(resonantHz: hz)
    }

    /// The actuator's resonance and assumed Q, for an LRA.
    var resonantResponse: ResonantResponse? { Self.resonantResponse(of: actuator) }

    /// The rated band around the LRA's resonance (`DriveFrequencyBand.rated`); nil for an ERM.
    /// It lies well inside the 25 % from resonance past which the chip faults [DS §5.3].
    public var driveFrequencyBand: DriveFrequencyBand? { ratedBand }

    public var driveFrequencyUnavailable: String {
        "an ERM has no drive frequency: its vibration follows its speed, so only the transients' shape renders sharpness"
    }

    public var driveFrequency: Double? { fixedFrequency }

    /// Tracking off at `hz`'s LRA_PER, or back on with nil. Entering writes LRA_PER, then the
    /// level held now in the new encoding (under the old one it is less, never more), then
    /// TOP_CFG1-2 and TOP_CFG5; a new frequency after that is one write of LRA_PER and, when
    /// the made-up level changes, one of OVERRIDE_VAL.
    public func setDriveFrequency(_ hz: Double?) throws(HapticChipError) {
        try requireStarted()
        guard isStreaming else { throw .invalidArgument("setDriveFrequency outside real-time playback: call beginRealTimePlayback() first") }
        guard let hz else {
            if fixedFrequency != nil {
                // The level held is in the signed encoding, more than it means with acceleration
                // back on: zero first, then tracking, then the level again.
                if driving { try write(.topControl2, [0]) }
                lastOverride = 0
                try restoreTracking()
                try setRealTime(amplitude: lastAmplitude)
            }
            return
        }
        guard let band = driveFrequencyBand, let configured, let registers = writtenActuator, hz.isFinite else {
            throw .unsupported("the stream cannot be driven at a frequency of its own: \(driveFrequencyUnavailable)")
        }
        let target = min(band.upperHz, max(band.lowerHz, hz))
        let period = DA7280Equations.lraPeriodField(hz: target)
        if fixedFrequency.map(DA7280Equations.lraPeriodField(hz:)) != period {
            try write(.lraPeriodHigh, DA7280Equations.periodBytes(period))
        }
        let entering = fixedFrequency == nil
        fixedFrequency = target
        if entering {
            let fixed = configured.atFixedFrequency
            overrideFullScale = DA7280Equations.overrideFullScale(
                nominalMaximum: registers.nominalMaximum, absoluteMaximum: registers.absoluteMaximum, acceleration: false)
            if driving {
                let value = DA7280Equations.overrideValue(level: resonantResponse?.drive(for: lastAmplitude, at: target) ?? 0, fullScale: overrideFullScale)
                try write(.topControl2, [value])
                lastOverride = value
            }
            try write(.topConfiguration1, [fixed.topConfiguration1, fixed.topConfiguration2])
            if fixed.topConfiguration5 != configured.topConfiguration5 { try write(.topConfiguration5, [fixed.topConfiguration5]) }
            written = DA7280WrittenConfiguration(actuator: registers, configuration: fixed)
        } else if driving {
            try setRealTime(amplitude: lastAmplitude)
        }
    }

    /// Tracking, acceleration and rapid stop back as start-up wrote them, then LRA_PER back at
    /// resonance, when a stream had them off; nothing otherwise.
    func restoreTracking() throws(HapticChipError) {
        guard fixedFrequency != nil, let configured, let registers = writtenActuator else { return }
        // Tracking first: LRA_PER written before it would be one more fixed frequency.
        try write(.topConfiguration1, [configured.topConfiguration1, configured.topConfiguration2])
        if configured.topConfiguration5 != configured.atFixedFrequency.topConfiguration5 {
            try write(.topConfiguration5, [configured.topConfiguration5])
        }
        if let period = registers.lraPeriod {
            try write(.lraPeriodHigh, DA7280Equations.periodBytes(period))
        }
        written = DA7280WrittenConfiguration(actuator: registers, configuration: configured)
        // Only once the chip has it all back: a failed write leaves it to the next stop.
        fixedFrequency = nil
        overrideFullScale = DA7280Equations.overrideFullScale(
            nominalMaximum: registers.nominalMaximum, absoluteMaximum: registers.absoluteMaximum,
            acceleration: DA7280Configuration.topConfiguration1Fields(for: actuator.kind).contains(.acceleration))
    }
}
