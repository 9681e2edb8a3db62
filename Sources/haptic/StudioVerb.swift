// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation

/// `haptic studio`: runs `haptic-studio`, the pattern studio, with the same arguments. The studio
/// is a package of its own (Studio/) so that the library, `haptic` and `hapticd` build without
/// Hummingbird and SwiftNIO; like `git`'s subcommands, this verb finds its executable and
/// replaces itself with it.
struct StudioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "studio",
        abstract: "Design patterns in a browser and feel them on the actuator: runs haptic-studio.",
        discussion: """
            Options (see haptic studio --help): --board B | --simulate, --bus, --port N (8080), --listen ADDRESS \
            (loopback unless given; then a token is required), --token. Looks for haptic-studio in $HAPTIC_STUDIO, \
            beside haptic, in this checkout's Studio/.build, then on PATH. Build it with: \
            swift build --package-path Studio -c release
            """)

    @Argument(parsing: .captureForPassthrough, help: "Arguments for haptic-studio.") var arguments: [String] = []

    /// Where `haptic-studio` may be, best first.
    static func candidates() -> [String] {
        var found: [String] = []
        if let path = ProcessInfo.processInfo.environment["HAPTIC_STUDIO"], !path.isEmpty { found.append(path) }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let folder = executable.deletingLastPathComponent()
        found.append(folder.appendingPathComponent("haptic-studio").path)
        // Run from a checkout (.build/<triple>/<configuration>/haptic): the studio package beside it.
        var directory = folder
        for _ in 0..<4 {
            directory = directory.deletingLastPathComponent()
            let studio = directory.appendingPathComponent("Studio")
            if FileManager.default.fileExists(atPath: studio.appendingPathComponent("Package.swift").path) {
                for configuration in ["release", "debug"] {
                    found.append(studio.appendingPathComponent(".build/\(configuration)/haptic-studio").path)
                }
                break
            }
        }
        for entry in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            found.append("\(entry)/haptic-studio")
        }
        return found
    }

    func run() throws {
        try CLIError.reporting {
            // The studio plays on the chip as the pattern is edited: it opens the chip itself, so a
            // named hapticd socket is refused as for every verb that needs the chip to itself.
            let names = { (option: String) in arguments.contains { $0 == option || $0.hasPrefix(option + "=") } }
            let socket = arguments.firstIndex(of: "--socket").map { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : "" }
            let environment = ProcessInfo.processInfo.environment["HAPTICD_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
            if let socket = socket ?? (names("--simulate") || names("--board") || names("--bus") ? nil : environment) {
                throw CLIError(
                    "studio does not go through hapticd (\(socket)): it plays on the chip itself as you edit. Stop hapticd first (systemctl stop hapticd), or run it with --simulate",
                    exitCode: CLIError.usage)
            }
            guard let path = Self.candidates().first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
                throw CLIError(
                    """
                    haptic studio needs haptic-studio, which is not built here. Build it with \
                    `swift build --package-path Studio -c release` (a separate package: the core builds without a web server), \
                    or set HAPTIC_STUDIO to its path
                    """, exitCode: CLIError.unavailable)
            }
            let argv = [path] + arguments
            var pointers = argv.map { strdup($0) } + [nil]
            execv(path, &pointers)
            let error = String(cString: strerror(errno))
            throw CLIError("cannot run \(path): \(error)", exitCode: CLIError.unavailable)
        }
    }
}
