// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import Foundation
import HapticChip
import HapticEffects
import Haptics
import HardwareAccess
import Synchronization
import Testing

/// Wraps the simulated chip and checks the engine's discipline on every transaction: never two
/// at once (the engine must serialize), no RTP_INPUT write outside real-time mode, no GO during it.
final class ProtocolCheckingBus: I2CBus, @unchecked Sendable {
    let chip: SimulatedDRV2605
    private let inside = Atomic<Int>(0)
    private let violationList = Locked<[String]>([])
    var violations: [String] { violationList.withLock { $0 } }

    init(_ chip: SimulatedDRV2605) { self.chip = chip }

    private func enter(_ bytes: [UInt8]) {
        if inside.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue != 1 {
            violationList.withLock { $0.append("two transactions at once") }
        }
        let mode = ModeRegister(rawValue: chip.registers[.mode])
        if bytes.first == 0x02, bytes.count > 1, mode.mode != .realTimePlayback {
            violationList.withLock { $0.append("RTP_INPUT written in \(mode.mode)") }
        }
        if bytes == [0x0C, 0x01], mode.mode == .realTimePlayback {
            violationList.withLock { $0.append("GO written during real-time playback") }
        }
    }
    private func leave() { inside.wrappingSubtract(1, ordering: .sequentiallyConsistent) }

    func write(to address: I2CAddress, _ bytes: [UInt8]) throws(I2CError) {
        enter(bytes)
        defer { leave() }
        try chip.write(to: address, bytes)
    }
    func writeRead(to address: I2CAddress, _ bytes: [UInt8], count: Int) throws(I2CError) -> [UInt8] {
        enter([])
        defer { leave() }
        return try chip.writeRead(to: address, bytes, count: count)
    }
}

@Suite struct StressTests {
    /// Eight threads trigger feedback, prepare, play patterns and stop on one engine, with time
    /// moving underneath. Nothing may interleave, deadlock or be left playing. The limit is a
    /// deadlock guard: under qemu-user beside CI's mutants stage this test has taken 154 s.
    @Test(.timeLimit(.minutes(5)))
    func manyThreadsOnOneEngine() async throws {
        let clock = VirtualClock()
        let chip = SimulatedDRV2605(clock: clock)
        chip.keepsTrace = false
        let bus = ProtocolCheckingBus(chip)
        var options = HapticEngine.Options.isolated
        options.policy.maximumFeedbackPerSecond = 1_000
        let engine = try HapticEngine(
            bus: bus, configuration: try DRV2605Configuration(.typicalLRA),
            clock: clock, options: options)
        let pattern = PatternRenderer().render(
            HapticPattern(events: [
                .init(type: .hapticContinuous, time: 0, duration: 0.05, intensity: 0.7),
                .init(type: .hapticTransient, time: 0.06, intensity: 1, sharpness: 0.8)
            ]))
        let kinds = FeedbackKind.all
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var random = SystemRandomNumberGenerator()
                    for step in 0..<300 {
                        switch Int.random(in: 0..<10, using: &random) {
                        case 0...3: engine.play(Feedback(kind: kinds[(worker + step) % kinds.count], intensity: Double.random(in: 0...1, using: &random)))
                        case 4: engine.prepare(.impact(.medium))
                        case 5: engine.stop()
                        case 6:
                            let player = PatternPlayer(engine: engine, pattern: pattern)
                            player.start()
                            for _ in 0..<5 { if let next = player.pump() { clock.sleep(until: next) } }
                            if step % 2 == 0 { player.cancel() }
                        default:
                            clock.advance(by: .milliseconds(Int.random(in: 1...20, using: &random)))
                            engine.runDueWork()
                        }
                    }
                }
            }
        }
        engine.stop()
        clock.advance(by: .seconds(5))
        engine.runDueWork()
        #expect(bus.violations.isEmpty, "\(bus.violations.prefix(5))")
        #expect(chip.output.level(at: clock.now) == 0)
        #expect(chip.registers[.realTimePlaybackInput] == 0)
        #expect(chip.registers[.go] & 1 == 0)
        #expect(chip.registers[.mode] & 0x40 != 0)
        #expect(engine.statistics.played > 100)
    }
}
