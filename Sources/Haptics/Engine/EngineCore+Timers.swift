// SPDX-License-Identifier: Apache-2.0

import HapticChip
import HapticEffects
import HardwareAccess
import Logging

/// The engine core's timers (the real-time clip, completion checks, the return to standby and
/// the idle shutdown) and its bookkeeping of what was played, dropped and failed.
extension EngineCore {

    /// Advances the real-time clip: writes every sample due, returns the next sample's time.
    func stepClip() -> ClockInstant? {
        guard let current = clip else { return nil }
        let now = clock.now
        var index = current.next
        let tick = current.clip.tick
        while index < current.clip.levels.count, current.start.advanced(by: tick * index) <= now {
            index += 1
        }
        if index > current.next {
            do {
                try driver.setRealTime(amplitude: current.clip.levels[index - 1])
            } catch {
                clip = nil
                fail("real-time clip", error)
                return nil
            }
        }
        if index < current.clip.levels.count, now >= lastClipStatus.advanced(by: Self.clipStatusInterval) {
            // A long stream is checked as it plays: a chip a fault holds idle (a supply sag, a
            // short) is stopped and reported now, not when the stream would have ended.
            lastClipStatus = now
            do {
                let status = noted(try driver.playbackStatus())
                if status.hasFault {
                    clip = nil
                    handleFault(status, stopping: true, context: "stopped a real-time clip: ")
                    noteAwake(driver.power == .ready)
                    return nil
                }
            } catch {
                recover("the check during a real-time clip", error)
            }
        }
        if index >= current.clip.levels.count {
            let end = current.start.advanced(by: tick * current.clip.levels.count)
            if now >= end {
                clip = nil
                do { try driver.endRealTimePlayback(standby: preparedUntil == nil) } catch { recover("ending a real-time clip", error) }
                checkFaults(after: "a real-time clip")
                noteAwake(driver.power == .ready)
                return nil
            }
            clip = (current.clip, current.start, index)
            return end
        }
        clip = (current.clip, current.start, index)
        return current.start.advanced(by: tick * index)
    }

    /// Runs what is due now; returns when to run again.
    func tick() -> ClockInstant? {
        let now = clock.now
        var next: [ClockInstant] = []
        if let clipNext = stepClip() { next.append(clipNext) }
        if let mixedNext = stepMixedClips() { next.append(mixedNext) }
        if let until = busyUntil {
            if now >= until {
                do {
                    let status = noted(try driver.playbackStatus())
                    if status.hasFault {
                        handleFault(status, stopping: true)
                        busyUntil = nil
                    } else if status.playing, let deadline = completionDeadline, now < deadline {
                        next.append(now.advanced(by: driver.pollInterval))
                    } else {
                        if status.playing {
                            logger.warning("haptics: the chip still plays past the effect's deadline; stopping the actuator")
                            driver.stopQuietly()
                        }
                        try driver.finishPlayback()
                        busyUntil = nil
                    }
                } catch {
                    busyUntil = nil
                    recover("the completion check", error)
                }
            } else {
                next.append(until)
            }
        }
        if !isBusy, driver.power == .ready {
            if let until = preparedUntil, now < until {
                next.append(until)
            } else {
                preparedUntil = nil
                do { try driver.enterStandby() } catch { recover("entering standby", error) }
                noteAwake(driver.power == .ready)
            }
        }
        if !isBusy, driver.power == .standby, driver.canShutDown {
            let shutdownAt = lastActivity.advanced(by: options.shutdownAfterIdle)
            if now >= shutdownAt {
                do { try driver.shutdown() } catch { recover("the idle shutdown", error) }
            } else {
                next.append(shutdownAt)
            }
        }
        return next.min()
    }

    // MARK: - Bookkeeping

    func noteAwake(_ awake: Bool) {
        // Called on every pattern write: the clock is read only when the state changes.
        if awake, awakeSince == nil { awakeSince = clock.now }
        if !awake, let since = awakeSince {
            counts.awakeSeconds += clock.now.duration(since: since).secondsDouble
            awakeSince = nil
        }
    }

    func drop(_ label: String, _ reason: DropReason) -> FeedbackOutcome {
        counts.dropped += 1
        logger.info("haptics: dropped \(label): \(reason)")
        return .dropped(reason)
    }

    /// An error with no caller to report to (timers, exit paths): counted, logged, and the chip
    /// stopped by whatever still works.
    func recover(_ what: String, _ error: HapticChipError) {
        counts.failures += 1
        driver.stopQuietly()
        noteAwake(driver.power == .ready)
        logger.error("haptics: \(what) failed: \(error); the actuator was stopped")
    }

    func fail(_ label: String, _ error: HapticChipError) {
        counts.dropped += 1
        driver.stopQuietly()
        busyUntil = nil
        clip = nil
        noteAwake(driver.power == .ready)
        logger.error("haptics: dropped \(label): \(error)")
    }
}
