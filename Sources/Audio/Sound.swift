// SPDX-License-Identifier: Apache-2.0

import CSndFile
import Foundation

/// A sound decoded whole, before it is played: interleaved stereo at the engine's 48 kHz.
///
/// Decoding and resampling happen when a sound is loaded, never on the audio thread, so that a
/// sound placed on the timeline costs the mixer nothing but additions, and a file that cannot be
/// decoded is refused before anything plays.
public struct Sound: Sendable, Equatable, CustomStringConvertible {
    /// The engine's rate: every sound is resampled to it when loaded.
    public static let sampleRate = 48_000
    /// What the sound is called in messages: a theme name or a file's name.
    public var name: String
    /// Interleaved left/right samples at `sampleRate`, -1...1.
    public var samples: [Float]

    /// A sound from interleaved stereo samples at 48 kHz.
    public init(name: String, stereo samples: [Float]) {
        self.name = name
        self.samples = samples.count % 2 == 0 ? samples : Array(samples.dropLast())
    }

    /// A sound from mono samples at 48 kHz, the same on both channels.
    public init(name: String, mono samples: [Float]) {
        var stereo = [Float](repeating: 0, count: samples.count * 2)
        for (index, sample) in samples.enumerated() {
            stereo[2 * index] = sample
            stereo[2 * index + 1] = sample
        }
        self.init(name: name, stereo: stereo)
    }

    /// Frames (a left and a right sample each).
    public var frameCount: Int { samples.count / 2 }
    /// Seconds.
    public var duration: Double { Double(frameCount) / Double(Sound.sampleRate) }
    /// The first frame whose magnitude reaches `threshold` (where the sound is first heard).
    public func onsetFrame(threshold: Float = 0.01) -> Int? {
        samples.firstIndex { abs($0) >= threshold }.map { $0 / 2 }
    }
    /// Its name and length, for messages.
    public var description: String { String(format: "sound %@ (%.3f s)", name, duration) }

    /// Decodes a file through libsndfile (WAV, FLAC, Ogg/Vorbis, and MP3 where the installed
    /// libsndfile has it), keeps the first two channels (a mono file on both), and resamples it
    /// to 48 kHz.
    ///
    /// A file that ends before its header says is refused (`soundTruncated`): libsndfile itself
    /// would play the frames it has, and the rest of the header's length would be missing.
    public static func decode(path: String) throws(AudioError) -> Sound {
        guard FileManager.default.fileExists(atPath: path) else { throw .soundNotFound(path) }
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw .soundUnreadable(path: path, reason: String(cString: sf_strerror(nil)))
        }
        defer { sf_close(file) }
        // libsndfile notes a data chunk shorter than its header in its log ("(should be N)").
        var log = [CChar](repeating: 0, count: 4096)
        sf_command(file, Int32(SFC_GET_LOG_INFO), &log, Int32(log.count))
        let logText = String(decoding: log.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if let line = logText.split(separator: "\n").first(where: { $0.contains("should be") }) {
            throw .soundTruncated(path: path, reason: "libsndfile: \(line.trimmingCharacters(in: .whitespaces))")
        }
        let channels = Int(info.channels)
        guard channels > 0, info.samplerate > 0, info.frames > 0 else {
            throw .soundUnreadable(path: path, reason: "no audio frames")
        }
        guard info.frames < 48_000 * 600 else { throw .soundUnreadable(path: path, reason: "longer than 10 minutes") }
        var interleaved = [Float](repeating: 0, count: Int(info.frames) * channels)
        let read = interleaved.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, info.frames) }
        guard read == info.frames else {
            throw .soundTruncated(path: path, reason: "\(read) of \(info.frames) frames could be read")
        }
        var left = [Float](repeating: 0, count: Int(read))
        var right = left
        for frame in 0..<Int(read) {
            left[frame] = interleaved[frame * channels]
            right[frame] = interleaved[frame * channels + (channels > 1 ? 1 : 0)]
        }
        if Int(info.samplerate) != sampleRate {
            let resampler = Resampler(from: Int(info.samplerate), to: sampleRate)
            left = resampler.resample(left)
            right = resampler.resample(right)
        }
        var stereo = [Float](repeating: 0, count: left.count * 2)
        for frame in 0..<left.count {
            stereo[2 * frame] = left[frame]
            stereo[2 * frame + 1] = right[frame]
        }
        return Sound(name: (path as NSString).lastPathComponent, stereo: stereo)
    }
}
