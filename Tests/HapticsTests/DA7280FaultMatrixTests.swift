// SPDX-License-Identifier: Apache-2.0

import ChipFamilies
import DA7280
import DA7280Simulator
import Foundation
import HapticBoards
import Haptics
import HapticsSimulation
import HardwareAccess
import HardwareAccessTesting
import HardwareSimulation
import Testing

private let boardsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Boards")

/// The simulated hardware of a board file with every bus behind a fault-injecting one.
final class FaultInjectingHardware: HardwareProvider {
    let simulated: SimulatedHardware
    private var buses: [String: FaultInjectingBus] = [:]

    init(_ simulated: SimulatedHardware) { self.simulated = simulated }

    func bus(at path: String) throws -> any I2CBus {
        if let bus = buses[path] { return bus }
        let bus = FaultInjectingBus(try simulated.bus(at: path))
        buses[path] = bus
        return bus
    }

    func outputLine(chip: String, line: GPIOLineSelector, consumer: String) throws -> any GPIOOutputLine {
        try simulated.outputLine(chip: chip, line: line, consumer: consumer)
    }

    /// The faulty side of the board's only bus.
    func onlyBus(of file: BoardFile) throws -> FaultInjectingBus {
        try #require(try bus(at: file.drivers[0].bus) as? FaultInjectingBus)
    }
}

/// SparkFun's Qwiic DA7280 board file (its LRA, the waveform memory in use) opened on a simulated
/// DA7280 behind a fault-injecting bus: one fresh rig per cell of the matrix.
final class DA7280FaultRig: FaultMatrixRig {
    static let file: BoardFile = {
        StandardChipFamilies.register()
        do { return try BoardFile.load(boardsDirectory.appendingPathComponent("sparkfun-qwiic-da7280.json").path) } catch {
            fatalError("Boards/sparkfun-qwiic-da7280.json: \(error)")
        }
    }()

    let clock = VirtualClock()
    let chip: SimulatedDA7280
    let hardware: FaultInjectingHardware
    let faults: FaultInjectingBus
    let board: HapticBoard
    var engine: HapticEngine { board.engine }
    var output: ActuatorRecord { chip.output }

    init() throws {
        let simulated = try SimulatedHardware(board: Self.file, clock: clock)
        chip = try #require(simulated.da7280Chips["main"])
        hardware = FaultInjectingHardware(simulated)
        faults = try hardware.onlyBus(of: Self.file)
        board = try HapticBoard.open(Self.file, hardware: hardware, clock: clock, options: Self.options)
    }

    static var options: HapticBoard.Options {
        var options = HapticBoard.Options()
        options.engine = .isolated
        options.engine.shutdownAfterIdle = .milliseconds(400)
        options.calibrations = nil
        options.usesChipMemory = true
        return options
    }

    /// Nothing drives the actuator now or in the next 50 ms: no override level held in DRO, no
    /// sequence from the waveform memory in flight.
    var actuatorStopped: Bool {
        chip.drive == 0 && chip.output.peak(from: clock.now, to: clock.now.advanced(by: .milliseconds(50))) == 0
    }
}

/// A DA7280 rig whose engine was asked to prepare `feedback` (RTWM armed for a stored clip).
private func preparedDA7280(_ feedback: Feedback) throws -> DA7280FaultRig {
    let rig = try DA7280FaultRig()
    rig.engine.prepare(feedback)
    rig.clock.advance(by: .milliseconds(5))
    return rig
}

let da7280FaultedOperations: [FaultedOperation<DA7280FaultRig>] = [
    feedbackOperation("DA7280: a clip from the waveform memory", .impact(.heavy)) { try DA7280FaultRig() },
    feedbackOperation("DA7280: a prepared clip", .selection) { try preparedDA7280(.selection) },
    feedbackOperation("DA7280: a streamed feedback (DRO)", .vibration(.default)) { try DA7280FaultRig() },
    patternStreamOperation("DA7280: a pattern streamed") { try DA7280FaultRig() },
    cleanUpWhilePlayingOperation("DA7280: clean-up while streaming") { try DA7280FaultRig() }
]

/// The DRV2605's fault matrix on the DA7280: every transaction of each operation (a clip played
/// from the waveform memory, a prepared one, a stream, a pattern, the clean-up) failed in turn in
/// each way a bus fails; right after the failing call nothing drives the actuator, the caller was
/// told, and the operation then works again.
@Suite struct DA7280FaultMatrixTests {
    @Test(arguments: da7280FaultedOperations)
    func everyTransactionFailedInTurn(operation: FaultedOperation<DA7280FaultRig>) throws {
        try failEveryTransaction(of: operation, in: FaultMatrixTests.faultKinds)
    }

    /// Start-up (CHIP_REV, the events, the configuration, the waveform memory) with each of its
    /// transactions failed in turn: the caller gets the error or a started board, nothing drives
    /// the actuator, and opening the board again on the same bus works and plays.
    @Test(arguments: FaultMatrixTests.faultKinds)
    func everyStartupTransactionFailedInTurn(kind: FaultInjectingBus.Fault) throws {
        let clean = try DA7280FaultRig()
        let transactions = clean.faults.count
        #expect(transactions >= 10, "start-up made \(transactions) transactions")
        #expect(clean.faults.fired.isEmpty && clean.reportedErrors == 0 && clean.actuatorStopped, "the fault-free start-up reported a failure")
        for index in 0..<transactions {
            let clock = VirtualClock()
            let simulated = try SimulatedHardware(board: DA7280FaultRig.file, clock: clock)
            let chip = try #require(simulated.da7280Chips["main"])
            let hardware = FaultInjectingHardware(simulated)
            let faults = try hardware.onlyBus(of: DA7280FaultRig.file)
            faults.inject(kind, at: index)
            let started = try? HapticBoard.open(DA7280FaultRig.file, hardware: hardware, clock: clock, options: DA7280FaultRig.options)
            #expect(faults.fired == [index])
            #expect(
                chip.drive == 0 && chip.output.peak(from: .zero, to: clock.now.advanced(by: .milliseconds(50))) == 0,
                "\(kind) at start-up transaction \(index): the actuator was driven")
            if let started {
                #expect(started.engine.play(.impact(.heavy)) == .played, "\(kind) at start-up transaction \(index): started, but does not play")
            }
            do {
                let again = try HapticBoard.open(DA7280FaultRig.file, hardware: hardware, clock: clock, options: DA7280FaultRig.options)
                let start = clock.now
                #expect(again.engine.play(.impact(.heavy)) == .played, "\(kind) at \(index): a second start-up did not recover")
                clock.advance(by: .milliseconds(200))
                #expect(chip.output.peak(from: start, to: clock.now) > 0, "\(kind) at \(index): the second start-up played nothing")
            } catch {
                Issue.record("\(kind) at \(index): a second start-up failed: \(error)")
            }
        }
    }
}
