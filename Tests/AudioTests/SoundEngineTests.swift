// SPDX-License-Identifier: Apache-2.0

import Audio
import Foundation
import HardwareAccess
import Testing

@Suite("Sound engine on the virtual clock")
struct SoundEngineTests {
    @Test func aSoundPlacedAheadIsRecordedAtItsInstantToTheFrame() throws {
        let clock = VirtualClock()
        let path = temporaryDirectory() + "/timeline.wav"
        let engine = try SoundEngine(output: try WAVFileOutput(path: path, origin: .zero), clock: clock)
        #expect(engine.leadTime == .milliseconds(15))
        clock.advance(by: .milliseconds(100))
        engine.play(click(), at: ClockInstant.zero.advanced(by: .milliseconds(300)))
        clock.advance(by: .milliseconds(400))
        try engine.finish()
        let samples = try readWAVSamples(path)
        #expect(onsetFrame(samples) == 14_400)
        #expect(engine.report.lateStarts == 0)
        #expect(samples.count / 2 >= 19_200)
    }

    @Test func aSoundPlacedTooLateStartsLateWholeAndIsCounted() throws {
        let clock = VirtualClock()
        let path = temporaryDirectory() + "/late.wav"
        let engine = try SoundEngine(output: try WAVFileOutput(path: path, origin: .zero), clock: clock)
        clock.advance(by: .milliseconds(100))
        // Frames up to 115 ms are already made: a sound for 100 ms can only start there.
        engine.play(click(), at: clock.now)
        clock.advance(by: .milliseconds(100))
        try engine.finish()
        let samples = try readWAVSamples(path)
        let onset = try #require(onsetFrame(samples))
        #expect(onset > 4800 && onset <= 5520)
        #expect(engine.report.lateStarts == 1)
        // Whole: all 480 frames of the click.
        #expect(stride(from: 0, to: samples.count, by: 2).filter { samples[$0] > 20_000 }.count == 480)
    }

    @Test func onADeviceTheOriginIsItsStartAfterItsBuffer() throws {
        let clock = VirtualClock()
        let device = ClockedDevice(clock: clock)
        let engine = try SoundEngine(output: device, clock: clock)
        #expect(engine.origin == ClockInstant.zero.advanced(by: .milliseconds(43)))
        #expect(engine.leadTime == .milliseconds(50))
        let at = clock.now.advanced(by: .milliseconds(200))
        engine.play(click(), at: at)
        clock.advance(by: .milliseconds(400))
        #expect(device.onset() == at)
        #expect(engine.report.underruns == 0)
        try engine.close()
    }

    @Test func afterAnUnderrunLaterSoundsStayOnTime() throws {
        let clock = VirtualClock()
        let device = ClockedDevice(clock: clock)
        let engine = try SoundEngine(output: device, clock: clock)
        clock.advance(by: .milliseconds(100))
        // The audio thread does not run for 300 ms (sleep moves the clock without running work).
        clock.sleep(for: .milliseconds(300))
        clock.advance(by: .milliseconds(10))
        #expect(engine.report.underruns == 1)
        #expect(device.recoveries == 1)
        #expect(engine.report.framesSkipped > 12_000)
        let at = clock.now.advanced(by: .milliseconds(100))
        engine.play(click(), at: at)
        clock.advance(by: .milliseconds(300))
        let onset = try #require(device.onset())
        #expect(abs(onset.nanoseconds - at.nanoseconds) < 100_000)
        try engine.close()
    }

    @Test func stopFadesTheSoundAndFinishWaitsForTheRest() throws {
        let clock = VirtualClock()
        let path = temporaryDirectory() + "/stop.wav"
        let engine = try SoundEngine(output: try WAVFileOutput(path: path, origin: .zero), clock: clock)
        let long = engine.play(Sound(name: "long", mono: [Float](repeating: 0.5, count: 48_000)), at: .zero.advanced(by: .milliseconds(20)))
        let short = engine.play(click(), at: .zero.advanced(by: .milliseconds(500)))
        clock.advance(by: .milliseconds(200))
        engine.stop(long)
        #expect(engine.endInstant(of: long)! <= clock.now.advanced(by: .milliseconds(21)))
        try engine.finish()
        #expect(clock.now >= engine.endInstant(of: short)!)
        let samples = try readWAVSamples(path)
        let left = stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
        let lastLoud = try #require(left[..<(24_000 - 240)].lastIndex { $0 > 1000 })
        #expect(lastLoud < 215 * 48 + 240)
        #expect(left[24_000] > 20_000)  // the click at 500 ms
    }
}
