// SPDX-License-Identifier: Apache-2.0

import Board
import DRV2605
import HapticEffects
import HapticChip
import HapticFeedback
import HardwareAccess

/// The serial protocol: one command a frame, one answer a frame (`SerialFrame`: `#ID:LEN:PAYLOAD*CRC`,
/// the answer with its command's ID; docs/firmware.md lists the commands). The payloads:
///
///     play NAME          ok play NAME MS       then, when it ends: done NAME
///     prepare NAME       ok prepare NAME
///     stop               ok stop
///     status             ok status board=B chip=P actuator=erm|lra loop=L power=S playing=NAME|- heap=BYTES
///     feedbacks          ok feedbacks NAME...
///     pattern TICK L...  ok pattern N MS       then: done pattern (levels in percent, -100...100)
///     upload ...         ok upload ...         a pattern's elements, rendered here (`PatternUpload`)
///     notes ...          ok notes ...          a sequence's notes and waits, placed here (`NoteUpload`)
///     start              ok start MS           then: done pattern or done sequence (what was uploaded last)
///     actuator TYPE ...  ok actuator TYPE ...  the actuator wired to the chip (`setActuator`)
///     watchdog MS        ok watchdog MS        (0: off)
///     ping               ok ping
///
/// and, for a host whose engine drives the chip through the firmware (hapticd --device serial:):
///
///     rom BYTE...        ok rom MS             then: done rom (the sequence's slot bytes, decimal)
///     arm BYTE...        ok arm                (loaded and awake: the next `rom` of it is a GO)
///     level N            ok level N            (held until the next; millionths, -1000000...1000000)
///     level end          ok level end
///     wake               ok wake
///     standby            ok standby
///
/// and, on the QEMU test image only, `trap`: an undefined instruction, whose fault handler stops
/// the actuator (`board_fault_stop`), says `error fault ...` and ends the image.
///
/// A refusal is `error KIND text`, KIND one of unknown-command, unknown-feedback, bad-argument,
/// too-long, chip. A frame refused (its CRC, length or shape wrong, cut short, too long) is never acted on:
/// `error bad-frame WORD` goes out with ID 0, since its ID cannot be trusted either. The firmware
/// also says on its own (ID 0) when what played ended badly: `error
/// playback NAME: text` (the chip failed during it) or `error link-lost text`. Nothing that
/// plays outlives the link: when something plays and no byte has arrived for the watchdog's
/// time, the actuator is stopped and `error link-lost` sent.
final class CommandInterpreter {
    let player: FeedbackPlayer
    let clock: BoardClock
    var port = SerialPort()
    let upload = PatternUpload()
    let notes = NoteUpload()
    /// What `start` plays: the pattern or the sequence whose upload ended last.
    private var startsSequence = false
    /// How long a playback may go on without a byte from the host.
    var watchdogMilliseconds: Int64 = 2000
    private var lastHeard: ClockInstant
    /// The chip's configuration as last asked for, before calibration (`actuator`; at first
    /// the start-up's).
    var requestedConfiguration: DRV2605Configuration

    init(player: FeedbackPlayer, clock: BoardClock) {
        self.player = player
        self.clock = clock
        lastHeard = clock.now
        requestedConfiguration = player.driver.configuration
    }

    /// The commands, by their first word (matched byte for byte, not with `init(rawValue:)`,
    /// whose string comparison would bring the Unicode tables in).
    enum Verb: String, CaseIterable {
        case play, prepare, stop, status, feedbacks, pattern, upload, notes, start, actuator, watchdog, ping, rom, arm, level, wake, standby, trap
    }

    /// Reads and answers commands, and steps playback, forever.
    func run() -> Never {
        while true {
            board_watchdog_feed()
            let input = port.poll(nanoseconds: clock.timer.nanoseconds)
            if port.heardFrom { lastHeard = clock.now }
            switch input {
            case let .command(id, text):
                port.replyID = id
                answer(text)
                port.replyID = 0
            case let .refused(reason): port.send("error bad-frame ", reason.word, ": not acted on")
            case nil: break
            }
            if let event = player.step() { report(event) }
            if let name = player.playing, watchdogMilliseconds > 0, clock.now.nanoseconds - lastHeard.nanoseconds > watchdogMilliseconds * 1_000_000 {
                player.stopQuietly()
                port.send("error link-lost no byte from the host for ", String(watchdogMilliseconds), " ms: ", name, " stopped")
            }
            // Idle until the next tick unless playback is due within it.
            if input == nil, player.nextDue.map({ $0.nanoseconds - clock.now.nanoseconds > 1_000_000 }) ?? true {
                board_idle()
            }
        }
    }

    func report(_ event: FeedbackPlayer.Event) {
        switch event {
        case let .finished(name): port.send("done ", name)
        case let .failed(name, error): port.send("error playback ", name, ": ", error.description)
        }
    }

    func answer(_ line: String) {
        // Split and compared byte by byte: Character-wise string operations would bring the
        // standard library's Unicode tables into the image.
        var words: [String] = []
        var word: [UInt8] = []
        for byte in line.utf8 {
            if byte != 0x20 {
                word.append(byte)
            } else if !word.isEmpty {
                words.append(String(decoding: word, as: UTF8.self))
                word.removeAll()
            }
        }
        if !word.isEmpty { words.append(String(decoding: word, as: UTF8.self)) }
        guard let verb = words.first else { return }
        let arguments = Array(words.dropFirst())
        do throws(HapticChipError) {
            switch Verb.allCases.first(where: { $0.rawValue.sameBytes(as: verb) }) {
            case .play:
                guard let (name, plan) = feedback(arguments) else { return }
                let length = try player.play(plan, name: name)
                port.send("ok play ", name, " ", String(length.nanoseconds / 1_000_000))
            case .prepare:
                guard let (name, plan) = feedback(arguments) else { return }
                try player.prepare(plan)
                port.send("ok prepare ", name)
            case .stop:
                try player.stop()
                port.send("ok stop")
            case .status:
                let part = player.driver.part.map { $0.description } ?? "none"
                let power = player.driver.power.rawValue
                let name = String(cString: board_name())
                let actuator = player.driver.configuration.actuator == .lra ? "lra" : "erm"
                port.send(
                    "ok status board=", name, " chip=", part, " actuator=", actuator, " loop=", player.driver.configuration.loop.rawValue, " power=", power, " playing=", player.playing ?? "-", " heap=",
                    String(runtime_heap_high_water()))
            case .feedbacks:
                var list = "ok feedbacks"
                for kind in FeedbackKind.all { list += " " + kind.name }
                port.send(list)
            case .pattern:
                guard let (plan, count) = pattern(arguments) else { return }
                let length = try player.play(plan, name: "pattern")
                port.send("ok pattern ", String(count), " ", String(length.nanoseconds / 1_000_000))
            case .upload, .notes:
                do throws(PatternUpload.Refusal) {
                    let isNotes = "notes".sameBytes(as: verb)
                    let answer = isNotes ? try notes.take(arguments, mapping: player.mapping) : try upload.take(arguments)
                    // `start` plays what was begun last, once it has ended.
                    if let what = arguments.first, "begin".sameBytes(as: what) || "end".sameBytes(as: what) { startsSequence = isNotes }
                    port.send("ok ", answer)
                } catch {
                    port.send("error ", error.kind, " ", error.text)
                }
            case .start:
                let length: Duration
                if startsSequence, let schedule = notes.schedule {
                    length = try player.playSequence(schedule)
                } else if !startsSequence, let rendering = upload.rendered {
                    switch rendering {
                    case let .stream(clip): length = try player.play(.realTime(clip), name: "pattern")
                    case let .clicks(schedule): length = try player.playSequence(schedule, name: "pattern", holdsChip: true)
                    }
                } else {
                    port.send("error bad-argument start plays what was uploaded last (upload begin ... upload end, or notes begin ... notes end): there is none")
                    return
                }
                port.send("ok start ", String(length.nanoseconds / 1_000_000))
            case .actuator:
                try setActuator(arguments)
            case .watchdog:
                guard arguments.count == 1, let milliseconds = Int(arguments[0]), (0...60_000).contains(milliseconds) else {
                    port.send("error bad-argument watchdog takes milliseconds, 0...60000")
                    return
                }
                watchdogMilliseconds = Int64(milliseconds)
                port.send("ok watchdog ", String(milliseconds))
            case .ping:
                port.send("ok ping")
            case .rom:
                guard let plan = sequence(arguments) else { return }
                let length = try player.play(plan, name: "rom")
                port.send("ok rom ", String(length.nanoseconds / 1_000_000))
            case .arm:
                guard let plan = sequence(arguments) else { return }
                try player.prepare(plan)
                port.send("ok arm")
            case .level:
                if arguments.count == 1, "end".sameBytes(as: arguments[0]) {
                    if player.playing != nil { try player.stop(standby: false) }
                    port.send("ok level end")
                    return
                }
                // Millionths: far finer than any chip's drive step (a DRV2605's is 1/255), so the
                // chip gets the byte the host's own driver would have written.
                guard arguments.count == 1, let millionths = Int(arguments[0]), (-1_000_000...1_000_000).contains(millionths) else {
                    port.send("error bad-argument level takes millionths, -1000000...1000000, or end")
                    return
                }
                try player.hold(Double(millionths) / 1_000_000)
                port.send("ok level ", arguments[0])
            case .wake:
                try player.wake()
                port.send("ok wake")
            case .standby:
                if player.playing != nil { try player.stop(standby: true) }
                if player.driver.power == .ready { try player.driver.enterStandby() }
                port.send("ok standby")
            case .trap where board_bridges_bus() != 0:
                // The test image only (QEMU, its bus bridged): an undefined instruction, as a bug
                // would hit one, to show the fault handler stopping what plays before it ends.
                board_trap()
            case .trap, nil:
                port.send("error unknown-command ", verb, ": play, prepare, stop, status, feedbacks, pattern, upload, notes, start, actuator, watchdog, ping, rom, arm, level, wake, standby")
            }
        } catch {
            player.stopQuietly()
            port.send("error chip ", error.description)
        }
    }

    /// The named feedback's plan, or nil after sending the refusal.
    private func feedback(_ arguments: [String]) -> (String, FeedbackPlan)? {
        guard arguments.count == 1 else {
            port.send("error bad-argument one feedback name; 'feedbacks' lists them")
            return nil
        }
        guard let feedback = Feedback(name: arguments[0]), let plan = player.mapping.plan(for: feedback) else {
            port.send("error unknown-feedback ", arguments[0], "; 'feedbacks' lists them")
            return nil
        }
        return (feedback.kind.name, plan)
    }

    /// A ROM sequence from its slot bytes (`WaveformSequence.slotBytes`, decimal), or nil after
    /// sending the refusal.
    private func sequence(_ arguments: [String]) -> FeedbackPlan? {
        var bytes: [UInt8] = []
        for word in arguments {
            guard let value = Int(word), (0...255).contains(value) else { break }
            bytes.append(UInt8(value))
        }
        guard bytes.count == arguments.count, bytes.count <= WaveformSequence.slotCount, let sequence = WaveformSequence(slotBytes: bytes) else {
            port.send("error bad-argument a sequence is 1 to 8 slot bytes, decimal: an effect 1...123 or 128 + a wait in 10 ms")
            return nil
        }
        return .rom(sequence)
    }

    /// A real-time clip from `TICK_MS LEVEL...` (percent), or nil after sending the refusal.
    private func pattern(_ arguments: [String]) -> (FeedbackPlan, Int)? {
        guard arguments.count >= 2, let tick = Int(arguments[0]), (1...100).contains(tick) else {
            port.send("error bad-argument pattern TICK_MS LEVEL...: a tick of 1...100 ms, then levels in percent")
            return nil
        }
        var levels: [Double] = []
        for word in arguments.dropFirst() {
            guard let percent = Int(word), (-100...100).contains(percent) else {
                port.send("error bad-argument pattern level '", word, "': a whole percent, -100...100")
                return nil
            }
            levels.append(Double(percent) / 100)
        }
        // The clip ends with the drive at zero, as every real-time clip does.
        if levels.last != 0 { levels.append(0) }
        return (.realTime(RealTimeClip(tick: .milliseconds(tick), levels: levels)), levels.count)
    }
}
