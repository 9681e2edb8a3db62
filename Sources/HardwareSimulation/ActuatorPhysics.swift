// SPDX-License-Identifier: Apache-2.0

import Foundation
import HardwareAccess

/// What an actuator does with the drive a chip gives it: the acceleration, in g, that a hand on the
/// device feels. The simulated chips record their drive (`ActuatorRecord`); this turns it into
/// motion, so that a test or a designer can tell whether a rendering would feel like its design:
/// a click that rings on, a buzz that starts late, a drive off resonance that is felt weakly.
///
/// The models and their sources:
/// - An LRA is a mass on a spring with damping, a second-order resonator (Precision Microdrives,
///   AB-020 "Understanding linear resonant actuator characteristics"; TI SLOA194): for the force
///   `u(t)` of the drive, `x'' + (ω₀/Q)·x' + ω₀²·x = g·u(t)`, and the acceleration felt is `x''`.
///   Driven at its resonance `ω₀` its acceleration is `Q·g` times the drive; away from it, it falls
///   as `ω²/√((ω₀²−ω²)² + (ω₀·ω/Q)²)` of that. `g` is chosen so that full-scale drive at resonance
///   gives the rated acceleration. The chip drives an AC signal whose envelope is the recorded
///   level, at the frequency `driveHz` says (its resonance in closed loop); a negative level is
///   the drive in antiphase, which brakes the mass.
/// - An ERM is a DC motor with an off-centre mass (Precision Microdrives, AB-004 "Understanding
///   ERM vibration motor characteristics"): its speed follows the drive with a first-order lag, a
///   spin-up time constant while the drive pushes it faster, a longer spin-down one while it
///   coasts; reverse drive (braking) slows it with the spin-up constant. The vibration is the
///   centripetal force of the mass, so its frequency is proportional to the speed and its
///   acceleration to the speed squared: rated acceleration at rated speed.
///
/// Defaults where a datasheet gives none are named on each preset.
public struct ActuatorPhysics: Sendable, Equatable {
    /// The kind of actuator and the figures its motion depends on.
    public enum Kind: Sendable, Equatable {
        /// A linear resonant actuator: its resonance and quality factor (resonance ÷ the bandwidth
        /// between the half-power points).
        case lra(resonantHz: Double, q: Double)
        /// An eccentric rotating mass: its vibration frequency at rated voltage, and the time
        /// constants (to 63 %) of its speed spinning up and coasting down.
        case erm(ratedHz: Double, spinUpSeconds: Double, spinDownSeconds: Double)
    }

    /// What is modelled.
    public var kind: Kind
    /// The peak acceleration at full-scale drive, at steady state (at resonance for an LRA), in g.
    public var ratedAccelerationG: Double

    /// A model of `kind` reaching `ratedAccelerationG` at full drive.
    public init(kind: Kind, ratedAccelerationG: Double) {
        self.kind = kind
        self.ratedAccelerationG = ratedAccelerationG
    }

    /// A 10 mm coin LRA of the common breakouts: 175 Hz, 1.4 g at rated voltage (Precision
    /// Microdrives C10-100's datasheet). Q 15 (a bandwidth of about 12 Hz) is our assumption for
    /// a narrow-band coin LRA: its datasheet gives no bandwidth.
    public static let coinLRA = ActuatorPhysics(kind: .lra(resonantHz: 175, q: 15), ratedAccelerationG: 1.4)
    /// A 10 mm 3 V coin ERM: 12 000 rpm (200 Hz) and about 1 g at rated voltage (Precision
    /// Microdrives 310-101 class); time constants 20 ms up and 45 ms down, our reading of that
    /// class's typical lag, rise and stop times.
    public static let coinERM = ActuatorPhysics(kind: .erm(ratedHz: 200, spinUpSeconds: 0.020, spinDownSeconds: 0.045), ratedAccelerationG: 1.0)

    /// The model for an actuator of a board file: an LRA at its resonance, an ERM as the coin.
    public static func typical(lra resonantHz: Double?) -> ActuatorPhysics {
        guard let resonantHz, case let .lra(_, q) = coinLRA.kind else { return coinERM }
        return ActuatorPhysics(kind: .lra(resonantHz: resonantHz, q: q), ratedAccelerationG: coinLRA.ratedAccelerationG)
    }

    /// One sample of the motion.
    public struct Sample: Sendable, Equatable {
        /// Seconds from the start.
        public var time: Double
        /// The chip's drive level then, as a share of the actuator's rated drive (the AC drive's
        /// envelope on an LRA; −1...1 unless a chip's full scale is above the rating).
        public var drive: Double
        /// The acceleration felt, in g.
        public var accelerationG: Double
    }

    /// Samples a second: the CSV's rate (`haptic ... --acceleration-csv`).
    public static let sampleRate = 8000.0
    /// Integration steps per sample: the resonator is stepped at 64 kHz, where semi-implicit Euler
    /// is accurate to well under 1 % for a 175 Hz resonance.
    static let substeps = 8

    /// The motion `record`'s drive produces from `start` to `end`, at 8 kHz, from rest: each
    /// sample's level times its `rating` (full scale as a share of the rated drive), at its
    /// frequency (`ActuatorRecord.Sample.hz`: the period a chip was given with its tracking off;
    /// nil, at resonance). `driveHz`, when given, overrides the record's frequency.
    public func simulate(
        _ record: ActuatorRecord, from start: ClockInstant, to end: ClockInstant, driveHz: ((ClockInstant) -> Double)? = nil
    ) -> [Sample] {
        let seconds = max(0, end.duration(since: start).secondsDouble)
        let count = Int((seconds * Self.sampleRate).rounded(.down)) + 1
        let step = 1 / (Self.sampleRate * Double(Self.substeps))
        var samples: [Sample] = []
        samples.reserveCapacity(count)
        var state = Motion()
        for index in 0..<count {
            let time = Double(index) / Self.sampleRate
            let instant = start.advanced(by: .secondsClamped(time))
            let driven = record.sample(at: instant)
            let level = driven?.ratedLevel ?? 0
            let hz = driveHz?(instant) ?? driven?.hz
            var acceleration = 0.0
            for _ in 0..<Self.substeps { acceleration = advance(&state, level: level, driveHz: hz, by: step) }
            samples.append(Sample(time: time, drive: level, accelerationG: acceleration))
        }
        return samples
    }

    /// The state carried between steps: the mass's place and speed (LRA), the motor's speed as a
    /// share of rated (ERM), and the drive's or the rotor's phase.
    struct Motion {
        var position = 0.0
        var velocity = 0.0
        var speed = 0.0
        var phase = 0.0
    }

    /// One integration step; returns the acceleration at its end, in g.
    func advance(_ motion: inout Motion, level: Double, driveHz: Double?, by step: Double) -> Double {
        switch kind {
        case let .lra(resonantHz, q):
            let natural = 2 * Double.pi * resonantHz
            motion.phase += 2 * Double.pi * (driveHz ?? resonantHz) * step
            if motion.phase > 2 * Double.pi { motion.phase -= 2 * Double.pi }
            // Full-scale drive at resonance: an acceleration of Q·gain, the rated one.
            let force = ratedAccelerationG / q * level * sin(motion.phase)
            let acceleration = force - natural / q * motion.velocity - natural * natural * motion.position
            motion.velocity += acceleration * step
            motion.position += motion.velocity * step
            return acceleration
        case let .erm(ratedHz, spinUp, spinDown):
            let target = max(-1, min(1, level))
            // Driven faster, or braked by reverse drive: the motor's torque; else it coasts.
            let braking = target != 0 && motion.speed != 0 && (target > 0) != (motion.speed > 0)
            let faster = target != 0 && abs(target) > abs(motion.speed)
            let constant = braking || faster ? spinUp : spinDown
            motion.speed += (target - motion.speed) * min(1, step / constant)
            motion.phase += 2 * Double.pi * ratedHz * motion.speed * step
            if abs(motion.phase) > 2 * Double.pi { motion.phase = motion.phase.truncatingRemainder(dividingBy: 2 * Double.pi) }
            return ratedAccelerationG * motion.speed * motion.speed * sin(motion.phase)
        }
    }

    /// The amplitude of acceleration at steady state for full drive at `hz`, in g: what the model
    /// gives, in closed form (the resonator's response; an ERM's rated figure at any frequency).
    public func steadyAmplitudeG(at hz: Double) -> Double {
        switch kind {
        case let .lra(resonantHz, q):
            let natural = 2 * Double.pi * resonantHz
            let driven = 2 * Double.pi * hz
            let gain = ratedAccelerationG / q
            let square = (natural * natural - driven * driven) * (natural * natural - driven * driven) + (natural * driven / q) * (natural * driven / q)
            return gain * driven * driven / square.squareRoot()
        case .erm:
            return ratedAccelerationG
        }
    }

    /// The samples as CSV: `time_s,drive,acceleration_g`, one line each.
    public static func csv(_ samples: [Sample]) -> String {
        var text = "time_s,drive,acceleration_g\n"
        text.reserveCapacity(samples.count * 28)
        for sample in samples {
            text += String(format: "%.6f,%.4f,%.5f\n", sample.time, sample.drive, sample.accelerationG)
        }
        return text
    }
}
