// SPDX-License-Identifier: Apache-2.0

import ChipFamilies
import DA7280
import DA7280Simulator
import Foundation
import HapticBoards
import HapticChip
import Haptics
import HapticsSimulation
import HardwareAccess
import HardwareAccessTesting
import HardwareSimulation
import Testing

private let boardsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Boards")

/// The DA7280's waveform memory: its byte layout [DS §5.8], the feedback table compiled into it,
/// the chip model playing it, and the engine's prepared trigger from it.
@Suite struct DA7280WaveformMemoryTests {
    /// Board files here name the DA7280, as the programs' may.
    init() { StandardChipFamilies.register() }

    typealias Memory = DA7280WaveformMemory

    /// A point is RMP, TIME − 1, AMP [DS T17]; a frame's first byte GAIN, TIMEBASE and the
    /// snippet's low bits, its second (bit 7 set) SNP_ID_LOOP and the snippet's bit 3 [DS T18].
    @Test func pointsAndFramesAreTheDatasheetsBytes() {
        #expect(Memory.Point(amplitude: 15, timebases: 4).byte == 0x3F)
        #expect(Memory.Point(amplitude: 6, timebases: 8, ramp: true).byte == 0xF6)
        #expect(Memory.Point(byte: 0xF6) == Memory.Point(amplitude: 6, timebases: 8, ramp: true))
        #expect(Memory.Frame(snippet: 3).bytes == [0x03])
        #expect(Memory.Frame(snippet: 9, timebase: 2, gain: 1, loops: 3).bytes == [0x31, 0x99])
        #expect(Memory.Frame(snippet: 0, timebase: 1, loops: 6).bytes == [0x08, 0xB0])
    }

    /// The header is the counts and each item's end pointer, the 0-based index of its last byte,
    /// as in Dialog's own example image: 3 snippets of 2 bytes and sequences of 2, 5 and 10
    /// bytes give pointers 09 0B 0D 0F 14 1E; and the frames read back.
    @Test func theLayoutIsDialogs() throws {
        let snippets = (1...3).map { [Memory.Point(amplitude: UInt8($0), timebases: 1), Memory.Point(amplitude: 0, timebases: 2)] }
        let sequences: [[Memory.Frame]] = [
            [Memory.Frame(snippet: 1), Memory.Frame(snippet: 2)],
            [Memory.Frame(snippet: 1, loops: 1), Memory.Frame(snippet: 0, timebase: 1, loops: 2), Memory.Frame(snippet: 3)],
            Array(repeating: Memory.Frame(snippet: 2, loops: 4), count: 5)
        ]
        let image = try #require(Memory(snippets: snippets, sequences: sequences).bytes)
        #expect(Array(image[0..<8]) == [0x03, 0x03, 0x09, 0x0B, 0x0D, 0x0F, 0x14, 0x1E])
        #expect(image.count == 0x1F)
        #expect(image[8] == 0x01 && image[9] == 0x10)
        for (index, frames) in sequences.enumerated() {
            #expect(Memory.frames(of: index, in: image) == frames)
        }
        #expect(Memory.points(of: 2, in: image) == snippets[1])
        #expect(Memory.frames(of: 3, in: image) == nil)
    }

    @Test func whatDoesNotFitIsRefused() {
        let point = [Memory.Point(amplitude: 15, timebases: 1)]
        #expect(Memory(snippets: [point], sequences: Array(repeating: [Memory.Frame(snippet: 1)], count: 17)).bytes == nil)
        #expect(Memory(snippets: Array(repeating: point, count: 16), sequences: [[Memory.Frame(snippet: 1)]]).bytes == nil)
        #expect(Memory(snippets: [Array(repeating: point[0], count: 97)], sequences: [[Memory.Frame(snippet: 1)]]).bytes == nil)
        #expect(Memory(snippets: [Array(repeating: point[0], count: 95)], sequences: [[Memory.Frame(snippet: 1)]]).bytes?.count == 100)
    }

    /// The SparkFun LRA's table in memory: the taps first, as many as fit in 100 bytes, the long
    /// vibrations left to the stream; every stored drive is braked (longer than three
    /// half-periods at 170 Hz) and lasts within a timebase of its envelope.
    @Test func theTableFitsItsShortFeedbacks() throws {
        let compiled = DA7280StoredFeedbacks(DA7280FeedbackTable.storedFeedbacks(for: .sparkFunQwiicLRA), resonantHz: 170)
        let image = try #require(compiled.memory.bytes)
        #expect(image.count <= 100)
        #expect(compiled.names.count >= 12, "stored \(compiled.names), streamed \(compiled.streamed)")
        #expect(Array(DA7280FeedbackTable.memoryOrder.prefix(8)).allSatisfy(compiled.names.contains), "\(compiled.names)")
        #expect(!compiled.names.contains("vibration-default") && !compiled.names.contains("vibration-alert"))
        for snippet in compiled.memory.snippets {
            let length = Double(snippet.reduce(0) { $0 + $1.timebases }) * 5.44
            #expect(length > 3 * 500 / 170.0, "a stored drive of \(length) ms is not braked")
        }
        for (index, name) in compiled.names.enumerated() {
            let envelope = compiled.envelopes[index]
            let lastDrive = envelope.steps.lastIndex { $0.level > 0 } ?? 0
            let designed = envelope.steps[...lastDrive].reduce(0) { $0 + $1.milliseconds }
            let stored = Double(compiled.durations[index].components.attoseconds) / 1e15 + Double(compiled.durations[index].components.seconds) * 1000
            #expect(abs(stored - designed) <= 3 * 5.44, "\(name): \(stored) ms in memory, \(designed) ms designed")
        }
    }

    static func chipWithMemory(_ image: [UInt8], sequenceControl: UInt8, acceleration: Bool = true) throws -> (SimulatedDA7280, VirtualClock) {
        let clock = VirtualClock()
        let chip = SimulatedDA7280(clock: clock)
        try chip.write(to: .da7280, [0x84] + image)
        let configuration: UInt8 = acceleration ? 0x1E : 0x30
        try chip.write(to: .da7280, [0x13, configuration])
        try chip.write(to: .da7280, [0x28, sequenceControl])
        try chip.write(to: .da7280, [0x22, 0x0B])
        return (chip, clock)
    }

    /// The model plays a sequence as Dialog's decoder does: steps and ramps, frame loops, GAIN
    /// halving, PS_SEQ_LOOP repeating the sequence, E_SEQ_DONE at its end; SEQ_START cleared
    /// stops it; an absent sequence is E_SEQ_FAULT with E_SEQ_ID_FAULT.
    @Test func theModelPlaysTheMemory() throws {
        let memory = Memory(
            snippets: [[Memory.Point(amplitude: 15, timebases: 2)], [Memory.Point(amplitude: 0, timebases: 1), Memory.Point(amplitude: 12, timebases: 4, ramp: true)]],
            sequences: [[Memory.Frame(snippet: 1, gain: 1, loops: 1), Memory.Frame(snippet: 0), Memory.Frame(snippet: 2)]])
        let image = try #require(memory.bytes)
        let (chip, clock) = try Self.chipWithMemory(image, sequenceControl: 0x10)  // sequence 0, twice
        let start = clock.now
        try chip.write(to: .da7280, [0x22, 0x1B])
        func level(at milliseconds: Double) -> Double { chip.output.level(at: start.advanced(by: .microseconds(Int64(milliseconds * 1000)))) }
        #expect(level(at: 1) == 0.5, "GAIN 1 halves AMP 15")
        #expect(level(at: 5.44 * 3.5) == 0.5, "the frame loops once more")
        #expect(level(at: 5.44 * 4.5) == 0, "snippet 0: silence")
        #expect(abs(level(at: 5.44 * 7.5) - 0.2) < 1e-9, "the ramp's first timebase: a quarter of the way to 12/15")
        #expect(abs(level(at: 5.44 * 10.5) - 0.8) < 1e-9)
        let once = 5.44 * 11
        #expect(level(at: once + 1) == 0.5, "PS_SEQ_LOOP 1 plays it again")
        clock.advance(by: .microseconds(Int64(once * 1000 * 2 - 100)))
        #expect(try chip.writeRead(to: .da7280, [0x03], count: 1) == [0x00])
        clock.advance(by: .microseconds(200))
        #expect(try chip.writeRead(to: .da7280, [0x03], count: 1) == [0x04], "E_SEQ_DONE")
        #expect(chip.output.level(at: clock.now) == 0)

        let (stopped, stoppedClock) = try Self.chipWithMemory(image, sequenceControl: 0x00)
        try stopped.write(to: .da7280, [0x22, 0x1B])
        stoppedClock.advance(by: .milliseconds(5))
        try stopped.write(to: .da7280, [0x22, 0x0B])
        stoppedClock.advance(by: .milliseconds(100))
        #expect(stopped.output.activeSeconds(to: stoppedClock.now) == 0.005)
        #expect(stopped[.irqEvent1] & 0x04 == 0, "a stopped sequence is not done")

        let (absent, _) = try Self.chipWithMemory(image, sequenceControl: 0x05)
        try absent.write(to: .da7280, [0x22, 0x1B])
        #expect(absent[.irqEvent1] & 0x10 != 0 && absent[.irqEventSequenceDiagnostics] == 0x80)
        #expect(absent.output.activeSeconds(to: .zero.advanced(by: .seconds(1))) == 0)
    }

    static func open() throws -> (HapticBoard, SimulatedDA7280, VirtualClock) {
        let file = try BoardFile.load(boardsDirectory.appendingPathComponent("sparkfun-qwiic-da7280.json").path)
        let clock = VirtualClock()
        let hardware = try SimulatedHardware(board: file, actuator: nil, clock: clock)
        var options = HapticBoard.Options()
        options.engine = .isolated
        options.calibrations = nil
        let board = try HapticBoard.open(file, hardware: hardware, clock: clock, options: options)
        return (board, try #require(hardware.da7280Chips["main"]), clock)
    }

    /// Start-up writes the table into memory in one burst at WAV_MEM_BASE_ADDR; a prepared
    /// feedback is then one write (SEQ_START), where the stream costs one a level; what the
    /// memory plays is what the chip was asked for, in time and strength.
    @Test func aPreparedFeedbackIsOneWrite() throws {
        let (board, chip, clock) = try Self.open()
        let burst = try #require(chip.trace.first { $0.kind == .write && $0.written.first == 0x84 })
        #expect(burst.written.count > 40 && burst.written.count <= 101)
        board.engine.prepare(.notification(.success))
        clock.advance(by: .milliseconds(20))
        let start = clock.now
        #expect(board.engine.play(.notification(.success)) == .played)
        #expect(board.engine.statistics.lastTrigger.transactions == 1)
        #expect(chip.trace.last?.written == [0x22, 0x1B])
        clock.advance(by: .seconds(1))
        let bursts = chip.output.bursts(from: start, to: clock.now)
        #expect(bursts.count == 2, "success is two pulses")
        if bursts.count == 2 {
            let gap = bursts[1].start.duration(since: bursts[0].end).secondsDouble
            #expect(abs(gap - 0.080) <= 0.006, "the 80 ms gap became \(gap) s")
            #expect(abs(chip.output.peak(from: bursts[1].start, to: bursts[1].end) - 1) < 1e-9)
            #expect(abs(chip.output.peak(from: bursts[0].start, to: bursts[0].end) - 0.6) < 1e-9)
        }
        #expect(chip[.irqEvent1] == 0, "E_SEQ_DONE not cleared")
        #expect(chip[.topControl1] == 0, "not back in IDLE")
    }

    /// A selection that failed on the bus (PS_SEQ_ID never landed, or landed with its acknowledge
    /// lost) is not believed: the next play of that feedback writes PS_SEQ_ID again before
    /// SEQ_START, so the chip plays the feedback asked for, not the one it held.
    @Test(arguments: [FaultInjectingBus.Fault.lost(.noAcknowledge), .lost(.busError), .acknowledgeLost(.noAcknowledge)])
    func aFailedSelectionIsWrittenAgain(_ fault: FaultInjectingBus.Fault) throws {
        let clock = VirtualClock()
        let chip = SimulatedDA7280(clock: clock)
        let bus = FaultInjectingBus(chip)
        var options = DA7280Driver.Options()
        options.storedFeedbacks = DA7280FeedbackTable.storedFeedbacks(for: .sparkFunQwiicLRA)
        let driver = DA7280Driver(bus: bus, actuator: .sparkFunQwiicLRA, clock: clock, options: options)
        try driver.start()
        let stored = try #require(driver.stored)
        try #require(stored.names.count >= 2)
        let (first, second) = (StoredWaveform(index: 0, duration: stored.durations[0]), StoredWaveform(index: 1, duration: stored.durations[1]))
        try driver.play(first)
        clock.advance(by: .seconds(1))
        try driver.stop()
        #expect(chip[.sequenceControl2] == 0)
        // The fault on PS_SEQ_ID's write: arming reads the reset check first (one transaction).
        bus.inject(fault, at: bus.count + 1)
        #expect(throws: HapticChipError.self) { try driver.play(second) }
        try driver.stop()
        let before = chip.trace.count
        try driver.play(second)
        let writes = chip.trace[before...].filter { $0.kind == .write }.map(\.written)
        #expect(writes.contains([DA7280Register.sequenceControl2.rawValue, 1]), "PS_SEQ_ID not written again: \(writes)")
        #expect(chip[.sequenceControl2] == 1 && writes.last == [0x22, 0x1B])
    }

    /// A locked memory (WAV_MEM_LOCK 0) is not written: the driver says why, and everything streams.
    @Test func aLockedMemoryIsLeftAlone() throws {
        let clock = VirtualClock()
        let chip = SimulatedDA7280(clock: clock)
        try chip.write(to: .da7280, [0x2D, 0x00])
        var options = DA7280Driver.Options()
        options.storedFeedbacks = DA7280FeedbackTable.storedFeedbacks(for: .sparkFunQwiicLRA)
        let driver = DA7280Driver(bus: chip, actuator: .sparkFunQwiicLRA, clock: clock, options: options)
        try driver.start()
        #expect(driver.stored == nil && driver.memoryNote?.contains("locked") == true)
        #expect(!chip.trace.contains { $0.kind == .write && $0.written.first == 0x84 })
        #expect(driver.storedWaveform(levels: [1, 1, 1, 1, 1], tick: .milliseconds(5)) == nil)
    }
}
