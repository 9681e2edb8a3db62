// SPDX-License-Identifier: Apache-2.0

import HapticPatterns
import HardwareAccess

/// Why a player did not take a dynamic parameter or a parameter curve: nothing was changed, and
/// the caller is told (Core Haptics throws from `sendParameters` and `scheduleParameterCurve`).
public enum PatternPlayerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The player was stopped, cancelled or finished: there is nothing left to vary.
    case notPlaying(PatternPlayer.Outcome)
    /// The player was made from a rendering alone, without the pattern as designed to render
    /// again: make it with `PatternPlayer(engine:designed:)`.
    case noDesign
    /// A value or time that is not a finite number.
    case invalid(String)

    public var description: String {
        switch self {
        case let .notPlaying(outcome):
            return "the player has ended (\(outcome)): start a new one to play the pattern again"
        case .noDesign:
            return "this player plays a rendering alone: make it from the pattern as designed (PatternPlayer(engine:designed:)) to vary it while it plays"
        case let .invalid(what):
            return "\(what) is not a finite number"
        }
    }
}

/// Haptics that vary while they play, as Core Haptics' advanced player varies them
/// (`CHHapticAdvancedPatternPlayer`): dynamic parameters sent at a time change their value
/// abruptly then, across every event of the pattern, and parameter curves ramp them. Apple's
/// semantics (CHHapticDynamicParameter): HapticIntensityControl multiplies the events'
/// intensity, the sharpness and attack, decay and release time controls add to the events' own
/// values, each result limited to the parameter's range; a time of nil, or one already past,
/// means now.
///
/// The player keeps them beside the pattern as designed (`PatternRenderer.playerControls`: on top
/// of the pattern's own controls, the intensity multiplying, the others adding), each holding
/// from the pattern position of its time on; it renders again and plays on from where it is, in
/// the same update: what was already played is not replayed, and the next level written is the
/// new one.
extension PatternPlayer {
    /// Sends `parameters` to take effect at `time` (nil or past: now); each parameter's `time`
    /// counts from there, as Core Haptics' `relativeTime`. Before the player starts, `time` is
    /// its start.
    public func sendParameters(_ parameters: [HapticPattern.Parameter], atTime time: ClockInstant? = nil) throws(PatternPlayerError) {
        for parameter in parameters where !parameter.value.isFinite || !parameter.time.isFinite {
            throw .invalid("\(parameter.id.rawValue)'s value or time")
        }
        try vary(at: time) { controls, offset in
            for parameter in parameters {
                let value = min(parameter.id.range.upperBound, max(parameter.id.range.lowerBound, parameter.value))
                controls.parameters.append(HapticPattern.Parameter(id: parameter.id, time: offset + max(0, parameter.time), value: value))
            }
        }
    }

    /// Schedules `curve` to start at `time` (nil or past: now); its own `time` counts from there,
    /// its points from it. Values are limited to the parameter's range.
    public func scheduleParameterCurve(_ curve: HapticPattern.ParameterCurve, atTime time: ClockInstant? = nil) throws(PatternPlayerError) {
        guard curve.time.isFinite, curve.points.allSatisfy({ $0.time.isFinite && $0.value.isFinite }) else {
            throw .invalid("\(curve.id.rawValue)'s curve")
        }
        try vary(at: time) { controls, offset in
            let range = curve.id.range
            let points = curve.points.map { HapticPattern.ParameterCurve.Point(time: max(0, $0.time), value: min(range.upperBound, max(range.lowerBound, $0.value))) }
            controls.curves.append(HapticPattern.ParameterCurve(id: curve.id, time: offset + max(0, curve.time), points: points))
        }
    }

    /// At a loop: what was sent holds into the next pass, as Core Haptics' dynamic parameters are
    /// the player's values, not the pattern position's. The values in force at the loop's end
    /// become the controls from the pass's start (a curve holds its value there), and the pattern
    /// is rendered again with them. Nothing is done when nothing was sent.
    func carrySentParametersIntoNextPass() {
        variations.withLock { count in
            let taken: (Design, Double)? = state.withLock { state in
                guard let design = state.design, !design.renderer.playerControls.parameters.isEmpty || !design.renderer.playerControls.curves.isEmpty
                else { return nil }
                let pattern = playing(state)
                let length = pattern.mode == .realTime ? Double(pattern.samples.count) / pattern.rate : pattern.playedSeconds
                return (design, state.loopEnabled && state.loopEnd > 0 ? min(state.loopEnd, length) : length)
            }
            guard let (snapshot, end) = taken else { return }
            var design = snapshot
            let controls = design.renderer.playerControls
            let ids = Set(controls.parameters.map(\.id) + controls.curves.map(\.id)).sorted { $0.rawValue < $1.rawValue }
            design.renderer.playerControls = HapticPattern(parameters: ids.map { .init(id: $0, time: 0, value: controls.control($0, at: end)) })
            let rendered = Self.playable(design.renderer.render(design.pattern), on: engine, mixing: options.mixes)
            count += 1
            state.withLock { state in
                state.design = design
                state.rendering = rendered
            }
        }
    }

    /// Adds to the player's controls at the pattern position of `time`, renders again, and plays on. The
    /// rendering is made outside the player's lock, so the stream is not held up meanwhile; sends
    /// are taken one at a time (`variations`), so none is lost to another.
    private func vary(at time: ClockInstant?, _ change: (inout HapticPattern, Double) -> Void) throws(PatternPlayerError) {
        let result: Result<Void, PatternPlayerError> = variations.withLock { count in
            let now = clock.now
            let taken: Result<(Design, Double), PatternPlayerError> = state.withLock { state in
                guard let design = state.design else { return .failure(.noDesign) }
                switch state.status {
                case let .finished(outcome):
                    return .failure(.notPlaying(outcome))
                case .idle, .paused:
                    return .success((design, state.pausedOffset))
                case let .scheduled(start):
                    return .success((design, state.originOffset + max(0, (time ?? start).duration(since: start).secondsDouble) * state.playbackRate))
                case .playing:
                    return .success((design, position(state, max(now, time ?? now))))
                }
            }
            guard case let .success((snapshot, offset)) = taken else { return taken.map { _ in () } }
            var design = snapshot
            var controls = design.renderer.playerControls
            change(&controls, offset)
            // Sorted by time, as a pattern's own are.
            design.renderer.playerControls = HapticPattern(parameters: controls.parameters, curves: controls.curves)
            let rendered = Self.playable(design.renderer.render(design.pattern), on: engine, mixing: options.mixes)
            count += 1
            return state.withLock { state in
                if case let .finished(outcome) = state.status { return .failure(.notPlaying(outcome)) }
                state.design = design
                state.rendering = rendered
                // On from where it is: the next sample is the new rendering's, and so is the
                // next click not yet played.
                if case .playing = state.status {
                    let here = position(state, clock.now)
                    state.nextHit = rendered.hits.firstIndex { $0.time >= here } ?? rendered.hits.count
                    state.lastLevel = nil
                    if state.onDevice { state.leaveDevice = true }
                }
                return .success(())
            }
        }
        try result.get()
        wakeWork()
    }
}
