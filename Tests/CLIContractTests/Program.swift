// SPDX-License-Identifier: Apache-2.0

import Foundation
import HardwareAccess

#if canImport(Glibc)
    import Glibc
#endif

/// One of the package's programs (`haptic`, `hapticd`), run as a user runs it: found beside the test
/// bundle (the build's products folder) or in `$HAPTIC_BIN_DIR`, with its own environment, its
/// output captured, and a deadline after which it is killed and the test fails.
struct Program {
    let path: String

    init(_ name: String) throws {
        let folder =
            ProcessInfo.processInfo.environment["HAPTIC_BIN_DIR"]
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
        path = folder + "/" + name
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ProgramError("no \(name) at \(path): build the package first (swift build --build-tests), or set HAPTIC_BIN_DIR")
        }
    }

    /// A program of the machine's (`/usr/bin/dbus-daemon`), by its path.
    init(executable: String) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else { throw ProgramError("no \(executable) on this machine") }
        path = executable
    }

    /// The package's root folder (Examples/, Boards/, CHANGELOG.md), from this file's place.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs to the end, or kills it at `deadline` (a hang is a failure, not a wait).
    func run(_ arguments: [String], environment: [String: String] = [:], in directory: URL = Program.packageRoot, deadline: Duration = .seconds(60)) throws -> Run {
        let running = try start(arguments, environment: environment, in: directory)
        return try running.wait(deadline: deadline)
    }

    /// Starts it and returns at once; the output accumulates while it runs.
    func start(_ arguments: [String], environment: [String: String] = [:], in directory: URL = Program.packageRoot) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        // An empty value removes the variable (a board or socket of the machine's must not leak in).
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }.filter { !$0.value.isEmpty }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let running = Running(process: process, name: (path as NSString).lastPathComponent + " " + arguments.joined(separator: " "))
        try process.run()
        // One reader thread per pipe, in order, to the end of the file: what the program wrote last
        // is last here too (the trace's final writes are what the signal test checks).
        for (pipe, buffer) in [(output, running.stdout), (errors, running.stderr)] {
            let handle = pipe.fileHandleForReading
            let reader = Thread {
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    buffer.withLock { $0.append(data) }
                }
                running.readersDone.withLock { $0 += 1 }
            }
            reader.start()
        }
        return running
    }
}

/// A program that is running.
// Process is used from the test and from the pipes' handlers; its calls here are thread-safe.
final class Running: @unchecked Sendable {
    let process: Process
    let name: String
    let stdout = Locked(Data())
    let stderr = Locked(Data())
    /// Readers that reached the end of their pipe (2 when all output is in).
    let readersDone = Locked(0)

    fileprivate init(process: Process, name: String) {
        self.process = process
        self.name = name
    }

    var standardOutput: String { String(decoding: stdout.withLock { $0 }, as: UTF8.self) }
    var standardError: String { String(decoding: stderr.withLock { $0 }, as: UTF8.self) }

    /// Waits until `condition` holds, checking every 10 ms, and fails at `deadline`: how a test
    /// waits for another process (there is no clock to inject into it).
    func waitUntil(_ what: String, deadline: Duration = .seconds(30), _ condition: () -> Bool) throws {
        let end = ContinuousClock.now + deadline
        while !condition() {
            guard ContinuousClock.now < end else { throw ProgramError("\(name): \(what) not seen within \(deadline)") }
            guard process.isRunning || condition() else { throw ProgramError("\(name) ended before \(what)") }
            usleep(10_000)
        }
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the end; kills it at `deadline` and throws.
    func wait(deadline: Duration = .seconds(60)) throws -> Run {
        let end = ContinuousClock.now + deadline
        while process.isRunning {
            guard ContinuousClock.now < end else {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                throw ProgramError("\(name) still running after \(deadline): killed")
            }
            usleep(5_000)
        }
        process.waitUntilExit()
        // The output still in the pipes once the program has gone.
        while readersDone.withLock({ $0 }) < 2 {
            guard ContinuousClock.now < end + .seconds(5) else { throw ProgramError("\(name): its output did not end (a child holding the pipe?)") }
            usleep(1_000)
        }
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return Run(status: status, stdout: standardOutput, stderr: standardError)
    }
}

/// What a finished program left: its exit status (128 + N when killed by signal N) and output.
struct Run {
    let status: Int32
    let stdout: String
    let stderr: String

    /// stderr's lines, without the empty last one.
    var errorLines: [Substring] { stderr.split(separator: "\n") }

    /// stdout as JSON (an object), or nil when it is not.
    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any] }
}

struct ProgramError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A scratch folder removed when the value goes away.
final class ScratchFolder {
    let path: String
    init() throws {
        path = NSTemporaryDirectory() + "haptic-contract-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> String { path + "/" + name }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}
