// SPDX-License-Identifier: Apache-2.0

import CSndFile
import Foundation
import HardwareAccess

/// Records the audio timeline into a 48 kHz 16-bit stereo WAV instead of playing it.
///
/// Sample 0 is the instant given as `origin` (time 0 of the bus trace on a virtual clock), so a
/// recording and a trace can be compared sample for sample. The file is written beside its path
/// and renamed into place when closed: a run that fails leaves no half-written recording.
public final class WAVFileOutput: AudioOutput, @unchecked Sendable {
    /// The recording's path.
    public let path: String
    /// `wav:PATH`, as the command line names it.
    public var name: String { "wav:" + path }
    /// The instant of sample 0.
    public let origin: ClockInstant
    /// A file takes frames as fast as they come; the engine renders a period at a time.
    public let latency: Duration = .zero
    /// How much the engine renders at a time.
    public let period: Duration = .milliseconds(10)
    private let partialPath: String
    private let file: Locked<OpaquePointer?>

    /// Opens `PATH.partial` for writing; `origin` is the instant of sample 0.
    public init(path: String, origin: ClockInstant) throws(AudioError) {
        self.path = path
        self.origin = origin
        partialPath = path + ".partial"
        var info = SF_INFO()
        info.samplerate = Int32(Sound.sampleRate)
        info.channels = 2
        info.format = Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
        guard let handle = sf_open(partialPath, Int32(SFM_WRITE), &info) else {
            throw .recordingUnwritable(path: path, reason: String(cString: sf_strerror(nil)))
        }
        file = Locked(handle)
    }

    /// The stream starts at `origin`.
    public func start(clock: any HapticClock) throws(AudioError) -> ClockInstant { origin }
    /// A file takes whatever the timeline has.
    public func writableFrames() throws(AudioError) -> Int? { nil }
    /// A file never runs dry: nothing to recover.
    public func recover() throws(AudioError) {}

    /// Appends frames to the recording.
    public func write(_ samples: [Int16]) throws(AudioError) {
        let frames = Int64(samples.count / 2)
        let written = file.withLock { handle -> Int64 in
            guard let handle else { return frames }
            return samples.withUnsafeBufferPointer { sf_writef_short(handle, $0.baseAddress, frames) }
        }
        if written != frames { throw .recordingUnwritable(path: path, reason: "\(written) of \(frames) frames written (disk full?)") }
    }

    /// Finishes the file and renames it into place.
    public func close(drainTimeout: Duration) throws(AudioError) {
        let handle = file.withLock { handle -> OpaquePointer? in
            defer { handle = nil }
            return handle
        }
        guard let handle else { return }
        sf_close(handle)
        guard rename(partialPath, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partialPath)
            throw .recordingUnwritable(path: path, reason: reason)
        }
    }

    deinit {
        // Never closed (the run failed): no half-written recording is left.
        if let handle = file.withLock({ $0 }) {
            sf_close(handle)
            unlink(partialPath)
        }
    }
}
