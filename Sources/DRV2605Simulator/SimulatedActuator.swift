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

