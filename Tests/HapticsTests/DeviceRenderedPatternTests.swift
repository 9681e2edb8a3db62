// SPDX-License-Identifier: Apache-2.0

import DRV2605
import Foundation
import HapticChip
import HapticEffects
import HardwareAccess
import Testing

@testable import FirmwareLink
@testable import Haptics

/// The pattern player on a device that renders patterns itself (the haptics firmware): the
/// pattern goes up and the device's timer streams it; what the device cannot hold, and what
/// leaves the designed course (a seek), is streamed from here.
@Suite struct DeviceRenderedPatternTests {
    /// Two continuous events and a transient: a real-time stream of 0.6 s at 200 steps a second.
    let pattern = HapticPattern(events: [
        .init(type: .hapticContinuous, time: 0, duration: 0.3, intensity: 0.8, sharpness: 0.4),
        .init(type: .hapticTransient, time: 0.35, intensity: 1, sharpness: 0.9),
        .init(type: .hapticContinuous, time: 0.4, duration: 0.2, intensity: 0.5, sharpness: 0.2)
    ])

    /// A firmware that takes uploads and plays the pattern for `length` on `clock` after `start`
    /// (its clock a little slower than this machine's: 650 ms for the 600 ms stream)
    /// (its `status` says `playing=pattern` meanwhile); `refuse` answers `upload end` instead.
    final class Firmware: @unchecked Sendable {
        let clock = VirtualClock()
        let length = Duration.milliseconds(650)
        var refuse: String?
        private(set) var startedAt: ClockInstant?
        lazy var line = LockedFirmwareLine(
            respond: firmwareAnswers(playing: { [unowned self] in self.playing ? "pattern" : "-" }) { [unowned self] command in
                if command == "upload end" { return [self.refuse ?? "ok upload end 121 600"] }
                if command.hasPrefix("upload ") { return ["ok upload"] }
                if command == "start" {
                    self.startedAt = self.clock.now
                    return ["ok start 600"]
                }
                if command == "stop" { self.startedAt = nil }
                return nil
            })
        var playing: Bool { startedAt.map { clock.now < $0.advanced(by: length) } ?? false }
    }

    func makeEngine(_ firmware: Firmware, intensityScale: Double = 1) throws -> HapticEngine {
        let driver = try FirmwareChipDriver(device: FirmwareDevice(line: firmware.line), clock: firmware.clock)
        var options = HapticEngine.Options.isolated
        options.policy.intensityScale = intensityScale
        return HapticEngine(firmware: driver, actuator: .lra, options: options)
    }

    @Test func thePatternIsUploadedAndTheDevicesTimerPlaysIt() throws {
        let firmware = Firmware()
        let engine = try makeEngine(firmware)
        defer { _ = engine.shutdown() }
        let player = PatternPlayer(engine: engine, pattern: PatternRenderer().render(pattern), source: PatternSource(pattern: pattern))
        player.start()
        #expect(player.rendersOnDevice)
        #expect(firmware.line.written.filter { $0.hasPrefix("upload ") } == FirmwareDevice.uploadCommands(pattern) + ["upload end"])
        #expect(firmware.line.written.last == "start")
        // Half way, the player has sent nothing more: the device times the stream.
        firmware.clock.advance(by: .milliseconds(300))
        #expect(firmware.line.written.last != "stop" && !firmware.line.written.contains { $0.hasPrefix("level") })
        #expect(player.outcome == nil)
        // It ends when the device says it no longer plays, not before.
        #expect(player.waitUntilFinished(timeout: .seconds(5)) == .finished)
        #expect(firmware.clock.now >= firmware.startedAt.map { $0.advanced(by: firmware.length) } ?? .zero)
        #expect(!firmware.line.written.contains { $0.hasPrefix("level") })
    }

    @Test func aPatternOfTransientsAloneGoesUpToo() throws {
        // ROM clicks here, ROM clicks there (the device renders as this build does).
        let clicks = HapticPattern(events: [
            .init(type: .hapticTransient, time: 0, intensity: 1, sharpness: 0.7), .init(type: .hapticTransient, time: 0.45, intensity: 0.7, sharpness: 0.4)
        ])
        let rendered = PatternRenderer().render(clicks)
        #expect(rendered.mode == .rom && rendered.hits.count == 2)
        let firmware = Firmware()
        let engine = try makeEngine(firmware)
        defer { _ = engine.shutdown() }
        let player = PatternPlayer(engine: engine, pattern: rendered, source: PatternSource(pattern: clicks))
        player.start()
        #expect(player.rendersOnDevice)
        #expect(firmware.line.written.filter { $0.hasPrefix("upload ") } == FirmwareDevice.uploadCommands(clicks) + ["upload end"])
        #expect(player.waitUntilFinished(timeout: .seconds(5)) == .finished)
        #expect(!firmware.line.written.contains { $0.hasPrefix("rom ") || $0.hasPrefix("level") })

        // A seek leaves the device: the clicks still to come are played from here, as clicks.
        let seeking = PatternPlayer(engine: engine, pattern: rendered, source: PatternSource(pattern: clicks))
        seeking.start()
        #expect(seeking.rendersOnDevice)
        firmware.clock.advance(by: .milliseconds(10))
        seeking.seek(to: 0.3)
        #expect(seeking.waitUntilFinished(timeout: .seconds(5)) == .finished)
        let written = firmware.line.written
        let afterSeek = written.lastIndex(of: "start").map { Array(written[($0 + 1)...]) } ?? []
        #expect(afterSeek.first == "stop")
        #expect(afterSeek.contains("rom " + WaveformSequence(rendered.hits[1].effect).steps.map { String($0.slotByte) }.joined(separator: " ")))
        #expect(!afterSeek.contains { $0.hasPrefix("level") })
    }

    @Test func aPatternTheDeviceCannotHoldIsStreamedFromHere() throws {
        let firmware = Firmware()
        firmware.refuse = "error too-long the pattern needs about 90000 bytes of heap to render and this board has 17000"
        let engine = try makeEngine(firmware)
        defer { _ = engine.shutdown() }
        let rendered = PatternRenderer().render(pattern)
        let player = PatternPlayer(engine: engine, pattern: rendered, source: PatternSource(pattern: pattern))
        player.start()
        #expect(!player.rendersOnDevice)
        #expect(player.waitUntilFinished(timeout: .seconds(5)) == .finished)
        #expect(!firmware.line.written.contains("start"))
        let levels = firmware.line.written.filter { $0.hasPrefix("level ") && $0 != "level end" }
        // Each change of level, in order: the stream this machine rendered.
        var changes: [Double] = []
        for sample in rendered.samples where changes.last != sample { changes.append(sample) }
        #expect(levels == changes.map { "level \(Int(($0 * 1_000_000).rounded()))" })
    }

    @Test func aRenderingMadeOtherwiseOrScaledIsStreamedFromHere() throws {
        let firmware = Firmware()
        let engine = try makeEngine(firmware)
        defer { _ = engine.shutdown() }
        let renderer = PatternRenderer(rate: 400)
        let player = PatternPlayer(engine: engine, pattern: renderer.render(pattern), source: PatternSource(pattern: pattern))
        player.start()
        #expect(!player.rendersOnDevice)
        player.cancel()
        let unsourced = PatternPlayer(engine: engine, pattern: PatternRenderer().render(pattern))
        unsourced.start()
        #expect(!unsourced.rendersOnDevice)
        unsourced.cancel()
        // The policy scales every feedback: the device would render the pattern unscaled.
        let quieter = try makeEngine(firmware, intensityScale: 0.5)
        defer { _ = quieter.shutdown() }
        let scaled = PatternPlayer(engine: quieter, pattern: PatternRenderer().render(pattern), source: PatternSource(pattern: pattern))
        scaled.start()
        #expect(!scaled.rendersOnDevice)
        scaled.cancel()
        #expect(!firmware.line.written.contains { $0.hasPrefix("upload") })
    }

    @Test func aSeekStopsTheDeviceAndStreamsFromTheNewPlace() throws {
        let firmware = Firmware()
        let engine = try makeEngine(firmware)
        defer { _ = engine.shutdown() }
        let rendered = PatternRenderer().render(pattern)
        let player = PatternPlayer(engine: engine, pattern: rendered, source: PatternSource(pattern: pattern))
        player.start()
        firmware.clock.advance(by: .milliseconds(100))
        player.seek(to: 0.42)
        firmware.clock.advance(by: .milliseconds(1))
        #expect(!player.rendersOnDevice)
        let afterStart = firmware.line.written.drop { $0 != "start" }
        #expect(afterStart.dropFirst().first == "stop")
        // The first level streamed is the one at the new place.
        let first = afterStart.first { $0.hasPrefix("level ") }
        #expect(first == "level \(Int((rendered.samples[Int(0.42 * 200)] * 1_000_000).rounded()))")
        #expect(player.waitUntilFinished(timeout: .seconds(5)) == .finished)
    }

    @Test func cancelAndANewerFeedbackStopTheDevice() throws {
        let firmware = Firmware()
        let engine = try makeEngine(firmware)
        defer { _ = engine.shutdown() }
        let player = PatternPlayer(engine: engine, pattern: PatternRenderer().render(pattern), source: PatternSource(pattern: pattern))
        player.start()
        firmware.clock.advance(by: .milliseconds(100))
        player.cancel()
        #expect(player.outcome == .cancelled)
        #expect(firmware.line.written.drop { $0 != "start" }.contains("stop"))
        #expect(!firmware.playing)

        let second = PatternPlayer(engine: engine, pattern: PatternRenderer().render(pattern), source: PatternSource(pattern: pattern))
        second.start()
        #expect(firmware.playing)
        firmware.clock.advance(by: .milliseconds(100))
        #expect(engine.play(.impact(.heavy)) == .played)
        #expect(firmware.line.written.contains("stop"))
        firmware.clock.advance(by: .milliseconds(60))
        #expect(second.outcome == .preempted)
    }
}
