// SPDX-License-Identifier: Apache-2.0

import ChipFamilies
import DA7280
import DA7280Simulator
import DRV2605
import DRV2605Simulator
import Foundation
import HapticBoards
import HapticChip
import HapticPatterns
import Haptics
import HapticsSimulation
import HardwareAccess
import HardwareSimulation
import Testing

private let boardsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Boards")

/// Sharpness the actuator renders: a continuous event swept from sharpness 0 to 1 on the
/// simulated DA7280 LRA board and on a DRV2605L LRA, its drive turned into acceleration by the
/// resonator model (`ActuatorPhysics`), measured in 11 windows: the frequency felt rises with
/// sharpness and the strength stays where the intensity says, the drive never past the rating.
@Suite struct SharpnessRenderingTests {
    /// 2.2 s of one continuous event, its sharpness ramped from 0 to 1 by the sharpness control.
    static func sweep(intensity: Double) -> HapticPattern {
        HapticPattern(
            events: [.init(type: .hapticContinuous, time: 0, duration: 2.2, intensity: intensity, sharpness: 0)],
            curves: [.init(id: .hapticSharpnessControl, time: 0, points: [.init(time: 0, value: 0), .init(time: 2.2, value: 1)])])
    }

    /// The same event at sharpness 0.5, at resonance: the strength the sweep is held to.
    static func steady(intensity: Double) -> HapticPattern {
        HapticPattern(events: [.init(type: .hapticContinuous, time: 0, duration: 2.2, intensity: intensity, sharpness: 0.5)])
    }

    /// A chip the engine drives, its actuator's record, and the motion model of its actuator.
    struct Rig {
        let clock: VirtualClock
        let engine: HapticEngine
        let output: () -> ActuatorRecord
        let physics: ActuatorPhysics
    }

    static func da7280() throws -> (Rig, SimulatedDA7280) {
        StandardChipFamilies.register()
        let file = try BoardFile.load(boardsDirectory.appendingPathComponent("sparkfun-qwiic-da7280.json").path)
        let clock = VirtualClock()
        let simulated = try SimulatedHardware(board: file, clock: clock)
        let chip = try #require(simulated.da7280Chips["main"])
        var options = HapticBoard.Options()
        options.engine = .isolated
        options.calibrations = nil
        let board = try HapticBoard.open(file, hardware: simulated, clock: clock, options: options)
        // The board's LRA: 170 Hz (SparkFun's library's figure).
        return (Rig(clock: clock, engine: board.engine, output: { chip.output }, physics: .typical(lra: 170)), chip)
    }

    static func drv2605L() throws -> (Rig, EngineRig) {
        let rig = try EngineRig()
        return (Rig(clock: rig.clock, engine: rig.engine, output: { rig.chip.output }, physics: .typical(lra: 175)), rig)
    }

    /// What one window of the motion measures: its frequency (from its zero crossings, each
    /// placed between samples by interpolation) and its amplitude (the peak |acceleration|).
    struct Window {
        var hz: Double
        var amplitudeG: Double
    }

    /// Plays `pattern` from now and measures 11 windows of 0.2 s from 0.05 s on.
    static func measure(_ pattern: HapticPattern, on rig: Rig) -> (windows: [Window], rendering: RenderedPattern) {
        let start = rig.clock.now
        let player = PatternPlayer(engine: rig.engine, designed: pattern)
        player.start(at: start)
        let rendering = player.rendering
        _ = player.runToCompletion()
        let motion = rig.physics.simulate(rig.output(), from: start, to: start.advanced(by: .milliseconds(2300)))
        var windows: [Window] = []
        for index in 0..<11 {
            let from = 0.05 + 0.2 * Double(index)
            let part = motion.filter { $0.time >= from && $0.time < from + 0.2 }
            var crossings: [Double] = []
            for (a, b) in zip(part, part.dropFirst()) where a.accelerationG < 0 && b.accelerationG >= 0 {
                crossings.append(a.time + (b.time - a.time) * -a.accelerationG / (b.accelerationG - a.accelerationG))
            }
            let hz = crossings.count > 1 ? Double(crossings.count - 1) / (crossings.last! - crossings.first!) : 0
            windows.append(Window(hz: hz, amplitudeG: part.map { abs($0.accelerationG) }.max() ?? 0))
        }
        return (windows, rendering)
    }

    /// Spearman's rank correlation, ties given their mean rank.
    static func rankCorrelation(_ x: [Double], _ y: [Double]) -> Double {
        func ranks(_ values: [Double]) -> [Double] {
            let order = values.indices.sorted { values[$0] < values[$1] }
            var result = [Double](repeating: 0, count: values.count)
            var i = 0
            while i < order.count {
                var j = i
                while j + 1 < order.count, values[order[j + 1]] == values[order[i]] { j += 1 }
                for k in i...j { result[order[k]] = Double(i + j) / 2 + 1 }
                i = j + 1
            }
            return result
        }
        let a = ranks(x)
        let b = ranks(y)
        let meanA = a.reduce(0, +) / Double(a.count)
        let meanB = b.reduce(0, +) / Double(b.count)
        let covariance = zip(a, b).reduce(0) { $0 + ($1.0 - meanA) * ($1.1 - meanB) }
        let spread = (a.reduce(0) { $0 + ($1 - meanA) * ($1 - meanA) } * b.reduce(0) { $0 + ($1 - meanB) * ($1 - meanB) }).squareRoot()
        return spread > 0 ? covariance / spread : 0
    }

    static func decibels(_ ratio: Double) -> Double { 20 * log10(ratio) }

    /// The sweep's windows against the steady event's: the frequency rises with sharpness (rank
    /// correlation ≥ 0.9, and across most of the band), the amplitude within `tolerance` dB.
    static func checkSweep(on make: () throws -> Rig, intensity: Double, tolerance: Double, minimumSpanHz: Double) throws {
        let steadyRig = try make()
        let (steady, _) = measure(Self.steady(intensity: intensity), on: steadyRig)
        let reference = steady.map(\.amplitudeG).sorted()[5]
        let rig = try make()
        let (windows, rendering) = measure(Self.sweep(intensity: intensity), on: rig)
        let frequencies = windows.map(\.hz)
        let correlation = rankCorrelation(frequencies, windows.indices.map(Double.init))
        #expect(correlation >= 0.9, "rank correlation \(correlation): \(frequencies.map { String(format: "%.1f", $0) })")
        #expect((frequencies.max() ?? 0) - (frequencies.min() ?? 0) >= minimumSpanHz, "\(frequencies)")
        for (index, window) in windows.enumerated() {
            let level = decibels(window.amplitudeG / reference)
            #expect(abs(level) <= tolerance, "window \(index) at \(String(format: "%.1f", window.hz)) Hz: \(String(format: "%.2f", level)) dB")
        }
        #expect(rendering.warnings.contains { $0.hasPrefix("sharpness is rendered as the drive frequency") }, "\(rendering.warnings)")
        // Never past the rated drive, whatever the sweep made up for.
        let peak = rig.output().samples.map { abs($0.ratedLevel) }.max() ?? 0
        #expect(peak <= 1.0001, "drive \(peak) of the rating")
    }

    /// DA7280: LRA_PER with tracking off. Within the band's edges, where the rated drive still
    /// makes up the distance from resonance, the strength is the intensity's to 1 dB; at full
    /// intensity the edges are limited by the rating, still within the ±3 dB a designer is promised.
    @Test(arguments: [(0.7, 1.0), (1.0, 3.0)])
    func aDA7280SweepRisesInFrequencyAtAnEvenStrength(intensity: Double, tolerance: Double) throws {
        // The DA7280's LRA_PER steps are fine: the band's ±3 % are most of it.
        try Self.checkSweep(on: { try Self.da7280().0 }, intensity: intensity, tolerance: tolerance, minimumSpanHz: 7)
    }

    /// DRV2605L: open loop at OL_LRA_PERIOD, whose 98.46 µs steps are 3 Hz apart at 175 Hz: three
    /// periods fall in the rated band (172.1, 175.1 and 178.2 Hz).
    @Test(arguments: [(0.7, 1.0), (1.0, 3.0)])
    func aDRV2605LSweepRisesInFrequencyAtAnEvenStrength(intensity: Double, tolerance: Double) throws {
        try Self.checkSweep(on: { try Self.drv2605L().0 }, intensity: intensity, tolerance: tolerance, minimumSpanHz: 5)
    }

    /// On the bus: the DA7280's tracking goes off (TOP_CFG1 without FREQ_TRACK_EN, acceleration
    /// or rapid stop) and LRA_PER follows the sharpness down in period; after the pattern both are
    /// as start-up wrote them.
    @Test func theDA7280sPeriodFollowsTheSharpnessAndTrackingComesBack() throws {
        let (rig, chip) = try Self.da7280()
        let configuredTop = chip[.topConfiguration1]
        let configuredPeriod = [chip[.lraPeriodHigh], chip.registers[Int(DA7280Register.lraPeriodHigh.rawValue) + 1]]
        let first = chip.trace.count
        _ = Self.measure(Self.sweep(intensity: 0.7), on: rig)
        let writes = chip.trace[first...].filter { $0.kind == .write }
        let periods = writes.filter { $0.written.first == DA7280Register.lraPeriodHigh.rawValue && $0.written.count == 3 }
            .map { Int($0.written[1]) << 7 | Int($0.written[2]) }
        #expect(periods.count > 10, "\(periods.count) LRA_PER writes")
        // The last write gives the resonance back; before it the period only shortens, and is
        // written only when it changes.
        let swept = periods.dropLast()
        #expect(zip(swept, swept.dropFirst()).allSatisfy { $0 > $1 }, "\(Array(swept))")
        let tops = writes.filter { $0.written.first == DA7280Register.topConfiguration1.rawValue }.map { $0.written[1] }
        let tracking = DA7280Register.TopConfiguration1.frequencyTracking.rawValue | DA7280Register.TopConfiguration1.acceleration.rawValue
        #expect(tops.first.map { $0 & tracking } == 0, "\(tops)")
        #expect(chip[.topConfiguration1] == configuredTop)
        #expect([chip[.lraPeriodHigh], chip.registers[Int(DA7280Register.lraPeriodHigh.rawValue) + 1]] == configuredPeriod)
        #expect(chip.output.level(at: rig.clock.now) == 0)
    }

    /// On the bus: the DRV2605L goes to open loop (CONTROL3's LRA_OPEN_LOOP) for the sweep with
    /// OL_LRA_PERIOD shortening, and is back in closed loop at the configured period after it.
    @Test func theDRV2605LGoesOpenLoopForTheSweepAndBack() throws {
        let (rig, engineRig) = try Self.drv2605L()
        let chip = engineRig.chip
        let configured = chip.registers[.control3]
        let first = chip.trace.count
        _ = Self.measure(Self.sweep(intensity: 0.7), on: rig)
        let writes = chip.trace[first...].filter { $0.kind == .write }
        let control3 = writes.filter { $0.written.first == Register.control3.rawValue }.map { Control3Register(rawValue: $0.written[1]) }
        #expect(control3.map(\.lraOpenLoop) == [true, false], "\(control3)")
        let periods = writes.filter { $0.written.first == Register.lraOpenLoopPeriod.rawValue }.map { Int($0.written[1]) }
        #expect(periods.dropLast() == [59, 58, 57][...], "\(periods)")
        #expect(chip.registers[.control3] == configured)
        #expect(chip.output.level(at: rig.clock.now) == 0)
    }

    /// A stream that ends awake (`endRealTimePlayback(standby: false)`, as a driver's user other
    /// than the engine may end it) gives the configured loop back at once, not at the next
    /// standby: a ROM effect right after it plays in closed loop at the configured period.
    @Test func aDRV2605LStreamEndedAwakeIsBackInClosedLoop() throws {
        let rig = try EngineRig()
        let configured = (rig.chip.registers[.control3], rig.chip.registers[.lraOpenLoopPeriod])
        try rig.engine.withDriver { driver in
            try driver.beginRealTimePlayback()
            try driver.setDriveFrequency(172)
            try driver.setRealTime(amplitude: 0.5)
            #expect(rig.chip.registers[Control3Register.self].lraOpenLoop)
            try driver.endRealTimePlayback(standby: false)
        }
        #expect(!rig.chip.registers[ModeRegister.self].standby, "ended awake")
        #expect((rig.chip.registers[.control3], rig.chip.registers[.lraOpenLoopPeriod]) == configured)
        #expect(rig.chip.output.level(at: rig.clock.now) == 0)
    }

    /// The same on a DA7280: tracking, acceleration and rapid stop back, and LRA_PER at resonance,
    /// as soon as the stream ends awake (the waveform memory's data type matches again).
    @Test func aDA7280StreamEndedAwakeTracksAgain() throws {
        let clock = VirtualClock()
        let chip = SimulatedDA7280(clock: clock)
        let driver = DA7280Driver(bus: chip, actuator: .sparkFunQwiicLRA, clock: clock)
        try driver.start()
        let configured = [chip[.topConfiguration1], chip[.topConfiguration2], chip[.lraPeriodHigh]]
        try driver.beginRealTimePlayback()
        try driver.setDriveFrequency(167)
        try driver.setRealTime(amplitude: 0.5)
        #expect(DA7280Model.driveHz(chip.registers).map { abs($0 - 167) < 0.1 } == true)
        try driver.endRealTimePlayback(standby: false)
        #expect(driver.power == .ready, "ended awake")
        #expect([chip[.topConfiguration1], chip[.topConfiguration2], chip[.lraPeriodHigh]] == configured)
        #expect(DA7280Model.driveHz(chip.registers) == nil && chip.drive == 0)
    }

    /// A pattern at sharpness 0.5 plays as it always did: no frequency is set, nothing but the
    /// stream's levels on the bus.
    @Test func aPatternAtResonanceSetsNoFrequency() throws {
        let (rig, engineRig) = try Self.drv2605L()
        let first = engineRig.chip.trace.count
        let (_, rendering) = Self.measure(Self.steady(intensity: 0.7), on: rig)
        #expect(rendering.driveSharpness.isEmpty)
        #expect(!rendering.warnings.contains { $0.contains("sharpness") }, "\(rendering.warnings)")
        let registers = Set(engineRig.chip.trace[first...].filter { $0.kind == .write }.compactMap(\.written.first))
        #expect(!registers.contains(Register.control3.rawValue) && !registers.contains(Register.lraOpenLoopPeriod.rawValue), "\(registers)")
    }

    /// Where the hardware cannot render it, the report says so and the drive is as before: an
    /// ERM, and the DRV2605 (no OL_LRA_PERIOD), whose LRA drive tracks resonance in closed loop.
    @Test func anERMAndAClosedLoopOnlyPartSayContinuousSharpnessIsNotRendered() throws {
        var chipOptions = SimulatedDRV2605.Options()
        chipOptions.part = .drv2605
        for (rig, why) in [(try EngineRig(actuator: .erm), "an ERM has no drive frequency"), (try EngineRig(chipOptions: chipOptions), "has no OL_LRA_PERIOD")] {
            let player = PatternPlayer(engine: rig.engine, designed: Self.sweep(intensity: 0.7))
            #expect(player.rendering.driveSharpness.isEmpty)
            #expect(
                player.rendering.warnings.contains { $0.hasPrefix("sharpness of continuous events is not rendered") && $0.contains(why) },
                "\(player.rendering.warnings)")
            let first = rig.chip.trace.count
            player.start()
            _ = player.runToCompletion()
            let registers = Set(rig.chip.trace[first...].filter { $0.kind == .write }.compactMap(\.written.first))
            #expect(!registers.contains(Register.control3.rawValue), "\(registers)")
        }
    }

    /// Players mixed drive at the loudest one's sharpness: a rumble at sharpness 0.2 keeps its
    /// frequency under taps and a quieter hum of sharpness 0.9 mixed into it, and the drive stays
    /// within the rating at the sum.
    @Test func aMixDrivesAtTheLoudestPlayersSharpness() throws {
        let (rig, chip) = try Self.da7280()
        var options = PatternPlayer.Options()
        options.mixes = true
        let rumble = HapticPattern(events: [.init(type: .hapticContinuous, time: 0, duration: 1, intensity: 0.6, sharpness: 0.2)])
        let taps = HapticPattern(events: [0.3, 0.6].map { .init(type: .hapticTransient, time: $0, intensity: 0.9, sharpness: 0.9) })
        // A quieter hum of its own sharpness under the rumble: the rumble's is the one felt.
        let hum = HapticPattern(events: [.init(type: .hapticContinuous, time: 0.2, duration: 0.6, intensity: 0.2, sharpness: 0.9)])
        let start = rig.clock.now
        let players = [rumble, taps, hum].map { PatternPlayer(engine: rig.engine, designed: $0, options: options) }
        for player in players { player.start(at: start) }
        rig.clock.advance(by: .milliseconds(1200))
        #expect(players.allSatisfy { $0.outcome == .finished })
        let band = try #require(rig.engine.sharpnessRendering.band)
        let window = chip.output.samples.filter { $0.time > start.advanced(by: .milliseconds(50)) && $0.time < start.advanced(by: .milliseconds(900)) }
        #expect(window.contains { $0.level > 0.95 }, "the taps' peaks in the mix")
        #expect(window.allSatisfy { abs(($0.hz ?? 0) - band.hz(sharpness: 0.2)) < 0.1 }, "\(Set(window.map { $0.hz ?? 0 }))")
        #expect(chip.output.samples.allSatisfy { $0.ratedLevel <= 1 })
        #expect(chip.output.level(at: rig.clock.now) == 0 && DA7280Model.driveHz(chip.registers) == nil)
    }

    /// A sharpness sent while the pattern plays (Core Haptics' HapticSharpnessControl, additive)
    /// moves the drive frequency at its time.
    @Test func aSentSharpnessMovesTheDriveFrequencyAtItsTime() throws {
        let (rig, chip) = try Self.da7280()
        let player = PatternPlayer(engine: rig.engine, designed: Self.steady(intensity: 0.7))
        let start = rig.clock.now
        player.start(at: start)
        rig.clock.advance(by: .milliseconds(300))
        #expect(DA7280Model.driveHz(chip.registers) == nil, "tracking until a sharpness is asked for")
        try player.sendParameters([.init(id: .hapticSharpnessControl, time: 0, value: 0.5)], atTime: start.advanced(by: .milliseconds(400)))
        rig.clock.advance(by: .milliseconds(98))
        // From the send on, the stream carries a sharpness: at 0.5 until its time, resonance.
        let before = try #require(chip.output.sample(at: rig.clock.now)?.hz ?? 170)
        #expect(abs(before - 170) < 0.1, "\(before) Hz before its time")
        rig.clock.advance(by: .milliseconds(7))
        let band = try #require(rig.engine.sharpnessRendering.band)
        let hz = try #require(chip.output.sample(at: rig.clock.now)?.hz)
        #expect(abs(hz - band.upperHz) < 0.2, "\(hz) Hz, the band's top \(band.upperHz)")
        player.stop()
        rig.clock.advance(by: .milliseconds(10))
        #expect(chip.output.level(at: rig.clock.now) == 0)
        #expect(DA7280Model.driveHz(chip.registers) == nil, "tracking back after the stop")
    }
}
