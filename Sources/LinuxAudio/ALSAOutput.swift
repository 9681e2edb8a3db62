// SPDX-License-Identifier: Apache-2.0

import Audio
import CALSA
import Foundation
import HardwareAccess

/// Plays the sound engine's frames on an ALSA PCM (`default`, `hw:0`, `plughw:Loopback,0`…):
/// 48 kHz, 16-bit stereo, non-blocking, with the device's timestamps on CLOCK_MONOTONIC.
///
/// The stream starts with a buffer of silence; the device's own trigger timestamp, plus that
/// buffer, is the instant the engine's first frame is heard. Underruns are reported to the engine
/// (which counts them and skips the frames that could not be heard) and recovered.
public final class ALSAOutput: AudioOutput, @unchecked Sendable {
    /// The ALSA PCM name.
    public let name: String
    /// The device's buffer, as ALSA granted it.
    public let latency: Duration
    /// The device's period, as ALSA granted it.
    public let period: Duration
    private let pcm: OpaquePointer
    private let bufferFrames: Int
    private let lock = NSLock()
    private var closed = false

    /// Opens `device` with about `latency` of buffer. Throws `deviceUnavailable` naming the
    /// device when it does not exist, is busy, or refuses 48 kHz 16-bit stereo.
    public init(device: String = "default", latency: Duration = .milliseconds(40)) throws(AudioError) {
        haptics_alsa_silence_errors()
        name = device
        var handle: OpaquePointer?
        var status = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, Int32(SND_PCM_NONBLOCK))
        guard status >= 0, let handle else {
            // An unknown card number or name comes back as EINVAL or ENOENT.
            throw .deviceUnavailable(device: device, reason: -status == EINVAL ? "no such device" : ALSAOutput.describe(status))
        }
        let microseconds = UInt32(clamping: max(Int64(5000), latency.nanoseconds / 1000))
        status = snd_pcm_set_params(handle, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 2, UInt32(Sound.sampleRate), 1, microseconds)
        guard status >= 0 else {
            snd_pcm_close(handle)
            throw .deviceUnavailable(device: device, reason: "48 kHz 16-bit stereo refused: " + ALSAOutput.describe(status))
        }
        var buffer: snd_pcm_uframes_t = 0
        var periodFrames: snd_pcm_uframes_t = 0
        snd_pcm_get_params(handle, &buffer, &periodFrames)
        // Timestamps on the clock the haptics run on.
        var software: OpaquePointer?
        snd_pcm_sw_params_malloc(&software)
        if let software {
            snd_pcm_sw_params_current(handle, software)
            snd_pcm_sw_params_set_tstamp_mode(handle, software, SND_PCM_TSTAMP_ENABLE)
            snd_pcm_sw_params_set_tstamp_type(handle, software, SND_PCM_TSTAMP_TYPE_MONOTONIC)
            snd_pcm_sw_params(handle, software)
            snd_pcm_sw_params_free(software)
        }
        pcm = handle
        bufferFrames = Int(buffer)
        self.latency = .nanoseconds(Int64(buffer) * 1_000_000_000 / Int64(Sound.sampleRate))
        period = .nanoseconds(Int64(periodFrames) * 1_000_000_000 / Int64(Sound.sampleRate))
    }

    static func describe(_ status: Int32) -> String {
        switch -status {
        case ENOENT, ENODEV, ENXIO: return "no such device"
        case EBUSY: return "busy: another program is using it"
        case EACCES, EPERM: return "permission denied: add the user to the audio group"
        default: return String(cString: snd_strerror(status))
        }
    }

    /// Fills the buffer with silence, starts the stream, and dates it by the device's trigger
    /// timestamp: the engine's first frame is heard one buffer after it.
    public func start(clock: any HapticClock) throws(AudioError) -> ClockInstant {
        lock.lock()
        defer { lock.unlock() }
        let silence = [Int16](repeating: 0, count: bufferFrames * 2)
        let written = silence.withUnsafeBufferPointer { snd_pcm_writei(pcm, $0.baseAddress, snd_pcm_uframes_t(bufferFrames)) }
        guard written >= 0 else { throw .deviceFailed(device: name, reason: ALSAOutput.describe(Int32(written))) }
        let before = clock.now
        if snd_pcm_state(pcm) == SND_PCM_STATE_PREPARED {
            let status = snd_pcm_start(pcm)
            guard status >= 0 else { throw .deviceFailed(device: name, reason: ALSAOutput.describe(status)) }
        }
        var trigger = snd_htimestamp_t()
        var status: OpaquePointer?
        snd_pcm_status_malloc(&status)
        if let status {
            snd_pcm_status(pcm, status)
            snd_pcm_status_get_trigger_htstamp(status, &trigger)
            snd_pcm_status_free(status)
        }
        var started = ClockInstant(nanoseconds: Int64(trigger.tv_sec) * 1_000_000_000 + Int64(trigger.tv_nsec))
        // A device that does not date its trigger (or on another clock): our own reading.
        if abs(started.nanoseconds - before.nanoseconds) > 1_000_000_000 { started = before }
        return started.advanced(byNanoseconds: Int64(written) * 1_000_000_000 / Int64(Sound.sampleRate))
    }

    /// The frames ALSA takes now (`snd_pcm_avail_update`); throws `.underrun` after an xrun.
    public func writableFrames() throws(AudioError) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        let available = snd_pcm_avail_update(pcm)
        if available == -Int(EPIPE) || snd_pcm_state(pcm) == SND_PCM_STATE_XRUN { throw .underrun(device: name) }
        guard available >= 0 else { throw .deviceFailed(device: name, reason: ALSAOutput.describe(Int32(available))) }
        return min(Int(available), bufferFrames)
    }

    /// Writes frames, waiting at most 20 ms for room.
    public func write(_ samples: [Int16]) throws(AudioError) {
        lock.lock()
        defer { lock.unlock() }
        var offset = 0
        var attempts = 0
        while offset < samples.count / 2 {
            let written = samples.withUnsafeBufferPointer {
                snd_pcm_writei(pcm, $0.baseAddress! + offset * 2, snd_pcm_uframes_t(samples.count / 2 - offset))
            }
            if written == -Int(EPIPE) { throw .underrun(device: name) }
            if written == -Int(EAGAIN) {
                // More than the device said it would take: wait for room, for 20 ms at most.
                attempts += 1
                guard attempts < 20 else { throw .deviceFailed(device: name, reason: "the device took no frames for 20 ms") }
                snd_pcm_wait(pcm, 1)
                continue
            }
            guard written >= 0 else { throw .deviceFailed(device: name, reason: ALSAOutput.describe(Int32(written))) }
            offset += written
        }
    }

    /// Prepares the device again after an underrun (`snd_pcm_prepare`).
    public func recover() throws(AudioError) {
        lock.lock()
        defer { lock.unlock() }
        let status = snd_pcm_prepare(pcm)
        guard status >= 0 else { throw .deviceFailed(device: name, reason: ALSAOutput.describe(status)) }
    }

    /// Lets what was written play out (within `drainTimeout`), then closes the device.
    public func close(drainTimeout: Duration) throws(AudioError) {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return }
        closed = true
        let deadline = SystemClock.shared.now.advanced(by: drainTimeout)
        var delay: snd_pcm_sframes_t = 0
        while SystemClock.shared.now < deadline, snd_pcm_state(pcm) == SND_PCM_STATE_RUNNING, snd_pcm_delay(pcm, &delay) >= 0, delay > 0 {
            SystemClock.shared.sleep(for: .milliseconds(2))
        }
        snd_pcm_drop(pcm)
        snd_pcm_close(pcm)
    }

    deinit {
        if !closed {
            snd_pcm_drop(pcm)
            snd_pcm_close(pcm)
        }
    }
}
