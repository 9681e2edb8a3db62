// SPDX-License-Identifier: Apache-2.0

import Board
import DRV2605
import HapticChip
import HapticEffects
import HapticFeedback
import HapticPatterns
import HardwareAccess

/// A pattern sent over the serial line a line at a time (`upload ...`), rendered here by the
/// renderer the Linux programs use (`PatternRenderer`, from the same source files), and kept
/// until `start` plays it on the board's timer: the host parses the file, the board does the
/// rest. Times are whole microseconds and values millionths, so a value written with up to six
/// decimals (as AHAP files are) arrives as the same `Double` the Linux build renders from.
///
///     upload begin
///     upload transient TIME INTENSITY SHARPNESS FOLLOWS
///     upload continuous TIME DURATION INTENSITY SHARPNESS ATTACK DECAY RELEASE SUSTAINED FOLLOWS
///     upload parameter ID TIME VALUE
///     upload curve ID TIME
///     upload point TIME VALUE             (the last curve's; TIME from the curve's own)
///     upload end                          ok upload end LEVELS MS CLICKS
///
/// SUSTAINED and FOLLOWS (whether the intensity control scales the event) are 0 or 1; ID is
/// AHAP's name (HapticIntensityControl, ...). The renderer decides as on Linux: a real-time
/// stream (LEVELS levels), or for a pattern of transients alone, ROM clicks at their times
/// (CLICKS of them). Events are made with an
/// empty `Dictionary()` of audio parameters: the default `[:]` is a dictionary literal, whose
/// code hashes strings and would bring Unicode's normalization tables (about 50 KB) into the image.
final class PatternUpload {
    /// The most events, parameter changes and curve points one pattern may have: room is kept
    /// for them at `begin`, so an upload never fails for memory halfway.
    static let eventLimit = 24
    static let parameterLimit = 32
    static let curveLimit = 8
    static let pointLimit = 64
    /// Heap a rendered step may take at its peak: the stream, its copy when it grows and when
    /// it is trimmed, and the intensity control's steps (eight bytes each).
    static let bytesPerStep = 32
    /// Copies of the event list the renderer may hold at once (the pattern's, the bounded one,
    /// the haptic, transient and continuous lists, and their growth).
    static let eventCopies = 6

    private var events: [HapticPattern.Event] = []
    private var parameters: [HapticPattern.Parameter] = []
    /// The curves, their points kept apart (in `points`, by curve) until the pattern is made.
    private var curves: [HapticPattern.ParameterCurve] = []
    private var points: [(curve: Int, point: HapticPattern.ParameterCurve.Point)] = []
    /// Whether an upload has begun and not ended.
    private(set) var open = false
    /// A pattern as the board plays it.
    enum Rendering {
        /// A real-time stream, a level each 5 ms.
        case stream(RealTimeClip)
        /// ROM clicks at their times, the chip held awake from the first to the end.
        case clicks(SequenceSchedule<NamedPlan>)
    }
    /// The last pattern rendered, which `start` plays.
    private(set) var rendered: Rendering?

    /// Why a line was refused: `error KIND text`.
    struct Refusal: Error {
        var kind: String
        var text: String
    }

    /// Takes one `upload` line (its words after `upload`); returns the answer's text after `ok `.
    func take(_ words: [String]) throws(Refusal) -> String {
        guard let what = words.first else { throw Self.usage }
        let arguments = Array(words.dropFirst())
        if "begin".sameBytes(as: what) {
            begin()
            return "upload begin"
        }
        guard open else { throw Refusal(kind: "bad-argument", text: "upload begin first") }
        if "transient".sameBytes(as: what) {
            guard events.count < Self.eventLimit else { throw Self.full("events", Self.eventLimit) }
            let values = try Self.numbers(arguments, count: 4)
            events.append(
                HapticPattern.Event(
                    type: .hapticTransient, time: try Self.seconds(values[0]), intensity: try Self.fraction(values[1]),
                    sharpness: try Self.fraction(values[2]), audioParameters: Dictionary(), followsIntensityControl: try Self.flag(values[3])))
            return "upload transient"
        }
        if "continuous".sameBytes(as: what) {
            guard events.count < Self.eventLimit else { throw Self.full("events", Self.eventLimit) }
            let values = try Self.numbers(arguments, count: 9)
            events.append(
                HapticPattern.Event(
                    type: .hapticContinuous, time: try Self.seconds(values[0]), duration: try Self.seconds(values[1]),
                    intensity: try Self.fraction(values[2]), sharpness: try Self.fraction(values[3]), attackTime: try Self.fraction(values[4]),
                    decayTime: try Self.fraction(values[5]), releaseTime: try Self.fraction(values[6]), sustained: try Self.flag(values[7]),
                    audioParameters: Dictionary(), followsIntensityControl: try Self.flag(values[8])))
            return "upload continuous"
        }
        if "parameter".sameBytes(as: what) {
            guard parameters.count < Self.parameterLimit else { throw Self.full("parameter changes", Self.parameterLimit) }
            guard arguments.count == 3 else { throw Self.usage }
            let id = try Self.parameter(arguments[0])
            let values = try Self.numbers(Array(arguments.dropFirst()), count: 2)
            parameters.append(HapticPattern.Parameter(id: id, time: try Self.seconds(values[0]), value: try Self.signed(values[1])))
            return "upload parameter"
        }
        if "curve".sameBytes(as: what) {
            guard curves.count < Self.curveLimit else { throw Self.full("curves", Self.curveLimit) }
            guard arguments.count == 2 else { throw Self.usage }
            let id = try Self.parameter(arguments[0])
            let values = try Self.numbers(Array(arguments.dropFirst()), count: 1)
            curves.append(HapticPattern.ParameterCurve(id: id, time: try Self.seconds(values[0]), points: []))
            return "upload curve"
        }
        if "point".sameBytes(as: what) {
            guard !curves.isEmpty else { throw Refusal(kind: "bad-argument", text: "upload point follows an upload curve") }
            guard points.count < Self.pointLimit else { throw Self.full("curve points", Self.pointLimit) }
            let values = try Self.numbers(arguments, count: 2)
            points.append((curves.count - 1, HapticPattern.ParameterCurve.Point(time: try Self.seconds(values[0]), value: try Self.signed(values[1]))))
            return "upload point"
        }
        if "end".sameBytes(as: what) {
            switch try render() {
            case let .stream(clip):
                return "upload end " + String(clip.levels.count) + " " + String(clip.duration.nanoseconds / 1_000_000) + " 0"
            case let .clicks(schedule):
                return "upload end 0 " + String(Int64(schedule.seconds * 1000)) + " " + String(schedule.entries.count)
            }
        }
        throw Self.usage
    }

    /// Forgets what was uploaded or rendered before and keeps room for a pattern's elements.
    private func begin() {
        rendered = nil
        events = []
        events.reserveCapacity(Self.eventLimit)
        parameters = []
        parameters.reserveCapacity(Self.parameterLimit)
        curves = []
        curves.reserveCapacity(Self.curveLimit)
        points = []
        points.reserveCapacity(Self.pointLimit)
        open = true
    }

    /// Renders what was uploaded as the Linux build would (at 200 steps a second), when the
    /// heap holds the rendering; the elements' room is given back either way.
    private func render() throws(Refusal) -> Rendering {
        for (index, point) in points { curves[index].points.append(point) }
        let pattern = HapticPattern(events: events, parameters: parameters, curves: curves)
        open = false
        events = []
        parameters = []
        curves = []
        points = []
        var renderer = PatternRenderer(rate: 200, strategy: .automatic)
        renderer.recordsDesign = false
        renderer.rendersSharpness = false
        let steps = renderer.maximumSteps(of: pattern)
        let need = steps * Self.bytesPerStep + pattern.events.count * MemoryLayout<HapticPattern.Event>.stride * Self.eventCopies
        // The stream is one array that grows: its old and new storage side by side, in one piece.
        var largest = 0
        let room = Int(runtime_heap_free(&largest))
        guard need <= room, steps * 8 * 2 <= largest else {
            throw Refusal(
                kind: "too-long",
                text: "the pattern (" + String(pattern.events.count) + " events, up to " + String(steps)
                    + " steps of 5 ms) needs about " + String(need) + " bytes of heap to render and this board has " + String(room)
                    + ": shorten it, or stream it from the host a level at a time")
        }
        let made = renderer.render(pattern)
        let rendering: Rendering
        switch made.mode {
        case .realTime:
            rendering = .stream(RealTimeClip(tick: .milliseconds(5), levels: made.samples))
        case .rom:
            // Each click at its time, as the Linux pattern player plays them (hit by hit, no
            // click made ready ahead).
            var steps: [SequenceSchedule<NamedPlan>.Step] = []
            var clock = 0.0
            for hit in made.hits {
                steps.append(.wait(hit.time - clock))
                clock = hit.time
                let sequence = WaveformSequence(hit.effect)
                steps.append(.note(NamedPlan(name: "pattern", plan: .rom(sequence)), seconds: hit.effect.estimatedDuration.secondsDouble))
            }
            rendering = .clicks(SequenceSchedule(steps))
        }
        rendered = rendering
        return rendering
    }

    static let usage = Refusal(
        kind: "bad-argument",
        text: "upload begin|transient TIME I S F|continuous TIME DUR I S A D R SUS F|parameter ID TIME V|curve ID TIME|point TIME V|end (microseconds, millionths)")

    static func full(_ what: String, _ limit: Int) -> Refusal {
        Refusal(kind: "too-long", text: "a pattern here has at most " + String(limit) + " " + what)
    }

    static func numbers(_ words: [String], count: Int) throws(Refusal) -> [Int] {
        guard words.count == count else { throw usage }
        var values: [Int] = []
        for word in words {
            guard let value = Int(word) else { throw Refusal(kind: "bad-argument", text: "upload: '" + word + "' is not a whole number") }
            values.append(value)
        }
        return values
    }

    /// Microseconds, 0 to the renderer's 600 s.
    static func seconds(_ micros: Int) throws(Refusal) -> Double {
        guard (0...Int(PatternRenderer.maximumSeconds) * 1_000_000).contains(micros) else {
            throw Refusal(kind: "bad-argument", text: "upload: a time is 0 to 600000000 microseconds")
        }
        return Double(micros) / 1_000_000
    }

    /// Millionths, 0...1.
    static func fraction(_ millionths: Int) throws(Refusal) -> Double {
        guard (0...1_000_000).contains(millionths) else { throw Refusal(kind: "bad-argument", text: "upload: a value is 0 to 1000000 millionths") }
        return Double(millionths) / 1_000_000
    }

    /// Millionths, -1...1 (a parameter's value).
    static func signed(_ millionths: Int) throws(Refusal) -> Double {
        guard (-1_000_000...1_000_000).contains(millionths) else {
            throw Refusal(kind: "bad-argument", text: "upload: a parameter's value is -1000000 to 1000000 millionths")
        }
        return Double(millionths) / 1_000_000
    }

    static func flag(_ value: Int) throws(Refusal) -> Bool {
        guard value == 0 || value == 1 else { throw Refusal(kind: "bad-argument", text: "upload: SUSTAINED and FOLLOWS are 0 or 1") }
        return value == 1
    }

    static func parameter(_ word: String) throws(Refusal) -> HapticPattern.ParameterID {
        guard let id = HapticPattern.ParameterID.allCases.first(where: { $0.rawValue.sameBytes(as: word) }) else {
            throw Refusal(kind: "bad-argument", text: "upload: no dynamic parameter named '" + word + "' (AHAP's names: HapticIntensityControl, ...)")
        }
        return id
    }
}
