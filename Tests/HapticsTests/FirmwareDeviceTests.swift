// SPDX-License-Identifier: Apache-2.0

import HardwareAccess
import Testing

@testable import Haptics

/// A serial line with a scripted firmware at the other end: each command line written gets the
/// answers `respond` gives, read back in chunks as a UART delivers them.
final class ScriptedFirmwareLine: SerialLine {
    let name = "scripted"
    var written: [String] = []
    var inbound: [UInt8] = []
    let respond: (String) -> [String]
    init(respond: @escaping (String) -> [String]) { self.respond = respond }

    func write(_ bytes: [UInt8]) throws(SerialError) {
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            written.append(String(line))
            for answer in respond(String(line)) { inbound += Array((answer + "\r\n").utf8) }
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

    @Test func silenceIsNoAnswerWithinTheTimeout() {
        let line = ScriptedFirmwareLine { _ in [] }
        let device = FirmwareDevice(line: line)
        device.answerTimeout = .milliseconds(50)
        #expect(throws: FirmwareDeviceError.noAnswer(port: "scripted", waitingFor: "stop")) { try device.stop() }
    }

    @Test func patternLevelsAreSentAsClampedPercents() throws {
        let line = ScriptedFirmwareLine { command in command.hasPrefix("pattern") ? ["ok pattern 4 20", "done pattern"] : [] }
        let device = FirmwareDevice(line: line)
        try device.playPattern(levels: [0.5, 1.2, -0.25, .nan], tick: .milliseconds(5))
        #expect(line.written == ["pattern 5 50 100 -25 0"])
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
