// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// Where the sound engine's frames go: a sound card (LinuxAudio's `ALSAOutput`), a WAV file, or
/// a test's device on a virtual clock. 48 kHz, interleaved 16-bit stereo.
///
/// The engine asks for what it needs to keep sound and haptics in step: when frame 0 is heard
/// (`start`), how far ahead of the speaker its writes are (`latency`) and how coarsely the device
/// takes them (`period`).
public protocol AudioOutput: AnyObject, Sendable {
    /// The device or file, for messages and reports.
    var name: String { get }
    /// How long a frame written now waits before it is heard (the device's buffer).
    var latency: Duration { get }
    /// The granularity of the device's reads.
    var period: Duration { get }
    /// Starts the stream: returns the instant, on `clock`, at which the first frame written is heard.
    func start(clock: any HapticClock) throws(AudioError) -> ClockInstant
    /// How many frames it takes now without blocking; `nil`: as many as the engine has made (a file).
    func writableFrames() throws(AudioError) -> Int?
    /// Writes interleaved stereo frames. Throws `.underrun` when the device ran dry first.
    func write(_ samples: [Int16]) throws(AudioError)
    /// Makes the device playable again after an underrun; the next frames written start it.
    func recover() throws(AudioError)
    /// Ends the stream: what was written is played out, within `drainTimeout`, then it is closed.
    func close(drainTimeout: Duration) throws(AudioError)
}
