// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import HapticChip
import HapticEffects
import Haptics
import HardwareAccess
import HardwareSimulation

/// An engine on the simulated chip and a virtual clock that you advance: what NIOEmbedded is to
/// SwiftNIO, the clock is the test double. Time moves only when `advance` is called, and the
/// engine's timers (completion, standby, idle shutdown), its pattern players and sequences run
/// at their own deadlines on the way, as their threads would on the real clock, so a test sees
/// the chip at exactly the instant it asks about.
///
/// For this package's tests, the benchmark, and an app's own tests of its haptics:
///
///     let rig = try EngineRig()
///     #expect(rig.engine.play(.impact(.heavy)) == .played)
///     rig.advance(.milliseconds(100))
///     #expect(rig.chip.registers[.mode] & 0x40 != 0) // back in standby
public struct EngineRig {
    /// The virtual clock everything runs on: time moves only with `advance`.
    public let clock = VirtualClock()
    /// The simulated DRV2605L: registers, bus trace, and what the actuator was driven with.
    public let chip: SimulatedDRV2605
    /// The engine under test, on the simulated chip, with the system policy file never read.
    public let engine: HapticEngine
    /// The EN line, when asked for: it records every level the engine drove it to.
    public let enable: RecordingGPIOLine?
    /// The IN/TRIG line, when asked for.
    public let trigger: RecordingGPIOLine?

    /// A rig with the typical actuator of `actuator` (`ActuatorSpecification.typical`). The system
    /// policy file is never read (`HapticEngine.Options.isolated`), whatever `options` says: a test
    /// must not change behaviour with the machine it runs on.
    public init(
        actuator: ActuatorType = .lra, enable: Bool = false, trigger: Bool = false,
        options: HapticEngine.Options = .isolated, chipOptions: SimulatedDRV2605.Options = .init()
    ) throws {
        var options = options
        options.readsSystemPolicy = false
        chip = SimulatedDRV2605(clock: clock, actuator: SimulatedActuator(type: actuator), options: chipOptions)
        self.enable = enable ? chip.makeEnableLine() : nil
        self.trigger = trigger ? chip.makeTriggerLine() : nil
        let configuration = try DRV2605Configuration(.typical(actuator), library: actuator == .erm ? .ermB : nil)
        engine = try HapticEngine(
            bus: chip, configuration: configuration, enableLine: self.enable,
            triggerLine: self.trigger, clock: clock, options: options)
    }

    /// Moves time by `duration`, running the engine's timers (and any player or sequence) at
    /// each instant they fall due: `clock.advance(by:)`.
    public func advance(_ duration: Duration) { clock.advance(by: duration) }

    /// Plays `feedback` alone (after 3 s of quiet) and returns what the actuator got over the next
    /// 2 s: the energy delivered, how long it was driven, and when it started.
    public func measure(_ feedback: Feedback) -> (energy: Double, active: Double, onset: Double?) {
        advance(.seconds(3))
        chip.clearOutput()
        let start = clock.now
        engine.play(feedback)
        advance(.seconds(2))
        let end = clock.now
        return (
            chip.output.energy(from: start, to: end), chip.output.activeSeconds(from: start, to: end),
            chip.output.onsetSeconds(from: start, to: end)
        )
    }
}
