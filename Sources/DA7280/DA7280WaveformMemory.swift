// SPDX-License-Identifier: Apache-2.0

/// The DA7280's waveform memory: snippets (piece-wise-linear amplitude shapes) and sequences
/// (frames that each play a snippet, looped, at a timebase and gain), in the chip's 100-byte
/// layout [DS §5.8]:
///
/// - byte 0: the number of snippets (at most 15; the built-in silent snippet 0 is not counted),
///   byte 1: the number of sequences (at most 16);
/// - then one end pointer per snippet, then one per sequence: each the 0-based index, in the
///   memory, of the item's last byte (as Dialog's own waveform-memory decoder reads them;
///   SparkFun's library writes register addresses there instead);
/// - then the snippets' bytes, then the sequences'.
///
/// A snippet byte [DS T17]: bit 7 RMP (1 ramps from the previous amplitude, 0 steps), bits 6:4
/// TIME (n + 1 timebases), bits 3:0 AMP (0...15 of NOMMAX with ACCELERATION_EN). A frame [DS
/// F27, T18]: byte 1 bit 7 = 0, bits 6:5 GAIN (0, −6, −12, −18 dB), bits 4:3 TIMEBASE, bits 2:0
/// the snippet id's low bits; an optional byte 2, bit 7 = 1, bits 6:3 SNP_ID_LOOP (n + 1
/// plays), bit 0 the snippet id's bit 3. Snippet 0 is silence for two timebases.
public struct DA7280WaveformMemory: Sendable, Hashable {
    /// The memory's size in bytes (SNP_MEM_0...SNP_MEM_99).
    public static let capacity = 100
    /// The most snippets and sequences the header can count.
    public static let maximumSnippets = 15
    public static let maximumSequences = 16
    /// Milliseconds per timebase 0...3 with FREQ_WAVEFORM_TIMEBASE = 0, its reset value [DS T48].
    public static let timebaseMilliseconds: [Double] = [5.44, 21.76, 43.52, 87.04]

    /// One point of a snippet: `amplitude` (0...15) for `timebases` (1...8), reached by a step
    /// or a ramp.
    public struct Point: Sendable, Hashable {
        public var amplitude: UInt8
        public var timebases: Int
        public var ramp: Bool

        public init(amplitude: UInt8, timebases: Int, ramp: Bool = false) {
            self.amplitude = min(amplitude, 15)
            self.timebases = min(max(timebases, 1), 8)
            self.ramp = ramp
        }

        /// The point's byte.
        public var byte: UInt8 { (ramp ? 0x80 : 0) | UInt8(timebases - 1) << 4 | amplitude }

        /// The point a byte holds.
        public init(byte: UInt8) {
            self.init(amplitude: byte & 0x0F, timebases: Int(byte >> 4 & 0x07) + 1, ramp: byte & 0x80 != 0)
        }
    }

    /// One frame of a sequence: `snippet` (0 is silence) played `loops + 1` times at `timebase`
    /// (0...3) and `gain` (0...3, 6 dB a step down).
    public struct Frame: Sendable, Hashable {
        public var snippet: Int
        public var timebase: Int
        public var gain: Int
        public var loops: Int

        public init(snippet: Int, timebase: Int = 0, gain: Int = 0, loops: Int = 0) {
            self.snippet = min(max(snippet, 0), 15)
            self.timebase = min(max(timebase, 0), 3)
            self.gain = min(max(gain, 0), 3)
            self.loops = min(max(loops, 0), 15)
        }

        /// The frame's one or two bytes: the second only when it loops or names a snippet above 7.
        public var bytes: [UInt8] {
            let first = UInt8(gain) << 5 | UInt8(timebase) << 3 | UInt8(snippet & 0x07)
            guard loops > 0 || snippet > 7 else { return [first] }
            return [first, 0x80 | UInt8(loops) << 3 | UInt8(snippet >> 3 & 0x01)]
        }
    }

    /// Snippets 1, 2, ... in order.
    public var snippets: [[Point]]
    /// Sequences 0, 1, ... in order.
    public var sequences: [[Frame]]

    public init(snippets: [[Point]] = [], sequences: [[Frame]] = []) {
        self.snippets = snippets
        self.sequences = sequences
    }

    /// The memory image, or nil when it does not fit: more snippets or sequences than the
    /// header counts, an empty item, or more than `capacity` bytes.
    public var bytes: [UInt8]? {
        guard snippets.count <= Self.maximumSnippets, sequences.count <= Self.maximumSequences,
            snippets.allSatisfy({ !$0.isEmpty }), sequences.allSatisfy({ !$0.isEmpty })
        else { return nil }
        let items = snippets.map { snippet in snippet.map { $0.byte } } + sequences.map { sequence in sequence.flatMap { $0.bytes } }
        var end = 2 + items.count - 1
        var pointers: [UInt8] = []
        for item in items {
            end += item.count
            pointers.append(UInt8(truncatingIfNeeded: end))
        }
        let image = [UInt8(snippets.count), UInt8(sequences.count)] + pointers + items.flatMap { $0 }
        return image.count <= Self.capacity ? image : nil
    }

    /// The frames of `sequence` read back from an image as the chip reads them (Dialog's
    /// waveform-memory decoder), or nil where the image is malformed or the sequence absent.
    public static func frames(of sequence: Int, in image: [UInt8]) -> [Frame]? {
        guard image.count >= 2, sequence >= 0, sequence < Int(image[1]) else { return nil }
        let snippetCount = Int(image[0])
        let pointers = 2
        let sequencePointers = pointers + snippetCount
        guard sequencePointers + Int(image[1]) <= image.count else { return nil }
        let start =
            sequence == 0
            ? (snippetCount == 0 ? sequencePointers + Int(image[1]) : Int(image[pointers + snippetCount - 1]) + 1)
            : Int(image[sequencePointers + sequence - 1]) + 1
        let end = Int(image[sequencePointers + sequence])
        guard start <= end, end < image.count else { return nil }
        var frames: [Frame] = []
        var index = start
        while index <= end {
            let first = image[index]
            guard first & 0x80 == 0 else { return nil }
            var snippet = Int(first & 0x07)
            var loops = 0
            index += 1
            if index <= end, image[index] & 0x80 != 0 {
                let second = image[index]
                snippet |= Int(second & 0x01) << 3
                loops = Int(second >> 3 & 0x0F)
                index += 1
                if second & 0x04 != 0 { index += 1 }  // FREQ_CMD: a frequency byte follows
            }
            frames.append(Frame(snippet: snippet, timebase: Int(first >> 3 & 0x03), gain: Int(first >> 5 & 0x03), loops: loops))
        }
        return frames
    }

    /// The points of `snippet` (1...) in an image, or nil where it is absent. Snippet 0 is the
    /// chip's silence: amplitude 0 for two timebases.
    public static func points(of snippet: Int, in image: [UInt8]) -> [Point]? {
        if snippet == 0 { return [Point(amplitude: 0, timebases: 2)] }
        guard image.count >= 2, snippet >= 1, snippet <= Int(image[0]) else { return nil }
        let start = snippet == 1 ? 2 + Int(image[0]) + Int(image[1]) : Int(image[2 + snippet - 2]) + 1
        let end = Int(image[2 + snippet - 1])
        guard start <= end, end < image.count else { return nil }
        return image[start...end].map { Point(byte: $0) }
    }
}
