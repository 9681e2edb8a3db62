// SPDX-License-Identifier: Apache-2.0

import DRV2605
import Foundation
import HapticChip
import HapticEffects

/// The actuator wired to the simulated chip, with the faults a real one can have. Calibration
/// and diagnostics give deterministic, plausible results from it.
public struct SimulatedActuator: Sendable, Hashable {
    /// ERM or LRA: how it responds to drive and what calibration finds.
    public var type: ActuatorType
    /// The LRA's resonance (ignored for an ERM).
    public var resonantHz: Double
    /// False: an open circuit (diagnostics say so; nothing moves).
    public var connected: Bool
    /// True: a short (over-current when driven).
    public var shorted: Bool
    /// VDD, reported through VBAT while driving.
    public var supplyVolts: Double

    /// A healthy actuator of `type` unless said otherwise.
    public init(type: ActuatorType, resonantHz: Double = 175, connected: Bool = true, shorted: Bool = false, supplyVolts: Double = 5.0) {
        self.type = type
        self.resonantHz = resonantHz
        self.connected = connected
        self.shorted = shorted
        self.supplyVolts = supplyVolts
    }

    /// A 175 Hz coin LRA.
    public static let typicalLRA = SimulatedActuator(type: .lra, resonantHz: 175)
    /// A small ERM.
    public static let typicalERM = SimulatedActuator(type: .erm)
}
