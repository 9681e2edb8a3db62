// SPDX-License-Identifier: Apache-2.0

import Foundation
import HardwareAccess

/// A transaction script for a chip: what a driver would send, and what to read back. The same
/// script runs against this package's simulated chip (DRV2605Simulator, DA7280Simulator) and
/// against its kernel fixture behind a real Linux I2C adapter (`drv2605-model check`); their
/// answers are compared line by line, and each `=` expectation (what the datasheet says) is
/// checked on both.
///
/// ```
/// # comment
/// write 01 00          register, then data bytes (auto-increment)
/// read 00 1 = e0       register, count, optional expected bytes (.. = any)
/// wait 80              milliseconds
/// actuator open        ok | open | short: the emulated actuator on the outputs
/// supply 4200          the chip's VDD in millivolts (VBAT, OTP programming)
/// standby-writes ignored   ignored | kept: the DRV2605 model's unconfirmed standby rule, for this script
/// drive = 528          what the outputs drive, in thousandths of the rated voltage (the DA7280's fixture)
/// sequence = 0:466 5440:0   the last sequence the waveform memory played (the DA7280): each level
///                       change, microseconds from its start : thousandths of the rated voltage
/// ```
public struct ModelScript: Sendable, Equatable {
    /// What the emulated actuator is.
    public enum Actuator: String, Sendable, Equatable { case ok, open, short }

    /// One line.
    public enum Step: Sendable, Equatable {
        /// A write of `data` from `register` on (auto-increment).
        case write(register: UInt8, data: [UInt8])
        /// A read of `count` registers from `register`; `expected` bytes (nil: any) when given.
        case read(register: UInt8, count: Int, expected: [UInt8?]?)
        /// Time passing.
        case wait(milliseconds: Int)
        /// The emulated actuator changed.
        case actuator(Actuator)
        /// The chip's VDD changed.
        case supply(millivolts: Int)
        /// Writes in standby are ignored (true) or take effect (false) from here on.
        case standbyWritesIgnored(Bool)
        /// What the outputs drive now, in thousandths of the rated voltage; `expected` when given.
        case drive(expected: Int?)
        /// The level changes of the last sequence played from the waveform memory; `expected`
        /// ("microseconds:permille" words) when given.
        case sequence(expected: [String]?)
    }

    /// A problem in a script's text.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        /// The script's name.
        public var script: String
        /// The line at fault, from 1.
        public var line: Int
        /// What is wrong and what is allowed.
        public var message: String
        /// `script:line: message`, as compilers print errors.
        public var description: String { "\(script):\(line): \(message)" }
    }

    /// The script's name (its file name).
    public var name: String
    /// Its steps with their line numbers.
    public var steps: [(line: Int, step: Step)]

    /// Same name and steps on the same lines.
    public static func == (lhs: ModelScript, rhs: ModelScript) -> Bool {
        lhs.name == rhs.name && lhs.steps.map(\.line) == rhs.steps.map(\.line) && lhs.steps.map(\.step) == rhs.steps.map(\.step)
    }

    /// Parses a script's text.
    public static func parse(_ text: String, name: String) throws(ParseError) -> ModelScript {
        var steps: [(Int, Step)] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            let words = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0].split(separator: " ").map(String.init)
            guard let verb = words.first else { continue }
            func fail(_ message: String) -> ParseError { ParseError(script: name, line: line, message: message) }
            func byte(_ word: String) throws(ParseError) -> UInt8 {
                guard let value = UInt8(word, radix: 16) else { throw fail("'\(word)' is not a hex byte") }
                return value
            }
            switch verb {
            case "write":
                guard words.count >= 3 else { throw fail("write needs a register and at least one byte") }
                var data: [UInt8] = []
                for word in words.dropFirst(2) { data.append(try byte(word)) }
                steps.append((line, .write(register: try byte(words[1]), data: data)))
            case "read":
                guard words.count >= 3, let count = Int(words[2]), (1...64).contains(count) else { throw fail("read needs a register and a count (1-64)") }
                var expected: [UInt8?]?
                if words.count > 3 {
                    guard words[3] == "=", words.count - 4 == count else { throw fail("expected '= ' and \(count) bytes") }
                    var bytes: [UInt8?] = []
                    for word in words.dropFirst(4) { bytes.append(word == ".." ? nil : try byte(word)) }
                    expected = bytes
                }
                steps.append((line, .read(register: try byte(words[1]), count: count, expected: expected)))
            case "wait":
                guard words.count == 2, let milliseconds = Int(words[1]), (0...10_000).contains(milliseconds) else { throw fail("wait needs milliseconds (0-10000)") }
                steps.append((line, .wait(milliseconds: milliseconds)))
            case "actuator":
                guard words.count == 2, let state = Actuator(rawValue: words[1]) else { throw fail("actuator is ok, open or short") }
                steps.append((line, .actuator(state)))
            case "supply":
                guard words.count == 2, let millivolts = Int(words[1]), (2000...5500).contains(millivolts) else { throw fail("supply needs millivolts (2000-5500)") }
                steps.append((line, .supply(millivolts: millivolts)))
            case "standby-writes":
                guard words.count == 2, words[1] == "ignored" || words[1] == "kept" else { throw fail("standby-writes is ignored or kept") }
                steps.append((line, .standbyWritesIgnored(words[1] == "ignored")))
            case "drive":
                guard words.count == 1 || (words.count == 3 && words[1] == "=" && Int(words[2]) != nil) else {
                    throw fail("drive takes nothing or '= ' and thousandths of the rated voltage")
                }
                steps.append((line, .drive(expected: words.count == 3 ? Int(words[2]) : nil)))
            case "sequence":
                let changes = words.dropFirst(2)
                guard words.count == 1 || (words.count >= 3 && words[1] == "=" && changes.allSatisfy(Self.isLevelChange)) else {
                    throw fail("sequence takes nothing or '= ' and level changes, microseconds:permille (0:466 5440:0)")
                }
                steps.append((line, .sequence(expected: words.count == 1 ? nil : Array(changes))))
            default:
                throw fail("unknown step '\(verb)' (write, read, wait, actuator, supply, standby-writes, drive, sequence)")
            }
        }
        return ModelScript(name: name, steps: steps)
    }

    /// What one step answered: a line to compare, and a broken expectation if there was one.
    public struct Answer: Sendable, Equatable {
        /// The step's line in the script.
        public var line: Int
        /// What the chip answered ("read e0", "write ok", "read failed: noAcknowledge").
        public var text: String
        /// The broken expectation, when the step had one and it did not hold.
        public var unexpected: String?
    }

    /// "microseconds:permille", both whole numbers, the level possibly negative.
    static func isLevelChange(_ word: String) -> Bool {
        let parts = word.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 2 && UInt(parts[0]) != nil && Int(parts[1]) != nil
    }

    /// Runs the script on `bus` at `address`. `wait` lets time pass (a virtual clock's advance,
    /// or a real sleep); `setActuator`, `setSupply` and `setStandbyWritesIgnored` change the
    /// emulated actuator, VDD and the standby rule; `readDrive` reads what the outputs drive, in
    /// thousandths of the rated voltage (nil: this emulation cannot say, and `drive` answers so);
    /// `readSequence` the level changes of the last sequence the memory played
    /// ("microseconds:permille" words; nil: this chip has no waveform memory).
    public func run(
        on bus: any I2CBus, address: I2CAddress, wait: (Int) -> Void, setActuator: (Actuator) -> Void,
        setSupply: (Int) -> Void, setStandbyWritesIgnored: (Bool) -> Void, readDrive: () -> Int? = { nil },
        readSequence: () -> [String]? = { nil }
    ) -> [Answer] {
        var answers: [Answer] = []
        for (line, step) in steps {
            switch step {
            case let .write(register, data):
                do {
                    try bus.write(to: address, [register] + data)
                    answers.append(Answer(line: line, text: "write ok"))
                } catch {
                    answers.append(Answer(line: line, text: "write failed: \(error.kind)"))
                }
            case let .read(register, count, expected):
                do {
                    let bytes = try bus.writeRead(to: address, [register], count: count)
                    let text = bytes.map { String(format: "%02x", $0) }.joined(separator: " ")
                    var unexpected: String?
                    if let expected, zip(expected, bytes).contains(where: { $0.0 != nil && $0.0 != $0.1 }) {
                        unexpected = "expected " + expected.map { $0.map { String(format: "%02x", $0) } ?? ".." }.joined(separator: " ") + ", read \(text)"
                    }
                    answers.append(Answer(line: line, text: "read \(text)", unexpected: unexpected))
                } catch {
                    answers.append(
                        Answer(
                            line: line, text: "read failed: \(error.kind)",
                            unexpected: expected == nil ? nil : "expected bytes, the read failed: \(error.kind)"))
                }
            case let .wait(milliseconds):
                wait(milliseconds)
            case let .actuator(state):
                setActuator(state)
            case let .supply(millivolts):
                setSupply(millivolts)
            case let .standbyWritesIgnored(ignored):
                setStandbyWritesIgnored(ignored)
            case let .drive(expected):
                guard let permille = readDrive() else {
                    answers.append(Answer(line: line, text: "drive unknown", unexpected: expected == nil ? nil : "expected a drive, this chip cannot say"))
                    continue
                }
                let unexpected = expected.flatMap { $0 == permille ? nil : "expected drive \($0), drove \(permille)" }
                answers.append(Answer(line: line, text: "drive \(permille)", unexpected: unexpected))
            case let .sequence(expected):
                guard let changes = readSequence() else {
                    answers.append(
                        Answer(line: line, text: "sequence unknown", unexpected: expected == nil ? nil : "expected a sequence, this chip cannot say"))
                    continue
                }
                let text = changes.joined(separator: " ")
                let unexpected = expected.flatMap { $0 == changes ? nil : "expected sequence \($0.joined(separator: " ")), played \(text)" }
                answers.append(Answer(line: line, text: "sequence \(text)", unexpected: unexpected))
            }
        }
        return answers
    }
}
