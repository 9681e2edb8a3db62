// SPDX-License-Identifier: Apache-2.0

/// An actuator as its datasheet describes it: what every chip's drive limits are computed from
/// (a DRV2605's RATED_VOLTAGE and OD_CLAMP, a DA7280's nominal and maximum), so that nobody has
/// to guess them.
public enum ActuatorSpecification: Sendable, Hashable {
    /// A linear resonant actuator: rated and maximum RMS voltage, resonant frequency.
    case lra(ratedVrms: Double, maximumVrms: Double, resonantHz: Double)
    /// An eccentric rotating mass motor: rated (average) and maximum voltage.
    case erm(ratedVolts: Double, maximumVolts: Double)

    /// The coin LRA of the common breakouts (Adafruit, SparkFun): 2.0 Vrms rated, 2.5 Vrms
    /// maximum, 175 Hz. What the CLI assumes without a board file, and what tests and examples use.
    public static let typicalLRA = ActuatorSpecification.lra(ratedVrms: 2.0, maximumVrms: 2.5, resonantHz: 175)
    /// A small 3 V ERM (3.6 V maximum), the usual pager/coin motor.
    public static let typicalERM = ActuatorSpecification.erm(ratedVolts: 3.0, maximumVolts: 3.6)

    /// The typical actuator of `type` (`typicalLRA` or `typicalERM`).
    public static func typical(_ type: ActuatorType) -> ActuatorSpecification {
        type == .lra ? typicalLRA : typicalERM
    }

    public var type: ActuatorType {
        switch self {
        case .lra: return .lra
        case .erm: return .erm
        }
    }
}

#if !hasFeature(Embedded)
    // Saved in board files and calibration records on Linux; firmware has no Codable.
    extension ActuatorSpecification: Codable {}
#endif
