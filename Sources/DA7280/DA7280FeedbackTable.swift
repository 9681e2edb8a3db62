// SPDX-License-Identifier: Apache-2.0

import HapticChip

/// The DA7280's own feedback table: what each feedback drives, by name, as the DRO stream.
///
/// Designed for this chip rather than borrowed from TI's ROM: with ACCELERATION_EN the chip
/// overdrives to reach a level within a cycle and, with RAPID_STOP_EN, brakes when the level
/// returns to zero, so a click is a short flat step at the level wanted (about two cycles of a
/// 170 Hz LRA, fitted to the LRA's half-periods), not an overdrive-and-brake shape. The Human Interface Guidelines' properties are
/// kept: light < medium < heavy in energy, soft ramps in where rigid steps, selection is the
/// shortest and lightest, success, warning and error are distinct timelines, and no two
/// feedbacks drive the same. A coin ERM (no acceleration, no braking) has no table here: it plays
/// the standard table's envelopes. Felt on no DA7280 yet: levels and lengths are ours.
public enum DA7280FeedbackTable {
    typealias Step = DriveEnvelope.Step

    /// The table for an actuator (nil for a coin ERM). An LRA's drives are fitted to its
    /// resonance (`fitted(_:resonantHz:)`); a bar ERM has no resonance to fit to, and plays the
    /// table as designed.
    public static func envelopes(for actuator: DA7280Actuator) -> [String: DriveEnvelope]? {
        switch actuator.kind {
        case .ermCoin: return nil
        case .ermBar: return lra
        case .lra:
            guard let hz = actuator.resonantHz else { return lra }
            return lra.mapValues { fitted($0, resonantHz: hz) }
        }
    }

    /// `envelope` with each drive (the steps between silences) lengthened, by its last step, to
    /// more than three half-periods of the resonance and to a whole number of them. The chip
    /// takes a new OVERRIDE_VAL only at a zero crossing of the output, twice a period, and its
    /// rapid stop brakes only a drive longer than three half-periods [DS §5.7.2, §5.7.8]: a
    /// shorter click would ring on unbraked, and one ending between crossings ends at the next.
    public static func fitted(_ envelope: DriveEnvelope, resonantHz: Double) -> DriveEnvelope {
        guard resonantHz.isFinite, resonantHz > 0 else { return envelope }
        let half = 500 / resonantHz
        var steps = envelope.steps
        var runStart: Int?
        func close(_ end: Int) {
            guard let start = runStart else { return }
            let length = steps[start..<end].reduce(0) { $0 + $1.milliseconds }
            let halves = max(brakingHalfPeriods + 1, (length / half - 1e-9).rounded(.up))
            steps[end - 1].milliseconds += halves * half - length
            runStart = nil
        }
        for index in steps.indices {
            if steps[index].level > 0 {
                if runStart == nil { runStart = index }
            } else {
                close(index)
            }
        }
        close(steps.count)
        return DriveEnvelope(steps)
    }

    /// The feedbacks to keep in the chip's waveform memory, most wanted first: the taps of an
    /// interface, whose latency is felt, then the notifications. What does not fit streams.
    public static let memoryOrder = [
        "selection", "impact-light", "impact-medium", "impact-heavy", "impact-rigid", "impact-soft", "alignment", "level-change",
        "success", "warning", "error", "taptic-peek", "taptic-pop", "path-complete", "start", "stop", "taptic-cancelled",
        "taptic-try-again", "taptic-failed", "increase", "decrease"
    ]

    /// The actuator's table in `memoryOrder`, for `DA7280Driver.Options.storedFeedbacks` (empty
    /// for a coin ERM, which has no table).
    public static func storedFeedbacks(for actuator: DA7280Actuator) -> [(name: String, envelope: DriveEnvelope)] {
        guard let table = envelopes(for: actuator) else { return [] }
        return memoryOrder.compactMap { name in table[name].map { (name, $0) } }
    }

    /// The half-periods a drive must exceed for the chip's rapid stop to brake it [DS §5.7.2].
    public static let brakingHalfPeriods = 3.0

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
