// SPDX-License-Identifier: Apache-2.0

import Audio
import DRV2605
import Foundation
import HapticChip
import HapticEffects
import Haptics
import HapticsSimulation
import HardwareAccess

/// What the studio does with the chip, without HTTP: read a pattern, play it (one at a time: a
/// new play ends the previous one), render it on a simulated chip, audition ROM effects, and the
/// short "feel" taps sent while a designer drags a control. The HTTP and WebSocket layers only
/// translate to and from this type, so its tests need no server.
public final class StudioPlayback: Sendable {
    /// Bounds on what one request may ask for.
    public struct Limits: Sendable {
        /// Largest pattern body accepted (the readers' own limit is larger; a studio pattern is hand-made).
        public var maximumPatternBytes = 4 << 20
        /// Largest sound accepted for conversion (a minute of 48 kHz stereo WAV is 11 MB).
        public var maximumSoundBytes = 32 << 20
        /// Longest playback, loops included; then it is stopped.
        public var maximumPlaySeconds = 120.0
        /// Real-time updates a second.
        public var rate = 200.0
        /// The defaults above.
        public init() {}
    }

    /// The answer to a play: the keys of `haptic pattern --json`, plus what the actuator did.
    public struct PlayReport: Codable, Sendable, Equatable {
        /// Timing of the real-time stream, in microseconds late.
        public struct Timing: Codable, Sendable, Equatable {
            /// Median lateness of a real-time update.
            public var medianMicroseconds: Double?
            /// 99th percentile lateness.
            public var p99Microseconds: Double?
            /// Largest lateness.
            public var maxMicroseconds: Double?
            /// Bus writes made.
            public var updates: Double
            /// Updates skipped because a later one was already due.
            public var missedUpdates: Double
        }
        /// The chip's state once playback ended (read from its registers).
        public struct Final: Codable, Sendable, Equatable {
            /// STANDBY set: back in low power.
            public var standby: Bool
            /// GO still set: something still playing.
            public var go: Bool
            /// RTP_INPUT.
            public var rtp: Int
            /// MODE's operating mode, in words.
            public var mode: String
        }
        /// The name the pattern was sent under (`?name=`).
        public var file: String
        /// `ahap` or `metaHaptic`.
        public var format: String
        /// How curve control-point times were read.
        public var curveTimes: String
        /// The pattern's length as designed.
        public var designedSeconds: Double
        /// Wall (or virtual) time from start to end of playback.
        public var playedSeconds: Double
        /// The rendered length, what a full playback lasts.
        public var renderedSeconds: Double
        /// `realTime` or `rom`.
        public var mode: String
        /// Events by AHAP type.
        public var events: [String: Int]
        /// The reader's and the renderer's notes.
        public var warnings: [String]
        /// `finished`, `stopped` (by `stop` or a newer play), `cancelled` (the time limit), `preempted`, or `failed(…)`.
        public var outcome: String
        public var timing: Timing
        public var final: Final?
        /// The engine's bus totals since the studio opened the chip.
        public var bus: [String: Int]
        public var device: String
        /// What the actuator did, for the plot under the design.
        public var drive: DriveTrace
    }

    /// A drive level over time, sampled at `rate`.
    public struct DriveTrace: Codable, Sendable, Equatable {
        /// `simulated chip` (the chip's own record) or `rendered` (what was sent; a board's
        /// actuator cannot be observed).
        public var source: String
        /// Samples a second.
        public var rate: Double
        /// Drive level, 0...1 of full scale (negative: brake, in open loop).
        public var levels: [Double]
        /// On the simulated chip: the acceleration the actuator gave, in g, its peak in each
        /// sample (`StudioDevice.recordedMotion`: the drive frequency and the actuator's response
        /// included), so that what the live sliders did is seen as felt; nil on a board.
        public var accelerationG: [Double]?
        /// The actuator's acceleration at full rated drive at resonance, in g: the plot's full scale.
        public var ratedAccelerationG: Double?
    }

    /// The answer to a render: the pattern's curves and the simulated actuator, row by row.
    public struct RenderReport: Codable, Sendable, Equatable {
        public var designedSeconds: Double
        public var mode: String
        public var rate: Double
        public var time: [Double]
        public var intensity: [Double]
        public var sharpness: [Double]
        public var drive: [Double]
        public var warnings: [String]
    }

    /// A pattern read back as the studio edits it: AHAP text written by the library, so an
    /// import shows exactly what will play, with the reader's warnings.
    public struct ImportReport: Codable, Sendable, Equatable {
        public var format: String
        public var curveTimes: String
        public var designedSeconds: Double
        public var warnings: [String]
        public var ahap: String
    }

    /// One ROM effect for the library panel.
    public struct EffectEntry: Codable, Sendable, Equatable {
        public var id: Int
        public var name: String
        public var estimatedMilliseconds: Int
    }

    public let device: StudioDevice
    public let limits: Limits
    private let current = Locked<PatternPlayer?>(nil)

    /// The studio's use of `device`.
    public init(device: StudioDevice, limits: Limits = Limits()) {
        self.device = device
        self.limits = limits
    }

    /// Reads a request body as a pattern file named `name` (`.haptic` means Meta's format).
    public func document(from bytes: [UInt8], name: String) throws(StudioError) -> PatternDocument {
        guard bytes.count <= limits.maximumPatternBytes else { throw .tooLarge(bytes: bytes.count, limit: limits.maximumPatternBytes) }
        do {
            return try PatternFileReader.parse(bytes, file: name, isMeta: name.lowercased().hasSuffix(".haptic") ? true : nil)
        } catch {
            throw error.path.isEmpty && error.line != nil ? .malformed(error) : .invalid(error)
        }
    }

    private func rendered(_ document: PatternDocument) -> RenderedPattern {
        PatternRenderer(rate: limits.rate).render(document.pattern)
    }

    /// Plays `document` and returns once it ended: finished, stopped by `stop()` or a newer
    /// play, or cut at the time limit. With `loop`, it repeats until one of the last two.
    public func play(_ document: PatternDocument, name: String, loop: Bool = false) async -> PlayReport {
        let pattern = rendered(document)
        // As designed, so that the page's live sliders can vary it while it plays (`vary`).
        let player = PatternPlayer(engine: device.engine, designed: document.pattern, renderer: PatternRenderer(rate: limits.rate))
        player.loopEnabled = loop
        let previous = current.withLock { current -> PatternPlayer? in
            defer { current = player }
            return current
        }
        previous?.stop()
        let clock = device.engine.clock
        let start = clock.now
        let limit = Duration.secondsClamped(loop ? limits.maximumPlaySeconds : min(limits.maximumPlaySeconds, pattern.playedSeconds + 5))
        player.start(at: start)
        // The wait runs on a thread of its own: on a virtual clock (tests) it is what moves time.
        let outcome: PatternPlayer.Outcome = await withCheckedContinuation { continuation in
            let waiter = Thread {
                continuation.resume(returning: player.runToCompletion(limit: limit) ?? .cancelled)
            }
            waiter.name = "studio-play"
            waiter.start()
        }
        let played = clock.now.duration(since: start).secondsDouble
        current.withLock { if $0 === player { $0 = nil } }
        return report(document, name: name, pattern: pattern, player: player, outcome: outcome, start: start, played: played)
    }

    /// The page's live sliders: Core Haptics' HapticIntensityControl (multiplies) and
    /// HapticSharpnessControl (adds) sent now to the pattern playing, so that a designer feels a
    /// pattern harder, softer, crisper or rounder while it plays. Each value given replaces the
    /// one sent before (a slider is a value, not a step). Throws when nothing plays.
    public func vary(intensity: Double?, sharpness: Double?) throws(StudioError) {
        guard let player = current.withLock({ $0 }) else { throw .badRequest("nothing plays: press Play, then move the sliders while it plays") }
        var parameters: [HapticPattern.Parameter] = []
        if let intensity { parameters.append(.init(id: .hapticIntensityControl, time: 0, value: intensity)) }
        if let sharpness { parameters.append(.init(id: .hapticSharpnessControl, time: 0, value: sharpness)) }
        guard !parameters.isEmpty else { throw .badRequest("vary needs intensity (0...1) or sharpness (-1...1)") }
        do { try player.sendParameters(parameters) } catch { throw .badRequest("\(error)") }
    }

    private func report(
        _ document: PatternDocument, name: String, pattern: RenderedPattern, player: PatternPlayer,
        outcome: PatternPlayer.Outcome, start: ClockInstant, played: Double
    ) -> PlayReport {
        var counts: [String: Int] = [:]
        for (type, count) in document.pattern.eventCounts { counts[type.rawValue] = count }
        let lateness = player.timing.latenessMicroseconds
        let final = try? device.engine.withDriver { driver -> PlayReport.Final in
            let file = try driver.dumpRegisters()
            let mode = file[ModeRegister.self]
            return .init(standby: mode.standby, go: file[GoRegister.self].go, rtp: Int(file[.realTimePlaybackInput]), mode: mode.mode.description)
        }
        let bus = device.engine.statistics.bus
        let drive =
            device.recordedDrive(from: start, seconds: played, rate: pattern.rate)
            .map {
                DriveTrace(
                    source: "simulated chip", rate: pattern.rate, levels: $0,
                    accelerationG: device.recordedMotion(from: start, seconds: played, rate: pattern.rate),
                    ratedAccelerationG: device.physics?.ratedAccelerationG)
            }
            ?? DriveTrace(source: "rendered", rate: pattern.rate, levels: pattern.intensity)
        return PlayReport(
            file: name, format: document.format.rawValue, curveTimes: document.curveTimes.rawValue,
            designedSeconds: document.pattern.duration, playedSeconds: played, renderedSeconds: pattern.playedSeconds,
            mode: pattern.mode.rawValue, events: counts, warnings: document.warnings + pattern.warnings,
            outcome: String(describing: outcome),
            timing: .init(
                medianMicroseconds: lateness?.median, p99Microseconds: lateness?.p99, maxMicroseconds: lateness?.maximum,
                updates: Double(player.timing.writes), missedUpdates: Double(player.timing.missedUpdates)),
            final: final, bus: ["transactions": bus.transactions, "bytes": bus.wireBytes, "errors": bus.errors],
            device: device.origin, drive: drive)
    }

    /// Stops whatever the studio is playing and the actuator with it. Returns whether the chip
    /// confirmed it stopped.
    @discardableResult
    public func stop() -> Bool {
        current.withLock { $0 }?.stop()
        device.engine.stop()
        return (try? device.engine.withChip { chip in try !chip.readBack().driving }) ?? false
    }

    /// Whether a pattern is playing now.
    public var isPlaying: Bool { current.withLock { $0 != nil } }

    /// The pattern on a simulated chip of the device's actuator kind, on a virtual clock: the
    /// curves as designed and the drive the actuator would give, at the render rate.
    public func render(_ document: PatternDocument) throws(StudioError) -> RenderReport {
        let pattern = rendered(document)
        let rows: [PatternPreview.Row]
        do { rows = try PatternPreview.rows(for: pattern, actuator: device.actuator) } catch { throw .chip("the simulated chip refused the pattern: \(error)") }
        return RenderReport(
            designedSeconds: document.pattern.duration, mode: pattern.mode.rawValue, rate: pattern.rate,
            time: rows.map(\.time), intensity: rows.map(\.intensity), sharpness: rows.map(\.sharpness),
            drive: rows.map(\.drive), warnings: document.warnings + pattern.warnings)
    }

    /// The document as the library reads and writes it back; a value AHAP cannot hold is a 400
    /// naming it (a file the reader accepted has none).
    public func importReport(_ document: PatternDocument) throws(StudioError) -> ImportReport {
        let ahap: String
        do { ahap = try AHAPWriter.write(document.pattern) } catch { throw .badRequest(error.description) }
        return ImportReport(
            format: document.format.rawValue, curveTimes: document.curveTimes.rawValue, designedSeconds: document.pattern.duration,
            warnings: document.warnings + AHAPWriter.warnings(for: document.pattern), ahap: ahap)
    }

    /// What `/api/convert` answers: the pattern made from a sound, as AHAP, and its transients.
    public struct SoundConversion: Codable, Sendable, Equatable {
        /// The pattern, as AHAP text (the page loads it like an import).
        public var ahap: String
        /// How long the sound lasts.
        public var seconds: Double
        /// When each transient was placed (the sound's onsets), in seconds.
        public var transients: [Double]
    }

    /// A sound (WAV, FLAC, Ogg, MP3 as libsndfile reads them) made into a pattern by
    /// `AudioToHaptics` with its default parameters, as `haptic convert` does. The sound is
    /// decoded from a private temporary file, removed after.
    public func convert(sound bytes: [UInt8], name: String) throws(StudioError) -> SoundConversion {
        guard bytes.count <= limits.maximumSoundBytes else { throw .tooLarge(bytes: bytes.count, limit: limits.maximumSoundBytes) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("haptic-studio-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("sound." + ((name as NSString).pathExtension.isEmpty ? "wav" : (name as NSString).pathExtension))
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            try Data(bytes).write(to: file)
        } catch {
            throw .badRequest("cannot keep the sound for decoding: \(error.localizedDescription)")
        }
        let sound: Sound
        do {
            sound = try Sound.decode(path: file.path)
        } catch {
            throw .badRequest("\(name): \(error.description.replacingOccurrences(of: file.path, with: name))")
        }
        let pattern = AudioToHaptics().pattern(from: sound)
        let ahap: String
        do { ahap = try AHAPWriter.write(pattern) } catch { throw .badRequest(error.description) }
        return SoundConversion(ahap: ahap, seconds: sound.duration, transients: pattern.events.filter { $0.type == .hapticTransient }.map(\.time))
    }

    /// What `/api/export?format=haptic` answers: Meta's `.haptic` of a pattern, and what it left out.
    public struct MetaExport: Codable, Sendable, Equatable {
        /// The `.haptic` file's text.
        public var haptic: String
        /// What the pattern held that `.haptic` cannot, one line each.
        public var warnings: [String]
    }

    /// `document` as Meta's `.haptic` (`MetaHapticWriter`), with what the format cannot hold named.
    public func metaExport(_ document: PatternDocument) throws(StudioError) -> MetaExport {
        do {
            let written = try MetaHapticWriter.write(document.pattern, source: "haptic-studio")
            return MetaExport(haptic: written.text, warnings: written.warnings)
        } catch {
            throw .badRequest(error.description)
        }
    }

    /// The chip's ROM effects, TI's names and estimated lengths.
    public func effects() -> [EffectEntry] {
        Effect.all.map { EffectEntry(id: Int($0.rawValue), name: $0.name, estimatedMilliseconds: Int($0.estimatedDuration.secondsDouble * 1000)) }
    }

    /// Plays ROM effect `id` once.
    public func audition(effect id: Int) throws(StudioError) -> FeedbackOutcome {
        guard let effect = Effect(id) else {
            throw .badRequest("effect \(id) does not exist; the ROM has effects 1-\(Effect.all.count)")
        }
        return device.engine.play(plan: .rom(WaveformSequence(effect)), label: "effect \(id)")
    }

    /// A short tap at the given intensity and sharpness (0...1): what a transient of those
    /// values plays as, sent while a control is dragged.
    public func feel(intensity: Double, sharpness: Double) throws(StudioError) -> FeedbackOutcome {
        guard intensity.isFinite, sharpness.isFinite, (0...1).contains(intensity), (0...1).contains(sharpness) else {
            throw .badRequest("intensity and sharpness must be numbers from 0 to 1")
        }
        guard intensity > 0 else { return .played }
        let effect = PatternRenderer.effect(intensity: intensity, sharpness: sharpness)
        return device.engine.play(plan: .rom(WaveformSequence(effect)), label: "feel")
    }
}
