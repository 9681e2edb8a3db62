// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import HapticChip
import HapticEffects
import HapticStudio
import Haptics
import HardwareAccess

/// A simulated chip on the real clock behind a studio device: for the tests where other threads
/// (the server's, a looping player's) must run while the test waits.
struct RealTimeChip {
    let chip = SimulatedDRV2605(clock: SystemClock.shared)
    let engine: HapticEngine
    let device: StudioDevice

    init() throws {
        chip.keepsTrace = false
        engine = try HapticEngine(bus: chip, configuration: DRV2605Configuration(.typicalLRA), clock: SystemClock.shared, options: .isolated)
        device = StudioDevice(engine: engine, origin: "simulated", actuator: .lra, simulatedChip: chip)
    }

    /// The drive level now, read under the engine's lock (the chip is the engine's to touch).
    func level() -> Double {
        (try? engine.withDriver { _ in chip.output.level(at: SystemClock.shared.now) }) ?? -1
    }
}

/// Waits (at most `timeout`, real time) for a condition other threads make true, yielding the
/// thread meanwhile: a blocking wait in an async test would hold one of the few threads of the
/// cooperative pool that the studio's own tasks need to run.
func eventually(timeout: Duration = .seconds(3), _ condition: () -> Bool) async -> Bool {
    let deadline = SystemClock.shared.now.advanced(by: timeout)
    while !condition() {
        guard SystemClock.shared.now < deadline else { return false }
        await Task.yield()
    }
    return true
}
