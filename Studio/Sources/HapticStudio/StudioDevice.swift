// SPDX-License-Identifier: Apache-2.0

import ChipFamilies
import DRV2605
import DRV2605Simulator
import Foundation
import HapticBoards
import HapticChip
import HapticEffects
import Haptics
import HapticsSimulation
import HardwareAccess
import HardwareSimulation
import LinuxHardware

/// The chip the studio plays on: the board's first chip through Linux, or a simulated chip on the
/// real clock. Opened the way `haptic` and `hapticd` open it (`HapticBoard`), so a board file
/// that works for one works for all.
public final class StudioDevice: Sendable {
    /// The chip's engine; the studio is its only user while it runs.
    public let engine: HapticEngine
    /// Where it plays, for people: "simulated DRV2605L with an LRA", "0x5A on /dev/i2c-1".
    public let origin: String
    /// The actuator kind (sets which ROM library the effects list means).
    public let actuator: ActuatorType
    /// Whether this is the simulated chip (its drive is recorded; a board's is not observable).
    public var isSimulated: Bool { simulatedChip != nil }
    /// The simulated chip, touched only inside `engine.withDriver` (under the engine's lock).
    private nonisolated(unsafe) let simulatedChip: SimulatedDRV2605?

    /// A device around an engine already opened; `simulatedChip` is the chip behind it when simulated.
    public init(engine: HapticEngine, origin: String, actuator: ActuatorType, simulatedChip: SimulatedDRV2605? = nil) {
        self.engine = engine
        self.origin = origin
        self.actuator = actuator
        self.simulatedChip = simulatedChip
    }

    /// Opens `board` (a path or a name from Boards/), else a single breakout on `bus`
    /// (default /dev/i2c-1); with `simulate`, a simulated chip in its place.
    public static func open(board: String?, bus: String?, simulate: Bool) throws -> StudioDevice {
        StandardChipFamilies.register()
        let file = try BoardFile.named(board, orSingleOn: bus)
        let simulated = simulate ? try SimulatedHardware(board: file, clock: SystemClock.shared, keepsTrace: false) : nil
        var options = HapticBoard.Options.firstChip(of: file, simulated: simulate)
        options.warn = { FileHandle.standardError.write(Data("haptic-studio: \($0)\n".utf8)) }
        options.inform = options.warn
        let opened = try HapticBoard.open(file, hardware: simulated ?? LinuxHardwareProvider(), clock: SystemClock.shared, options: options)
        let chip = opened.chips[0]
        return StudioDevice(
            engine: chip.engine, origin: opened.origin(of: chip, simulated: simulate), actuator: chip.actuator,
            simulatedChip: simulated?.chips[chip.name])
    }

    /// The longest stretch `recordedMotion` turns into motion (the resonator is stepped at 64 kHz).
    public static let longestMotionSeconds = 30.0

    /// The simulated actuator's motion model (`ActuatorPhysics`): its LRA at the simulated
    /// chip's resonance, or the coin ERM; nil on a board.
    public var physics: ActuatorPhysics? {
        guard let chip = simulatedChip else { return nil }
        return ActuatorPhysics.typical(lra: actuator == .lra ? chip.actuator.resonantHz : nil)
    }

    /// The acceleration the simulated actuator gave from `start`, in g: its peak in each 1/`rate`
    /// of a second for `seconds` (at most `longestMotionSeconds`), from the chip's record through
    /// the motion model, the drive frequency included. Nil on a board, whose actuator cannot be
    /// observed.
    public func recordedMotion(from start: ClockInstant, seconds: Double, rate: Double) -> [Double]? {
        guard let chip = simulatedChip, let physics, seconds.isFinite, seconds > 0, rate > 0 else { return nil }
        let length = min(seconds, Self.longestMotionSeconds)
        guard let record = try? engine.withDriver({ _ in chip.output }) else { return nil }
        let samples = physics.simulate(record, from: start, to: start.advanced(by: .secondsClamped(length)))
        let count = max(1, Int(length * rate) + 1)
        var envelope = [Double](repeating: 0, count: count)
        for sample in samples {
            let index = min(count - 1, Int(sample.time * rate))
            envelope[index] = max(envelope[index], abs(sample.accelerationG))
        }
        return envelope
    }

    /// What the actuator did from `start`, sampled `rate` times a second for `seconds`: the
    /// simulated chip's record. Nil on a board, whose output cannot be observed.
    public func recordedDrive(from start: ClockInstant, seconds: Double, rate: Double) -> [Double]? {
        guard let chip = simulatedChip, seconds.isFinite, rate > 0 else { return nil }
        let count = min(200_000, max(1, Int(seconds * rate) + 1))
        return try? engine.withDriver { _ in
            (0..<count).map { chip.output.level(at: start.advanced(by: .secondsClamped(Double($0) / rate))) }
        }
    }
}
