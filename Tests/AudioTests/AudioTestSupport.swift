// SPDX-License-Identifier: Apache-2.0

import Audio
import Foundation
import HardwareAccess

/// A fresh directory under the system's temporary directory.
func temporaryDirectory(_ name: String = #function) -> String {
    let path = NSTemporaryDirectory() + "haptics-audio-\(name.filter(\.isLetter))-\(UUID().uuidString.prefix(8))"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// A 16-bit PCM WAV written byte by byte (not by the code under test). `claimedFrames` writes a
/// header that promises more frames than follow (a truncated file).
func writeWAV(_ path: String, rate: Int, channels: Int, samples: [Int16], claimedFrames: Int? = nil) throws {
    func le32(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(value).littleEndian, Array.init) }
    func le16(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt16(value).littleEndian, Array.init) }
    let dataBytes = (claimedFrames.map { $0 * channels } ?? samples.count) * 2
    // One piece at a time: a long `+` chain of arrays is slow to type-check (and too slow for some compilers).
    var bytes: [UInt8] = Array("RIFF".utf8)
    bytes.append(contentsOf: le32(36 + dataBytes))
    bytes.append(contentsOf: Array("WAVEfmt ".utf8))
    for field in [le32(16), le16(1), le16(channels), le32(rate), le32(rate * channels * 2), le16(channels * 2), le16(16)] {
        bytes.append(contentsOf: field)
    }
    bytes.append(contentsOf: Array("data".utf8))
    bytes.append(contentsOf: le32(dataBytes))
    for sample in samples { bytes += withUnsafeBytes(of: sample.littleEndian, Array.init) }
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// Interleaved 16-bit samples of a WAV (44-byte header, as `WAVFileOutput` and `writeWAV` write).
func readWAVSamples(_ path: String) throws -> [Int16] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    // Find the data chunk rather than assume its offset.
    var offset = 12
    while offset + 8 <= data.count {
        let id = String(decoding: data[offset..<offset + 4], as: UTF8.self)
        let size = Int(data[offset + 4]) | Int(data[offset + 5]) << 8 | Int(data[offset + 6]) << 16 | Int(data[offset + 7]) << 24
        if id == "data" {
            let body = data[(offset + 8)..<min(data.count, offset + 8 + size)]
            return stride(from: body.startIndex, to: body.endIndex - 1, by: 2).map { Int16(bitPattern: UInt16(body[$0]) | UInt16(body[$0 + 1]) << 8) }
        }
        offset += 8 + size + (size & 1)
    }
    return []
}

/// The first frame of interleaved stereo samples whose magnitude reaches `threshold`.
func onsetFrame(_ samples: [Int16], threshold: Int16 = 1000) -> Int? {
    samples.firstIndex { abs(Int32($0)) >= Int32(threshold) }.map { $0 / 2 }
}

/// A click: 10 ms at 0.8, starting on its first frame (its onset is exact).
func click(_ name: String = "click") -> Sound { Sound(name: name, mono: [Float](repeating: 0.8, count: 480)) }

/// A sound device on a virtual clock: it takes frames into a buffer of `bufferFrames` and plays
/// one frame each 1/48000 s once started; it underruns when the clock passes the last frame
/// written. After `recover()` it waits, as ALSA does, until its buffer is full again, then
/// restarts. What it played is kept, run by run.
final class ClockedDevice: AudioOutput, @unchecked Sendable {
    let name = "test-device"
    let bufferFrames: Int
    let latency: Duration
    let period: Duration = .milliseconds(5)
    let clock: VirtualClock
    /// How long the device takes to start after it is asked to.
    let startDelay: Duration
    /// One start of the stream: when its first frame plays, and its frames.
    struct Run {
        var start: ClockInstant?
        var samples: [Int16] = []
        var frames: Int { samples.count / 2 }
    }
    private(set) var runs: [Run] = []
    private(set) var recoveries = 0

    init(clock: VirtualClock, bufferFrames: Int = 1920, startDelay: Duration = .milliseconds(3)) {
        self.clock = clock
        self.bufferFrames = bufferFrames
        self.startDelay = startDelay
        latency = .nanoseconds(Int64(bufferFrames) * 1_000_000_000 / 48_000)
    }

    private func played(_ run: Run) -> Int {
        guard let start = run.start else { return 0 }
        return Int(max(0, clock.now.nanoseconds - start.nanoseconds) * 48_000 / 1_000_000_000)
    }

    func start(clock: any HapticClock) throws(AudioError) -> ClockInstant {
        // A buffer of silence first, as ALSAOutput does; frame 0 of the engine is heard after it.
        let start = self.clock.now.advanced(by: startDelay)
        runs = [Run(start: start, samples: [Int16](repeating: 0, count: 2 * bufferFrames))]
        return start.advanced(by: latency)
    }

    func writableFrames() throws(AudioError) -> Int? {
        let run = runs[runs.count - 1]
        let done = played(run)
        if done > run.frames { throw .underrun(device: name) }
        return bufferFrames - (run.frames - done)
    }

    func write(_ samples: [Int16]) throws(AudioError) {
        let last = runs.count - 1
        if played(runs[last]) > runs[last].frames { throw .underrun(device: name) }
        runs[last].samples += samples
        if runs[last].start == nil, runs[last].frames >= bufferFrames { runs[last].start = clock.now }
    }

    func recover() throws(AudioError) {
        recoveries += 1
        runs.append(Run())
    }

    func close(drainTimeout: Duration) throws(AudioError) {}

    /// The instant the first frame reaching `threshold` plays.
    func onset(threshold: Int16 = 1000) -> ClockInstant? {
        runs.compactMap { run -> ClockInstant? in
            guard let start = run.start, let frame = onsetFrame(run.samples, threshold: threshold) else { return nil }
            return start.advanced(byNanoseconds: Int64(frame) * 1_000_000_000 / 48_000)
        }.min()
    }
}
