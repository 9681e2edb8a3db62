// SPDX-License-Identifier: Apache-2.0

/// The two kinds of actuator the chip drives.
public enum ActuatorType: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// Eccentric rotating mass: a DC motor with an off-centre weight.
    case erm
    /// Linear resonant actuator: a mass on a spring, driven at its resonance.
    case lra
    public var description: String { rawValue.uppercased() }
}
