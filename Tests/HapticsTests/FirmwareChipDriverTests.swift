// SPDX-License-Identifier: Apache-2.0

import DRV2605
import Foundation
import HapticChip
import HapticEffects
import HardwareAccess
import Testing

@testable import FirmwareLink
@testable import Haptics

/// A firmware at the end of a serial line that answers like Firmware/'s command interpreter,
/// written to from the driver's keep-alive timer as well as the test (so behind a lock).
final class LockedFirmwareLine: SerialLine, @unchecked Sendable {
    let name = "scripted"
    private let lock = NSLock()
    private var lines: [String] = []
    private var inbound: [UInt8] = []
    private var frames = FirmwareFrames()
    private let respond: (String) -> [String]
    init(respond: @escaping (String) -> [String]) { self.respond = respond }

    var written: [String] { lock.withLock { lines } }

    func write(_ bytes: [UInt8]) throws(SerialError) {
        lock.withLock {
            for (id, command) in frames.commands(in: bytes, refusals: &inbound) {
                lines.append(command)
                for answer in respond(command) { inbound += FirmwareFrames.answer(answer, to: id) }
            }
        }
    }

    /// A payload the firmware sends on its own (a `hello` after a reset).
    func arrive(_ text: String) { lock.withLock { inbound += FirmwareFrames.unasked(text) } }

    func read(timeout: Duration) throws(SerialError) -> [UInt8] {
        lock.withLock {
            let chunk = Array(inbound.prefix(5))
            inbound.removeFirst(chunk.count)
            return chunk
        }
    }
}

/// Answers as Firmware/ does for a DRV2605L with an LRA; `playing` is what `status` reports.
func firmwareAnswers(playing: @escaping () -> String = { "-" }, extra: @escaping (String) -> [String]? = { _ in nil }) -> (String) -> [String] {
    { command in
        if let answer = extra(command) { return answer }
        let verb = command.split(separator: " ").first.map(String.init) ?? ""
        switch verb {
        case "status": return ["ok status board=mps2-an385 chip=DRV2605L actuator=lra power=standby playing=\(playing()) heap=9000"]
        case "rom": return ["ok rom 120"]
        case "pattern": return ["ok pattern 6 30"]
        case "level", "arm", "wake", "standby", "stop", "ping": return ["ok \(command)"]
        default: return ["error unknown-command \(command)"]
        }
    }
}

@Suite struct FirmwareChipDriverTests {
    @Test func theEngineSendsTheTablesSequenceAsSlotBytesAndStops() throws {
        let line = LockedFirmwareLine(respond: firmwareAnswers())
        let driver = try FirmwareChipDriver(device: FirmwareDevice(line: line))
        let engine = HapticEngine(firmware: driver, actuator: .erm, options: .isolated)
        defer { _ = engine.shutdown() }
        // The firmware said lra: its table, not the option's.
        #expect(engine.capabilities.actuator == .lra)
        #expect(engine.capabilities.chip.hasPrefix("DRV2605L on "), "\(engine.capabilities.chip)")
        guard case let .rom(sequence)? = FeedbackMapping.standard(for: .lra).plan(for: .notification(.success)) else {
            Issue.record("the LRA table plays success from ROM")
            return
        }
        #expect(engine.play(.notification(.success)) == .played)
        let slots = sequence.steps.map { String($0.slotByte) }.joined(separator: " ")
        #expect(line.written.contains("rom " + slots))
        engine.stop()
        #expect(line.written.last == "stop")
        #expect(driver.power == .standby)
    }

    @Test func aClipThatFitsALineIsUploadedAndALongOneStreamedLevelByLevel() throws {
        let line = LockedFirmwareLine(respond: firmwareAnswers())
        let driver = try FirmwareChipDriver(device: FirmwareDevice(line: line))
        let waveform = try #require(driver.storedWaveform(levels: [0.4, 0.8, 1.0, 0.6, 0.2], tick: .milliseconds(5)))
        // The firmware ends the clip at zero: one tick more.
        #expect(waveform.duration == .milliseconds(30))
        try driver.play(waveform)
        #expect(line.written.last == "pattern 5 40 80 100 60 20")
        #expect(driver.storedWaveform(levels: Array(repeating: 0.55, count: 200), tick: .milliseconds(5)) == nil)
        #expect(driver.storedWaveform(levels: [0.5], tick: .microseconds(2500)) == nil)
        try driver.beginRealTimePlayback()
        try driver.setRealTime(amplitude: 0.50000042)
        try driver.setRealTime(amplitude: -2)
        try driver.endRealTimePlayback(standby: true)
        #expect(Array(line.written.suffix(4)) == ["level 500000", "level -1000000", "level end", "standby"])
        #expect(!driver.isStreaming)
    }

    @Test func theFirmwaresOwnReportsEndPlayback() throws {
        nonisolated(unsafe) var playing = "rom"
        nonisolated(unsafe) var failNext = false
        let line = LockedFirmwareLine(
            respond: firmwareAnswers(playing: { playing }) { command in
                guard command == "status", failNext else { return nil }
                failNext = false
                return ["error playback rom: I2C write to 0x5A failed", "ok status board=pico chip=DRV2605L power=standby playing=- heap=1"]
            })
        let driver = try FirmwareChipDriver(device: FirmwareDevice(line: line))
        let sequence = WaveformSequence(Effect(rawValue: 47)!)
        try driver.play(sequence)
        #expect(try driver.playbackStatus() == HapticChipStatus(playing: true))
        playing = "-"
        #expect(try driver.playbackStatus() == HapticChipStatus(playing: false))
        try driver.play(sequence)
        failNext = true
        #expect {
            _ = try driver.playbackStatus()
        } throws: { error in
            guard case let .remote(text) = error as? HapticChipError else { return false }
            return text.contains("refused (playback)") && text.contains("0x5A") && text.contains("wiring")
        }
        // Said once: the next status is the firmware's.
        #expect(try driver.playbackStatus() == HapticChipStatus(playing: false))
    }

    @Test func whileSomethingPlaysTheLinkIsKeptAlive() throws {
        let line = LockedFirmwareLine(respond: firmwareAnswers(playing: { "rom" }))
        let driver = try FirmwareChipDriver(device: FirmwareDevice(line: line), keepAlive: .milliseconds(10))
        Thread.sleep(forTimeInterval: 0.1)
        #expect(!line.written.contains("ping"), "idle: nothing to keep alive")
        try driver.play(WaveformSequence(Effect(rawValue: 1)!))
        let deadline = Date().addingTimeInterval(2)
        while !line.written.contains("ping"), Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(line.written.contains("ping"))
    }

    @Test func aFirmwareWithoutAChipOrAnswerIsAClearError() {
        let noChip = LockedFirmwareLine(respond: { _ in ["ok status board=pico chip=none power=shutdown playing=- heap=1"] })
        #expect {
            _ = try FirmwareChipDriver(device: FirmwareDevice(line: noChip))
        } throws: { error in
            guard case let .remote(text) = error as? HapticChipError else { return false }
            return text.contains("found no chip") && text.contains("Hint:")
        }
        let silent = LockedFirmwareLine(respond: { _ in [] })
        let device = FirmwareDevice(line: silent)
        device.answerTimeout = .milliseconds(30)
        #expect {
            _ = try FirmwareChipDriver(device: device)
        } throws: { error in
            guard case let .remote(text) = error as? HapticChipError else { return false }
            return text.contains("no answer from the firmware")
        }
    }
}
