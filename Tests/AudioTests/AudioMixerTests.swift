// SPDX-License-Identifier: Apache-2.0

import Audio
import Foundation
import Testing

@Suite("Audio mixer")
struct AudioMixerTests {
    @Test func soundsLandOnTheirFramesAndAddUp() {
        var mixer = AudioMixer()
        mixer.add(Sound(name: "a", mono: [0.25, 0.25, 0.25]), at: 10)
        mixer.add(Sound(name: "b", mono: [0.5, 0.5]), at: 11)
        var out: [Int16] = []
        mixer.render(from: 8, count: 8, into: &out)
        let left = stride(from: 0, to: out.count, by: 2).map { out[$0] }
        #expect(left == [0, 0, 8192, 24575, 24575, 0, 0, 0])
        #expect(mixer.voices.isEmpty)
    }

    @Test func renderingInPiecesEqualsRenderingAtOnce() {
        func mixed(pieces: [Int]) -> [Int16] {
            var mixer = AudioMixer()
            mixer.add(Sound(name: "ramp", mono: (0..<300).map { Float($0) / 600 }), at: 37, volume: 0.7, pan: -0.4)
            mixer.add(Sound(name: "loop", mono: [0.1, -0.1, 0.2]), at: 5, loops: true, frames: 250)
            var all: [Int16] = []
            var frame: Int64 = 0
            for count in pieces {
                var out: [Int16] = []
                mixer.render(from: frame, count: count, into: &out)
                all += out
                frame += Int64(count)
            }
            return all
        }
        #expect(mixed(pieces: [400]) == mixed(pieces: [1, 63, 100, 7, 229]))
    }

    @Test func panIsABalanceAndVolumeScales() {
        let hard = AudioMixer.gains(volume: 0.5, pan: 1)
        #expect(hard.left == 0 && hard.right == 0.5)
        let centre = AudioMixer.gains(volume: 1, pan: 0)
        #expect(centre.left == 1 && centre.right == 1)
        let leftish = AudioMixer.gains(volume: 1, pan: -0.5)
        #expect(leftish.left == 1 && leftish.right == 0.5)
        let nonsense = AudioMixer.gains(volume: .nan, pan: .infinity)
        #expect(nonsense.left == 1 && nonsense.right == 1)
    }

    @Test func aStopFadesOverFiveMillisecondsAndEnds() {
        var mixer = AudioMixer()
        let id = mixer.add(Sound(name: "long", mono: [Float](repeating: 0.5, count: 48_000)), at: 0)
        mixer.stop(id, at: 1000)
        var out: [Int16] = []
        mixer.render(from: 0, count: 2000, into: &out)
        #expect(out[2 * 999] == 16384)
        #expect(out[2 * 1120] > 6000 && out[2 * 1120] < 10000)  // half way down the 240-frame fade
        #expect(out[2 * 1240] == 0)
        #expect(out[2 * 1999] == 0)
        #expect(mixer.voices.isEmpty)
    }

    @Test func aLoopRepeatsUntilItsEnd() {
        var mixer = AudioMixer()
        mixer.add(Sound(name: "blip", mono: [0.5, 0, 0, 0]), at: 0, loops: true, frames: 4000)
        var out: [Int16] = []
        mixer.render(from: 0, count: 5000, into: &out)
        let peaks = stride(from: 0, to: out.count, by: 2).filter { out[$0] > 0 }.count
        #expect(peaks >= 990 && peaks <= 1000)
        #expect(out[2 * 4500] == 0)
    }

    @Test func clippingIsCountedNotWrapped() {
        var mixer = AudioMixer()
        mixer.add(Sound(name: "a", mono: [0.8]), at: 0)
        mixer.add(Sound(name: "b", mono: [0.8]), at: 0)
        var out: [Int16] = []
        mixer.render(from: 0, count: 1, into: &out)
        #expect(out == [32767, 32767])
        #expect(mixer.clippedSamples == 2)
    }
}

@Suite("Resampler")
struct ResamplerTests {
    /// The amplitude of `frequency` in `signal` at `rate` (a single DFT bin, middle half).
    func amplitude(_ signal: [Float], frequency: Double, rate: Double) -> Double {
        let part = signal[(signal.count / 4)..<(3 * signal.count / 4)]
        var re = 0.0
        var im = 0.0
        for (index, value) in zip(part.indices, part) {
            let phase = 2 * Double.pi * frequency * Double(index) / rate
            re += Double(value) * cos(phase)
            im += Double(value) * sin(phase)
        }
        return 2 * (re * re + im * im).squareRoot() / Double(part.count)
    }

    @Test func aToneKeepsItsPitchAndLevelFrom44kTo48k() {
        let input = (0..<44_100).map { Float(0.5 * sin(2 * Double.pi * 1000 * Double($0) / 44_100)) }
        let output = Resampler(from: 44_100, to: 48_000).resample(input)
        #expect(abs(output.count - 48_000) <= 1)
        #expect(abs(amplitude(output, frequency: 1000, rate: 48_000) - 0.5) < 0.005)
        #expect(amplitude(output, frequency: 1010, rate: 48_000) < 0.05)
    }

    @Test func whatTheNewRateCannotHoldIsRemovedNotFolded() {
        let input = (0..<96_000).map { Float(0.5 * sin(2 * Double.pi * 30_000 * Double($0) / 96_000)) }
        let output = Resampler(from: 96_000, to: 48_000).resample(input)
        // Folded, 30 kHz would come back as an 18 kHz tone.
        #expect(amplitude(output, frequency: 18_000, rate: 48_000) < 0.005)
        #expect((output[4800..<43_200].map { abs($0) }.max() ?? 1) < 0.02)
    }
}
