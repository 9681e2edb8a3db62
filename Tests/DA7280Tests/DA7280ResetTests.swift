// SPDX-License-Identifier: Apache-2.0

import DA7280
import DA7280Simulator
import HapticChip
import HardwareAccess
import Testing

/// A DA7280 reset behind the driver's back (a brown-out, the board re-plugged) before each kind of
/// transaction: the chip comes back at its power-on values (NOMMAX 2.106 V with acceleration on, an
/// empty waveform memory), and an actuator rated 1.8 V must never be driven at them. Each case
/// checks that the reset is found, that the whole configuration and the memory are written again
/// before the next drive starts, and the drive in volts at every step.
@Suite struct DA7280ResetTests {
    /// An LRA rated below the chip's reset NOMMAX (2.106 V): driven at the reset values it would
    /// get 117 % of its rating.
    static let lowVoltageLRA = DA7280Actuator(
        kind: .lra, nominalVolts: 1.8, absoluteMaximumVolts: 2.0, maximumCurrentMilliamps: 120, impedanceOhms: 10, resonantHz: 170)

    /// Where the reset happens, relative to what the driver does next.
    enum ResetPoint: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// In standby; the next thing is a stream.
        case beforeStream
        /// In standby; the next thing is a wake (prepare), then a stream.
        case beforeWake
        /// While a stream drives; its next levels, then the status poll.
        case midStream
        /// In standby; the next thing is a feedback from the waveform memory.
        case beforeMemoryPlayback
        /// After the memory was armed for a feedback, before its trigger.
        case betweenArmingAndTrigger
        /// In standby; the next thing is a status read (the engine's check after a feedback).
        case beforeStatus

        var testDescription: String { rawValue }
    }

    final class Rig {
        let clock = VirtualClock()
        let chip: SimulatedDA7280
        let driver: DA7280Driver
        let rated = DA7280ResetTests.lowVoltageLRA.nominalVolts
        var peakVolts = 0.0

        init() throws {
            chip = SimulatedDA7280(clock: clock)
            var options = DA7280Driver.Options()
            options.storedFeedbacks = DA7280FeedbackTable.storedFeedbacks(for: DA7280ResetTests.lowVoltageLRA)
            driver = DA7280Driver(bus: chip, actuator: DA7280ResetTests.lowVoltageLRA, clock: clock, options: options)
            try driver.start()
        }

        /// Advances the clock in 1 ms steps, noting the drive in volts at each.
        func run(for milliseconds: Int) {
            for _ in 0..<milliseconds {
                clock.advance(by: .milliseconds(1))
                note()
            }
        }

        func note() { peakVolts = max(peakVolts, abs(chip.driveVolts)) }

        /// A stream at full level for `milliseconds`.
        func stream(milliseconds: Int = 20) throws {
            try driver.beginRealTimePlayback()
            note()
            for _ in 0..<(milliseconds / 5) {
                try driver.setRealTime(amplitude: 1)
                note()
                run(for: 5)
            }
            try driver.endRealTimePlayback(standby: true)
            note()
        }

        /// The first feedback the memory holds, played to its end.
        func playFromMemory() throws {
            let stored = try #require(driver.stored)
            let waveform = StoredWaveform(index: 0, duration: stored.durations[0])
            try driver.play(waveform)
            note()
            run(for: Int(stored.durations[0].secondsDouble * 1000) + 10)
            _ = try driver.playbackStatus()
            try driver.finishPlayback()
        }
    }

    @Test(arguments: ResetPoint.allCases)
    func aResetIsFoundAndRepairedBeforeAnythingDrives(at point: ResetPoint) throws {
        let rig = try Rig()
        let configured = Array(rig.chip.registers[0x07...0x17])
        let memory = Array(rig.chip.registers[0x84...0xE7])
        #expect(memory.contains { $0 != 0 }, "start-up stored feedbacks")
        var resetAt = 0
        func reset() {
            resetAt = rig.chip.trace.count
            rig.chip.powerOnReset()
        }
        switch point {
        case .beforeStream:
            reset()
            try rig.stream()
        case .beforeWake:
            reset()
            try rig.driver.wake()
            try rig.stream()
        case .midStream:
            try rig.driver.beginRealTimePlayback()
            try rig.driver.setRealTime(amplitude: 1)
            rig.run(for: 5)
            reset()
            try rig.driver.setRealTime(amplitude: 0.9)
            rig.note()
            let status = try rig.driver.playbackStatus()
            #expect(status.resetDetected && !status.hasFault, "the poll found it")
            try rig.driver.setRealTime(amplitude: 1)
            rig.run(for: 5)
            #expect(rig.chip.drive > 0.9, "the stream drives again after the repair")
            try rig.driver.endRealTimePlayback(standby: true)
        case .beforeMemoryPlayback:
            reset()
            try rig.playFromMemory()
        case .betweenArmingAndTrigger:
            let stored = try #require(rig.driver.stored)
            try rig.driver.prepare(StoredWaveform(index: 0, duration: stored.durations[0]))
            reset()
            try rig.driver.play(StoredWaveform(index: 0, duration: stored.durations[0]))
            rig.run(for: 50)
            let status = try rig.driver.playbackStatus()
            #expect(status.resetDetected, "the status after the trigger found it")
            try rig.driver.stop()
            try rig.playFromMemory()
        case .beforeStatus:
            reset()
            let status = try rig.driver.playbackStatus()
            #expect(status.resetDetected && !status.playing && !status.hasFault)
        }
        #expect(rig.driver.resetsDetected == 1, "found once")
        #expect(Array(rig.chip.registers[0x84...0xE7]) == memory, "the waveform memory written again")
        let now = Array(rig.chip.registers[0x07...0x17])
        #expect(now[0x0C - 0x07..<0x0F - 0x07] == configured[0x0C - 0x07..<0x0F - 0x07], "ACTUATOR1-3 are the actuator's again")
        #expect(now[0x13 - 0x07..<0x15 - 0x07] == configured[0x13 - 0x07..<0x15 - 0x07], "TOP_CFG1-2 again")
        #expect(rig.peakVolts <= rig.rated, "driven at \(rig.peakVolts) V, rated \(rig.rated) V")
        // Nothing after the reset started a drive (DRO, or SEQ_START) before the actuator's burst.
        let after = rig.chip.trace[resetAt...].filter { $0.kind == .write }.map(\.written)
        let burst = try #require(after.firstIndex { $0.first == DA7280Register.lraPeriodHigh.rawValue }, "the actuator written again")
        let drive = after.firstIndex { bytes in
            guard bytes.first == DA7280Register.topControl1.rawValue, bytes.count > 1 else { return false }
            let control = DA7280Register.TopControl1(rawValue: bytes[1])
            return control.mode == .directRegisterOverride || control.sequenceStart
        }
        if point == .betweenArmingAndTrigger {
            // The trigger is one write (that is what arming is for): it lands on the reset chip,
            // whose empty memory faults instead of driving; the repair follows at the next read.
            #expect(drive != nil && drive! < burst)
        } else {
            #expect(drive.map { $0 > burst } ?? true, "a drive started at the reset values: \(after)")
        }
    }

    /// A status read with nothing wrong finds nothing: no reset counted, nothing written.
    @Test func aChipThatWasNotResetIsLeftAlone() throws {
        let rig = try Rig()
        let before = rig.chip.trace.count
        #expect(try rig.driver.checkForReset() == false)
        #expect(try rig.driver.playbackStatus().resetDetected == false)
        try rig.stream()
        try rig.playFromMemory()
        #expect(rig.driver.resetsDetected == 0)
        #expect(!rig.chip.trace[before...].contains { $0.kind == .write && $0.written.first == DA7280Register.lraPeriodHigh.rawValue })
    }

    /// E_WARNING is counted by its diagnosis, reported once in the status with what it was, and
    /// cleared (it is not a fault: the chip still drives).
    @Test func warningsAreCountedByCauseAndCleared() throws {
        let rig = try Rig()
        rig.chip.raise(.warning)
        rig.chip.setWarningDiagnosis(0x88)
        let status = try rig.driver.playbackStatus()
        #expect(status.warning && !status.hasFault)
        #expect(status.warningDetail == "over-temperature warning (E_OVERTEMP_WARN), drive limited (E_LIM_DRIVE)")
        #expect(rig.driver.warningsSeen == [.overTemperature: 1, .driveLimited: 1])
        #expect(rig.chip[.irqEvent1] & DA7280Register.Event.warning.rawValue == 0, "cleared")
        #expect(try rig.driver.playbackStatus().warning == false, "reported once")
    }
}
