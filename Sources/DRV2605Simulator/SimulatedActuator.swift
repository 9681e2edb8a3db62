import Foundation
import DRV2605

/// The actuator wired to the simulated chip, with the faults a real one can have. Calibration
/// and diagnostics give deterministic, plausible results from it.
public struct SimulatedActuator: Sendable, Hashable {
    public var type: ActuatorType
    /// The LRA's resonance (ignored for an ERM).
    public var resonantHz: Double
    public var connected: Bool
    public var shorted: Bool
    /// VDD, reported through VBAT while driving.
    public var supplyVolts: Double

    public init(type: ActuatorType, resonantHz: Double = 175, connected: Bool = true, shorted: Bool = false, supplyVolts: Double = 5.0) {
        self.type = type
        self.resonantHz = resonantHz
        self.connected = connected
        self.shorted = shorted
        self.supplyVolts = supplyVolts
    }

    public static let typicalLRA = SimulatedActuator(type: .lra, resonantHz: 175)
    public static let typicalERM = SimulatedActuator(type: .erm)
}

/// Drive envelopes for ROM effects, sampled on the chip's 5 ms playback grid.
///
/// TI publishes no waveforms; these follow the effects' names (a click kicks and brakes, a bump
/// rises and falls smoothly, a ramp ramps) so that tests can compare feedbacks by what the
/// actuator is driven with. They are the simulator's model, not measurements.
enum EffectEnvelope {
    static func levels(for effect: Effect, duration: Duration, tick: Duration) -> [Double] {
        let profile = effect.profile
        let count = max(1, Int((duration.secondsDouble / tick.secondsDouble).rounded()))
        let s = profile.strength
        return (0..<count).map { index in
            let u = (Double(index) + 0.5) / Double(count)
            switch profile.family {
            case .click, .sharpClick, .transitionClick, .tick:
                return u < 0.65 ? s : (u < 0.9 ? -0.5 * s : 0)
            case .bump:
                return s * sin(Double.pi * u)
            case .doubleClick, .doubleTick:
                return (u < 0.3 || (u >= 0.55 && u < 0.85)) ? s : 0
            case .tripleClick:
                let phase = (u * 3).truncatingRemainder(dividingBy: 1)
                return phase < 0.6 ? s : 0
            case .fuzz:
                return index % 2 == 0 ? s : 0.5 * s
            case .buzz, .alert, .longBuzz:
                return u < 0.93 ? s : -0.5 * s
            case .transitionHum, .smoothHum:
                return s
            case .pulsing:
                return (u * 4).truncatingRemainder(dividingBy: 1) < 0.5 ? s : 0
            case .rampUp, .rampDown:
                return profile.startStrength + (profile.endStrength - profile.startStrength) * u
            }
        }
    }
}
