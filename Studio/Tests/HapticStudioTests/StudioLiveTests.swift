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

/// Pages over the WebSocket, on the real clock (a looping pattern must be playing while the last
/// page leaves); the chip is simulated.
@Suite(.serialized) struct StudioLiveTests {
    let chip: RealTimeChip
    let live: StudioLive

    init() throws {
        chip = try RealTimeChip()
        live = StudioLive(playback: StudioPlayback(device: chip.device))
    }

    func level() -> Double { chip.level() }

    @Test func theLastPageLeavingStopsALoopingPattern() async throws {
        let hello = live.connected()
        #expect(hello.type == "hello" && hello.version == SwiftHaptics.version)
        #expect(live.connected().simulated == true)
        let document = try live.playback.document(from: Array(tapAndBuzz.utf8), name: "loop.ahap")
        let playback = live.playback
        let playing = Task { await playback.play(document, name: "loop.ahap", loop: true) }
        #expect(await eventually { level() > 0 }, "the loop never started")
        #expect(live.disconnected() == false, "one page is still open")
        #expect(live.playback.isPlaying)
        let left = SystemClock.shared.now
        #expect(live.disconnected() == true)
        // The loop has gaps at zero, so the check is that the playback ended, then the level.
        #expect(await eventually { !playback.isPlaying }, "still playing after the last page left")
        #expect(SystemClock.shared.now.duration(since: left) < .milliseconds(500))
        #expect(level() == 0)
        if playback.isPlaying { playback.stop() }
        let report = await playing.value
        #expect(report.outcome == "stopped")
        #expect(report.final?.go == false)
    }

    /// The live sliders: `vary` sends intensity to the pattern playing, and the drive halves from
    /// then on; with nothing playing the page is told so, and nothing is driven.
    @Test func theLiveSlidersVaryThePatternPlaying() async throws {
        _ = live.connected()
        defer { live.disconnected() }
        #expect(live.handle(#"{"type":"vary","intensity":0.5,"seq":1}"#).error?.contains("nothing plays") == true)
        let buzz =
            #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous","EventDuration":1.5,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":1}]}}]}"#
        let document = try live.playback.document(from: Array(buzz.utf8), name: "buzz.ahap")
        let playback = live.playback
        let playing = Task { await playback.play(document, name: "buzz.ahap") }
        #expect(await eventually { level() > 0.5 }, "the pattern never started")
        try await Task.sleep(for: .milliseconds(100))
        let before = level()
        let varied = live.handle(#"{"type":"vary","intensity":0.5,"seq":2}"#)
        #expect(varied.type == "varied" && varied.seq == 2 && varied.outcome == "sent", "\(varied)")
        // One update is 5 ms; 50 ms leaves room for this machine's scheduling.
        try await Task.sleep(for: .milliseconds(50))
        let after = level()
        #expect(abs(after - before / 2) <= 1.0 / 127 + 0.01, "\(after) after intensity 0.5, \(before) before")
        #expect(live.handle(#"{"type":"vary","seq":3}"#).type == "error")
        let report = await playing.value
        #expect(report.outcome == "finished")
        // The plot the page draws: the actuator's acceleration, halved from the slider's move on.
        let motion = try #require(report.drive.accelerationG, "no acceleration on the simulated chip")
        let rate = report.drive.rate
        let full = motion.prefix(Int(1.4 * rate)).max() ?? 0
        let late = motion[Int(1.0 * rate)..<Int(1.4 * rate)].max() ?? 0
        #expect(full > 0.5 * (report.drive.ratedAccelerationG ?? 0), "\(full) g at most")
        #expect(abs(late / full - 0.5) < 0.05, "\(late) g after the slider, \(full) g before")
    }

    @Test func messagesAreAnsweredAndTimed() async throws {
        _ = live.connected()
        defer { live.disconnected() }
        let felt = live.handle(#"{"type":"feel","intensity":0.7,"sharpness":0.2,"seq":7}"#)
        #expect(felt.type == "felt" && felt.seq == 7 && felt.outcome == "played")
        #expect((felt.serverMicroseconds ?? -1) >= 0)
        #expect(await eventually { level() > 0 }, "the tap did not reach the actuator")
        #expect(live.handle(#"{"type":"audition","effect":0,"seq":8}"#).type == "error")
        #expect(live.handle(#"{"type":"feel","intensity":"max"}"#).type == "error")
        #expect(live.handle("not json").type == "error")
        #expect(live.handle(#"{"type":"dance"}"#).error?.contains("feel, audition, vary or stop") == true)
        #expect(live.handle(#"{"type":"stop","seq":9}"#).outcome == "stopped")
        #expect(level() == 0)
    }
}
