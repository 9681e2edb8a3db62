// SPDX-License-Identifier: Apache-2.0

/// One force-feedback effect as a Linux input client uploads it (`struct ff_effect`), reduced to
/// what a single vibration actuator can render. Magnitudes are normalised: 0...1 (rumble,
/// envelope levels) or -1...1 (periodic, constant).
public struct ForceFeedbackEffect: Sendable, Equatable {
    /// What the effect is.
    public enum Kind: Sendable, Equatable {
        /// Two motors: a heavy (strong) and a light (weak) one.
        case rumble(strong: Double, weak: Double)
        /// A periodic force of `waveform`, `magnitude` around `offset`, every `period`.
        case periodic(waveform: Waveform, magnitude: Double, offset: Double, period: Duration)
        /// A steady force.
        case constant(level: Double)
    }

    /// FF_SQUARE ... FF_SAW_DOWN.
    public enum Waveform: Sendable, Equatable {
        case square, triangle, sine, sawUp, sawDown
    }

    /// How the effect fades in and out (`struct ff_envelope`). The levels are absolute, as
    /// input.h defines them (0 to 0x7fff, here 0...1), not fractions of the effect's level.
    public struct Envelope: Sendable, Equatable {
        /// How long the fade-in lasts.
        public var attackLength: Duration
        /// Where the fade-in starts: an absolute level, 0...1.
        public var attackLevel: Double
        /// How long the fade-out at the end lasts.
        public var fadeLength: Duration
        /// Where the fade-out ends: an absolute level, 0...1.
        public var fadeLevel: Double

        /// An envelope; the defaults change nothing.
        public init(attackLength: Duration = .zero, attackLevel: Double = 1, fadeLength: Duration = .zero, fadeLevel: Double = 1) {
            self.attackLength = attackLength
            self.attackLevel = attackLevel
            self.fadeLength = fadeLength
            self.fadeLevel = fadeLevel
        }
    }

    /// The id the kernel gave it (what play, stop and erase name).
    public var id: Int
    /// What the effect is.
    public var kind: Kind
    /// How long one playback lasts; zero means until stopped.
    public var length: Duration
    /// The wait between the play request and the start.
    public var delay: Duration
    /// Its fade-in and fade-out (none for rumble).
    public var envelope: Envelope

    /// An effect as uploaded.
    public init(id: Int, kind: Kind, length: Duration, delay: Duration = .zero, envelope: Envelope = Envelope()) {
        self.id = id
        self.kind = kind
        self.length = length
        self.delay = delay
        self.envelope = envelope
    }
}

/// What a force-feedback client asked for.
public enum ForceFeedbackEvent: Sendable, Equatable {
    /// An effect was uploaded (new or updated); the device has already accepted it.
    case upload(ForceFeedbackEffect)
    /// Effect `id` was erased.
    case erase(id: Int)
    /// Play effect `id`, `count` times in a row.
    case play(id: Int, count: Int)
    /// Stop effect `id`.
    case stop(id: Int)
    /// The master gain, 0...1.
    case gain(Double)
}

#if !hasFeature(Embedded)
    /// A force-feedback input device that programs use as a game pad's or a phone's vibrator: the
    /// Linux one is a uinput device (`UInputForceFeedbackDevice`); tests script one.
    public protocol ForceFeedbackDevice: AnyObject, Sendable {
        /// The next request, or nil when none came within `timeout`.
        func nextEvent(timeout: Duration) throws -> ForceFeedbackEvent?
        /// Removes the device.
        func close()
    }
#endif

/// Why the force-feedback device could not be made or read, with what to do.
public struct ForceFeedbackDeviceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was being done.
    public var operation: String
    /// The device file.
    public var path: String
    /// The system's error, when there was one.
    public var errno: Int32?
    /// What happened and what to do.
    public var detail: String

    /// An error of `operation` on `path`.
    public init(operation: String, path: String, errno: Int32?, detail: String) {
        self.operation = operation
        self.path = path
        self.errno = errno
        self.detail = detail
    }

    /// One line for people.
    public var description: String {
        "\(operation) \(path): \(detail)" + (errno.map { " (errno \($0))" } ?? "")
    }
}
