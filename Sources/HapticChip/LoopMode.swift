// SPDX-License-Identifier: Apache-2.0

/// How the chip drives the actuator.
public enum LoopMode: String, Sendable, CaseIterable {
    /// Back-EMF feedback: automatic overdrive and braking, and for an LRA resonance tracking.
    case closed
    /// No feedback: full scale is OD_CLAMP; an LRA is driven at OL_LRA_PERIOD.
    case open
}

#if !hasFeature(Embedded)
    // Saved in board files and calibration records on Linux; firmware has no Codable.
    extension LoopMode: Codable {}
#endif
