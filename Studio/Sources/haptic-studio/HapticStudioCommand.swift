// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import HapticStudio
import Haptics
import Logging

/// `haptic-studio` (also run as `haptic studio`): serves the pattern studio from the Pi, playing
/// on its actuator (or the simulated chip) while the pattern is designed in a browser.
@main
struct HapticStudioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "haptic-studio",
        abstract: "Design haptic patterns in a browser and feel them on the board's actuator (or the simulated chip).",
        discussion: """
            Serves loopback only unless --listen names another address; then every request needs the token printed at \
            start-up (open the printed URL). Requests from other web pages are refused. The actuator stops when the last \
            page closes and when the studio stops (SIGINT, SIGTERM).
            """,
        version: SwiftHaptics.version)

    @Option(help: "Board file (a path, or a name from Boards/); without one, a single breakout on --bus.") var board: String?
    @Option(help: "Without a board file: the I2C bus of the single breakout (a path or a number; default /dev/i2c-1).") var bus: String?
    @Flag(help: "Play on the simulated chip instead of the board.") var simulate = false
    @Option(help: "The TCP port.") var port = 8080
    @Option(help: "The address to listen on (default 127.0.0.1). Anything but loopback requires the token.") var listen = "127.0.0.1"
    @Option(help: "The token required beyond loopback (default: a random one, printed).") var token: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0-65535") }
        if simulate, board == nil, bus != nil { throw ValidationError("--bus names a real bus; leave it out with --simulate") }
    }

    func run() async throws {
        // The service group takes SIGINT and SIGTERM through libdispatch, which needs them
        // blocked in every thread: block them before the engine's threads exist.
        ExitGuard.blockTerminationSignals()
        let loopback = StudioAccess.isLoopback(listen)
        var configuration = StudioServer.Configuration()
        configuration.host = listen
        configuration.port = port
        configuration.access = StudioAccess(loopbackOnly: loopback, token: loopback ? token : (token ?? StudioAccess.makeToken()))
        var logger = Logger(label: "haptic-studio")
        logger.logLevel = .notice
        let server: StudioServer
        do {
            let page = try StudioPage.load()
            let device = try StudioDevice.open(board: board, bus: bus, simulate: simulate)
            server = StudioServer(playback: StudioPlayback(device: device), page: page, configuration: configuration, logger: logger)
        } catch {
            FileHandle.standardError.write(Data("haptic-studio: \(error)\n".utf8))
            throw ExitCode(78)
        }
        let device = server.playback.device
        let token = configuration.access.token
        do {
            try await server.run { bound in
                let host = listen == "0.0.0.0" || listen == "::" ? ProcessInfo.processInfo.hostName : listen
                let shown = host.contains(":") ? "[\(host)]" : host
                let url = "http://\(shown):\(bound)/" + (token.map { "?token=\($0)" } ?? "")
                print("haptic-studio: \(url) playing on \(device.origin)\(device.isSimulated ? " (simulated chip: nothing moves)" : "")")
                if !loopback { print("haptic-studio: listening on \(listen); every request needs the token above") }
                fflush(nil)
            }
        } catch {
            FileHandle.standardError.write(Data("haptic-studio: cannot serve on \(listen):\(port): \(error)\n".utf8))
            _ = device.engine.shutdown()
            throw ExitCode(1)
        }
        let stopped = device.engine.shutdown()
        FileHandle.standardError.write(Data((stopped ? "haptic-studio: actuator stopped\n" : "haptic-studio: could not confirm the actuator stopped\n").utf8))
    }
}
