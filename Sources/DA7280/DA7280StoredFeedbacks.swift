// SPDX-License-Identifier: Apache-2.0

import HapticChip

/// Feedback envelopes compiled into the DA7280's waveform memory (`DA7280WaveformMemory`): one
/// sequence per feedback, in the order given, for as many as the memory holds; the rest stream.
///
/// An envelope's drives (the steps between silences) become snippets of step points, one
/// amplitude step per 1/15 of NOMMAX (with ACCELERATION_EN, AMP 0...15 [DS T17]) and one time
/// step per 5.44 ms timebase; identical drives share a snippet. Its silences become frames of
/// the built-in silent snippet 0, looped at the coarsest timebase that fits; a sampled ramp
/// becomes one ramp point, which the chip interpolates. A drive is kept
/// longer than three half-periods of the resonance, so the chip's rapid stop brakes it [DS
/// §5.7.2]. An envelope is left to the stream when a drive needs more than four points (a long
/// vibration: the stream plays it as well, and the memory is kept for the short feedbacks
/// whose latency matters), and when it does not fit in what is left of the memory.
public struct DA7280StoredFeedbacks: Sendable, Hashable {
    /// The memory image's content.
    public private(set) var memory = DA7280WaveformMemory()
    /// The stored feedbacks' names, sequence 0 first.
    public private(set) var names: [String] = []
    /// What each sequence plays: its envelope, as given, and how long the chip plays it.
    public private(set) var envelopes: [DriveEnvelope] = []
    public private(set) var durations: [Duration] = []
    /// The names left to the stream, in order.
    public private(set) var streamed: [String] = []

    /// The most points one drive may take in memory.
    public static let maximumPointsPerDrive = 4

    /// Compiles `envelopes` in order; `resonantHz` (an LRA's) sets the shortest drive.
    public init(_ envelopes: [(name: String, envelope: DriveEnvelope)], resonantHz: Double?) {
        let timebase = DA7280WaveformMemory.timebaseMilliseconds[0]
        let shortest = resonantHz.map { $0 > 0 ? 3 * 500 / $0 : 0 } ?? 0
        for (name, envelope) in envelopes {
            guard let shape = Self.shape(of: envelope, timebase: timebase, shortestDrive: shortest) else {
                streamed.append(name)
                continue
            }
            var candidate = memory
            var frames: [DA7280WaveformMemory.Frame] = []
            for part in shape {
                switch part {
                case let .drive(points):
                    let index = candidate.snippets.firstIndex(of: points) ?? candidate.snippets.count
                    if index == candidate.snippets.count { candidate.snippets.append(points) }
                    frames.append(DA7280WaveformMemory.Frame(snippet: index + 1))
                case let .silence(silentFrames):
                    frames += silentFrames
                }
            }
            candidate.sequences.append(frames)
            guard !frames.isEmpty, candidate.bytes != nil else {
                streamed.append(name)
                continue
            }
            memory = candidate
            names.append(name)
            self.envelopes.append(envelope)
            durations.append(.microseconds(Int64((Self.milliseconds(of: frames, in: candidate) * 1000).rounded())))
        }
    }

    /// A piece of an envelope in memory terms.
    enum Part {
        case drive([DA7280WaveformMemory.Point])
        case silence([DA7280WaveformMemory.Frame])
    }

    /// The envelope as drives and silences (a trailing silence dropped), or nil when a drive
    /// needs more points than `maximumPointsPerDrive`.
    static func shape(of envelope: DriveEnvelope, timebase: Double, shortestDrive: Double) -> [Part]? {
        var parts: [Part] = []
        var drive: [DA7280WaveformMemory.Point] = []
        var silence = 0.0
        func closeDrive() -> Bool {
            guard !drive.isEmpty else { return true }
            drive = rampsMerged(drive)
            let total = drive.reduce(0) { $0 + $1.timebases }
            if Double(total) * timebase <= shortestDrive {
                let missing = Int((shortestDrive / timebase).rounded(.down)) + 1 - total
                drive += points(amplitude: drive[drive.count - 1].amplitude, timebases: missing)
            }
            guard drive.count <= maximumPointsPerDrive else { return false }
            parts.append(.drive(drive))
            drive = []
            return true
        }
        for step in envelope.steps where step.milliseconds > 0 {
            if step.level > 0 {
                if silence > 0 {
                    parts.append(.silence(silentFrames(milliseconds: silence, timebase: timebase)))
                    silence = 0
                }
                let amplitude = UInt8(min(15, max(1, (min(step.level, 1) * 15).rounded())))
                let timebases = max(1, Int((step.milliseconds / timebase).rounded()))
                drive += points(amplitude: amplitude, timebases: timebases)
            } else {
                guard closeDrive() else { return nil }
                silence += step.milliseconds
            }
        }
        guard closeDrive() else { return nil }
        return parts.isEmpty ? nil : parts
    }

    /// Three or more one-timebase steps climbing or falling in turn (a sampled ramp) as a step
    /// to the first and a ramp to the last [DS T17: RMP], which the chip interpolates.
    static func rampsMerged(_ points: [DA7280WaveformMemory.Point]) -> [DA7280WaveformMemory.Point] {
        var result: [DA7280WaveformMemory.Point] = []
        var index = 0
        while index < points.count {
            var end = index
            if points[index].timebases == 1, !points[index].ramp {
                let rising = index + 1 < points.count && points[index + 1].amplitude > points[index].amplitude
                while end + 1 < points.count, end + 1 - index < 8, points[end + 1].timebases == 1, !points[end + 1].ramp,
                    rising ? points[end + 1].amplitude > points[end].amplitude : points[end + 1].amplitude < points[end].amplitude
                {
                    end += 1
                }
            }
            if end - index >= 2 {
                result.append(points[index])
                result.append(DA7280WaveformMemory.Point(amplitude: points[end].amplitude, timebases: end - index, ramp: true))
            } else {
                result += points[index...end]
            }
            index = end + 1
        }
        return result
    }

    /// `timebases` at `amplitude` as points of at most eight timebases.
    static func points(amplitude: UInt8, timebases: Int) -> [DA7280WaveformMemory.Point] {
        stride(from: 0, to: timebases, by: 8).map { DA7280WaveformMemory.Point(amplitude: amplitude, timebases: min(8, timebases - $0)) }
    }

    /// Silence of about `milliseconds` as frames of snippet 0 (two timebases a play), the
    /// coarsest timebase first; what is left under one timebase is dropped, so the silence is
    /// within one 5.44 ms timebase of what was asked.
    static func silentFrames(milliseconds: Double, timebase: Double) -> [DA7280WaveformMemory.Frame] {
        var frames: [DA7280WaveformMemory.Frame] = []
        var remaining = milliseconds
        for index in stride(from: 3, through: 0, by: -1) {
            let play = 2 * DA7280WaveformMemory.timebaseMilliseconds[index]
            while remaining + DA7280WaveformMemory.timebaseMilliseconds[0] / 2 >= play {
                let plays = min(16, Int(((remaining + DA7280WaveformMemory.timebaseMilliseconds[0] / 2) / play).rounded(.down)))
                frames.append(DA7280WaveformMemory.Frame(snippet: 0, timebase: index, loops: plays - 1))
                remaining -= Double(plays) * play
            }
        }
        return frames
    }

    /// How long `frames` play, in milliseconds.
    static func milliseconds(of frames: [DA7280WaveformMemory.Frame], in memory: DA7280WaveformMemory) -> Double {
        frames.reduce(0) { total, frame in
            let points = frame.snippet == 0 ? [DA7280WaveformMemory.Point(amplitude: 0, timebases: 2)] : memory.snippets[frame.snippet - 1]
            let timebases = points.reduce(0) { $0 + $1.timebases }
            return total + Double((frame.loops + 1) * timebases) * DA7280WaveformMemory.timebaseMilliseconds[frame.timebase]
        }
    }

    /// Each sequence's envelope sampled every `tickMilliseconds` (what the engine's clip of it
    /// holds), to find a clip's sequence by its levels (`DA7280Driver.storedWaveform`).
    public func sequencesByLevels(tickMilliseconds: Double) -> [[Double]: Int] {
        var table: [[Double]: Int] = [:]
        for (index, envelope) in envelopes.enumerated() {
            let levels = envelope.levels(tickMilliseconds: tickMilliseconds)
            if table[levels] == nil { table[levels] = index }
        }
        return table
    }
}
