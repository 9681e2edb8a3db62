// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// The two kinds of actuator the chip drives.
public enum ActuatorType: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Eccentric rotating mass: a DC motor with an off-centre weight.
    case erm
    /// Linear resonant actuator: a mass on a spring, driven at its resonance.
    case lra
    public var description: String { rawValue.asciiUppercased() }
}

#if !hasFeature(Embedded)
    // Saved in board files and calibration records on Linux; firmware has no Codable.
    extension ActuatorType: Codable {}
#endif
