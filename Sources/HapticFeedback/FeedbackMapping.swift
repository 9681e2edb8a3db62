// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticEffects

/// Which plan plays for each feedback, per actuator class. Public and overridable (apps and
/// board files), because how a feedback feels depends on the actuator.
///
/// The choices keep the Human Interface Guidelines' properties: light < medium < heavy in
/// energy; soft starts gentler than rigid; selection is the shortest and lightest; success,
/// warning and error are distinct timelines; no two feedbacks share a plan, so none is redefined
/// to mean another. ERMs spin up slowly (40–140 ms rise in the ERM libraries), so their table
/// uses stronger, longer effects where an LRA would use a tick.
public struct FeedbackMapping: Sendable, Hashable {
    public var table: [FeedbackKind: FeedbackPlan]

    public init(table: [FeedbackKind: FeedbackPlan]) { self.table = table }

    #if !hasFeature(Embedded)
        /// The plan for a feedback at its intensity (see `FeedbackPlan.scaled(by:)`).
        public func plan(for feedback: Feedback, scale: Double = 1) -> FeedbackPlan? {
            table[feedback.kind]?.scaled(by: feedback.intensity * scale)
        }
    #else
        /// The plan for a feedback at full intensity: firmware has no model envelopes to scale a ROM
        /// effect by (they need `sin`), so intensity is the caller's to apply.
        public func plan(for feedback: Feedback) -> FeedbackPlan? { table[feedback.kind] }
    #endif

    public mutating func override(_ kind: FeedbackKind, with plan: FeedbackPlan) { table[kind] = plan }

    /// A chip module's own table (`envelopes`, by feedback name), each envelope played as a
    /// real-time clip sampled every `tick`; kinds the table does not name keep `fallback`'s plan.
    /// Names that are not feedback kinds are ignored.
    public init(envelopes: [String: DriveEnvelope], fallback: FeedbackMapping, tick: Duration = .milliseconds(5)) {
        var table = fallback.table
        let tickMilliseconds = Double(tick.components.seconds) * 1000 + Double(tick.components.attoseconds) / 1e15
        for kind in FeedbackKind.all {
            guard let envelope = envelopes[kind.name] else { continue }
            table[kind] = .realTime(RealTimeClip(tick: tick, levels: envelope.levels(tickMilliseconds: tickMilliseconds)))
        }
        self.init(table: table)
    }

    /// The project's table for an actuator class.
    public static func standard(for actuator: ActuatorType) -> FeedbackMapping {
        func rom(_ steps: [WaveformSequence.Step]) -> FeedbackPlan {
            // Every table entry has 1...8 steps and valid waits; the fallback is never taken.
            .rom((try? WaveformSequence(steps)) ?? WaveformSequence(.strongClick100))
        }
        func e(_ number: UInt8) -> WaveformSequence.Step { .effect(Effect(rawValue: number) ?? .strongClick100) }
        func wait(_ milliseconds: UInt8) -> WaveformSequence.Step { .wait(tenMilliseconds: milliseconds / 10) }

        // Rows, then one loop: a dictionary literal of plans compiles to much more code (firmware
        // counts its flash).
        var rows: [(FeedbackKind, [WaveformSequence.Step])] = [
            (.impact(.soft), [e(7)]),  // Soft Bump 100%: gentle onset
            (.impact(.rigid), [e(4)]),  // Sharp Click 100%: hard onset
            (.notification(.success), [e(2), wait(80), e(1)]),  // rising pair
            (.notification(.warning), [e(1), wait(150), e(2)]),  // falling pair, longer gap
            (.notification(.error), [e(1), wait(60), e(1), wait(60), e(1), wait(60), e(1)]),  // four strong
            (.pathCompleted, [e(27)]),  // Short Double Click Strong 1
            (.increase, [e(86)]),  // Ramp Up Short Smooth
            (.decrease, [e(74)]),  // Ramp Down Short Smooth
            (.start, [e(58), wait(80), e(1)]),  // transition click, then strong
            (.stop, [e(1), wait(80), e(58)]),  // strong, then transition click
            (.vibration(.default), [e(16)]),  // 1000 ms Alert
            (.vibration(.alert), [e(14), wait(100), e(14)]),  // two Strong Buzz
            (.taptic(.peek), [e(3)]),  // weak
            (.taptic(.pop), [e(17)]),  // Strong Click 1 - 100%
            (.taptic(.cancelled), [e(3), wait(50), e(3), wait(50), e(3)]),
            (.taptic(.tryAgain), [e(3), wait(100), e(17)]),
            (.taptic(.failed), [e(17), wait(100), e(17), wait(100), e(17)])
        ]
        var heavyERM: FeedbackPlan?
        switch actuator {
        case .lra:
            rows.append((.impact(.light), [e(2)]))  // Strong Click 60%
            rows.append((.impact(.medium), [e(18)]))  // Strong Click 2 - 80%
            rows.append((.impact(.heavy), [e(1)]))  // Strong Click 100%
            rows.append((.selection, [e(26)]))  // Sharp Tick 3 - 60%: shortest, lightest
            rows.append((.alignment, [e(24)]))  // Sharp Tick 1 - 100%
            rows.append((.levelChange, [e(25)]))  // Sharp Tick 2 - 80%
        case .erm:
            rows.append((.impact(.light), [e(18)]))  // Strong Click 2 - 80%
            rows.append((.impact(.medium), [e(1)]))  // Strong Click 100%
            // No ROM click is stronger than Strong Click 100%, and two back to back (as heavy
            // used to be) feel like a double click. One longer push instead: 80 ms at full scale,
            // then 15 ms of brake (open loop; in closed loop the chip brakes by itself).
            heavyERM = .realTime(RealTimeClip(tick: .milliseconds(5), levels: Array(repeating: 1, count: 16) + Array(repeating: -1, count: 3)))
            rows.append((.selection, [e(24)]))  // Sharp Tick 1 - 100%: a weaker tick barely moves an ERM
            rows.append((.alignment, [e(21)]))  // Medium Click 1 - 100%
            rows.append((.levelChange, [e(34)]))  // Short Double Sharp Tick 1
        }
        var table: [FeedbackKind: FeedbackPlan] = [:]
        for (kind, steps) in rows { table[kind] = rom(steps) }
        if let heavyERM { table[.impact(.heavy)] = heavyERM }
        return FeedbackMapping(table: table)
    }
}
