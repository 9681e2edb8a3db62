// SPDX-License-Identifier: Apache-2.0

import Foundation
import HardwareAccess
import HardwareSimulation
import Testing

/// The actuator's motion from its drive (`ActuatorPhysics`): an LRA rings at its resonance and
/// is felt less away from it, a brake stops it, an ERM spins up and down with its time constants.
@Suite struct ActuatorPhysicsTests {
    /// A drive of `level` from 0 to `seconds`, then nothing.
    static func step(_ level: Double, for seconds: Double, then after: Double = 0, afterSeconds: Double = 0) -> ActuatorRecord {
        var record = ActuatorRecord()
        record.set(level, at: .zero)
        if afterSeconds > 0 { record.set(after, at: .zero.advanced(by: .secondsClamped(seconds))) }
        record.set(0, at: .zero.advanced(by: .secondsClamped(seconds + afterSeconds)))
        return record
    }

    /// The largest |acceleration| between two times, in g.
    static func peak(_ samples: [ActuatorPhysics.Sample], from: Double, to: Double) -> Double {
        samples.filter { $0.time >= from && $0.time < to }.map { abs($0.accelerationG) }.max() ?? 0
    }

    @Test func anLRAAtResonanceReachesItsRatedAccelerationAndFallsOffAwayFromIt() {
        let model = ActuatorPhysics.coinLRA
        let record = Self.step(1, for: 0.5)
        let atResonance = model.simulate(record, from: .zero, to: .zero.advanced(by: .milliseconds(500)))
        let steady = Self.peak(atResonance, from: 0.4, to: 0.5)
        #expect(abs(steady - 1.4) < 0.03, "\(steady) g at resonance")
        // Off resonance: the integrated model agrees with the resonator's closed form, and is felt
        // far less at 150 Hz than at 175.
        let off = model.simulate(record, from: .zero, to: .zero.advanced(by: .milliseconds(500)), driveHz: { _ in 150 })
        let offSteady = Self.peak(off, from: 0.4, to: 0.5)
        #expect(abs(offSteady - model.steadyAmplitudeG(at: 150)) / model.steadyAmplitudeG(at: 150) < 0.05, "\(offSteady) g at 150 Hz")
        #expect(offSteady < steady / 2)
        // A third of the drive, a third of the acceleration: the model is linear.
        let third = Self.peak(model.simulate(Self.step(1.0 / 3, for: 0.5), from: .zero, to: .zero.advanced(by: .milliseconds(500))), from: 0.4, to: 0.5)
        #expect(abs(third - steady / 3) < 0.02)
    }

    /// Without a brake an LRA rings on with its time constant, 2Q/ω₀ (27 ms for the coin: Q 15 at
    /// 175 Hz); driven in antiphase for long enough it stops.
    @Test func anLRARingsOnUnlessBraked() {
        let model = ActuatorPhysics.coinLRA
        let end = ClockInstant.zero.advanced(by: .milliseconds(400))
        let free = model.simulate(Self.step(1, for: 0.3), from: .zero, to: end)
        let atStop = Self.peak(free, from: 0.295, to: 0.3)
        let constant = 2 * 15 / (2 * Double.pi * 175)
        let later = Self.peak(free, from: 0.3 + constant - 0.003, to: 0.3 + constant + 0.003)
        #expect(abs(later / atStop - exp(-1)) < 0.06, "\(later / atStop) of the amplitude one time constant after the drive stopped")
        // Full drive in antiphase takes the amplitude down with the same time constant, toward
        // the opposite phase: it crosses zero after τ·ln 2 (19 ms), where the brake ends.
        let braked = model.simulate(Self.step(1, for: 0.3, then: -1, afterSeconds: 0.018), from: .zero, to: end)
        let afterBrake = Self.peak(braked, from: 0.32, to: 0.33)
        let unbraked = Self.peak(free, from: 0.32, to: 0.33)
        #expect(afterBrake < unbraked / 5, "braked \(afterBrake) g, free \(unbraked) g")
    }

    /// An ERM's vibration grows with the square of its speed, which follows the drive with its
    /// spin-up constant (20 ms for the coin) and coasts down with its spin-down one (45 ms).
    @Test func anERMSpinsUpAndDownWithItsTimeConstants() {
        let model = ActuatorPhysics.coinERM
        let samples = model.simulate(Self.step(1, for: 0.3), from: .zero, to: .zero.advanced(by: .milliseconds(500)))
        let oneConstant = Self.peak(samples, from: 0.017, to: 0.023)
        #expect(abs(oneConstant - pow(1 - exp(-1), 2)) < 0.08, "\(oneConstant) g one spin-up constant in")
        #expect(abs(Self.peak(samples, from: 0.25, to: 0.3) - 1.0) < 0.03)
        let coasting = Self.peak(samples, from: 0.3 + 0.045 - 0.004, to: 0.3 + 0.045 + 0.004)
        #expect(abs(coasting - exp(-2)) < 0.05, "\(coasting) g one spin-down constant after the drive stopped")
        // Reverse drive brakes it with the spin-up constant: far less left 20 ms on.
        let braked = model.simulate(Self.step(1, for: 0.3, then: -1, afterSeconds: 0.015), from: .zero, to: .zero.advanced(by: .milliseconds(400)))
        #expect(Self.peak(braked, from: 0.318, to: 0.322) < Self.peak(samples, from: 0.318, to: 0.322) / 2)
    }

    @Test func theCSVHasItsHeaderAndOneLineASampleAt8kHz() {
        let samples = ActuatorPhysics.coinLRA.simulate(Self.step(0.5, for: 0.01), from: .zero, to: .zero.advanced(by: .milliseconds(10)))
        #expect(samples.count == 81)
        let lines = ActuatorPhysics.csv(samples).split(separator: "\n")
        #expect(lines.first == "time_s,drive,acceleration_g" && lines.count == 82)
        #expect(lines[2].hasPrefix("0.000125,0.5000,"), "\(lines[2])")
    }
}
