// SPDX-License-Identifier: Apache-2.0

/// How an LRA's acceleration falls off away from its resonance at equal drive: a mass on a spring
/// with damping, a second-order resonator (Precision Microdrives AB-020; TI SLOA194). Its
/// acceleration for a sinusoidal drive at `ω` is `ω²/√((ω₀²−ω²)² + (ω₀·ω/Q)²)` of the drive, `Q`
/// times the drive at resonance. What a chip needs to drive an LRA away from resonance and still
/// give the intensity it was asked for: more drive the farther it is, and no more than the rating.
public struct ResonantResponse: Sendable, Equatable {
    /// The actuator's resonance (its datasheet's, or what calibration measured).
    public var resonantHz: Double
    /// Resonance ÷ the bandwidth between the half-power points.
    public var q: Double

    /// Q 15, a bandwidth of about 12 Hz at 175 Hz: our assumption for a narrow-band coin LRA,
    /// whose datasheets (Precision Microdrives C10-100, the common breakouts') give no bandwidth.
    /// The same figure the simulated actuator uses (`ActuatorPhysics.coinLRA`).
    public static let assumedQ = 15.0

    /// An LRA resonating at `resonantHz` with quality factor `q`.
    public init(resonantHz: Double, q: Double = ResonantResponse.assumedQ) {
        self.resonantHz = resonantHz
        self.q = q
    }

    /// The acceleration at `hz` as a share of the acceleration at resonance, at equal drive: 1 at
    /// resonance, less on either side.
    public func relativeAcceleration(at hz: Double) -> Double {
        guard hz > 0, resonantHz > 0, q > 0 else { return 0 }
        let ratio = hz / resonantHz
        let detuning = 1 - ratio * ratio
        // ω²/√((ω₀²−ω²)² + (ω₀ω/Q)²), divided by its value Q at ω₀.
        return ratio * ratio / (q * (detuning * detuning + ratio * ratio / (q * q)).squareRoot())
    }

    /// The drive for `level` (a share of the rated acceleration at resonance) at `hz`, as a share
    /// of the rated drive: `level` ÷ the relative acceleration there, limited to the rating (±1).
    /// What a chip's `setRealTime` writes while it drives away from resonance.
    public func drive(for level: Double, at hz: Double) -> Double {
        let share = relativeAcceleration(at: hz)
        guard share > 0, level.isFinite else { return 0 }
        return min(1, max(-1, level / share))
    }

    /// The frequencies around resonance where the acceleration at equal drive stays at or above
    /// `share` of resonance's: found by bisection on each side, so it holds for any Q.
    public func band(keeping share: Double) -> ClosedRange<Double> {
        func edge(towards far: Double) -> Double {
            var near = resonantHz
            var outer = far
            for _ in 0..<60 {
                let middle = (near + outer) / 2
                if relativeAcceleration(at: middle) >= share { near = middle } else { outer = middle }
            }
            return near
        }
        return edge(towards: resonantHz / 2)...edge(towards: resonantHz * 2)
    }
}

/// The drive frequencies a chip renders sharpness with: sharpness 0 at `lowerHz`, 0.5 at the
/// actuator's resonance, 1 at `upperHz`, linear in frequency on each side. Sharpness is how a
/// designer asks for "soft, rounded, organic" (low) or "crisp, precise, mechanical" (high), as
/// Apple's guidelines put it: on an LRA it is the drive frequency, below or above resonance.
public struct DriveFrequencyBand: Sendable, Equatable {
    /// Sharpness 0.
    public var lowerHz: Double
    /// Sharpness 0.5: the actuator's resonance.
    public var resonantHz: Double
    /// Sharpness 1.
    public var upperHz: Double

    /// A band from `lowerHz` through `resonantHz` to `upperHz`.
    public init(lowerHz: Double, resonantHz: Double, upperHz: Double) {
        self.lowerHz = lowerHz
        self.resonantHz = resonantHz
        self.upperHz = upperHz
    }

    /// The share of resonance's acceleration an LRA keeps at the band's edges at full intensity,
    /// where the drive is already at the rated voltage and cannot make up the distance from
    /// resonance: 2.5 dB down, inside the ±3 dB a constant intensity is held to, with half a
    /// decibel left for the actuator's resonance being off its datasheet's.
    public static let edgeShare = 0.75

    /// The band for an LRA of `response` driven at most at its rated voltage: where its
    /// acceleration at the rated drive stays at or above `edgeShare` of resonance's (narrow, for a
    /// narrow-band coin LRA: the rating allows no more).
    public static func rated(_ response: ResonantResponse) -> DriveFrequencyBand {
        let band = response.band(keeping: edgeShare)
        return DriveFrequencyBand(lowerHz: band.lowerBound, resonantHz: response.resonantHz, upperHz: band.upperBound)
    }

    /// The drive frequency for `sharpness` (limited to 0...1).
    public func hz(sharpness: Double) -> Double {
        let value = sharpness.isFinite ? min(1, max(0, sharpness)) : 0.5
        return value < 0.5
            ? lowerHz + (resonantHz - lowerHz) * value * 2
            : resonantHz + (upperHz - resonantHz) * (value - 0.5) * 2
    }

    /// What a rendering report says about the band, e.g. "sharpness is rendered as the drive
    /// frequency, 165.4-175.4 Hz around the resonance at 170 Hz ...".
    public var summary: String {
        "sharpness is rendered as the drive frequency, \(Self.hertz(lowerHz))-\(Self.hertz(upperHz)) Hz around the resonance at "
            + "\(Self.hertz(resonantHz)) Hz: the band where the rated voltage keeps the acceleration within 2.5 dB of resonance's "
            + "(Q \(Self.hertz(ResonantResponse.assumedQ)) assumed)"
    }

    static func hertz(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(abs(tenths % 10))"
    }
}

/// An optional capability: the chip can drive its actuator's stream at a frequency it is given
/// (a DRV2605L's open-loop LRA drive at OL_LRA_PERIOD, a DA7280's LRA_PER with frequency tracking
/// off), which is how sharpness becomes something the hand feels. The engine asks for the
/// frequency each update's sharpness maps to in `driveFrequencyBand`; the chip makes up the
/// distance from resonance with more drive, never past the actuator's rated voltage. Chips
/// without it (ERMs, closed-loop-only parts, the kernel's vibrators) drive at resonance, and the
/// rendering report says continuous sharpness is not rendered there.
public protocol DriveFrequencyControl: HapticChipDriver {
    /// The band sharpness is rendered in, or nil when this chip and actuator cannot render it
    /// (an ERM on a chip that could), `driveFrequencyUnavailable` saying why.
    var driveFrequencyBand: DriveFrequencyBand? { get }
    /// Why `driveFrequencyBand` is nil, for the rendering report.
    var driveFrequencyUnavailable: String { get }
    /// The frequency the stream was last set to (within the band; a chip with coarse period steps
    /// drives the nearest step inside it); nil: at resonance, as the chip tracks it.
    var driveFrequency: Double? { get }
    /// Drives the real-time stream at `hz` (limited to the band) from the next level on, each
    /// level (a share of the rated acceleration at resonance) made up for the distance from
    /// resonance within the rated voltage; nil goes back to the chip's own resonance tracking.
    /// Only while streaming (`beginRealTimePlayback`); the stream's end goes back by itself.
    func setDriveFrequency(_ hz: Double?) throws(HapticChipError)
}
