// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HardwareAccess

/// On a device that renders patterns itself (`PatternRenderingDevice`: the haptics firmware), a
/// player given the pattern's `PatternSource` uploads the pattern instead and the device's timer
/// streams it; the player keeps the chip, watches for the end and stops the device on stop,
/// cancel, pause and errors. A seek, a loop or a rate other than 1 goes back to streaming from
/// here, from where the device had got to.
extension PatternPlayer {
    /// Whether this start goes to the device: from the start at the designed speed, on a device
    /// that renders the source as this rendering was made (checked before the chip is taken, as
    /// it renders the pattern again).
    func deviceRendersThisStart() -> Bool {
        let (fromStart, rate, looping, varied) = state.withLock { ($0.originOffset == 0, $0.playbackRate, $0.loopEnabled, $0.rendering != nil) }
        guard let deviceSource, fromStart, rate == 1, !looping, !varied, !options.mixes,
            let deviceRenderer = engine.withChip({ ($0 as? any PatternRenderingDevice)?.deviceRenderer })
        else { return false }
        return deviceSource.rendersTheSame(on: deviceRenderer, as: pattern)
    }

    /// How often the player looks at the chip's owner while the device plays.
    static let deviceWatchInterval = Duration.milliseconds(50)

    /// Stops the device's rendering and streams from here, from the current position (a seek,
    /// a loop or a new rate).
    func leaveDevice(_ token: UInt64, _ now: ClockInstant) -> ClockInstant? {
        let pattern = rendering
        do {
            let left: Void? = try engine.withExclusive(token) { core in
                try core.driver.stop()
                if pattern.mode == .realTime { try core.driver.beginRealTimePlayback() } else { try core.driver.wake() }
            }
            guard left != nil else {
                finish(.preempted)
                return nil
            }
        } catch {
            finish(.failed(String(describing: error)))
            return nil
        }
        state.withLock { state in
            let offset = position(state, now)
            state.onDevice = false
            state.leaveDevice = false
            state.nextIndex = Int(offset * pattern.rate)
            state.nextHit = pattern.hits.firstIndex { $0.time >= offset } ?? pattern.hits.count
            state.lastLevel = nil
        }
        return now
    }

    /// At the stream's end by this machine's clock: finished once the device says it no longer
    /// plays. A device still playing long after (its clock and this one differ by far less) has
    /// failed, and is stopped as every other ending stops it.
    func awaitDeviceEnd(_ token: UInt64, end: ClockInstant, _ now: ClockInstant) -> ClockInstant? {
        do {
            guard let status = try engine.withExclusive(token, { core in try core.driver.playbackStatus() }) else {
                finish(.preempted)
                return nil
            }
            if !status.playing {
                finish(.finished)
                return nil
            }
            let grace = Duration.seconds(1) + .secondsClamped(pattern.playedSeconds / 2)
            guard now < end.advanced(by: grace) else {
                finish(.failed("the device still played the pattern \(grace) after its end; it was stopped"))
                return nil
            }
            return now.advanced(by: .milliseconds(5))
        } catch {
            finish(.failed(String(describing: error)))
            return nil
        }
    }
}
