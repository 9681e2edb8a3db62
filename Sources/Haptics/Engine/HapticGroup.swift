import HardwareAccess

/// Several chips playing the same feedback in step (a glove, a vest, a controller's two grips).
///
/// All chips are prepared first — slots loaded, awake — so that what remains per chip is only its
/// trigger; the triggers then go out back to back. Behind a TCA9548A each trigger is a channel
/// switch plus a GO write; with IN/TRIG wired, a GPIO edge.
public final class HapticGroup: Sendable {
    public let engines: [HapticEngine]
    public let clock: any HapticClock

    public init(engines: [HapticEngine], clock: any HapticClock) {
        self.engines = engines
        self.clock = clock
    }

    /// Plays `feedback` on every chip; returns the skew: the time from the first trigger to the last.
    @discardableResult
    public func play(_ feedback: Feedback) -> Duration {
        for engine in engines { engine.prepare(feedback) }
        if let ready = engines.map({ _ in clock.now.advanced(by: .milliseconds(1)) }).max() { clock.sleep(until: ready) }
        let first = clock.now
        var last = first
        for engine in engines {
            engine.play(feedback)
            last = clock.now
        }
        return last.duration(since: first)
    }

    /// Stops every chip.
    public func stop() { for engine in engines { engine.stop() } }
}
