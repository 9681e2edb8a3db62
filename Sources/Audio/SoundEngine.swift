// SPDX-License-Identifier: Apache-2.0

import Foundation
import HardwareAccess

/// The audio timeline on the haptic clock: sounds placed at instants of the clock the haptics
/// run on, mixed on a thread of their own, and heard at those instants.
///
/// Frame `f` of the timeline is heard at `origin + f / 48 kHz`, where `origin` is the instant the
/// output reports for its first frame (a sound card's own trigger timestamp). Frames are written
/// `leadTime` ahead of the speaker (the device's buffer and period, and a margin for the audio
/// thread's wake-ups), so a sound placed at least `leadTime` ahead lands on its instant exactly;
/// a haptic that should start with it is delayed by the same `leadTime`. A sound placed later
/// starts late, whole, and is counted in `report.lateStarts`. After an underrun the frames that
/// should have played meanwhile are skipped (`report.framesSkipped`), so the sounds after it stay
/// on time rather than all coming late.
///
/// Nothing here writes to the chip: a slow or failing audio device never delays a haptic.
public final class SoundEngine: Sendable {
    /// How the audio thread runs.
    public struct Options: Sendable {
        /// Added to the output's latency and period: how late the audio thread may wake.
        public var margin: Duration = .milliseconds(5)
        /// Run first on the audio thread (real-time scheduling, for one).
        public var threadSetup: (@Sendable () -> Void)?
        /// The defaults above.
        public init() {}
    }

    /// What the audio path did: its compensation and every way it fell short.
    public struct Report: Sendable, Equatable {
        /// The output, as `AudioOutput.name` names it.
        public var device: String
        /// The device's buffer.
        public var latencySeconds: Double
        /// The device's period.
        public var periodSeconds: Double
        /// How far ahead of their instants sounds are written (and haptics beside them delayed).
        public var compensationSeconds: Double
        /// The instant of frame 0, in seconds of the clock.
        public var originSeconds: Double
        /// Times the device ran out of frames.
        public var underruns: Int
        /// Sounds placed less than `compensationSeconds` ahead: they started late.
        public var lateStarts: Int
        /// Frames skipped after underruns to keep later sounds on time.
        public var framesSkipped: Int64
        /// Samples clipped at full scale.
        public var clippedSamples: Int
        /// The device's failure, if it failed while playing (sounds after it were not heard).
        public var failure: String?
    }

    /// Where the frames go.
    public let output: any AudioOutput
    /// The clock sounds are placed on: the haptics' clock.
    public let clock: any HapticClock
    /// The instant frame 0 is heard.
    public let origin: ClockInstant
    /// How far ahead of its instant a sound must be placed to be heard on time.
    public let leadTime: Duration

    private struct State {
        var mixer = AudioMixer()
        /// Frames made so far (the next frame to render).
        var written: Int64 = 0
        var underruns = 0
        var lateStarts = 0
        var framesSkipped: Int64 = 0
        var failure: AudioError?
        var closed = false
        /// End frames of what was placed, by voice id (kept after the mixer drops the voice).
        var ends: [Int: Int64] = [:]
    }
    private let state = Locked(State())
    private let work = Locked<ScheduledWork?>(nil)
    /// Rendering and writing happen one at a time (the audio thread, or a closing caller).
    private let pumping = NSLock()

    /// Starts `output` and the audio thread.
    public init(output: any AudioOutput, clock: any HapticClock, options: Options = Options()) throws(AudioError) {
        self.output = output
        self.clock = clock
        origin = try output.start(clock: clock)
        leadTime = output.latency + output.period + options.margin
        let pause = max(output.period / 2, .milliseconds(2))
        let scheduled = clock.schedule(WorkOptions(name: "haptics-audio", threadSetup: options.threadSetup)) { [weak self] in
            guard let self, self.pump() else { return nil }
            return self.clock.now.advanced(by: pause)
        }
        work.withLock { $0 = scheduled }
    }

    /// The timeline frame heard at `instant`.
    public func frame(at instant: ClockInstant) -> Int64 {
        let nanoseconds = instant.nanoseconds - origin.nanoseconds
        return (nanoseconds * Int64(Sound.sampleRate) + 500_000_000).floorDivided(by: 1_000_000_000)
    }
    /// The instant frame `frame` is heard.
    public func instant(of frame: Int64) -> ClockInstant {
        origin.advanced(byNanoseconds: frame * 1_000_000_000 / Int64(Sound.sampleRate))
    }

    /// Places `sound` to be heard from `instant` (`volume` 0...1, `pan` -1...1, `loops` until
    /// `duration` or a stop); returns its handle. Placed less than `leadTime` ahead, it starts as
    /// soon as it can, whole, and is counted as a late start.
    @discardableResult
    public func play(
        _ sound: Sound, at instant: ClockInstant, volume: Double = 1, pan: Double = 0, loops: Bool = false, duration: Double? = nil
    ) -> Int {
        let frames = duration.map { Int64(max(0, $0.isFinite ? $0 : 0) * Double(Sound.sampleRate)) }
        return state.withLock { state in
            var start = frame(at: instant)
            if start < state.written {
                state.lateStarts += 1
                start = state.written
            }
            let id = state.mixer.add(sound, at: start, volume: volume, pan: pan, loops: loops, frames: frames)
            state.ends[id] = state.mixer.lastFrame(of: id)
            return id
        }
    }

    /// Stops sound `id` at `instant` (now when nil), fading over 5 ms.
    public func stop(_ id: Int, at instant: ClockInstant? = nil) {
        state.withLock { state in
            let at = max(frame(at: instant ?? clock.now), state.written)
            state.mixer.stop(id, at: at)
            // A sound stopped before it began is dropped: it ends where it was stopped.
            let end = state.mixer.lastFrame(of: id) ?? at
            if let known = state.ends[id] { state.ends[id] = min(known, end) }
        }
    }

    /// Stops the sounds `ids` now (a player's, on cancel, pause or seek), fading over 5 ms.
    public func stop(_ ids: [Int]) {
        for id in ids { stop(id) }
    }

    /// Stops every sound now, fading over 5 ms.
    public func stopAll() {
        state.withLock { state in
            let at = max(frame(at: clock.now), state.written)
            let placed = state.mixer.voices.map(\.id)
            state.mixer.stopAll(at: at)
            for id in placed { state.ends[id] = state.mixer.lastFrame(of: id) ?? at }
        }
    }

    /// When sound `id` is last heard (`nil` for an unknown id or a loop without end).
    public func endInstant(of id: Int) -> ClockInstant? {
        state.withLock { $0.ends[id] }.flatMap { $0 == .max ? nil : instant(of: $0) }
    }

    /// When the last placed sound is last heard.
    public var lastEnd: ClockInstant? {
        state.withLock { $0.ends.values.filter { $0 != .max }.max() }.map { instant(of: $0) }
    }

    /// What the audio path did so far.
    public var report: Report {
        state.withLock { state in
            Report(
                device: output.name, latencySeconds: output.latency.secondsDouble, periodSeconds: output.period.secondsDouble,
                compensationSeconds: leadTime.secondsDouble, originSeconds: origin.seconds, underruns: state.underruns,
                lateStarts: state.lateStarts, framesSkipped: state.framesSkipped, clippedSamples: state.mixer.clippedSamples,
                failure: state.failure?.description)
        }
    }

    /// Renders and writes what the output takes now; `false` once closed or failed. After an
    /// underrun, the device is recovered and refilled at once, so that it restarts now.
    @discardableResult
    public func pump() -> Bool {
        pumping.lock()
        defer { pumping.unlock() }
        for _ in 0..<2 {
            switch pumpOnce() {
            case .written: return true
            case .stopped: return false
            case .underrun: if !recover() { return false }
            }
        }
        return true
    }

    private enum PumpResult { case written, stopped, underrun }

    private func pumpOnce() -> PumpResult {
        let now = clock.now
        let wanted: Int
        do {
            if let writable = try output.writableFrames() {
                wanted = writable
            } else {
                let target = frame(at: now.advanced(by: leadTime))
                wanted = Int(max(0, target - state.withLock { $0.written }))
            }
        } catch .underrun {
            return .underrun
        } catch {
            return fail(error) ? .written : .stopped
        }
        var buffer: [Int16] = []
        let open = state.withLock { state -> Bool in
            guard !state.closed, state.failure == nil else { return false }
            guard wanted > 0 else { return true }
            state.mixer.render(from: state.written, count: wanted, into: &buffer)
            state.written += Int64(wanted)
            return true
        }
        guard open else { return .stopped }
        guard wanted > 0 else { return .written }
        do {
            try output.write(buffer)
        } catch .underrun {
            return .underrun
        } catch {
            return fail(error) ? .written : .stopped
        }
        return .written
    }

    /// After an underrun: the device made playable again, and the frames whose instant has
    /// passed skipped, so that the next frame written is heard at its own instant.
    private func recover() -> Bool {
        do { try output.recover() } catch { return fail(error) }
        let position = frame(at: clock.now)
        state.withLock { state in
            state.underruns += 1
            if position > state.written {
                state.framesSkipped += position - state.written
                state.written = position
            }
        }
        return true
    }

    private func fail(_ error: AudioError) -> Bool {
        state.withLock { state in if state.failure == nil { state.failure = error } }
        return false
    }

    /// Waits (within `timeout`) until every placed sound has been heard, then closes the output.
    /// Idempotent.
    public func finish(timeout: Duration = .seconds(30)) throws(AudioError) {
        if let end = lastEnd {
            _ = clock.wait(until: { clock.now >= end || state.withLock { $0.failure != nil } }, timeout: timeout)
        }
        try close()
    }

    /// Stops every sound at once and closes the output (a cancel, an error, a signal). Idempotent.
    public func close() throws(AudioError) {
        work.withLock { work in
            work?.cancel()
            work = nil
        }
        pumping.lock()
        let wasClosed = state.withLock { state -> Bool in
            defer { state.closed = true }
            return state.closed
        }
        pumping.unlock()
        guard !wasClosed else { return }
        // A file ends with the frames up to now and a lead more, so it covers the trace's time.
        if (try? output.writableFrames()) == .some(nil) {
            let target = frame(at: clock.now.advanced(by: leadTime))
            var buffer: [Int16] = []
            let count = state.withLock { state -> Int in
                let count = Int(max(0, target - state.written))
                if count > 0 { state.mixer.render(from: state.written, count: count, into: &buffer) }
                state.written += Int64(count)
                return count
            }
            if count > 0 { try output.write(buffer) }
        }
        try output.close(drainTimeout: .milliseconds(500))
        if let failure = state.withLock({ $0.failure }) { throw failure }
    }

    deinit {
        work.withLock { $0?.cancel() }
        try? output.close(drainTimeout: .zero)
    }
}

extension Int64 {
    /// Division rounding toward minus infinity.
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
