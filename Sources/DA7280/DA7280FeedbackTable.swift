// SPDX-License-Identifier: Apache-2.0

import HapticChip

/// The DA7280's own feedback table: what each feedback drives, by name, as the DRO stream.
///
/// Designed for this chip rather than borrowed from TI's ROM: with ACCELERATION_EN the chip
/// overdrives to reach a level within a cycle and, with RAPID_STOP_EN, brakes when the level
/// returns to zero, so a click is a short flat step at the level wanted (about two cycles of a
/// 170 Hz LRA), not an overdrive-and-brake shape. The Human Interface Guidelines' properties are
/// kept: light < medium < heavy in energy, soft ramps in where rigid steps, selection is the
/// shortest and lightest, success, warning and error are distinct timelines, and no two
/// feedbacks drive the same. A coin ERM (no acceleration, no braking) has no table here: it plays
/// the standard table's envelopes. Felt on no DA7280 yet: levels and lengths are ours.
public enum DA7280FeedbackTable {
    typealias Step = DriveEnvelope.Step

    /// The table for an actuator (nil for a coin ERM).
    public static func envelopes(for kind: DA7280Actuator.Kind) -> [String: DriveEnvelope]? {
        kind == .ermCoin ? nil : lra
    }

    /// An LRA (and a bar ERM, which the chip also accelerates and brakes).
    public static let lra: [String: DriveEnvelope] = [
        "impact-light": DriveEnvelope([Step(0.5, 12)]),
        "impact-medium": DriveEnvelope([Step(0.75, 14)]),
        "impact-heavy": DriveEnvelope([Step(1, 18)]),
        "impact-soft": DriveEnvelope(DriveEnvelope.ramp(from: 0.3, to: 0.8, milliseconds: 24)),
        "impact-rigid": DriveEnvelope([Step(1, 10)]),
        "selection": DriveEnvelope([Step(0.4, 8)]),
        "alignment": DriveEnvelope([Step(0.8, 8)]),
        "level-change": DriveEnvelope([Step(0.6, 10)]),
        "success": DriveEnvelope([Step(0.6, 12), Step(0, 80), Step(1, 16)]),
        "warning": DriveEnvelope([Step(1, 16), Step(0, 150), Step(0.6, 12)]),
        "error": DriveEnvelope([Step(1, 14), Step(0, 60), Step(1, 14), Step(0, 60), Step(1, 14), Step(0, 60), Step(1, 14)]),
        "path-complete": DriveEnvelope([Step(1, 10), Step(0, 40), Step(1, 10)]),
        "increase": DriveEnvelope(DriveEnvelope.ramp(from: 0.2, to: 1, milliseconds: 60)),
        "decrease": DriveEnvelope(DriveEnvelope.ramp(from: 1, to: 0.2, milliseconds: 60)),
        "start": DriveEnvelope([Step(0.5, 10), Step(0, 80), Step(1, 14)]),
        "stop": DriveEnvelope([Step(1, 14), Step(0, 80), Step(0.5, 10)]),
        "vibration-default": DriveEnvelope([Step(0.9, 1000)]),
        "vibration-alert": DriveEnvelope([Step(1, 300), Step(0, 100), Step(1, 300)]),
        "taptic-peek": DriveEnvelope([Step(0.45, 10)]),
        "taptic-pop": DriveEnvelope([Step(1, 12)]),
        "taptic-cancelled": DriveEnvelope([Step(0.45, 10), Step(0, 50), Step(0.45, 10), Step(0, 50), Step(0.45, 10)]),
        "taptic-try-again": DriveEnvelope([Step(0.45, 10), Step(0, 100), Step(1, 12)]),
        "taptic-failed": DriveEnvelope([Step(1, 12), Step(0, 100), Step(1, 12), Step(0, 100), Step(1, 12)])
    ]
}
