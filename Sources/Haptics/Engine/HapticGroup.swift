// SPDX-License-Identifier: Apache-2.0

import Audio
import HardwareAccess

/// Several chips playing the same feedback in step (a glove, a vest, a controller's two grips).
///
/// All chips are prepared first — slots loaded, awake — so that only their triggers remain. With a
/// `broadcast` (for chips behind one TCA9548A: select all their channels, one GO write), every chip
/// starts on the same bus write: no skew. Otherwise the triggers go out back to back — behind a
/// TCA9548A a channel switch plus a GO write each, with IN/TRIG wired a GPIO edge each.
public final class HapticGroup: Sendable {
    public let engines: [HapticEngine]
    public let clock: any HapticClock
    private let broadcast: (@Sendable () throws -> Void)?
    private let traffic: (@Sendable () -> BusCounters)?
    private let broadcastTrigger = Locked<BusCounters?>(nil)

    /// A group of chips played together.
    /// - Parameters:
    ///   - engines: one engine per chip, in the order their triggers go out without a broadcast.
    ///   - clock: the clock the group's skew and waits are measured on (a virtual one in tests).
    ///   - broadcast: writes GO = 1 to every chip at once, e.g.
    ///     `{ try mux.broadcast(to: .drv2605, Register.go.write(1), mask: 0x0F) }`.
    ///   - traffic: the counters of the bus the broadcast goes out on (the switch's side), read
    ///     before and after it for `lastBroadcastTrigger`.
    public init(
        engines: [HapticEngine], clock: any HapticClock, broadcast: (@Sendable () throws -> Void)? = nil,
        traffic: (@Sendable () -> BusCounters)? = nil
    ) {
        self.engines = engines
        self.clock = clock
        self.traffic = traffic
        self.broadcast = broadcast
    }

    /// The bus traffic of the last feedback's trigger when one write started every chip (the
    /// switch's channel selection, when it changed, and the GO); nil when the chips were
    /// triggered one by one (each engine's `statistics.lastTrigger` then), or without `traffic`.
    public var lastBroadcastTrigger: BusCounters? { broadcastTrigger.withLock { $0 } }

    /// Plays `feedback` on every chip; returns the skew on the clock, from the first trigger to the last.
    @discardableResult
    public func play(_ feedback: Feedback) -> Duration {
        for engine in engines { engine.prepare(feedback) }
        if let ready = engines.map(\.readyInstant).max(), clock.now < ready { clock.sleep(until: ready) }
        broadcastTrigger.withLock { $0 = nil }
        if let broadcast, engines.allSatisfy({ $0.readyForBroadcast(feedback) }) {
            do {
                let before = traffic?()
                try broadcast()
                if let before, let after = traffic?() { broadcastTrigger.withLock { $0 = after - before } }
                for engine in engines { engine.noteBroadcastTrigger(feedback) }
                return .zero
            } catch {
                // Fall through: trigger one by one (each engine handles its own errors).
            }
        }
        let first = clock.now
        var last = first
        for engine in engines {
            engine.play(feedback)
            last = clock.now
        }
        return last.duration(since: first)
    }

    /// Plays a rendered pattern on every chip in step: one player each, all starting at the same
    /// instant a little ahead, each paced against the same absolute deadlines. A sound track
    /// plays once, with the first chip's player (the start moves to the sound engine's lead).
    @discardableResult
    public func play(
        _ pattern: RenderedPattern, options: PatternPlayer.Options = .init(), lead: Duration = .milliseconds(5),
        soundTrack: PatternSoundTrack? = nil, sounds: SoundEngine? = nil
    ) -> [PatternPlayer] {
        let start = clock.now.advanced(by: max(lead, soundTrack != nil ? sounds?.leadTime ?? .zero : .zero))
        let players = engines.enumerated().map { index, engine in
            PatternPlayer(engine: engine, pattern: pattern, options: options, soundTrack: index == 0 ? soundTrack : nil, sounds: index == 0 ? sounds : nil)
        }
        for player in players { player.start(at: start) }
        return players
    }

    /// Stops every chip.
    public func stop() { for engine in engines { engine.stop() } }
}
