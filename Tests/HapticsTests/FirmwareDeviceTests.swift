// SPDX-License-Identifier: Apache-2.0

import HardwareAccess
import Testing

@testable import FirmwareLink
@testable import Haptics

/// A serial line with a scripted firmware at the other end: each command framed and written gets
/// the answers `respond` gives, framed as Firmware/ frames them, read back in chunks as a UART
/// delivers them. `damage` changes the bytes of the answers on their way back (noise).
final class ScriptedFirmwareLine: SerialLine {
    let name = "scripted"
    var written: [String] = []
    var inbound: [UInt8] = []
    var frames = FirmwareFrames()
    var damage: (inout [UInt8]) -> Void = { _ in }
    /// Changes the host's bytes on their way to the firmware (noise), before it decodes them.
    var damageOutgoing: (inout [UInt8]) -> Void = { _ in }
    let respond: (String) -> [String]
    init(respond: @escaping (String) -> [String]) { self.respond = respond }

    func write(_ bytes: [UInt8]) throws(SerialError) {
        var bytes = bytes
        damageOutgoing(&bytes)
        for (id, command) in frames.commands(in: bytes, refusals: &inbound) {
            written.append(command)
            var answers: [UInt8] = []
            for answer in respond(command) { answers += FirmwareFrames.answer(answer, to: id) }
            damage(&answers)
            inbound += answers
        }
    }

    func read(timeout: Duration) throws(SerialError) -> [UInt8] {
        let chunk = Array(inbound.prefix(3))
        inbound.removeFirst(chunk.count)
        return chunk
    }
}

@Suite struct FirmwareDeviceTests {
    @Test func playWaitsForTheEndAndSkipsStaleLines() throws {
        let line = ScriptedFirmwareLine { command in
            switch command {
            case "play success": return ["done impact-light", "ok play success 190", "done success"]
            case "status": return ["ok status board=pico chip=DRV2605L power=standby playing=-"]
            default: return ["error unknown-command \(command)"]
            }
        }
        let device = FirmwareDevice(line: line)
        let status = try device.status()
        #expect(status == FirmwareDevice.Status(board: "pico", chip: "DRV2605L", power: "standby", playing: nil))
        #expect(try device.playAndWait(.notification(.success)) == .milliseconds(190))
        #expect(line.written == ["status", "play success"])
        #expect(line.inbound.isEmpty)
    }

    @Test func refusalsAreTyped() {
        let line = ScriptedFirmwareLine { _ in ["error unknown-feedback impact-huge; 'feedbacks' lists them"] }
        let device = FirmwareDevice(line: line)
        #expect(throws: FirmwareDeviceError.refused(kind: "unknown-feedback", message: "impact-huge; 'feedbacks' lists them")) {
            try device.playAndWait(.impact(.heavy))
        }
    }

    @Test func aLostLinkDuringPlaybackIsAnError() {
        let line = ScriptedFirmwareLine { _ in ["ok play vibration-default 1000", "error link-lost no byte from the host for 300 ms: vibration-default stopped"] }
        let device = FirmwareDevice(line: line)
        do {
            try device.playAndWait(.vibration(.default))
            Issue.record("a lost link was taken for a played feedback")
        } catch {
            guard case .refused(kind: "link-lost", _) = error else {
                Issue.record("wrong error: \(error)")
                return
            }
            #expect(error.description.contains("watchdog"))
        }
    }

    /// An `error playback` or `error link-lost` the firmware sent on its own (about something
    /// that played before) reaches whoever listens for it and is not the answer to the command
    /// that follows: that command's own `ok` is its answer, nothing is left in the buffer, and
    /// the next command gets its own answer too.
    @Test(arguments: ["error playback rom: I2C write to 0x5A failed", "error link-lost no byte from the host for 300 ms: pattern stopped"])
    func anUnsolicitedErrorIsNotTheNextCommandsRefusal(_ report: String) throws {
        let line = ScriptedFirmwareLine { command in
            switch command {
            case "play impact-light": return [report, "ok play impact-light 20"]
            case "status": return ["ok status board=pico chip=DRV2605L power=standby playing=-"]
            default: return ["error unknown-command \(command)"]
            }
        }
        let device = FirmwareDevice(line: line)
        nonisolated(unsafe) var heard: [String] = []
        device.unsolicited = { heard.append($0) }
        #expect(try device.start(.impact(.light)) == .milliseconds(20))
        #expect(heard == [report])
        #expect(line.inbound.isEmpty, "an answer was left in the buffer")
        #expect(try device.status().power == "standby")
        #expect(line.written == ["play impact-light", "status"])
    }

    @Test func silenceIsNoAnswerWithinTheTimeout() {
        let line = ScriptedFirmwareLine { _ in [] }
        let device = FirmwareDevice(line: line)
        device.answerTimeout = .milliseconds(50)
        #expect(throws: FirmwareDeviceError.noAnswer(port: "scripted", waitingFor: "stop")) { try device.stop() }
    }

    /// Noise between the firmware's frames is skipped: the answer is still found.
    @Test func noiseBetweenFramesIsSkipped() throws {
        let line = ScriptedFirmwareLine { command in command == "play success" ? ["ok play success 190", "done success"] : [] }
        line.damage = { bytes in bytes = Array("\0\u{7F}garbage\r\n*12:".utf8) + bytes + Array("~~\n".utf8) }
        let device = FirmwareDevice(line: line)
        #expect(try device.playAndWait(.notification(.success)) == .milliseconds(190))
    }

    /// An answer damaged on the way (one bit of its payload flipped: "ok play" could have become
    /// anything) is never taken for the answer, and the command is not sent again.
    @Test func aDamagedAnswerFailsTheRequestOnce() {
        let line = ScriptedFirmwareLine { command in command == "play success" ? ["ok play success 190"] : [] }
        line.damage = { bytes in bytes[9] ^= 0x04 }
        let device = FirmwareDevice(line: line)
        do {
            _ = try device.start(.notification(.success))
            Issue.record("a damaged answer was taken")
        } catch {
            guard case .garbled = error else {
                Issue.record("wrong error: \(error)")
                return
            }
            #expect(error.description.contains("noise on the line"))
        }
        #expect(line.written == ["play success"])
    }

    /// A command the firmware received damaged is answered `error bad-frame` (ID 0) and not
    /// acted on; the request fails at once with that, not after the answer's timeout.
    @Test func aCommandDamagedOnTheWayFailsAtOnce() {
        let line = ScriptedFirmwareLine { _ in ["ok play success 190"] }
        line.damageOutgoing = { bytes in bytes[8] ^= 0x01 }
        let device = FirmwareDevice(line: line)
        device.answerTimeout = .seconds(30)
        let started = ContinuousClock.now
        do {
            _ = try device.start(.notification(.success))
            Issue.record("a command the firmware refused was taken as played")
        } catch {
            guard case let .garbled(_, detail) = error else {
                Issue.record("wrong error: \(error)")
                return
            }
            #expect(detail.contains("received a damaged frame (checksum: not acted on)"))
        }
        #expect(line.written.isEmpty, "the firmware acted on a damaged command")
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    /// A late answer to an earlier request (its ID) is not the answer to this one, though its
    /// text would match: the request waits for its own.
    @Test func aLateAnswerIsNotTakenForTheNextRequests() throws {
        // This firmware answers nothing itself: the answers are placed on the line below.
        let line = ScriptedFirmwareLine { _ in [] }
        let device = FirmwareDevice(line: line)
        device.answerTimeout = .milliseconds(30)
        #expect(throws: FirmwareDeviceError.noAnswer(port: "scripted", waitingFor: "play success")) { try device.start(.notification(.success)) }
        // The first request's answer arrives late, then the second's.
        line.inbound += SerialFrame.encode(id: 1, payload: Array("ok play success 190".utf8))
        line.inbound += SerialFrame.encode(id: 2, payload: Array("ok play success 250".utf8))
        device.answerTimeout = .seconds(2)
        #expect(try device.start(.notification(.success)) == .milliseconds(250))
    }

    @Test func patternLevelsAreSentAsClampedPercents() throws {
        let line = ScriptedFirmwareLine { command in command.hasPrefix("pattern") ? ["ok pattern 4 20", "done pattern"] : [] }
        let device = FirmwareDevice(line: line)
        try device.playPattern(levels: [0.5, 1.2, -0.25, .nan], tick: .milliseconds(5))
        #expect(line.written == ["pattern 5 50 100 -25 0"])
    }
}

@Suite struct FirmwarePatternUploadTests {
    /// A pattern with each kind of element, an audio event and an element the renderer would drop.
    let pattern = HapticPattern(
        events: [
            .init(type: .hapticTransient, time: 0.18, intensity: 0.6, sharpness: 0.2),
            .init(type: .hapticContinuous, time: 0.3, duration: 1.1, intensity: 0.35, attackTime: 0.8, releaseTime: 0.7),
            .init(type: .hapticContinuous, time: 0.5, duration: 0.25, intensity: 1.4, sharpness: 0.5, decayTime: 0.125, sustained: false, followsIntensityControl: false),
            .init(type: .audioCustom, time: 0.2, waveformPath: "click.wav"),
            .init(type: .hapticTransient, time: .nan, intensity: 1)
        ],
        parameters: [.init(id: .hapticIntensityControl, time: 0.5, value: 0.5)],
        curves: [.init(id: .hapticSharpnessControl, time: 0.1, points: [.init(time: 0, value: -0.25), .init(time: 0.4, value: 0.75)])])

    @Test func aPatternGoesUpInMicrosecondsAndMillionthsAndPlaysOnTheFirmwaresTimer() throws {
        let line = ScriptedFirmwareLine { command in
            switch command {
            case "upload end": return ["ok upload end 306 1530 0"]
            case "start": return ["ok start 1530", "done pattern"]
            default: return command.hasPrefix("upload ") ? ["ok " + command.split(separator: " ").prefix(2).joined(separator: " ")] : ["error unknown-command"]
            }
        }
        let rendered = try FirmwareDevice(line: line).playPattern(pattern)
        #expect(rendered == FirmwareDevice.Rendering(levels: 306, clicks: 0, length: .milliseconds(1530)))
        #expect(
            line.written == [
                "upload begin",
                "upload transient 180000 600000 200000 1",
                "upload continuous 300000 1100000 350000 500000 800000 0 700000 1 1",
                // Intensity clamped to 1, as the renderer clamps it; not sustained, not scaled.
                "upload continuous 500000 250000 1000000 500000 0 125000 0 0 0",
                "upload parameter HapticIntensityControl 500000 500000",
                "upload curve HapticSharpnessControl 100000",
                "upload point 0 -250000",
                "upload point 400000 750000",
                "upload end",
                "start"
            ])
        // Each value the firmware parses back is the Double this side had.
        #expect(Double(180_000) / 1_000_000 == 0.18 && Double(350_000) / 1_000_000 == 0.35 && Double(1_100_000) / 1_000_000 == 1.1)
    }

    /// The time controls and sharpness control take -1...1 (a negative attack control shortens
    /// every attack): negative values go up as negative millionths, out-of-range ones clamped to
    /// -1 and 1 as the renderer clamps them, never to 0.
    @Test func negativeParameterValuesGoUpNegative() {
        let controls = HapticPattern(
            events: [.init(type: .hapticContinuous, time: 0, duration: 1, intensity: 1, attackTime: 0.5)],
            parameters: [
                .init(id: .hapticAttackTimeControl, time: 0, value: -0.2), .init(id: .hapticDecayTimeControl, time: 0.1, value: -1.5),
                .init(id: .hapticReleaseTimeControl, time: 0.2, value: -1), .init(id: .hapticSharpnessControl, time: 0.3, value: 1.25)
            ])
        #expect(
            FirmwareDevice.uploadCommands(controls).filter { $0.hasPrefix("upload parameter") } == [
                "upload parameter HapticAttackTimeControl 0 -200000",
                "upload parameter HapticDecayTimeControl 100000 -1000000",
                "upload parameter HapticReleaseTimeControl 200000 -1000000",
                "upload parameter HapticSharpnessControl 300000 1000000"
            ])
    }

    @Test func aPatternTheFirmwareCannotRenderIsNotStarted() {
        let line = ScriptedFirmwareLine { command in
            command == "upload end"
                ? ["error too-long the pattern (1 events, up to 4004 steps of 5 ms) needs about 128128 bytes of heap to render and this board has 17000: shorten it"]
                : command.hasPrefix("upload ") ? ["ok upload"] : ["ok start 10", "done pattern"]
        }
        #expect(
            throws: FirmwareDeviceError.refused(
                kind: "too-long", message: "the pattern (1 events, up to 4004 steps of 5 ms) needs about 128128 bytes of heap to render and this board has 17000: shorten it")
        ) {
            try FirmwareDevice(line: line).playPattern(pattern)
        }
        #expect(!line.written.contains("start"))
    }
}

@Suite struct FirmwareFeedbackTargetTests {
    @Test func generatorsPlayOnTheFirmwareAndSeeItsRefusals() {
        let line = ScriptedFirmwareLine { command in
            switch command {
            case "play selection": return ["ok play selection 30"]
            case "play impact-heavy": return ["error chip impact-heavy: I2C write to 0x5A failed"]
            default: return ["error unknown-command \(command)"]
            }
        }
        let device = FirmwareDevice(line: line)
        #expect(device.play(Feedback.selection) == .played)
        guard case let .dropped(.firmware(text)) = device.play(Feedback.impact(.heavy)) else {
            Issue.record("a refused feedback was taken for played")
            return
        }
        #expect(text.contains("refused (chip)"))
        // Not played at a strength it was not asked for; nothing was sent.
        guard case .dropped(.firmware) = device.play(Feedback.impact(.light, intensity: 0.4)) else {
            Issue.record("a scaled feedback was played at full strength")
            return
        }
        #expect(line.written == ["play selection", "play impact-heavy"])
    }
}

@Suite struct FirmwareSequenceTests {
    @Test func notesGoUpAsTheFirmwaresLinesAndTheEndIsAwaitedWithPings() throws {
        let notes = try SequenceNote.parse("success, wait 0.25, impact-heavy, effect 47, until-finished, wait 0.000001, selection") { _ in
            throw SequenceParseError(note: 0, text: "", message: "no patterns here")
        }
        var pings = 0
        let line = ScriptedFirmwareLine { command in
            switch command {
            case "notes end": return ["ok notes end 4 812"]
            case "start": return ["ok start 812"]
            case "ping":
                pings += 1
                // The end comes after the host has kept the link alive twice.
                return pings == 2 ? ["ok ping", "done sequence"] : ["ok ping"]
            default: return command.hasPrefix("notes ") ? ["ok " + command.split(separator: " ").prefix(2).joined(separator: " ")] : ["error unknown-command"]
            }
        }
        let device = FirmwareDevice(line: line)
        device.keepAlive = .milliseconds(10)
        let placed = try device.playSequence(notes)
        #expect(placed.notes == 4 && placed.length == .milliseconds(812))
        #expect(
            line.written == [
                "notes begin", "notes feedback success", "notes wait 250000", "notes feedback impact-heavy", "notes effect 47", "notes until-finished",
                "notes wait 1", "notes feedback selection", "notes end", "start", "ping", "ping"
            ])
    }

    @Test func whatTheBoardDoesNotPlayIsRefusedBeforeAnythingIsSent() throws {
        let pattern = HapticPattern(events: [.init(type: .hapticTransient, time: 0, intensity: 1, sharpness: 0.5)])
        let line = ScriptedFirmwareLine { _ in ["ok"] }
        let device = FirmwareDevice(line: line)
        #expect(throws: FirmwareDeviceError.refused(kind: "bad-argument", message: FirmwareSequenceError.notOnTheBoard(note: 2, kind: "pattern").description)) {
            try device.playSequence([.feedback(.notification(.success)), .pattern(pattern)])
        }
        #expect(throws: FirmwareSequenceError.fullIntensityOnly(note: 1, feedback: "impact-heavy")) {
            try FirmwareDevice.noteCommands([.feedback(.impact(.heavy, intensity: 0.4))])
        }
        #expect(FirmwareSequenceError.notOnTheBoard(note: 2, kind: "sound").description.contains("hapticd"))
        #expect(line.written.isEmpty)
    }
}

/// The timing rules `SequencePlayer` and the firmware share.
@Suite struct SequenceScheduleTests {
    @Test func waitsAddUpAndUntilFinishedWaitsForEverythingBefore() {
        let schedule = SequenceSchedule<String>([
            .note("a", seconds: 0.3), .note("b", seconds: 0.1), .wait(0.05), .note("c", seconds: 0.02), .untilFinished, .note("d", seconds: 0.2),
            .wait(-1), .wait(.nan), .note("e", seconds: .nan), .wait(0.5)
        ])
        #expect(schedule.entries.map(\.note) == ["a", "b", "c", "d", "e"])
        // b starts with a; c after the wait; d once a (the longest) has ended, not c.
        #expect(schedule.entries.map(\.offset) == [0, 0, 0.05, 0.3, 0.3])
        #expect(schedule.entries.map(\.seconds) == [0.3, 0.1, 0.02, 0.2, 0])
        // A trailing wait places nothing: the length is the last end.
        #expect(schedule.seconds == 0.5)
    }

    /// Each wait moves the clock on from where the one before left it (Piano's `wait`): the second
    /// and third waits count as fully as the first, with notes between them or not.
    @Test func everyWaitIsAddedToTheClock() {
        let schedule = SequenceSchedule<String>([
            .note("a", seconds: 0.0625), .wait(0.125), .note("b", seconds: 0.0625), .wait(0.25), .note("c", seconds: 0.0625),
            .wait(0.125), .wait(0.125), .note("d", seconds: 0.0625)
        ])
        #expect(schedule.entries.map(\.offset) == [0, 0.125, 0.375, 0.625])
        #expect(schedule.seconds == 0.6875)
    }
}
