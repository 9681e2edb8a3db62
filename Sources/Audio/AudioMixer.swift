// SPDX-License-Identifier: Apache-2.0

/// Sounds placed at frames of one timeline, added together into 16-bit stereo.
///
/// A value type with no clock and no device: the sound engine owns one and renders from it on its
/// audio thread; tests render from one directly. Frame numbers are the timeline's (0 = the frame
/// heard at the engine's origin), so where a sound lands depends only on where it was placed.
public struct AudioMixer: Sendable {
    /// One placed sound.
    public struct Voice: Sendable, Equatable {
        /// The handle `add` returned.
        public var id: Int
        /// What it plays.
        public var sound: Sound
        /// The timeline frame its first frame lands on.
        public var startFrame: Int64
        /// Left and right gains (volume and pan).
        public var leftGain: Float
        /// The right channel's gain.
        public var rightGain: Float
        /// Repeats the sound until `endFrame`.
        public var loops: Bool
        /// Where it ends, if earlier than its sound (a stop, a duration, or a loop's end); the last
        /// `fadeFrames` before it fade out, so a stop does not click.
        public var endFrame: Int64?
        /// How many frames before `endFrame` fade out (0: no fade).
        public var fadeFrames: Int64

        /// The frame after its last.
        public var lastFrame: Int64 {
            if let endFrame { return loops ? endFrame : min(endFrame, startFrame + Int64(sound.frameCount)) }
            return loops ? Int64.max : startFrame + Int64(sound.frameCount)
        }
    }

    /// The voices still to be heard, in the order they were added.
    public private(set) var voices: [Voice] = []
    private var nextID = 1
    /// Samples that went past full scale and were clipped, since the start.
    public private(set) var clippedSamples = 0
    /// Fade length for stops: 5 ms at 48 kHz.
    public var fadeFrames: Int64 = 240

    /// A mixer with nothing placed.
    public init() {}

    /// Left and right gains for `volume` (0...1) and a balance `pan` (-1 left ... +1 right).
    public static func gains(volume: Double, pan: Double) -> (left: Float, right: Float) {
        let volume = min(max(volume.isFinite ? volume : 1, 0), 1)
        let pan = min(max(pan.isFinite ? pan : 0, -1), 1)
        return (Float(volume * min(1, 1 - pan)), Float(volume * min(1, 1 + pan)))
    }

    /// Places `sound` at `frame`; returns the voice's id. `frames` cuts it (or a loop) short.
    @discardableResult
    public mutating func add(_ sound: Sound, at frame: Int64, volume: Double = 1, pan: Double = 0, loops: Bool = false, frames: Int64? = nil) -> Int {
        let (left, right) = AudioMixer.gains(volume: volume, pan: pan)
        let id = nextID
        nextID += 1
        voices.append(
            Voice(
                id: id, sound: sound, startFrame: frame, leftGain: left, rightGain: right, loops: loops && sound.frameCount > 0,
                endFrame: frames.map { frame + max(0, $0) }, fadeFrames: frames == nil ? 0 : min(fadeFrames, max(0, frames ?? 0) / 2)))
        return id
    }

    /// Ends voice `id` at `frame`, fading out over the 5 ms after it (never later than its own end).
    /// A voice stopped at or before its first frame is never heard: it is dropped (a player
    /// that pauses, seeks or loops takes back the sounds it placed ahead).
    public mutating func stop(_ id: Int, at frame: Int64) {
        guard let index = voices.firstIndex(where: { $0.id == id }) else { return }
        guard frame > voices[index].startFrame else {
            voices.remove(at: index)
            return
        }
        let end = frame + fadeFrames
        if end < voices[index].lastFrame {
            voices[index].endFrame = end
            voices[index].fadeFrames = min(fadeFrames, end - voices[index].startFrame)
        }
    }

    /// Ends every voice at `frame` (fading).
    public mutating func stopAll(at frame: Int64) {
        for voice in voices { stop(voice.id, at: frame) }
    }

    /// The frame after voice `id`'s last (nil: no such voice or already dropped).
    public func lastFrame(of id: Int) -> Int64? { voices.first { $0.id == id }?.lastFrame }

    /// Adds every voice over frames `first ..< first + count` into `output` (interleaved 16-bit
    /// stereo, `2 × count` samples, overwritten), then drops the voices that have ended.
    public mutating func render(from first: Int64, count: Int, into output: inout [Int16]) {
        if output.count != 2 * count { output = [Int16](repeating: 0, count: 2 * count) }
        var mix = [Float](repeating: 0, count: 2 * count)
        let end = first + Int64(count)
        for voice in voices where voice.startFrame < end && voice.lastFrame > first {
            let from = max(first, voice.startFrame)
            let to = min(end, voice.lastFrame)
            let length = Int64(voice.sound.frameCount)
            voice.sound.samples.withUnsafeBufferPointer { samples in
                var frame = from
                while frame < to {
                    var position = frame - voice.startFrame
                    if voice.loops { position %= length }
                    var gain: Float = 1
                    if let stopAt = voice.endFrame, voice.fadeFrames > 0, stopAt - frame <= voice.fadeFrames {
                        gain = Float(stopAt - frame) / Float(voice.fadeFrames)
                    }
                    let out = Int(frame - first) * 2
                    mix[out] += samples[Int(position) * 2] * voice.leftGain * gain
                    mix[out + 1] += samples[Int(position) * 2 + 1] * voice.rightGain * gain
                    frame += 1
                }
            }
        }
        for index in 0..<mix.count {
            var value = mix[index]
            if value > 1 || value < -1 {
                clippedSamples += 1
                value = max(-1, min(1, value))
            }
            output[index] = Int16((value * 32767).rounded())
        }
        voices.removeAll { $0.lastFrame <= end }
    }
}
