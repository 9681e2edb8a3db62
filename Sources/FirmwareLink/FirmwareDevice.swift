// SPDX-License-Identifier: Apache-2.0

import Foundation
import Haptics
import HardwareAccess

/// A microcontroller running the project's firmware (Firmware/), reached over a serial line:
/// it plays feedbacks and patterns itself, in real time on its own timer, and this side asks by
/// name. The protocol is a frame a command, a frame an answer (`SerialFrame`, docs/firmware.md):
/// `play NAME` is answered `ok play NAME MS` at once, in a frame with the request's ID, and
/// `done NAME` when it ended, in a frame with ID 0 (said unasked). An answer is matched to its
/// request by ID, so a late answer to an earlier request is never taken for this one; a frame
/// damaged on the way, either way, fails the request (`garbled`): it is never retried, since a
/// command the firmware did act on must not play twice.
///
/// It is also a `FeedbackTarget`: an app's generators play on the microcontroller with
/// `FeedbackTargets.service = FirmwareDevice(line: ...)`. Requests are serialised by a lock, so
/// any thread may use it.
public final class FirmwareDevice: @unchecked Sendable {
    /// What the firmware said about itself (`status`).
    public struct Status: Sendable, Equatable {
        /// The board ("pico", "mps2-an385").
        public var board: String
        /// The chip it found ("DRV2605L"), or "none".
        public var chip: String
        /// The chip's power state.
        public var power: String
        /// The feedback playing, if any.
        public var playing: String?
        /// The actuator the firmware's table is for ("erm", "lra"); nil from a firmware that does
        /// not say.
        public var actuator: String? = nil
        /// "closed" or "open"; nil from a firmware that does not say.
        public var loop: String? = nil
    }

    /// How long an answer may take before the device is called unresponsive.
    public var answerTimeout: Duration = .seconds(2)
    /// While this waits for a playback's end, how long a silence it lets pass before it sends
    /// `ping`: well under the firmware's link watchdog (2 s unless told otherwise), so that a
    /// long sequence or pattern is not stopped for a quiet host.
    public var keepAlive: Duration = .milliseconds(500)
    public let line: any SerialLine
    /// Frames (and refusals) decoded from what arrived, not yet taken.
    private var received: [Received] = []
    private var decoder = SerialFrameDecoder()
    /// The last request's ID (1...65535, then 1 again; 0 is the firmware's own).
    private var lastRequestID: UInt16 = 0

    /// What arrived: a frame's ID and payload, or a frame refused on arrival.
    enum Received: Equatable {
        case frame(id: UInt16, text: String)
        case refused(SerialFrameRefusal)
    }

    /// One request at a time on the line.
    private let lock = NSLock()

    /// Called with each payload the firmware sent unasked, ID 0 (a `done` of what played before, an
    /// `error playback` or `error link-lost` the firmware sent on its own), under the request's lock:
    /// how `FirmwareChipDriver` learns that playback ended. It must not call this device.
    var unsolicited: (String) -> Void = { _ in }

    public init(line: any SerialLine) { self.line = line }

    /// Asks for the firmware's status; also the check that it answers at all.
    public func status() throws(FirmwareDeviceError) -> Status {
        let answer = try locked { () throws(FirmwareDeviceError) in try request("status", expecting: "ok status") }
        var fields: [(String, String)] = []
        for word in answer.split(separator: " ").dropFirst(2) {
            let parts = word.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields.append((String(parts[0]), String(parts[1]))) }
        }
        func field(_ name: String) -> String? { fields.first { $0.0 == name }?.1 }
        return Status(
            board: field("board") ?? "?", chip: field("chip") ?? "?", power: field("power") ?? "?", playing: field("playing").flatMap { $0 == "-" ? nil : $0 },
            actuator: field("actuator"), loop: field("loop"))
    }

    /// Plays `feedback` and waits until it ended (and the chip is in standby again); returns
    /// the length the firmware announced.
    @discardableResult
    public func playAndWait(_ feedback: FeedbackKind) throws(FirmwareDeviceError) -> Duration {
        try locked { () throws(FirmwareDeviceError) in
            let length = try startLocked(feedback)
            try awaitDone(feedback.name, within: length * 3 + .seconds(1))
            return length
        }
    }

    /// Starts `feedback` and returns once the firmware took it (its `done` line is skipped by
    /// the next request): what a generator's `impactOccurred()` waits for.
    @discardableResult
    public func start(_ feedback: FeedbackKind) throws(FirmwareDeviceError) -> Duration {
        try locked { () throws(FirmwareDeviceError) in try startLocked(feedback) }
    }

    private func startLocked(_ feedback: FeedbackKind) throws(FirmwareDeviceError) -> Duration {
        let answer = try request("play \(feedback.name)", expecting: "ok play \(feedback.name)")
        return .milliseconds(Int(answer.split(separator: " ").last ?? "") ?? 0)
    }

    /// Loads `feedback` and wakes the chip, so that playing it next is one GO write.
    public func prepareFeedback(_ feedback: FeedbackKind) throws(FirmwareDeviceError) {
        try locked { () throws(FirmwareDeviceError) in _ = try request("prepare \(feedback.name)", expecting: "ok prepare") }
    }

    /// Runs `body` holding the line: one request and its answer at a time.
    func locked<T>(_ body: () throws(FirmwareDeviceError) -> T) throws(FirmwareDeviceError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Streams `levels` (-1...1, one every `tick`) from the firmware's timer, and waits for the end.
    public func playPattern(levels: [Double], tick: Duration) throws(FirmwareDeviceError) {
        let command = Self.patternCommand(levels: levels, tickMilliseconds: max(1, min(100, Int(tick.nanoseconds / 1_000_000))))
        try locked { () throws(FirmwareDeviceError) in
            let answer = try request(command, expecting: "ok pattern")
            let milliseconds = Int(answer.split(separator: " ").last ?? "") ?? 0
            try awaitDone("pattern", within: .milliseconds(milliseconds * 2 + 1000))
        }
    }

    /// What the firmware rendered of a pattern.
    public struct Rendering: Sendable, Equatable {
        /// The real-time stream's levels (0 when it plays ROM clicks).
        public var levels: Int
        /// The ROM clicks, for a pattern of transients alone (0 for a stream).
        public var clicks: Int
        /// How long it plays.
        public var length: Duration

        public init(levels: Int, clicks: Int, length: Duration) {
            self.levels = levels
            self.clicks = clicks
            self.length = length
        }
    }

    /// Uploads `pattern`'s haptic events, parameters and curves (`upload`), has the firmware
    /// render it with the renderer this build uses (`PatternRenderer`, 200 steps a second: a
    /// real-time stream, or ROM clicks for a pattern of transients alone, as here), plays it on
    /// the firmware's timer (`start`) and waits for its end. Audio events stay here (the
    /// firmware has no sound).
    @discardableResult
    public func playPattern(_ pattern: HapticPattern) throws(FirmwareDeviceError) -> Rendering {
        try locked { () throws(FirmwareDeviceError) in
            let started = try uploadAndStart(pattern)
            try awaitDone("pattern", within: started.length * 2 + .seconds(1))
            return started
        }
    }

    /// Uploads `pattern` and starts it on the firmware's timer, as `playPattern(_:)` does, without
    /// waiting for its end (`done pattern` comes later, as an unsolicited line). A pattern the
    /// firmware cannot hold is refused with the kind `too-long`, and nothing plays.
    @discardableResult
    public func startPattern(_ pattern: HapticPattern) throws(FirmwareDeviceError) -> Rendering {
        try locked { () throws(FirmwareDeviceError) in try uploadAndStart(pattern) }
    }

    private func uploadAndStart(_ pattern: HapticPattern) throws(FirmwareDeviceError) -> Rendering {
        for command in Self.uploadCommands(pattern) { _ = try request(command, expecting: "ok upload") }
        // LEVELS MS CLICKS
        let (rendered, milliseconds) = try endAndStart("upload")
        return Rendering(
            levels: rendered.first ?? 0, clicks: rendered.count > 2 ? rendered[2] : 0, length: .milliseconds(rendered.count > 1 ? rendered[1] : milliseconds))
    }

    /// Ends an upload (`upload end`, `notes end`) and starts what it made: the numbers the end's
    /// answer gave, and the length `start` gave in milliseconds.
    private func endAndStart(_ upload: String) throws(FirmwareDeviceError) -> (numbers: [Int], milliseconds: Int) {
        let ended = "\(upload) end"
        let numbers = try request(ended, expecting: "ok \(ended)").split(separator: " ").dropFirst(3).compactMap { Int($0) }
        let answer = try request("start", expecting: "ok start")
        return (numbers, Int(answer.split(separator: " ").last ?? "") ?? 0)
    }

    /// Uploads a sequence of feedback, ROM effects and waits (`notes`), which the firmware
    /// places in time by the rules `SequencePlayer` uses (`SequenceSchedule`) and plays on its
    /// timer (`start`), and waits for its end. Returns the notes placed and the sequence's length.
    /// Pattern and sound notes, and feedback below full intensity, are refused here before
    /// anything is sent (`FirmwareSequenceError`).
    @discardableResult
    public func playSequence(_ notes: [SequenceNote]) throws(FirmwareDeviceError) -> (notes: Int, length: Duration) {
        let commands: [String]
        do {
            commands = try Self.noteCommands(notes)
        } catch {
            throw .refused(kind: "bad-argument", message: error.description)
        }
        return try locked { () throws(FirmwareDeviceError) in
            for command in commands { _ = try request(command, expecting: "ok notes") }
            // NOTES MS
            let (placed, milliseconds) = try endAndStart("notes")
            try awaitDone("sequence", within: .milliseconds(milliseconds * 2 + 1000))
            return (placed.first ?? 0, .milliseconds(placed.count > 1 ? placed[1] : milliseconds))
        }
    }

    /// The `notes` lines for `notes`, from `notes begin` to the last note (`notes end` is the
    /// caller's): waits in whole microseconds. What the firmware does not play is refused here,
    /// before anything is sent.
    public static func noteCommands(_ notes: [SequenceNote]) throws(FirmwareSequenceError) -> [String] {
        var commands = ["notes begin"]
        for (index, note) in notes.enumerated() {
            switch note {
            case let .feedback(feedback):
                guard feedback.intensity >= 0.999 else { throw .fullIntensityOnly(note: index + 1, feedback: feedback.kind.name) }
                commands.append("notes feedback \(feedback.kind.name)")
            case let .effect(effect):
                commands.append("notes effect \(effect.rawValue)")
            case let .wait(seconds):
                commands.append("notes wait \(Int((min(600, max(0, seconds.isFinite ? seconds : 0)) * 1_000_000).rounded()))")
            case .waitUntilFinished:
                commands.append("notes until-finished")
            case .pattern:
                throw .notOnTheBoard(note: index + 1, kind: "pattern")
            case .sound:
                throw .notOnTheBoard(note: index + 1, kind: "sound")
            }
        }
        return commands
    }

    /// The `upload` lines for `pattern`, from `upload begin` to the last element (`upload end`
    /// is the caller's): times in whole microseconds, values in millionths, so a value written
    /// with up to six decimals arrives as the same `Double`. What the renderer would leave out
    /// (a time or value that is not a number, a time past its 600 s) is left out here too, and
    /// values are clamped to their ranges as the renderer clamps them.
    static func uploadCommands(_ pattern: HapticPattern) -> [String] {
        func micros(_ seconds: Double) -> Int? {
            guard seconds.isFinite, seconds >= 0, seconds <= PatternRenderer.maximumSeconds else { return nil }
            return Int((seconds * 1_000_000).rounded())
        }
        func millionths(_ value: Double, _ range: ClosedRange<Double> = 0...1) -> Int? {
            value.isFinite ? Int((min(range.upperBound, max(range.lowerBound, value)) * 1_000_000).rounded()) : nil
        }
        func flag(_ value: Bool) -> String { value ? "1" : "0" }
        var commands = ["upload begin"]
        for event in pattern.events {
            guard let time = micros(event.time), let intensity = millionths(event.intensity), let sharpness = millionths(event.sharpness) else { continue }
            switch event.type {
            case .hapticTransient:
                commands.append("upload transient \(time) \(intensity) \(sharpness) \(flag(event.followsIntensityControl))")
            case .hapticContinuous:
                guard let duration = micros(event.duration), let attack = millionths(event.attackTime), let decay = millionths(event.decayTime),
                    let release = millionths(event.releaseTime)
                else { continue }
                commands.append(
                    "upload continuous \(time) \(duration) \(intensity) \(sharpness) \(attack) \(decay) \(release) \(flag(event.sustained)) \(flag(event.followsIntensityControl))")
            case .audioContinuous, .audioCustom:
                continue
            }
        }
        for parameter in pattern.parameters {
            guard let time = micros(parameter.time), let value = millionths(parameter.value, -1...1) else { continue }
            commands.append("upload parameter \(parameter.id.rawValue) \(time) \(value)")
        }
        for curve in pattern.curves {
            guard let time = micros(curve.time) else { continue }
            let points = curve.points.compactMap { point in micros(point.time).flatMap { time in millionths(point.value, -1...1).map { (time, $0) } } }
            guard points.count == curve.points.count else { continue }
            commands.append("upload curve \(curve.id.rawValue) \(time)")
            commands += points.map { "upload point \($0.0) \($0.1)" }
        }
        return commands
    }

    /// Sends `command` (one line) and returns the firmware's answer, the first line that starts
    /// with `expecting`; a refusal is thrown. The protocol's further commands, for
    /// `FirmwareChipDriver`.
    @discardableResult
    public func send(_ command: String, expecting prefix: String) throws(FirmwareDeviceError) -> String {
        try locked { () throws(FirmwareDeviceError) in try request(command, expecting: prefix) }
    }

    /// Stops the actuator; the chip goes to standby.
    public func stop() throws(FirmwareDeviceError) {
        try locked { () throws(FirmwareDeviceError) in _ = try request("stop", expecting: "ok stop") }
    }

    /// Sends `command` and returns the first answer line; a refusal (`error KIND ...`) is thrown.
    /// `timeout`: how long the answer may take (`answerTimeout` unless said).
    func request(_ command: String, expecting prefix: String, within timeout: Duration? = nil) throws(FirmwareDeviceError) -> String {
        let id = try write(command)
        // What the firmware said unasked goes to `unsolicited`; a late answer to an earlier
        // request (another ID) is dropped.
        while true {
            let answer = try nextFrame(within: timeout ?? answerTimeout, waitingFor: command)
            if answer.id == id {
                if answer.text.hasPrefix(prefix) { return answer.text }
                if answer.text.hasPrefix("error ") { throw Self.refusal(answer.text) }
                throw .refused(kind: "protocol", message: "'\(answer.text)' in answer to '\(command)'")
            }
            if answer.id == 0 { try heardUnasked(answer.text, waitingFor: command) }
        }
    }

    /// Sends `command` in a frame of its own with the next request ID; returns the ID.
    private func write(_ command: String) throws(FirmwareDeviceError) -> UInt16 {
        lastRequestID = lastRequestID == UInt16.max ? 1 : lastRequestID + 1
        do {
            try line.write(SerialFrame.encode(id: lastRequestID, payload: Array(command.utf8)))
        } catch {
            throw .link(error)
        }
        return lastRequestID
    }

    /// A payload with ID 0: the firmware refusing a frame that reached it damaged (what was being
    /// sent, most likely: it was not acted on) fails the request; anything else is unsolicited.
    private func heardUnasked(_ text: String, waitingFor what: String) throws(FirmwareDeviceError) {
        if text.hasPrefix("error bad-frame ") {
            throw .garbled(port: line.name, detail: "the firmware received a damaged frame (\(text.dropFirst("error bad-frame ".count))) while this waited for \(what)")
        }
        unsolicited(text)
    }

    /// Waits for `done NAME`, sending `ping` after each `keepAlive` of silence meanwhile.
    func awaitDone(_ name: String, within timeout: Duration) throws(FirmwareDeviceError) {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let answer: (id: UInt16, text: String)
            do {
                answer = try nextFrame(within: min(keepAlive, max(.zero, clock.now.duration(to: deadline))), waitingFor: "the end of \(name)")
            } catch {
                guard case .noAnswer = error, clock.now < deadline else { throw error }
                // The ping's answer ("ok ping", its own ID) is dropped below.
                _ = try write("ping")
                continue
            }
            guard answer.id == 0 else { continue }
            if answer.text == "done \(name)" { return }
            if answer.text.hasPrefix("error ") && !answer.text.hasPrefix("error bad-frame ") { throw Self.refusal(answer.text) }
            try heardUnasked(answer.text, waitingFor: "the end of \(name)")
        }
    }

    /// The next frame that arrives within `timeout`; a frame that arrived damaged fails the wait
    /// (it may have been the answer: what the firmware did is then unknown).
    func nextFrame(within timeout: Duration, waitingFor what: String) throws(FirmwareDeviceError) -> (id: UInt16, text: String) {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            if let next = takeReceived() {
                switch next {
                case let .frame(id, text): return (id, text)
                case let .refused(reason):
                    throw .garbled(port: line.name, detail: "a frame from the firmware arrived damaged (\(reason.word)) while this waited for \(what)")
                }
            }
            let left = clock.now.duration(to: deadline)
            guard left > .zero else { throw .noAnswer(port: line.name, waitingFor: what) }
            do {
                appendReceived(try line.read(timeout: left))
            } catch {
                throw .link(error)
            }
        }
    }

    /// The oldest frame or refusal decoded and not yet taken.
    func takeReceived() -> Received? { received.isEmpty ? nil : received.removeFirst() }

    /// Decodes bytes read from the line, in order, dated now (for the frame's pause limit).
    func appendReceived(_ bytes: [UInt8]) {
        let now = Int64(clamping: DispatchTime.now().uptimeNanoseconds)
        for byte in bytes {
            switch decoder.take(byte, atNanoseconds: now) {
            case let .frame(id, payload)?: received.append(.frame(id: id, text: String(decoding: payload, as: UTF8.self)))
            case let .refused(reason)?: received.append(.refused(reason))
            case nil: break
            }
        }
    }

    /// The `pattern` command for `levels` (-1...1, clamped; a level that is not a number is 0),
    /// sent in whole percent, one every `tickMilliseconds`.
    static func patternCommand(levels: [Double], tickMilliseconds: Int) -> String {
        "pattern \(tickMilliseconds) " + levels.map { String(Int((($0.isFinite ? min(1, max(-1, $0)) : 0) * 100).rounded())) }.joined(separator: " ")
    }

    /// The port of a `serial:PORT` device (`--device serial:/dev/ttyACM0`), nil for any other.
    public static func port(inDevice device: String) -> String? {
        device.hasPrefix("serial:") ? String(device.dropFirst("serial:".count)) : nil
    }

    /// `error KIND text` as a typed refusal.
    static func refusal(_ answer: String) -> FirmwareDeviceError {
        let words = answer.split(separator: " ", maxSplits: 2)
        let kind = words.count > 1 ? String(words[1]) : "unknown"
        return .refused(kind: kind, message: words.count > 2 ? String(words[2]) : "")
    }
}
