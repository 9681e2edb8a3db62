// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HardwareAccess

/// What the 8-slot sequencer plays: effects and waits, in order.
///
/// The chip stops at the first empty slot or after slot 8, and a wait is 10 ms steps up to 1.27 s;
/// both limits are checked here, so a sequence that exists can be played.
public struct WaveformSequence: Sendable, Hashable, CustomStringConvertible {
    public enum Step: Sendable, Hashable, CustomStringConvertible {
        case effect(Effect)
        /// A pause, 10 ms units, 1...127.
        case wait(tenMilliseconds: UInt8)

        /// The slot byte: an effect number, or WAIT (bit 7) and the length.
        public var slotByte: UInt8 {
            switch self {
            case let .effect(effect): return effect.rawValue
            case let .wait(units): return 0x80 | (units & 0x7F)
            }
        }
        public var estimatedDuration: Duration {
            switch self {
            case let .effect(effect): return effect.estimatedDuration
            case let .wait(units): return .milliseconds(Int(units) * 10)
            }
        }
        public var description: String {
            switch self {
            case let .effect(effect): return "effect \(effect.rawValue)"
            case let .wait(units): return "wait \(Int(units) * 10) ms"
            }
        }
    }

    public static let slotCount = 8
    public static let maximumWait: Duration = .milliseconds(1270)

    public let steps: [Step]

    public init(_ steps: [Step]) throws(HapticChipError) {
        guard !steps.isEmpty else { throw .invalidArgument("a sequence needs at least one step") }
        guard steps.count <= WaveformSequence.slotCount else {
            throw .invalidArgument("a sequence has at most 8 slots; this one has \(steps.count)")
        }
        for step in steps {
            if case let .wait(units) = step, units == 0 || units > 127 {
                throw .invalidArgument("a wait is 10 ms to 1270 ms in 10 ms steps; got \(Int(units) * 10) ms")
            }
        }
        self.steps = steps
    }

    /// A sequence of one effect.
    public init(_ effect: Effect) { steps = [.effect(effect)] }

    /// A wait step from a duration, rounded to 10 ms.
    public static func wait(_ duration: Duration) throws(HapticChipError) -> Step {
        let units = (duration.secondsDouble * 100).rounded()
        guard units >= 1, units <= 127 else {
            throw .invalidArgument("a wait is 10 ms to 1270 ms; got \(duration)")
        }
        return .wait(tenMilliseconds: UInt8(units))
    }

    /// The eight slot bytes, zero-filled (a zero ends the sequence).
    public var slotBytes: [UInt8] {
        var bytes = steps.map { $0.slotByte }
        bytes += [UInt8](repeating: 0, count: WaveformSequence.slotCount - bytes.count)
        return bytes
    }

    /// Whether eight slot bytes hold exactly this sequence (and zeros after it).
    public func matches(slots: [UInt8]) -> Bool {
        guard slots.count == WaveformSequence.slotCount else { return false }
        for index in 0..<WaveformSequence.slotCount {
            let expected: UInt8 = index < steps.count ? steps[index].slotByte : 0
            if slots[index] != expected { return false }
        }
        return true
    }

    /// Decodes slot registers as the chip reads them: up to the first zero.
    public init?(slotBytes: [UInt8]) {
        var steps: [Step] = []
        for byte in slotBytes.prefix(WaveformSequence.slotCount) {
            if byte == 0 { break }
            if byte & 0x80 != 0 {
                steps.append(.wait(tenMilliseconds: byte & 0x7F))
            } else if let effect = Effect(rawValue: byte) {
                steps.append(.effect(effect))
            } else {
                return nil
            }
        }
        guard !steps.isEmpty else { return nil }
        self.steps = steps
    }

    /// The sum of the steps' estimated durations.
    public var estimatedDuration: Duration { steps.reduce(.zero) { $0 + $1.estimatedDuration } }
    public var description: String { steps.map { $0.description }.joined(separator: ", ") }
}
