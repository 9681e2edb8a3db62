// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import Foundation
import HapticChip
import HapticEffects
import Haptics
import HapticsSimulation
import HardwareAccess
import Testing

func parse(_ text: String, file: String = "test.ahap", curveTimes: PatternFileReader.CurveTimeOption = .automatic) throws(PatternFileError) -> PatternDocument {
    try PatternFileReader.parse(Array(text.utf8), file: file, curveTimes: curveTimes)
}

func parseError(_ text: String, file: String = "test.ahap") -> PatternFileError? {
    do {
        _ = try parse(text, file: file)
        return nil
    } catch { return error }
}

let corpusDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/ahap-corpus")
let corpusFiles = ((try? FileManager.default.contentsOfDirectory(atPath: corpusDirectory.path)) ?? [])
    .filter { $0.hasSuffix(".ahap") }.sorted()

/// An engine on a simulated chip and a virtual clock, for playback tests.
func patternRig() throws -> (HapticEngine, SimulatedDRV2605, VirtualClock) {
    let rig = try EngineRig()
    rig.clock.advance(by: .milliseconds(10))
    return (rig.engine, rig.chip, rig.clock)
}

/// What a firmware renders (`recordsDesign` off: no plot curves, to fit its heap) must drive the
/// actuator exactly as the full rendering does.
func expectSameStreamWithoutTheDesign(_ pattern: HapticPattern, _ what: String) {
    for strategy in [PatternRenderer.Strategy.automatic, .realTime] {
        let full = PatternRenderer(strategy: strategy).render(pattern)
        var lean = PatternRenderer(strategy: strategy)
        lean.recordsDesign = false
        let leaner = lean.render(pattern)
        #expect(leaner.samples == full.samples, "\(what): the stream changed without the design")
        #expect(leaner.hits == full.hits && leaner.mode == full.mode && leaner.warnings == full.warnings, "\(what)")
        #expect(leaner.intensity.isEmpty && leaner.sharpness.isEmpty, "\(what): plot curves were kept")
        #expect(!full.intensity.isEmpty && full.intensity.count >= full.samples.count - 1, "\(what): the full rendering lost its plot curves")
        // What a firmware checks its heap against before it renders: never less than it renders.
        #expect(lean.maximumSteps(of: pattern) >= leaner.samples.count, "\(what): \(leaner.samples.count) steps, over the bound")
    }
}

@Suite("AHAP corpus", .enabled(if: !corpusFiles.isEmpty, "../shared/ahap-corpus is not beside the project"))
struct CorpusTests {
    @Test(arguments: corpusFiles)
    func rendersTheSameStreamWithoutItsPlotCurves(file: String) throws {
        let document = try PatternFileReader.read(path: corpusDirectory.appendingPathComponent(file).path)
        expectSameStreamWithoutTheDesign(document.pattern, file)
    }

    @Test(arguments: corpusFiles)
    func parsesRendersAndPlaysOverItsDesignedSpan(file: String) throws {
        let document = try PatternFileReader.read(path: corpusDirectory.appendingPathComponent(file).path)
        #expect(!document.pattern.events.isEmpty)
        let rendered = PatternRenderer().render(document.pattern)
        #expect(rendered.playedSeconds >= document.pattern.duration - 0.001)
        let (engine, chip, clock) = try patternRig()
        let start = clock.now
        let player = PatternPlayer(engine: engine, pattern: rendered)
        player.start(at: start)
        #expect(player.runToCompletion() == .finished)
        let played = clock.now.duration(since: start).secondsDouble
        #expect(played >= document.pattern.duration - 0.001)
        #expect(played <= rendered.playedSeconds + 0.1)
        if document.pattern.events.contains(where: \.type.isHaptic) {
            #expect(chip.output.energy(from: start, to: clock.now) > 0)
        }
        engine.runDueWork()
        #expect(chip.registers[.realTimePlaybackInput] == 0)
        #expect(chip.registers[.go] & 1 == 0)
        #expect(chip.registers[.mode] & 0x40 != 0)
        #expect(chip.output.level(at: clock.now) == 0)
    }

    @Test(arguments: corpusFiles)
    func writesAFileThatReadsBackEqual(file: String) throws {
        let document = try PatternFileReader.read(path: corpusDirectory.appendingPathComponent(file).path)
        let written = try AHAPWriter.write(document.pattern)
        let reread = try parse(written, curveTimes: .relative)
        #expect(reread.pattern == document.pattern)
        #expect(try JSONSerialization.jsonObject(with: Data(written.utf8)) is [String: Any])
    }
}

@Suite struct AHAPReaderTests {
    @Test func lenientWhereRealFilesAre() throws {
        let document = try parse(
            """
            { "Version": 1, "Metadata": { "Project": "x" }, "Extra": true,
              "Pattern": [
                { "Event": { "Time": 0.5, "EventType": "HapticTransient", "EventParameters": [ { "ParameterID": "HapticIntensity", "ParameterValue": 2.0 }, ], }, },
                { "Event": { "Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.2, "Unknown": 1 } },
                { "Surprise": {} },
              ],
            }
            """)
        let events = document.pattern.events
        #expect(events.map(\.time) == [0, 0.5])
        #expect(events[1].intensity == 1)  // clamped from 2.0
        #expect(events[0].intensity == 1 && events[0].sharpness == 0.5)  // defaults
        #expect(document.warnings.contains { $0.contains("Extra") })
        #expect(document.warnings.contains { $0.contains("Surprise") })
        #expect(document.warnings.contains { $0.contains("clamped") })
        #expect(document.warnings.contains { $0.contains("sorted") })
    }

    @Test func malformedJSONReportsLineAndColumn() throws {
        let error = try #require(parseError("{\n  \"Version\": 1.0,\n  \"Pattern\": [ { \"Event\" { } } ]\n}"))
        #expect(error.line == 3)
        #expect(error.column == 26)
        #expect(error.description.contains("expected ':'"))
        #expect(parseError("")?.message.contains("end of file") == true)
        #expect(parseError("{ \"Pattern\": [] } trailing")?.message.contains("after the JSON value") == true)
    }

    @Test(arguments: [
        (
            #"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient"}},{"Event":{"Time":0,"EventType":"HapticTransient"}},{"Event":{"Time":0,"EventType":"HapticTransient"}},{"Event":{"Time":0,"EventType":"HapticContinuous","EventDuration":"long"}}]}"#,
            "Pattern[3].Event.EventDuration", "must be a number"
        ),
        (#"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticBuzz"}}]}"#, "Pattern[0].Event.EventType", "unknown event type"),
        (#"{"Pattern":[{"Event":{"Time":-1,"EventType":"HapticTransient"}}]}"#, "Pattern[0].Event.Time", "negative"),
        (#"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous"}}]}"#, "Pattern[0].Event.EventDuration", "needs a duration"),
        (#"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous","EventDuration":-0.5}}]}"#, "Pattern[0].Event.EventDuration", "negative"),
        (#"{"Version":"1","Pattern":[]}"#, "Version", "must be a number"),
        (#"{"Version":1}"#, "Pattern", "missing"),
        (
            #"{"Pattern":[{"ParameterCurve":{"ParameterID":"HapticIntensityControl","Time":0,"ParameterCurveControlPoints":[{"Time":0}]}}]}"#,
            "Pattern[0].ParameterCurve.ParameterCurveControlPoints[0].ParameterValue", "missing"
        ),
        (
            #"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient","EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":true}]}}]}"#,
            "Pattern[0].Event.EventParameters[0].ParameterValue", "must be a number"
        )
    ])
    func brokenFilesFailWithTheirJSONPath(text: String, path: String, message: String) throws {
        let error = try #require(parseError(text))
        #expect(error.path == path)
        #expect(error.message.contains(message), "\(error)")
    }

    @Test func limitsAreEnforced() throws {
        var limits = PatternFileLimits()
        limits.maximumElements = 3
        let text =
            #"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient"}},{"Event":{"Time":0,"EventType":"HapticTransient"}},{"Event":{"Time":0,"EventType":"HapticTransient"}},{"Event":{"Time":0,"EventType":"HapticTransient"}}]}"#
        #expect(throws: PatternFileError.self) { try PatternFileReader.parse(Array(text.utf8), file: "x", limits: limits) }
        limits = PatternFileLimits()
        limits.maximumBytes = 10
        #expect(throws: PatternFileError.self) { try PatternFileReader.parse(Array(text.utf8), file: "x", limits: limits) }
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(parseError(deep)?.message.contains("nested") == true)
    }

    @Test func parametersEnvelopesAndAudioEventsAreKept() throws {
        let document = try parse(
            """
            { "Version": 1.0, "Pattern": [
              { "Event": { "Time": 0.0, "EventType": "HapticContinuous", "EventDuration": 1.0, "EventParameters": [
                  { "ParameterID": "AttackTime", "ParameterValue": 0.5 }, { "ParameterID": "ReleaseTime", "ParameterValue": 0.25 },
                  { "ParameterID": "Sustained", "ParameterValue": 1 } ] } },
              { "Event": { "Time": 0.0, "EventType": "AudioContinuous", "EventDuration": 0.5, "EventParameters": [ { "ParameterID": "AudioVolume", "ParameterValue": 0.3 } ] } },
              { "Event": { "Time": 0.2, "EventType": "AudioCustom", "EventWaveformPath": "clap.wav" } },
              { "Parameter": { "ParameterID": "HapticIntensityControl", "Time": 0.5, "ParameterValue": 0.5 } }
            ] }
            """)
        let pattern = document.pattern
        #expect(pattern.events.count == 3)
        let continuous = try #require(pattern.events.first { $0.type == .hapticContinuous })
        #expect(continuous.attackTime == 0.5 && continuous.releaseTime == 0.25)
        #expect(pattern.events.first { $0.type == .audioCustom }?.waveformPath == "clap.wav")
        #expect(pattern.control(.hapticIntensityControl, at: 0.4) == 1)
        #expect(pattern.control(.hapticIntensityControl, at: 0.6) == 0.5)
        let rendered = PatternRenderer().render(pattern)
        #expect(rendered.warnings.contains { $0.contains("2 audio event(s) not played") })
        // Attack 0.5 → about 31.6 ms to full; at 0.6 s the control halves the level; release after 1 s.
        #expect(rendered.samples[2] < rendered.samples[10])
        #expect(abs(rendered.samples[90] - 1) < 1e-9)
        #expect(abs(rendered.samples[140] - 0.5) < 1e-9)
        #expect(rendered.samples[Int(1.002 * 200)] > 0)  // still releasing
        #expect(rendered.samples.last == 0)
        #expect(try AHAPWriter.write(pattern).contains("clap.wav"))
        #expect(try parse(AHAPWriter.write(pattern), curveTimes: .relative).pattern == pattern)
    }

    @Test func continuousEventsOverThirtySecondsAreShortenedWithAWarning() throws {
        let document = try parse(#"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous","EventDuration":45}}]}"#)
        #expect(document.pattern.events[0].duration == 30)
        #expect(document.warnings.contains { $0.contains("30") })
    }

    @Test func absoluteCurveTimesAreDetectedOrForced() throws {
        let text =
            #"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous","EventDuration":2}},{"ParameterCurve":{"ParameterID":"HapticIntensityControl","Time":0.5,"ParameterCurveControlPoints":[{"Time":0.5,"ParameterValue":1},{"Time":1.5,"ParameterValue":0}]}}]}"#
        let automatic = try parse(text)
        #expect(automatic.curveTimes == .absolute)
        #expect(automatic.pattern.curves[0].points.map(\.time) == [0, 1])
        #expect(abs(automatic.pattern.control(.hapticIntensityControl, at: 1.0) - 0.5) < 1e-9)
        #expect(automatic.warnings.contains { $0.contains("absolute") })
        let relative = try parse(text, curveTimes: .relative)
        #expect(relative.curveTimes == .relative)
        #expect(relative.pattern.curves[0].points.map(\.time) == [0.5, 1.5])
        // A curve starting at 0 gives no evidence: relative.
        let plain = try parse(#"{"Pattern":[{"ParameterCurve":{"ParameterID":"HapticIntensityControl","Time":0,"ParameterCurveControlPoints":[{"Time":0,"ParameterValue":1}]}}]}"#)
        #expect(plain.curveTimes == .relative)
    }

    @Test func controlsMultiplyIntensityAndAddToSharpnessClamped() throws {
        let document = try parse(
            """
            {"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous","EventDuration":1,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":0.8},{"ParameterID":"HapticSharpness","ParameterValue":0.9}]}},
             {"ParameterCurve":{"ParameterID":"HapticIntensityControl","Time":0,"ParameterCurveControlPoints":[{"Time":0,"ParameterValue":1},{"Time":1,"ParameterValue":0}]}},
             {"Parameter":{"ParameterID":"HapticSharpnessControl","Time":0,"ParameterValue":0.5}}]}
            """)
        let rendered = PatternRenderer().render(document.pattern)
        #expect(abs(rendered.samples[100] - 0.4) < 1e-9)  // 0.8 × 0.5 at 0.5 s
        #expect(rendered.sharpness[100] == 1)  // 0.9 + 0.5 clamped
    }

    @Test func tenThousandEventsParseAndRender() throws {
        var text = #"{"Version":1,"Pattern":["#
        text += (0..<10_000).map {
            #"{"Event":{"Time":\#(Double($0) * 0.05),"EventType":"HapticTransient","EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":0.5}]}}"#
        }
        .joined(separator: ",")
        text += "]}"
        let document = try parse(text)
        #expect(document.pattern.events.count == 10_000)
        let rendered = PatternRenderer().render(document.pattern)
        #expect(rendered.mode == .rom)
        #expect(rendered.hits.count == 10_000)
    }
}

@Suite struct MetaHapticTests {
    let file = """
        { "version": { "major": 1, "minor": 0, "patch": 0 }, "metadata": { "editor": "Meta Haptics Studio" },
          "signals": { "continuous": { "envelopes": {
            "amplitude": [ { "time": 0.0, "amplitude": 0.2 }, { "time": 0.5, "amplitude": 0.8, "emphasis": { "amplitude": 1.0, "frequency": 0.9 } },
                           { "time": 1.0, "amplitude": 0.0 } ],
            "frequency": [ { "time": 0.0, "frequency": 0.3 }, { "time": 1.0, "frequency": 0.7 } ] } } } }
        """

    @Test func envelopesBecomeCurvesAndEmphasisTransients() throws {
        let document = try parse(file, file: "x.haptic")
        #expect(document.format == .metaHaptic)
        let pattern = document.pattern
        #expect(pattern.events.filter { $0.type == .hapticContinuous }.map(\.duration) == [1.0])
        let transient = try #require(pattern.events.first { $0.type == .hapticTransient })
        #expect(transient.time == 0.5 && transient.sharpness == 0.9)
        // The emphasis keeps its own amplitude: it is exempt from the envelope's intensity control.
        #expect(transient.intensity == 1.0 && !transient.followsIntensityControl)
        #expect(abs(pattern.control(.hapticIntensityControl, at: 0.25) - 0.5) < 1e-9)
        #expect(abs(pattern.control(.hapticSharpnessControl, at: 0.5) - 0.5) < 1e-9)
        let rendered = PatternRenderer().render(pattern)
        #expect(rendered.mode == .realTime)
        // The emphasis burst reaches full scale over the 0.8 envelope.
        #expect(rendered.samples[100] > 0.99)
    }

    @Test(arguments: [
        (#""time": 0.5, "amplitude": 0.8"#, #""time": 0.5, "amplitude": 1.8"#, "signals.continuous.envelopes.amplitude[1].amplitude"),
        (#""time": 1.0, "amplitude": 0.0"#, #""time": 0.2, "amplitude": 0.0"#, "signals.continuous.envelopes.amplitude[2].time"),
        (#"{ "time": 1.0, "frequency": 0.7 }"#, #"{ "time": 1.5, "frequency": 0.7 }"#, "signals.continuous.envelopes.frequency"),
        (#""major": 1"#, #""major": 2"#, "version.major")
    ])
    func validation(original: String, replacement: String, path: String) throws {
        let error = try #require(parseError(file.replacingOccurrences(of: original, with: replacement), file: "x.haptic"))
        #expect(error.path == path, "\(error)")
    }

    @Test func needsTwoAmplitudePoints() {
        let text = #"{"version":{"major":1},"signals":{"continuous":{"envelopes":{"amplitude":[{"time":0,"amplitude":1}]}}}}"#
        #expect(parseError(text, file: "x.haptic")?.message.contains("at least 2") == true)
    }
}

@Suite struct RendererTests {
    @Test func transientsOnlyBecomeROMClicksChosenByIntensityAndSharpness() {
        let pattern = HapticPattern(events: [
            .init(type: .hapticTransient, time: 0, intensity: 1, sharpness: 0.9),
            .init(type: .hapticTransient, time: 0.2, intensity: 0.5, sharpness: 0.5),
            .init(type: .hapticTransient, time: 0.4, intensity: 0.2, sharpness: 0.1)
        ])
        let rendered = PatternRenderer().render(pattern)
        #expect(rendered.mode == .rom)
        #expect(rendered.hits.map(\.effect) == [.sharpClick100, .strongClick60, .softBump30])
        #expect(rendered.hits.map(\.time) == [0, 0.2, 0.4])
    }

    @Test func transientsTooCloseTogetherAreReportedAndStreamed() {
        let pattern = HapticPattern(events: [.init(type: .hapticTransient, time: 0), .init(type: .hapticTransient, time: 0.003)])
        let rendered = PatternRenderer().render(pattern)
        #expect(rendered.mode == .realTime)
        #expect(rendered.warnings.contains { $0.contains("blur together") })
    }

    @Test func sharperTransientsAreShorterAndHarder() {
        let soft = PatternRenderer(strategy: .realTime).render(HapticPattern(events: [.init(type: .hapticTransient, time: 0, sharpness: 0)]))
        let sharp = PatternRenderer(strategy: .realTime).render(HapticPattern(events: [.init(type: .hapticTransient, time: 0, sharpness: 1)]))
        #expect(sharp.samples.filter { $0 != 0 }.count < soft.samples.filter { $0 != 0 }.count)
        #expect(sharp.samples.first ?? 0 > soft.samples.first ?? 0)
        #expect(sharp.samples.contains { $0 < 0 })  // brake
    }

    @Test func rateIsConfigurable() {
        let pattern = HapticPattern(events: [.init(type: .hapticContinuous, time: 0, duration: 1)])
        #expect(PatternRenderer(rate: 1000).render(pattern).samples.count > 1000)
        #expect(PatternRenderer(rate: 200).render(pattern).samples.count < 210)
    }
}

@Suite struct PatternPlayerTests {
    /// A pattern is a trigger under the policy, as a feedback is: over the rate limit it is
    /// dropped before anything reaches the chip, with haptics turned off too, and its start
    /// counts against the limit for the feedback that follows.
    @Test func aPatternIsRateLimitedAndTurnedOffAsAFeedbackIs() throws {
        var options = HapticEngine.Options.isolated
        options.policy.maximumFeedbackPerSecond = 2
        let rig = try EngineRig(options: options)
        let rendered = PatternRenderer().render(HapticPattern(events: [.init(type: .hapticContinuous, time: 0, duration: 0.05)]))
        func play() -> PatternPlayer.Outcome? {
            let player = PatternPlayer(engine: rig.engine, pattern: rendered)
            player.start()
            return player.runToCompletion(limit: .seconds(1))
        }
        #expect(play() == .finished)
        #expect(play() == .finished)
        let writes = rig.chip.trace.count
        #expect(play() == .dropped(.rateLimited(perSecond: 2)))
        #expect(rig.chip.trace.count == writes, "a rate-limited pattern reached the chip")
        #expect(rig.engine.play(.success) == .dropped(.rateLimited(perSecond: 2)), "the patterns did not count against the limit")
        rig.clock.advance(by: .seconds(1))
        var off = rig.engine.policy
        off.enabled = false
        rig.engine.setPolicy(off)
        guard case .dropped(.turnedOff)? = play() else {
            Issue.record("a pattern played with haptics turned off")
            return
        }
        #expect(rig.chip.trace.count == writes)
    }

    let continuous = HapticPattern(events: [.init(type: .hapticContinuous, time: 0, duration: 1, intensity: 0.5)])

    /// A pattern started now drives the chip in the call that starts it, before its thread (or,
    /// here, the virtual clock's work) runs: a force-feedback effect's onset is the play's, as in
    /// the kernel's ff-memless.
    @Test func aPatternStartedNowDrivesInTheStartCall() throws {
        let (engine, chip, clock) = try patternRig()
        let player = PatternPlayer(engine: engine, pattern: PatternRenderer(strategy: .realTime).render(continuous))
        let start = clock.now
        player.start()
        #expect(clock.now == start)
        #expect(chip.registers[.mode] & 0x47 == 0x05 && chip.registers[.realTimePlaybackInput] != 0, "not driving after start()")
        #expect(player.runToCompletion() == .finished)
    }

    @Test func streamsOnTimeAndEndsStopped() throws {
        let (engine, chip, clock) = try patternRig()
        let rendered = PatternRenderer(strategy: .realTime).render(
            HapticPattern(events: [
                .init(type: .hapticContinuous, time: 0, duration: 0.5, intensity: 0.5),
                .init(type: .hapticContinuous, time: 0.5, duration: 0.5, intensity: 1.0)
            ]))
        let player = PatternPlayer(engine: engine, pattern: rendered)
        let start = clock.now
        player.start(at: start)
        #expect(player.runToCompletion() == .finished)
        #expect(abs(chip.output.level(at: start.advanced(by: .milliseconds(250))) - 64.0 / 127) < 1e-9)
        #expect(chip.output.level(at: start.advanced(by: .milliseconds(750))) == 1)
        // Only changes are written: level 0.5, level 1, then 0.
        #expect(player.timing.writes <= 4)
        #expect(player.timing.latenessNanoseconds.allSatisfy { $0 >= 0 && $0 < 1_000 })
        #expect(player.timing.missedUpdates == 0)
        #expect(chip.registers[.realTimePlaybackInput] == 0 && chip.registers[.mode] & 0x40 != 0)
    }

    @Test func cancelStopsWithinOneUpdate() throws {
        let (engine, chip, clock) = try patternRig()
        let player = PatternPlayer(engine: engine, pattern: PatternRenderer().render(continuous))
        let outcomes = Outcomes()
        player.completionHandler = { outcomes.append($0) }
        player.start()
        for _ in 0..<40 { if let next = player.pump() { clock.sleep(until: next) } }
        #expect(chip.output.level(at: clock.now) != 0)
        player.cancel()
        player.cancel()
        let cancelledAt = clock.now
        #expect(chip.output.level(at: cancelledAt) == 0)
        #expect(chip.registers[.realTimePlaybackInput] == 0)
        clock.advance(by: .seconds(2))
        #expect(chip.output.energy(from: cancelledAt, to: clock.now) == 0)
        engine.runDueWork()
        #expect(chip.registers[.mode] & 0x40 != 0)
        #expect(outcomes.values == [.cancelled])
    }

    @Test func pauseResumeSeekAndRate() throws {
        let (engine, chip, clock) = try patternRig()
        let ramp = HapticPattern(
            events: [.init(type: .hapticContinuous, time: 0, duration: 2)],
            curves: [.init(id: .hapticIntensityControl, time: 0, points: [.init(time: 0, value: 0), .init(time: 2, value: 1)])])
        let player = PatternPlayer(engine: engine, pattern: PatternRenderer().render(ramp))
        player.start()
        while clock.now.seconds < 0.51 { if let next = player.pump() { clock.sleep(until: next) } }
        player.pause()
        #expect(chip.output.level(at: clock.now) == 0)
        clock.advance(by: .seconds(5))
        player.resume()
        player.pump()
        // Continues near the quarter-way level (offset 0.5 s of 2 s), once the chip is out of
        // standby (the simulated chip's 1 ms wake delay).
        #expect(abs(chip.output.level(at: clock.now.advanced(by: .milliseconds(2))) - 0.25) < 0.02)
        player.seek(to: 1.5)
        clock.advance(by: .milliseconds(5))
        player.pump()
        #expect(abs(chip.output.level(at: clock.now) - 0.75) < 0.02)
        player.playbackRate = 2
        let before = clock.now
        #expect(player.runToCompletion() == .finished)
        // 0.5 s of pattern left at double speed: about 0.25 s.
        #expect(abs(clock.now.duration(since: before).secondsDouble - 0.25) < 0.02)
    }

    @Test func loopsUntilStopped() throws {
        let (engine, _, clock) = try patternRig()
        let player = PatternPlayer(engine: engine, pattern: PatternRenderer().render(continuous))
        player.loopEnabled = true
        player.loopEnd = 0.5
        player.start()
        let start = clock.now
        while clock.now.duration(since: start) < .seconds(2) { if let next = player.pump() { clock.sleep(until: next) } }
        #expect(player.outcome == nil)
        player.stop()
        #expect(player.outcome == .stopped)
    }

    @Test func aNewFeedbackPreemptsThePattern() throws {
        let (engine, chip, clock) = try patternRig()
        let player = PatternPlayer(engine: engine, pattern: PatternRenderer().render(continuous))
        player.start()
        for _ in 0..<10 { if let next = player.pump() { clock.sleep(until: next) } }
        engine.play(.impact(.heavy))
        player.pump()
        #expect(player.outcome == .preempted)
        #expect(chip.output.peak(from: clock.now, to: clock.now.advanced(by: .milliseconds(60))) == 1)
    }

    @Test func aDroppedPlayerStopsTheActuator() throws {
        let (engine, chip, clock) = try patternRig()
        var player: PatternPlayer? = PatternPlayer(engine: engine, pattern: PatternRenderer().render(continuous))
        player?.start()
        for _ in 0..<10 { if let next = player?.pump() { clock.sleep(until: next) } }
        #expect(chip.output.level(at: clock.now) != 0)
        player = nil
        #expect(chip.output.level(at: clock.now) == 0)
        engine.runDueWork()
        #expect(chip.registers[.mode] & 0x40 != 0)
    }

    @Test func startAtAGivenTime() throws {
        let (engine, chip, clock) = try patternRig()
        let player = PatternPlayer(engine: engine, pattern: PatternRenderer().render(continuous))
        let at = clock.now.advanced(by: .milliseconds(300))
        player.start(at: at)
        player.runToCompletion()
        #expect(chip.output.level(at: at.advanced(by: .milliseconds(-1))) == 0)
        #expect(chip.output.level(at: at.advanced(by: .milliseconds(10))) > 0)
    }
}

/// Collects outcomes from a completion handler.
final class Outcomes: Sendable {
    private let storage = LockedValues<PatternPlayer.Outcome>()
    func append(_ outcome: PatternPlayer.Outcome) { storage.append(outcome) }
    var values: [PatternPlayer.Outcome] { storage.values }
}

final class LockedValues<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ item: T) {
        lock.lock()
        items.append(item)
        lock.unlock()
    }
    var values: [T] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}

@Suite struct SequenceTests {
    @Test func wavesAreCumulativeAndWaitUntilFinishedWaitsForEverything() throws {
        let (engine, _, _) = try patternRig()
        let player = SequencePlayer(
            engine: engine,
            notes: [
                .feedback(.notification(.error)), .effect(.strongClick100), .wait(0.1), .feedback(.selection),
                .waitUntilFinished, .effect(.sharpTick100)
            ])
        #expect(player.schedule.map(\.offset) == [0, 0, 0.1, 0.42])
    }

    @Test func playsOnTimeAndCompletes() throws {
        let (engine, chip, clock) = try patternRig()
        let outcomes = LockedValues<SequencePlayer.Outcome>()
        let player = SequencePlayer(
            engine: engine,
            notes: [
                .feedback(.impact(.heavy)), .wait(0.3), .effect(.strongClick100),
                .waitUntilFinished, .pattern(HapticPattern(events: [.init(type: .hapticContinuous, time: 0, duration: 0.2)]))
            ])
        player.completionHandler = { outcomes.append($0) }
        let start = clock.now
        player.start()
        #expect(player.runToCompletion() == .finished)
        let bursts = chip.output.bursts(from: start, to: clock.now)
        #expect(bursts.count >= 3)
        #expect(abs((bursts.first?.start.duration(since: start).secondsDouble ?? 1)) < 0.005)
        #expect(bursts.contains { abs($0.start.duration(since: start).secondsDouble - 0.3) < 0.005 })
        #expect(bursts.contains { abs($0.start.duration(since: start).secondsDouble - 0.36) < 0.005 })
        #expect(outcomes.values == [.finished])
    }

    @Test func cancelReallyStopsWhatIsPlaying() throws {
        let (engine, chip, clock) = try patternRig()
        let player = SequencePlayer(
            engine: engine,
            notes: [
                .pattern(HapticPattern(events: [.init(type: .hapticContinuous, time: 0, duration: 2)])),
                .wait(1), .feedback(.notification(.success))
            ])
        player.start()
        clock.advance(by: .milliseconds(300))  // the clock runs the sequencer and its pattern's player
        #expect(chip.output.level(at: clock.now) != 0)
        player.cancel()
        let cancelledAt = clock.now
        clock.advance(by: .seconds(3))
        #expect(chip.output.energy(from: cancelledAt, to: clock.now) == 0)
        #expect(player.outcome == .cancelled)
    }

    @Test func textForm() throws {
        let notes = try SequenceNote.parse("success, wait 0.5; impact-heavy 0.4, until-finished, effect sharp tick 1") { _ in HapticPattern() }
        #expect(notes == [.feedback(.notification(.success)), .wait(0.5), .feedback(.impact(.heavy, intensity: 0.4)), .waitUntilFinished, .effect(.sharpTick100)])
        #expect(throws: SequenceParseError.self) { try SequenceNote.parse("success, bogus") { _ in HapticPattern() } }
        #expect(throws: SequenceParseError.self) { try SequenceNote.parse("wait -1") { _ in HapticPattern() } }
    }
}

/// The clock runs the engine, its players and the sequencer (as NIOEmbedded's loop runs tasks):
/// on a virtual clock, `advance` plays each at its own deadlines, and letting go of a player or
/// a sequence stops what it started, as on the real clock's threads.
@Suite struct ScheduledWorkTests {
    @Test func advancingTheClockPlaysAPatternAtItsOwnDeadlines() throws {
        let rig = try EngineRig()
        let player = PatternPlayer(
            engine: rig.engine,
            pattern: PatternRenderer(strategy: .realTime).render(
                HapticPattern(events: [
                    .init(type: .hapticContinuous, time: 0.1, duration: 0.2, intensity: 1.0)
                ])))
        let start = rig.clock.now
        player.start()
        rig.clock.advance(by: .milliseconds(50))
        #expect(rig.chip.output.peak(from: start, to: rig.clock.now) == 0, "nothing before the event's time")
        rig.clock.advance(by: .milliseconds(100))
        #expect(rig.chip.output.level(at: rig.clock.now) > 0, "driving inside the event")
        #expect(player.outcome == nil)
        rig.clock.advance(by: .milliseconds(300))
        #expect(player.outcome == .finished)
        #expect(rig.chip.output.level(at: rig.clock.now) == 0)
        let burst = try #require(rig.chip.output.bursts(from: start, to: rig.clock.now).first)
        let began = burst.start.duration(since: start).secondsDouble
        let lasted = burst.end.duration(since: burst.start).secondsDouble
        #expect(abs(began - 0.1) < 0.006, "drive began at \(began) s, designed 0.1 s")
        #expect(abs(lasted - 0.2) < 0.006, "drive lasted \(lasted) s, designed 0.2 s")
    }

    @Test func aDroppedSequenceStopsWhatItStarted() throws {
        let rig = try EngineRig()
        var sequence: SequencePlayer? = SequencePlayer(
            engine: rig.engine,
            notes: [
                .pattern(HapticPattern(events: [.init(type: .hapticContinuous, time: 0, duration: 2)]))
            ])
        sequence?.start()
        rig.clock.advance(by: .milliseconds(200))
        #expect(rig.chip.output.level(at: rig.clock.now) > 0)
        sequence = nil
        let droppedAt = rig.clock.now
        rig.clock.advance(by: .seconds(3))
        #expect(rig.chip.output.energy(from: droppedAt.advanced(by: .milliseconds(10)), to: rig.clock.now) == 0)
        #expect(rig.chip.registers[ModeRegister.self].standby)
    }

    /// `sleep(until:)` moves time without running anything: what the driver calls while it holds
    /// the engine's lock, and what a test uses to step the timers itself.
    @Test func sleepingRunsNoScheduledWork() throws {
        let rig = try EngineRig()
        rig.engine.prepare(.impact(.heavy))
        rig.clock.advance(by: .milliseconds(5))
        #expect(!rig.chip.registers[ModeRegister.self].standby)
        rig.clock.sleep(for: .seconds(5))
        #expect(!rig.chip.registers[ModeRegister.self].standby, "the standby timer ran during a sleep")
        rig.clock.runDueWork()
        #expect(rig.chip.registers[ModeRegister.self].standby)
    }
}

/// The time controls Core Haptics adds to the events' attack, decay and release: rendered, not
/// silently ignored; the audio ones, which the sound track does not apply, named in a warning.
@Suite struct TimeControlTests {
    private func rendered(attack control: Double?, release releaseControl: Double? = nil) -> RenderedPattern {
        var parameters: [HapticPattern.Parameter] = []
        if let control { parameters.append(.init(id: .hapticAttackTimeControl, time: 0, value: control)) }
        if let releaseControl { parameters.append(.init(id: .hapticReleaseTimeControl, time: 0, value: releaseControl)) }
        let event = HapticPattern.Event(type: .hapticContinuous, time: 0, duration: 1, intensity: 1, attackTime: 0.3, releaseTime: 0.2)
        return PatternRenderer().render(HapticPattern(events: [event], parameters: parameters))
    }

    @Test func anAttackTimeControlLengthensTheAttack() {
        let plain = rendered(attack: nil)
        let longer = rendered(attack: 0.5)
        let shorter = rendered(attack: -0.3)
        // 20 ms in: the plain attack (0.3 → 8 ms) is done, a longer one (0.8 → 251 ms) is not, a shorter one (0) was none.
        let at = Int(0.02 * plain.rate)
        #expect(plain.samples[at] > 0.99 && shorter.samples[at] > 0.99, "\(plain.samples[at]), \(shorter.samples[at])")
        #expect(longer.samples[at] < 0.2, "the attack time control did not lengthen the attack: \(longer.samples[at])")
        #expect(!longer.warnings.contains { $0.contains("AttackTimeControl") })
    }

    @Test func aReleaseTimeControlLengthensTheRelease() {
        let plain = rendered(attack: nil)
        let longer = rendered(attack: nil, release: 0.6)
        #expect(longer.samples.count > plain.samples.count + Int(0.1 * plain.rate), "\(plain.samples.count) → \(longer.samples.count) samples")
    }

    @Test func audioTimeControlsAreNamed() {
        let pattern = HapticPattern(
            events: [.init(type: .hapticTransient, time: 0, intensity: 1)],
            curves: [.init(id: .audioAttackTimeControl, time: 0, points: [.init(time: 0, value: 0.5), .init(time: 1, value: 0)])])
        #expect(PatternRenderer().render(pattern).warnings.contains { $0.contains("AudioAttackTimeControl not applied") })
    }
}

@Suite struct LeanRenderingTests {
    @Test func controlsCurvesAndClippingStreamTheSameWithoutPlotCurves() {
        // Both controls (one a curve past the designed end), overlapping events that clip, a
        // transient exempt from the intensity control, and the examples shipped with the project.
        let pattern = HapticPattern(
            events: [
                .init(type: .hapticContinuous, time: 0, duration: 0.4, intensity: 0.9, sharpness: 0.7, attackTime: 0.3, releaseTime: 0.6),
                .init(type: .hapticContinuous, time: 0.1, duration: 0.2, intensity: 0.8, sustained: false),
                .init(type: .hapticTransient, time: 0.15, intensity: 1, sharpness: 0.9),
                .init(type: .hapticTransient, time: 0.35, intensity: 0.7, sharpness: 0.1, followsIntensityControl: false)
            ],
            parameters: [.init(id: .hapticSharpnessControl, time: 0.05, value: -0.3)],
            curves: [.init(id: .hapticIntensityControl, time: 0.02, points: [.init(time: 0, value: 1), .init(time: 0.6, value: 0.2)])])
        expectSameStreamWithoutTheDesign(pattern, "the controls pattern")
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Examples/patterns")
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: examples.path)) ?? []).filter { $0.hasSuffix(".ahap") }
        #expect(!files.isEmpty)
        for file in files {
            guard let document = try? PatternFileReader.read(path: examples.appendingPathComponent(file).path) else {
                Issue.record("\(file) did not read")
                continue
            }
            expectSameStreamWithoutTheDesign(document.pattern, file)
        }
    }
}
