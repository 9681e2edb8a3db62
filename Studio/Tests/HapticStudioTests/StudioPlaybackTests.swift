// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import Foundation
import HapticChip
import HapticEffects
import HapticStudio
import Haptics
import HapticsSimulation
import HardwareAccess
import Testing

/// A short AHAP: a tap at 0 and a 0.3 s buzz from 0.1 s.
let tapAndBuzz = """
    {"Version": 1, "Pattern": [
      {"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [
        {"ParameterID": "HapticIntensity", "ParameterValue": 1.0}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.8}]}},
      {"Event": {"Time": 0.1, "EventType": "HapticContinuous", "EventDuration": 0.3, "EventParameters": [
        {"ParameterID": "HapticIntensity", "ParameterValue": 0.6}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.3}]}}]}
    """

/// The studio's playback on the simulated chip and a virtual clock: what reaches the chip, when.
@Suite struct StudioPlaybackTests {
    let rig: EngineRig
    let playback: StudioPlayback

    init() throws {
        rig = try EngineRig()
        rig.advance(.milliseconds(10))
        playback = StudioPlayback(device: StudioDevice(engine: rig.engine, origin: "rig", actuator: .lra, simulatedChip: rig.chip))
    }

    func document(_ text: String, name: String = "test.ahap") throws -> PatternDocument {
        try playback.document(from: Array(text.utf8), name: name)
    }

    @Test func aPatternPlaysForItsLengthAndTheReportShowsTheActuator() async throws {
        let start = rig.clock.now
        let report = await playback.play(try document(tapAndBuzz), name: "tap.ahap")
        #expect(report.outcome == "finished")
        #expect(abs(report.designedSeconds - 0.4) < 1e-9)
        #expect(abs(report.playedSeconds - report.renderedSeconds) < 0.02, "played \(report.playedSeconds) s of \(report.renderedSeconds) s")
        #expect(report.events == ["HapticTransient": 1, "HapticContinuous": 1])
        #expect(report.drive.source == "simulated chip")
        // The buzz at 60% is on the actuator at 0.25 s and off after the pattern.
        let levels = report.drive.levels
        #expect(levels.count >= Int(0.4 * report.drive.rate))
        #expect(abs(levels[Int(0.25 * report.drive.rate)] - 0.6) < 0.1, "drive at 0.25 s: \(levels[Int(0.25 * report.drive.rate)])")
        #expect(levels.last == 0)
        #expect(rig.chip.output.level(at: rig.clock.now) == 0)
        #expect(rig.chip.output.lastStop.map { $0.duration(since: start).secondsDouble } ?? 0 >= 0.39)
        #expect(report.final?.go == false && report.final?.rtp == 0)
    }

    @Test func badBodiesAreRefusedWithWhereAndWhy() throws {
        #expect(throws: StudioError.self) { try document("{\"Version\": 1,") }
        do {
            _ = try document(
                #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": "loud"}]}}]}"#
            )
            Issue.record("a string intensity was accepted")
        } catch let error as StudioError {
            guard case .invalid = error else {
                Issue.record("\(error) is not .invalid")
                return
            }
            #expect(error.path == "Pattern[0].Event.EventParameters[0].ParameterValue")
        }
        do {
            _ = try document("{\"Version\": 1,")
        } catch let error as StudioError {
            guard case .malformed = error else {
                Issue.record("\(error) is not .malformed")
                return
            }
        }
        let huge = [UInt8](repeating: 0x20, count: playback.limits.maximumPatternBytes + 1)
        #expect(throws: StudioError.tooLarge(bytes: huge.count, limit: playback.limits.maximumPatternBytes)) {
            try playback.document(from: huge, name: "huge.ahap")
        }
        #expect(rig.chip.output.samples.isEmpty, "a refused pattern moved the actuator")
    }

    @Test func renderShowsTheActuatorWithoutTouchingTheChip() throws {
        let writes = rig.engine.statistics.bus.transactions
        let render = try playback.render(try document(tapAndBuzz))
        #expect(render.time.count == render.drive.count && render.drive.count == render.intensity.count)
        let at = Int(0.25 * render.rate)
        #expect(abs(render.intensity[at] - 0.6) < 0.05 && abs(render.drive[at] - 0.6) < 0.1)
        #expect(render.drive.last == 0)
        #expect(rig.engine.statistics.bus.transactions == writes, "render wrote to the studio's chip")
    }

    @Test func anImportReadsBackAsTheSamePattern() throws {
        let first = try document(tapAndBuzz)
        let imported = try playback.importReport(first)
        let again = try document(imported.ahap, name: "again.ahap")
        #expect(again.pattern == first.pattern)
        #expect(imported.format == "ahap")
    }

    /// A `.haptic` imported keeps its emphasis as well as AHAP can hold it (divided by the
    /// intensity curve), says where it cannot, and exports back to `.haptic` with its emphasis.
    @Test func aHapticFileKeepsItsEmphasisThroughImportAndExport() throws {
        let haptic = """
            {"version": {"major": 1, "minor": 0, "patch": 0},
             "signals": {"continuous": {"envelopes": {
               "amplitude": [{"time": 0, "amplitude": 0.4},
                             {"time": 0.2, "amplitude": 0.5, "emphasis": {"amplitude": 0.5, "frequency": 0.9}},
                             {"time": 0.3, "amplitude": 0.4, "emphasis": {"amplitude": 1, "frequency": 0.1}},
                             {"time": 0.5, "amplitude": 0}]}}}}
            """
        let document = try PatternFileReader.parse(Array(haptic.utf8), file: "in.haptic", isMeta: true)
        let imported = try playback.importReport(document)
        #expect(imported.warnings.contains { $0.contains("1 emphasis transient(s) play quieter in AHAP (at 0.3 s)") }, "\(imported.warnings)")
        let ahap = try PatternFileReader.parse(Array(imported.ahap.utf8), file: "i.ahap").pattern
        let first = try #require(ahap.events.first { $0.type == .hapticTransient })
        #expect(abs(first.intensity * ahap.control(.hapticIntensityControl, at: 0.2) - 0.5) < 1e-6, "the emphasis that fits plays at its level")
        let exported = try playback.metaExport(document)
        #expect(exported.warnings.isEmpty)
        #expect(exported.haptic.contains("\"emphasis\"") && exported.haptic.components(separatedBy: "\"emphasis\"").count == 3)
    }

    /// A sound made into haptics as `haptic convert` makes it: transients at its clicks; bytes that
    /// are no sound are refused naming the file.
    @Test func aSoundBecomesAPatternAndJunkIsRefused() throws {
        let rate = 44_100
        var samples = [Int16](repeating: 0, count: rate)
        for click in [0.25, 0.7] {
            for offset in 0..<60 {
                let sign: Double = offset % 2 == 0 ? 1 : -1
                let level: Double = 0.8 * exp(-Double(offset) / 20) * sign
                samples[Int(click * Double(rate)) + offset] = Int16(level * 32_000)
            }
        }
        func le32(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(value).littleEndian, Array.init) }
        // Appended one typed piece at a time (long `+` chains defeat some compilers' type checker).
        var wav: [UInt8] = Array("RIFF".utf8)
        let header: [[UInt8]] = [
            le32(36 + samples.count * 2), Array("WAVEfmt ".utf8), le32(16), [1, 0, 1, 0], le32(rate), le32(rate * 2), [2, 0, 16, 0],
            Array("data".utf8), le32(samples.count * 2)
        ]
        for piece in header { wav.append(contentsOf: piece) }
        for sample in samples { wav += withUnsafeBytes(of: sample.littleEndian, Array.init) }
        let conversion = try playback.convert(sound: wav, name: "clicks.wav")
        #expect(conversion.transients.count == 2, "\(conversion.transients)")
        #expect(zip(conversion.transients, [0.25, 0.7]).allSatisfy { abs($0 - $1) <= 0.01 }, "\(conversion.transients)")
        #expect(abs(conversion.seconds - 1) < 0.01)
        #expect(throws: StudioError.self) { try playback.convert(sound: Array("not a sound at all".utf8), name: "notes.wav") }
        do {
            _ = try playback.convert(sound: Array("not a sound at all".utf8), name: "notes.wav")
        } catch {
            #expect(error.description.contains("notes.wav") && !error.description.contains("haptic-studio-"), "\(error.description)")
        }
    }

    @Test func feelSendsTheTransientsClickAndAuditionChecksTheEffect() throws {
        #expect(try playback.feel(intensity: 0.5, sharpness: 0.9) == .played)
        let expected = PatternRenderer.effect(intensity: 0.5, sharpness: 0.9)
        let slot = try rig.engine.withDriver { try $0.dumpRegisters().waveformSlots.first }
        #expect(slot == expected.rawValue)
        rig.advance(.milliseconds(5))
        #expect(rig.chip.output.level(at: rig.clock.now) > 0, "the tap did not reach the actuator")
        #expect(throws: StudioError.self) { try playback.feel(intensity: 2, sharpness: 0.5) }
        #expect(throws: StudioError.self) { try playback.audition(effect: 124) }
        #expect(try playback.audition(effect: 14) == .played)
        #expect(playback.effects().count == 123 && playback.effects()[13].name == "Strong Buzz - 100%")
    }
}
