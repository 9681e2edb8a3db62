// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// One command line of a shell block in the documentation, with what its comment says about it.
struct DocumentedCommand: CustomStringConvertible {
    /// What the comment after `#` says the command needs or does.
    enum Kind: Equatable {
        /// Runs here, on the simulated chip, and exits 0.
        case runs
        /// `(needs the board)`: without an I2C bus it is refused, exit 69, one line.
        case needsTheBoard
        /// `(needs a sound card)`: without one it is refused, exit 69, one line.
        case needsASoundCard
        /// `(until Ctrl-C)`: runs until interrupted; SIGINT ends it.
        case untilInterrupted
        /// `(CI runs it as a stage)`, `(CI runs it in Scripts/X)`, `(CI runs it in the kernel VM)`,
        /// `(CI builds it as a stage)`: a step of CI's own, checked to be in `.ci/run`.
        case runByCI(String)
    }

    let file: String
    let line: Int
    let text: String
    let environment: [String: String]
    /// `haptic`, `hapticd`, or the script or tool the line starts with.
    let program: String
    let arguments: [String]
    /// Ends in `&`: started, and stopped at the end of its block.
    let background: Bool
    let kind: Kind
    /// `(prints "TEXT")`: what its output must contain.
    let prints: [String]

    var description: String { "\(file):\(line): \(text)" }

    /// Every shell block of `markdown` (```sh, ```bash, ```shell), each as its command lines.
    static func blocks(in markdown: String, file: String) -> [[DocumentedCommand]] {
        var blocks: [[DocumentedCommand]] = []
        var current: [DocumentedCommand]?
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") {
                if let block = current {
                    blocks.append(block)
                    current = nil
                } else if ["```sh", "```bash", "```shell"].contains(trimmed) {
                    current = []
                }
                continue
            }
            guard current != nil, let command = DocumentedCommand(String(line), file: file, line: index + 1) else { continue }
            current?.append(command)
        }
        return blocks
    }

    /// The command on `text`, nil for a blank or comment-only line.
    init?(_ text: String, file: String, line: Int) {
        var quote: Character?
        var commandEnd = text.endIndex
        var previous: Character = " "
        for index in text.indices {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "#", previous == " " {
                commandEnd = index
                break
            }
            previous = character
        }
        let command = text[..<commandEnd].trimmingCharacters(in: .whitespaces)
        guard !command.isEmpty else { return nil }
        let comment = String(text[commandEnd...])
        var words = DocumentedCommand.words(command)
        background = words.last == "&"
        if background { words.removeLast() }
        var environment: [String: String] = [:]
        while let first = words.first, let equals = first.firstIndex(of: "="), first[..<equals].allSatisfy({ $0.isUppercase || $0 == "_" }) {
            environment[String(first[..<equals])] = String(first[first.index(after: equals)...])
            words.removeFirst()
        }
        if words.starts(with: ["swift", "run"]) { words.removeFirst(2) }
        self.file = file
        self.line = line
        self.text = command
        self.environment = environment
        program = words.first ?? ""
        arguments = Array(words.dropFirst())
        if comment.contains("(needs the board)") {
            kind = .needsTheBoard
        } else if comment.contains("(needs a sound card)") {
            kind = .needsASoundCard
        } else if comment.contains("(until Ctrl-C)") {
            kind = .untilInterrupted
        } else if let range = comment.range(of: #"\(CI (runs|builds) it [^)]*\)"#, options: .regularExpression) {
            kind = .runByCI(String(comment[range]))
        } else {
            kind = .runs
        }
        var prints: [String] = []
        var rest = comment[...]
        while let range = rest.range(of: #"\(prints "[^"]*"\)"#, options: .regularExpression) {
            prints.append(String(rest[range].dropFirst(9).dropLast(2)))
            rest = rest[range.upperBound...]
        }
        self.prints = prints
    }

    /// Words as a shell splits them: on spaces, quotes kept together and removed.
    static func words(_ command: String) -> [String] {
        var words: [String] = []
        var word = ""
        var quote: Character?
        var inWord = false
        for character in command {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
                inWord = true
            } else if character == " " {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(character)
                inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }
}

/// Every command the documentation shows in a shell block (README.md, Boards/README.md, docs/,
/// the DocC articles) is run here as shown, against the built programs on the simulated chip, in
/// a scratch folder that has the package's Examples/ and Boards/: exit 0 and the output its
/// comment quotes. A command marked as needing the board or a sound card is refused cleanly
/// without one (exit 69, one line); one marked `(until Ctrl-C)` runs until SIGINT; one marked as
/// CI's own step must be in `.ci/run`. A documentation change that breaks a command fails here.
@Suite(.serialized) struct DocumentedCommandsTests {
    static let root = Program.packageRoot

    /// The documentation's files, in a fixed order.
    static func documents() -> [String] {
        var files = ["README.md", "Boards/README.md"]
        let manager = FileManager.default
        if let docs = try? manager.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path) {
            files += docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        }
        if let enumerator = manager.enumerator(atPath: root.appendingPathComponent("Sources").path) {
            for case let path as String in enumerator where path.hasSuffix(".md") && path.contains(".docc/") {
                files.append("Sources/" + path)
            }
        }
        return files.sorted()
    }

    static var hasI2CBus: Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []).contains { $0.hasPrefix("i2c-") }
    }

    static var hasSoundCard: Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/snd")) ?? []).contains { $0.hasPrefix("pcmC") }
    }

    @Test func theDocumentationIsParsedAsAShellWould() throws {
        let command = try #require(
            DocumentedCommand(#"HAPTIC_HIL_BUS=/dev/i2c-1 swift run haptic sequence "a, b" --x 'y z' &   # it (needs the board) (prints "ok 1")"#, file: "f", line: 3))
        #expect(command.environment == ["HAPTIC_HIL_BUS": "/dev/i2c-1"])
        #expect(command.program == "haptic" && command.arguments == ["sequence", "a, b", "--x", "y z"])
        #expect(command.background && command.kind == .needsTheBoard && command.prints == ["ok 1"])
        #expect(DocumentedCommand("# a comment: HAPTIC_HIL_ACTUATOR=erm", file: "f", line: 1) == nil)
        #expect(DocumentedCommand(#"haptic play x  # a #hash (CI runs it in Scripts/studio-check)"#, file: "f", line: 1)?.kind == .runByCI("(CI runs it in Scripts/studio-check)"))
    }

    /// Figures the README states about the code, counted from the code: its DocC catalogs, each
    /// named where `Scripts/docs` is described.
    @Test func theREADMEsCatalogCountIsTheCodes() throws {
        let catalogs = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("Sources").path).filter { module in
            FileManager.default.fileExists(atPath: Self.root.appendingPathComponent("Sources/\(module)/\(module).docc").path)
        }
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("(\(catalogs.count) DocC catalogs)"), "the README does not say \(catalogs.count) DocC catalogs")
        for module in catalogs { #expect(readme.contains("`\(module)`"), "the README does not name \(module)'s catalog") }
    }

    @Test func everyDocumentedCommandWorksAsShown() throws {
        guard !Self.hasI2CBus else {
            print("documented commands: not run: this machine has an I2C bus, and the commands would drive its chip")
            return
        }
        let haptic = try Program("haptic")
        let hapticd = try Program("hapticd")
        let scratch = try ScratchFolder()
        let folder = URL(fileURLWithPath: scratch.path)
        for name in ["Examples", "Boards"] {
            try FileManager.default.createSymbolicLink(atPath: scratch.file(name), withDestinationPath: Self.root.appendingPathComponent(name).path)
        }
        let ci = try String(contentsOf: Self.root.appendingPathComponent(".ci/run"), encoding: .utf8)
        let base = ["HAPTIC_CALIBRATION_FILE": scratch.file("calibration.json"), "STATE_DIRECTORY": scratch.path, "HAPTIC_BOARD": "", "HAPTICD_SOCKET": ""]
        var counts = (run: 0, refused: 0, interrupted: 0, ci: 0)
        var total = 0
        for document in Self.documents() {
            let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
            for block in DocumentedCommand.blocks(in: text, file: document) {
                var daemons: [(Running, String?)] = []
                defer {
                    for (daemon, socket) in daemons {
                        daemon.signal(SIGTERM)
                        _ = try? daemon.wait(deadline: .seconds(10))
                        if let socket { try? FileManager.default.removeItem(atPath: socket) }
                    }
                }
                for command in block {
                    total += 1
                    if case let .runByCI(what) = command.kind {
                        let script =
                            what.contains("kernel VM") ? "Scripts/kernel-test" : what.range(of: #"Scripts/[a-z0-9-]+"#, options: .regularExpression).map { String(what[$0]) }
                        let step = script ?? (command.program == "swift" ? "Scripts/test" : command.program)
                        #expect(ci.contains(step), "\(command): says CI runs it, but .ci/run has no \(step)")
                        counts.ci += 1
                        continue
                    }
                    guard let program = ["haptic": haptic, "hapticd": hapticd][command.program] else {
                        Issue.record("\(command): neither haptic nor hapticd, and not marked as a step of CI's")
                        continue
                    }
                    let environment = base.merging(command.environment) { $1 }
                    if command.background {
                        let socket = command.arguments.firstIndex(of: "--socket").map { command.arguments[$0 + 1] }
                        if let socket { try? FileManager.default.removeItem(atPath: socket) }
                        let daemon = try program.start(command.arguments, environment: environment, in: folder)
                        daemons.append((daemon, socket))
                        if let socket {
                            try daemon.waitUntil("\(command): its socket", deadline: .seconds(60)) { FileManager.default.fileExists(atPath: socket) }
                        }
                        counts.run += 1
                        continue
                    }
                    switch command.kind {
                    case .needsTheBoard, .needsASoundCard:
                        let present = command.kind == .needsTheBoard ? Self.hasI2CBus : Self.hasSoundCard
                        let run = try program.run(command.arguments, environment: environment, in: folder, deadline: .seconds(120))
                        if present {
                            #expect(run.status == 0, "\(command): exit \(run.status): \(run.stderr)")
                            counts.run += 1
                        } else {
                            #expect(run.status == 69, "\(command): exit \(run.status) without the hardware, not 69: \(run.stderr)")
                            #expect(run.errorLines.filter { !$0.hasPrefix("  bus ") }.count == 1, "\(command): not one line:\n\(run.stderr)")
                            counts.refused += 1
                        }
                    case .untilInterrupted:
                        let running = try program.start(command.arguments, environment: environment, in: folder)
                        Thread.sleep(forTimeInterval: 2)
                        #expect(running.process.isRunning, "\(command): ended before Ctrl-C: \(running.standardError)")
                        running.signal(SIGINT)
                        let run = try running.wait(deadline: .seconds(30))
                        #expect([0, 130].contains(run.status), "\(command): exit \(run.status) after Ctrl-C: \(run.stderr)")
                        counts.interrupted += 1
                    case .runs:
                        let run = try program.run(command.arguments, environment: environment, in: folder, deadline: .seconds(120))
                        #expect(run.status == 0, "\(command): exit \(run.status): \(run.stderr)")
                        for quoted in command.prints {
                            #expect((run.stdout + run.stderr).contains(quoted), "\(command): does not print \"\(quoted)\":\n\(run.stdout)")
                        }
                        counts.run += 1
                    case .runByCI:
                        break
                    }
                }
            }
        }
        print(
            "documented commands: \(total): \(counts.run) run, \(counts.refused) refused without the hardware they need, "
                + "\(counts.interrupted) run until Ctrl-C, \(counts.ci) in CI's own stages")
        #expect(total == counts.run + counts.refused + counts.interrupted + counts.ci, "a documented command was neither run nor accounted for")
        #expect(counts.run >= 30, "fewer documented commands than the README shows: the parser lost some")
    }
}
