// SPDX-License-Identifier: Apache-2.0

/// How the chip drives the actuator.
public enum LoopMode: String, Sendable, Codable, CaseIterable {
    /// Back-EMF feedback: automatic overdrive and braking, and for an LRA resonance tracking.
    case closed
    /// No feedback: full scale is OD_CLAMP; an LRA is driven at OL_LRA_PERIOD.
    case open
}
