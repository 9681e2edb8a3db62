// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Audio
import DRV2605
import Foundation
import HapticChip
import HapticEffects
import Haptics
import HapticsService
import HardwareAccess

struct Probe: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Find the chip and say what it is.")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try CLIError.reporting {
            let session = try DeviceSession(global, verb: "probe", needsTheChipBecause: "it reads the chip's registers directly", drives: false)
            let capabilities = session.engine.capabilities
            if global.json {
                session.printJSON([
                    "part": capabilities.chip, "actuator": capabilities.actuator.description,
                    "library": capabilities.library?.description ?? "none", "loop": capabilities.loop.rawValue
                ])
            } else {
                print(
                    "found \(capabilities.chip) (\(session.origin)); configured for an \(capabilities.actuator), \(capabilities.library?.description ?? "no effect library"), \(capabilities.loop) loop"
                )
            }
        }
    }
}

struct EffectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "effect", abstract: "Play a ROM effect (1-123) by number or name.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Effect number (1-123) or a unique part of its name, e.g. 47 or \"sharp tick 1\".")
    var effect: String
    @OptionGroup var service: ServiceOptions

    func run() throws {
        try CLIError.reporting {
            guard let found = Effect.lookup(effect) else {
                throw CLIError("no ROM effect '\(effect)': give a number 1-123 or a unique part of a name (see 'haptic effects')", exitCode: CLIError.dataError)
            }
            if let socket = global.serviceSocket {
                var request = ServiceRequest(.play)
                request.effect = Int(found.rawValue)
                service.apply(to: &request)
                try ServiceCall.run(
                    global, socket: socket, label: "effect \(found.rawValue)", request: request,
                    extra: ["effect": Int(found.rawValue), "name": found.name])
                return
            }
            let session = try DeviceSession(global, verb: "effect")
            session.announce()
            // What reaches the chip: the effect, or under the policy's intensity scale a weaker
            // variant or its stream (as `engine.play(plan:)` plays it).
            let designed = FeedbackPlan.rom(WaveformSequence(found))
            var played = designed.scaled(by: session.engine.policy.intensityScale)
            if !session.engine.hasEffectLibrary { played = played.streamed }
            let plan = describe(played, designed: designed, on: session.engine)
            if !global.json {
                print("effect \(found.rawValue): \(found.name) (about \(found.estimatedDuration))" + (played == designed ? "" : "; played as \(plan)"))
            }
            let before = session.engine.statistics.bus
            let start = session.clock.now
            let outcome = session.engine.play(plan: .rom(WaveformSequence(found)), label: "effect \(found.rawValue)")
            let trigger = session.engine.statistics.lastTrigger
            session.finish()
            let state = try session.finalState()
            if global.json {
                session.printJSON([
                    "effect": Int(found.rawValue), "name": found.name, "plan": plan,
                    "trigger": ["transactions": trigger.transactions, "bytes": trigger.wireBytes],
                    "playedSeconds": session.clock.now.duration(since: start).secondsDouble,
                    "final": state, "awakeSeconds": session.engine.statistics.awakeSeconds,
                    "outcome": outcome.description
                ])
            } else {
                let used = session.engine.statistics.bus - before
                print(
                    "done: \(used.transactions) bus transactions, \(used.wireBytes) bytes; \(DeviceSession.describe(final: state))"
                )
            }
            try CLIError.requirePlayed(outcome, "effect \(found.rawValue)")
        }
    }
}

struct Effects: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the ROM effects with TI's names and estimated lengths.")
    @Flag(help: "JSON instead of a table.") var json = false

    func run() {
        if json {
            let list = Effect.all.map { ["id": Int($0.rawValue), "name": $0.name, "estimatedMilliseconds": Int($0.estimatedDuration.secondsDouble * 1000)] as [String: Any] }
            if let data = try? JSONSerialization.data(withJSONObject: list, options: [.prettyPrinted]), let text = String(data: data, encoding: .utf8) { print(text) }
            return
        }
        print("  #  name (lengths are estimates: TI publishes none)")
        for effect in Effect.all {
            print(String(format: "%3d  %@  ~%d ms", Int(effect.rawValue), effect.name, Int(effect.estimatedDuration.secondsDouble * 1000)))
        }
    }
}

struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print registers 0x00-0x22, laid out like i2cdump.")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try CLIError.reporting {
            let session = try DeviceSession(global, verb: "dump", needsTheChipBecause: "it reads every register directly", drives: false)
            let file = try session.engine.withDriver { try $0.dumpRegisters() }
            if global.json {
                var registers: [String: Int] = [:]
                for register in Register.allCases { registers[register.description] = Int(file[register]) }
                session.printJSON(["registers": registers])
                return
            }
            session.announce()
            print("     " + (0..<16).map { String(format: "%2x", $0) }.joined(separator: " "))
            let bytes = file.bytes
            for row in stride(from: 0, to: bytes.count, by: 16) {
                let values = (row..<min(row + 16, bytes.count)).map { String(format: "%02x", bytes[$0]) }
                print(String(format: "%02x: ", row) + values.joined(separator: " "))
            }
            for register in Register.allCases {
                print(
                    String(format: "  0x%02X ", Int(register.rawValue)) + register.description.padding(toLength: 16, withPad: " ", startingAt: 0)
                        + String(format: " 0x%02X", file[register]))
            }
        }
    }
}

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Play a feedback: impact-light|medium|heavy|soft|rigid, selection, success, warning, error, alignment, path-complete, increase, decrease, start, stop, level-change, vibration-default|alert, taptic-peek|pop|cancelled|try-again|failed."
    )
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The feedback's name (see the abstract).") var feedback: String
    @Option(help: "Intensity 0...1 (impacts).") var intensity: Double = 1
    @Flag(help: "Prepare first and trigger after a short lead time, as an app that calls prepare() would.") var prepared = false
    @Flag(help: "Play on every chip of the board file, in step.") var all = false
    @Flag(help: "With the feedback's sound from the freedesktop sound theme (success: complete, warning: dialog-warning ...), in step.") var sound = false
    @OptionGroup var audio: AudioOptions
    @OptionGroup var service: ServiceOptions
    @Option(
        help: ArgumentHelp(
            "With --socket and a feedbackd event: repeat it for this many seconds, 0 until Ctrl-C (feedbackd's timeout).",
            valueName: "seconds"))
    var repeatFor: Int?

    func run() throws {
        try CLIError.reporting {
            guard intensity.isFinite, (0...1).contains(intensity) else {
                throw CLIError("--intensity must be between 0 and 1, not \(intensity)", exitCode: CLIError.usage)
            }
            if let repeatFor {
                guard let socket = global.serviceSocket, Feedback(name: feedback) == nil else {
                    throw CLIError("--repeat-for needs --socket and an event name (e.g. phone-incoming-call), not a feedback's", exitCode: CLIError.usage)
                }
                guard repeatFor >= 0 else { throw CLIError("--repeat-for is 0 (until Ctrl-C) or seconds, not \(repeatFor)", exitCode: CLIError.usage) }
                try ServiceCall.trigger(global, socket: socket, event: feedback, timeout: repeatFor, service: service)
                return
            }
            if let socket = global.serviceSocket {
                // Through hapticd: a feedback by name, or an event name (feedbackd's, or the daemon's
                // theme's own), which the daemon resolves.
                var request = ServiceRequest(.play)
                if Feedback(name: feedback) != nil {
                    request.feedback = feedback
                    request.intensity = intensity
                } else {
                    request.event = feedback
                }
                service.apply(to: &request)
                try ServiceCall.run(
                    global, socket: socket, label: feedback, request: request,
                    extra: ["feedback": feedback, "intensity": intensity])
                return
            }
            guard let value = Feedback(name: feedback, intensity: intensity) else {
                throw CLIError("no feedback named '\(feedback)'; known: " + FeedbackKind.all.map(\.name).joined(separator: ", "), exitCode: CLIError.dataError)
            }
            if let port = global.serialDevice {
                guard intensity == 1, !sound, !prepared, !all else {
                    throw CLIError("--device serial: plays a feedback at full intensity, without --sound, --prepared or --all", exitCode: CLIError.usage)
                }
                try FirmwareCall.play(global, port: port, feedback: value)
                return
            }
            let session = try DeviceSession(global, verb: "play", allDrivers: all)
            session.announce()
            var feedbackSounds: FeedbackSounds?
            if sound {
                guard let name = value.kind.themeSound else {
                    session.finish()
                    throw CLIError(
                        "\(value.kind.name) has no themed sound (those with one: \(FeedbackKind.all.filter { $0.themeSound != nil }.map(\.name).joined(separator: ", ")))",
                        exitCode: CLIError.usage)
                }
                let theme = SoundTheme()
                guard theme.lookup(name) != nil else {
                    session.finish()
                    throw CLIError.from(AudioError.soundNotFound(name))
                }
                feedbackSounds = FeedbackSounds(engine: try audio.open(for: session, what: "--sound"), theme: theme)
            }
            if prepared {
                session.engine.prepare(value)
                session.clock.sleep(for: .milliseconds(50))
            }
            // The sound placed ahead, the haptic triggered when the sound is heard.
            feedbackSounds?.waitForSound(of: value, preparing: session.engine)
            let start = session.clock.now
            if !global.json { print("\(value.kind.name): \(value.kind.meaning)") }
            var skew: Duration?
            var outcome = FeedbackOutcome.played
            let faultsBefore = session.engines.map(\.engine.statistics.faults)
            if all {
                let droppedBefore = session.engines.map(\.engine.statistics.dropped)
                skew = session.group.play(value)
                let droppedOn = zip(session.engines, droppedBefore).filter { $0.0.engine.statistics.dropped > $0.1 }.count
                if droppedOn > 0 {
                    outcome = .dropped(.fault("dropped on \(droppedOn) of \(session.engines.count) chips (see the log above)"))
                }
            } else {
                outcome = session.engine.play(value)
            }
            // One write through the switch started every chip: that is the trigger.
            let trigger = (all ? session.group.lastBroadcastTrigger : nil) ?? session.engine.statistics.lastTrigger
            // A feedback that was not played is not heard either.
            if case .dropped = outcome { feedbackSounds?.engine.stopAll() }
            let audioReport = try finishSounds(feedbackSounds?.engine)
            session.finish()
            try session.writeAccelerationCSV(from: start)
            // A chip that stopped during the feedback (a supply sag, a short) did not play it.
            if case .played = outcome,
                let fault = zip(session.engines, faultsBefore).first(where: { $0.0.engine.statistics.faults > $0.1 })?.0.engine.statistics.lastFault
            {
                outcome = .dropped(.fault("the chip stopped while it played: \(fault)"))
            }
            let stats = session.engine.statistics
            if global.json {
                session.printJSON(
                    [
                        "feedback": value.kind.name, "intensity": value.intensity,
                        "plan": planDescription(value, on: session.engine),
                        "trigger": ["transactions": trigger.transactions, "bytes": trigger.wireBytes],
                        "awakeSeconds": stats.awakeSeconds, "dropped": stats.dropped, "outcome": outcome.description,
                        "playedSeconds": session.clock.now.duration(since: start).secondsDouble,
                        "groupSkewSeconds": skew.map { $0.secondsDouble as Any } ?? NSNull(),
                        "final": try session.finalState()
                    ].merging(audioReport.map { ["audio": $0.json] } ?? [:]) { a, _ in a })
            } else {
                if let audioReport { print(audioReport.line) }
                if let skew, session.engines.count > 1 {
                    print(String(format: "played on %d chips, %.1f µs between the first and last trigger", session.engines.count, skew.secondsDouble * 1e6))
                }
                print("trigger: \(trigger.transactions) transaction(s), \(trigger.wireBytes) bytes; chip awake \(String(format: "%.1f", stats.awakeSeconds * 1000)) ms")
            }
            try CLIError.requirePlayed(outcome, value.kind.name)
        }
    }
}

/// The plan `--json` reports: what is written to the chip, and, where that is not the mapping's
/// plan, the mapping's and why (the policy's intensity scale, a chip without a ROM library).
func planDescription(_ feedback: Feedback, on engine: HapticEngine) -> String {
    guard let designed = engine.mapping.plan(for: feedback), let played = engine.plan(for: feedback) else { return "" }
    return describe(played, designed: designed, on: engine)
}

/// `played`, and where it is not `designed`, the design and why it changed.
func describe(_ played: FeedbackPlan, designed: FeedbackPlan, on engine: HapticEngine) -> String {
    guard played != designed else { return designed.description }
    var reasons: [String] = []
    let scale = engine.policy.intensityScale
    if scale < 0.999 { reasons.append(String(format: "the policy's intensityScale %.2f", scale)) }
    if case .rom = designed, !engine.hasEffectLibrary { reasons.append("the \(engine.capabilities.chip) has no ROM effect library") }
    let how = played.isRealTime ? "as a real-time stream" : "as a weaker ROM effect"
    return "\(played) (\(designed) \(how): \(reasons.joined(separator: "; ")))"
}

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "A tour of every feedback kind, with a line on what each means.")
    @OptionGroup var global: GlobalOptions
    @Option(help: "Pause between feedbacks, in seconds.") var pause: Double = 0.6

    func run() throws {
        try CLIError.reporting {
            let session = try DeviceSession(global, verb: "demo", needsTheChipBecause: "the demo tours the chip's power states, which hapticd manages")
            session.announce()
            var results: [[String: Any]] = []
            var notPlayed: [(name: String, reason: DropReason)] = []
            for kind in FeedbackKind.all {
                let feedback = Feedback(kind: kind)
                session.engine.prepare(feedback)
                session.clock.sleep(for: .milliseconds(20))
                let before = session.engine.statistics.bus
                if !global.json { print(String(format: "%-17@ %@", kind.name, kind.meaning)) }
                let outcome = session.engine.play(feedback)
                if case let .dropped(reason) = outcome { notPlayed.append((kind.name, reason)) }
                let trigger = session.engine.statistics.lastTrigger
                session.engine.waitUntilIdle()
                results.append([
                    "feedback": kind.name, "triggerTransactions": trigger.transactions,
                    "transactions": (session.engine.statistics.bus - before).transactions,
                    "outcome": outcome.description
                ])
                session.clock.sleep(for: .secondsClamped(pause))
                session.engine.runDueWork()
            }
            session.finish()
            let stats = session.engine.statistics
            // What the chip says now, not what the tour assumes.
            let final = try session.finalState()
            if global.json {
                session.printJSON(["feedbacks": results, "awakeSeconds": stats.awakeSeconds, "final": final])
            } else {
                let stopped = final["driving"] as? Bool == false ? "actuator stopped" : "actuator STILL DRIVEN"
                let standby = final["standby"] as? Bool == true ? "chip in standby" : "chip NOT in standby"
                print(
                    "tour done: \(results.count - notPlayed.count) of \(results.count) feedbacks played, \(stats.bus.transactions) bus transactions, chip awake \(String(format: "%.2f", stats.awakeSeconds)) s; read back: \(stopped), \(standby)"
                )
            }
            if let first = notPlayed.first {
                let code = CLIError(notPlayed: first.name, first.reason).exitCode
                throw CLIError("\(notPlayed.count) of \(results.count) feedbacks were not played (the first, \(first.name): \(first.reason))", exitCode: code)
            }
        }
    }
}

/// `haptic stop`: the actuator stopped and the chip in standby, whatever it was last told — for
/// when the program that drove it is gone (hapticd's unit runs it after the daemon, killed or not).
struct StopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "Stop the actuator and put the chip in standby, whatever it was doing; read back, exit 1 if it still drives.",
        discussion:
            "With --socket (or $HAPTICD_SOCKET), asks hapticd to stop whatever it plays, for every client. Otherwise opens the chip itself: run it so when nothing else drives the chip, as hapticd's unit does after the daemon stops."
    )
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try CLIError.reporting {
            if let socket = global.serviceSocket {
                var request = ServiceRequest(.stop)
                request.scope = .global
                do {
                    try ServiceCall.run(global, socket: socket, label: "stop", request: request)
                } catch let error as CLIError where error.exitCode == CLIError.unavailable {
                    // hapticd gone (crashed, killed): the chip may still drive, and this is the
                    // command a user reaches for. Say how to stop it directly.
                    throw CLIError(
                        "\(error.message). If hapticd is not running, stop the chip directly: haptic stop --board BOARD (without --socket, or with HAPTICD_SOCKET unset)",
                        exitCode: error.exitCode)
                }
                return
            }
            if let port = global.serialDevice {
                try FirmwareCall.stop(global, port: port)
                return
            }
            // Opening starts the chip afresh (a DRV2605 is reset), which stops any drive; then the
            // explicit stop and standby, and the read-back that says whether it worked.
            let session = try DeviceSession(global, verb: "stop", drives: false)
            session.engine.stop()
            session.finish()
            let final = try session.finalState()
            if global.json {
                session.printJSON(["final": final])
            } else {
                session.announce()
                print(DeviceSession.describe(final: final))
            }
            guard final["driving"] as? Bool == false, final["standby"] as? Bool == true else {
                throw CLIError("the chip still drives after the stop: \(DeviceSession.describe(final: final)); cut its power (EN or supply)", exitCode: CLIError.runtime)
            }
        }
    }
}
