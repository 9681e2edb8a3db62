// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Audio
import ChipFamilies
import DRV2605
import FeedbackdDBus
import FirmwareLink
import Foundation
import HapticBoards
import HapticChip
import HapticEffects
import Haptics
import HapticsService
import HapticsSimulation
import HardwareAccess
import LinuxAudio
import LinuxHardware
import Logging
import ServiceLifecycle
import Synchronization

extension FeedbackProfile: ExpressibleByArgument {}
extension Importance: ExpressibleByArgument {}
extension DBusBusKind: ExpressibleByArgument {}
extension ActuatorType: ExpressibleByArgument {}

/// `hapticd`: the system haptics service. It owns the board's chip, so several programs (a
/// kiosk's UI, a notification daemon, a game, a shell script) share one actuator safely, with
/// priorities and profiles; they talk to it over a Unix socket (docs/service-protocol.md).
@main
struct Hapticd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hapticd",
        abstract: "The system haptics service: shares the board's actuator among programs over a Unix socket.",
        discussion: """
            Stops the actuator and exits 0 on SIGTERM or SIGINT. Under systemd (hapticd.service, Packaging/): Type=notify, \
            a watchdog fed while the engine answers, log lines with journal priorities; the unit runs `haptic stop` \
            after the daemon, so a daemon that was killed leaves no motor running. Clients: haptic <verb> --socket PATH, \
            or the protocol in docs/service-protocol.md.
            """,
        version: SwiftHaptics.version)

    @Option(help: "Board file (a path, or a name from Boards/). Default: $HAPTIC_BOARD or /etc/haptics/board.json when present, else a single breakout on /dev/i2c-1.") var board:
        String?
    @Option(help: "The I2C bus (a path or a number): of the single breakout without a board file (default /dev/i2c-1), else of the board's chips, as haptic's --bus.") var bus:
        String?
    @Option(
        help: ArgumentHelp(
            "Serve a vibrator Linux drives itself, through its force-feedback device: /dev/input/eventN, a /dev/input/by-path/ name, or auto (the one feedbackd would use); or serial:PORT, a microcontroller running the project's firmware (serial:/dev/ttyACM0).",
            valueName: "device"))
    var device: String?
    @Option(
        help:
            "With --device: the actuator's type (erm or lra), for the feedback table's shapes (default erm); with --device serial:, the typical one of that type is told to the firmware, at start and after each reset of the board (default: the firmware's own)."
    )
    var actuator: ActuatorType?
    @Flag(help: "Serve the simulated chip instead of the board.") var simulate = false
    @Option(help: "Where to listen (also HAPTICD_SOCKET).") var socket = ProcessInfo.processInfo.environment["HAPTICD_SOCKET"] ?? "/run/haptics/hapticd.sock"
    @Option(help: "The global profile at start (default: the one saved in the state directory, else full).") var profile: FeedbackProfile?
    @Option(
        help: ArgumentHelp(
            "Where the global and per-application profiles are kept across restarts.",
            discussion: "Default: $STATE_DIRECTORY (systemd's StateDirectory=), else /var/lib/haptics for root, ~/.local/state/haptics otherwise.",
            valueName: "directory"))
    var stateDirectory: String?
    @Option(help: "The strongest a feedbackd event or a Vibrate pattern drives the actuator, 0.0-1.0 (feedbackd's max-haptic-strength).")
    var maxHapticStrength = 1.0
    @Option(
        help: ArgumentHelp(
            "An application whose important hint may play an alarm or a call through a silencing profile (repeat it); without one, every application's.",
            valueName: "app-id"))
    var allowImportant: [String] = []
    @Option(help: "Clients served at once.") var maximumClients = 32
    @Flag(help: "Also offer a Linux force-feedback input device (uinput): SDL games, feedbackd and fftest play on the chip.")
    var forceFeedback = false
    @Option(help: "How much force feedback matters against socket clients.") var forceFeedbackImportance: Importance = .ui
    @Flag(help: "Log every request.") var verbose = false
    @Flag(help: "Print every bus transaction with the board's chip on standard error, as haptic --trace does.") var trace = false
    @Flag(help: "Play the themed sound of the feedback that has one (success, warning, error...) for clients whose profile is full.")
    var sound = false
    @Option(help: "With --sound: the ALSA PCM to play on.") var audioDevice = "default"
    @Option(help: "With --sound: the audio buffer in milliseconds (5-1000).") var audioLatency = 40
    @Option(
        help: ArgumentHelp(
            "Also serve feedbackd's D-Bus API (org.sigxcpu.Feedback) on this bus, for libfeedback's clients.",
            discussion: "The system bus needs the policy file org.sigxcpu.Feedback.conf (the package installs it in /usr/share/dbus-1/system.d; Packaging/)."))
    var dbus: DBusBusKind?
    @Option(
        help: ArgumentHelp(
            "A feedbackd theme deciding what each event plays, per profile: a file, or a name found as feedbackd finds it.",
            discussion: """
                A name is looked up in $XDG_CONFIG_HOME/feedbackd/themes, then (for `default`) the device tree's \
                compatible strings, then $XDG_DATA_DIRS/feedbackd/themes; parent-name chains are followed. Without \
                --theme: FEEDBACK_THEME's file when set, else hapticd's own event table. SIGHUP reloads it.
                """,
            valueName: "file-or-name"))
    var theme: String?

    func run() async throws {
        // Signals are taken by the service group through libdispatch, which needs them blocked in
        // every thread: block them before the engine's and the server's threads exist.
        ExitGuard.blockTerminationSignals()
        // SIGHUP reloads the theme, taken through libdispatch like the others: blocked in every thread.
        var hangUp = sigset_t()
        sigemptyset(&hangUp)
        sigaddset(&hangUp, SIGHUP)
        pthread_sigmask(SIG_BLOCK, &hangUp, nil)
        // Priorities the journal understands when systemd runs it; plain lines otherwise.
        LoggingSystem.bootstrap { JournalLogHandler(label: $0) }
        StandardChipFamilies.register()
        var logger = Logger(label: "hapticd")
        logger.logLevel = verbose ? .debug : .info
        // systemd's watchdog runs from the start: until the daemon serves (opening and calibrating
        // the chip can take longer than the interval, and every wait on the hardware there has a
        // deadline of its own) it is fed unconditionally; then by the engine's answers.
        let startupWatchdog = SystemdNotifier.startWatchdog { true }
        defer { startupWatchdog?.cancel() }
        let server: HapticServer
        var bridge: ForceFeedbackBridge?
        var feedbackd: FeedbackdService?
        var status = ""
        do {
            if device != nil, board != nil || bus != nil {
                throw ValidationError("--device names the vibrator: give it without --board or --bus")
            }
            let engine: HapticEngine
            let served: String
            if let port = device.flatMap(FirmwareDevice.port(inDevice:)) {
                // A microcontroller running the haptics firmware: its chip, this machine's engine.
                guard !simulate else { throw ValidationError("--device serial: is a microcontroller: give it without --simulate") }
                let line: LinuxSerialLine
                do {
                    line = try LinuxSerialLine(path: port)
                } catch {
                    throw FirmwareDeviceError.link(error)
                }
                let driver = try FirmwareChipDriver(
                    device: FirmwareDevice(line: line), actuator: try actuator.map { type throws(DRV2605Error) in try FirmwareActuator(.typical(type)) })
                engine = HapticEngine(firmware: driver, actuator: actuator ?? .erm, logger: logger)
                served = "\(driver.firmware.chip) on \(driver.firmware.board) (haptics firmware) at \(port)"
            } else {
                // The machine's board file ($HAPTIC_BOARD, /etc/haptics/board.json) when none is named,
                // as haptic takes it: the units' `haptic stop` must reach the chip the daemon drove.
                let named = board ?? BoardFile.defaultBoardPath()
                var file = try device.map { BoardFile.kernelVibrator(device: $0, actuator: actuator ?? .erm) } ?? BoardFile.named(named, orSingleOn: bus)
                // With a board file, --bus moves its chips, as it does for haptic.
                if device == nil, named != nil, let bus { for index in file.drivers.indices { file.drivers[index].bus = bus } }
                let hardware: any HardwareProvider =
                    simulate
                    ? try SimulatedHardware(board: file, clock: SystemClock.shared, keepsTrace: false)
                    : LinuxHardwareProvider()
                var boardOptions = HapticBoard.Options.firstChip(of: file, simulated: simulate)
                boardOptions.warn = { [logger] in logger.warning("\($0)") }
                boardOptions.inform = { [logger] in logger.notice("\($0)") }
                if trace { boardOptions.observer = { transaction in FileHandle.standardError.write(Data("  bus \(transaction)\n".utf8)) } }
                let opened = try Self.openWaiting(logger: logger) {
                    try HapticBoard.open(file, hardware: hardware, clock: SystemClock.shared, options: boardOptions)
                }
                engine = opened.engine
                served = opened.origin(of: opened.chips[0], simulated: simulate)
            }
            var options = HapticServer.Options()
            options.maximumClients = max(1, maximumClients)
            guard maxHapticStrength.isFinite, (0...1).contains(maxHapticStrength) else {
                throw ValidationError("--max-haptic-strength is 0.0 to 1.0, not \(maxHapticStrength)")
            }
            options.maximumHapticStrength = maxHapticStrength
            options.importantApps = allowImportant.isEmpty ? nil : Set(allowImportant)
            let store = ServiceProfileStore(path: (stateDirectory ?? ServiceProfileStore.stateDirectory()) + "/profiles.json")
            options.profileStore = store
            if sound {
                do {
                    var soundOptions = SoundEngine.Options()
                    soundOptions.threadSetup = { LinuxRealtime.preparePacingThread() }
                    let output = try ALSAOutput(device: audioDevice, latency: .milliseconds(Int64(min(max(audioLatency, 5), 1000))))
                    options.sounds = FeedbackSounds(engine: try SoundEngine(output: output, clock: SystemClock.shared, options: soundOptions))
                    logger.info("hapticd: themed sounds on \(audioDevice) for clients whose profile is full")
                } catch {
                    _ = engine.shutdown()
                    FileHandle.standardError.write(Data("hapticd: \(error)\n".utf8))
                    throw ExitCode(69)
                }
            }
            server = HapticServer(engine: engine, device: served, options: options, logger: logger)
            do {
                if let saved = try store.load() {
                    server.restoreProfiles(saved)
                    logger.info("hapticd: profiles from \(store.path): global \(saved.global.rawValue), \(saved.apps.count) application(s)")
                }
            } catch {
                logger.warning("hapticd: \(store.path) \(error.reason)")
            }
            if let profile { server.setGlobalProfile(profile) }
            do {
                if let loaded = try loadTheme() {
                    server.setTheme(loaded)
                    logger.info("hapticd: \(Self.summary(of: loaded))")
                    for warning in loaded.warnings { logger.warning("hapticd: theme \(loaded.name): \(warning)") }
                }
            } catch {
                _ = engine.shutdown()
                FileHandle.standardError.write(Data("hapticd: \(error)\n".utf8))
                throw ExitCode(78)
            }
            try FileManager.default.createDirectory(atPath: (socket as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            if forceFeedback {
                let device = try UInputForceFeedbackDevice()
                bridge = ForceFeedbackBridge(device: device, server: server, importance: forceFeedbackImportance, logger: logger)
                logger.info("hapticd: force feedback on \(device.eventNode ?? device.sysfsName) (\(device.name), \(device.effectsMaximum) effects)")
            }
            try server.start(socketPath: socket, passedSocket: SystemdNotifier.passedSocket(listeningAt: socket))
            if let dbus {
                do {
                    feedbackd = try FeedbackdService(server: server, bus: dbus, logger: logger) { _ in
                        // Its bus went away (the session ended): stop as on SIGTERM, then exit 69.
                        Hapticd.busLost.store(true, ordering: .releasing)
                        kill(getpid(), SIGTERM)
                    }
                } catch {
                    _ = server.stop()
                    FileHandle.standardError.write(Data("hapticd: \(error)\n".utf8))
                    throw ExitCode(69)
                }
                feedbackd?.start()
            }
            bridge?.start()
            status = "serving \(served) at \(socket)" + (dbus.map { " and \(FeedbackdService.busName) on the \($0.rawValue) bus" } ?? "")
        } catch let exit as ExitCode {
            throw exit
        } catch {
            FileHandle.standardError.write(Data("hapticd: \(error)\n".utf8))
            throw ExitCode(Hapticd.exitCode(for: error))
        }
        // SIGHUP: the theme read again; a theme that no longer loads leaves the old one in force.
        let reload = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        reload.setEventHandler { [self, server, logger] in
            do {
                guard let loaded = try loadTheme() else {
                    logger.info("hapticd: SIGHUP: no --theme or FEEDBACK_THEME to reload")
                    return
                }
                server.setTheme(loaded)
                logger.info("hapticd: reloaded \(Self.summary(of: loaded))")
            } catch {
                logger.error("hapticd: SIGHUP: \(error); the previous theme stays in force")
            }
        }
        reload.resume()
        defer { reload.cancel() }
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    .init(
                        service: DaemonService(server: server, status: status, logger: logger, startupWatchdog: startupWatchdog),
                        successTerminationBehavior: .gracefullyShutdownGroup)
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        try await group.run()
        SystemdNotifier.stopping()
        feedbackd?.stop()
        bridge?.stop()
        let stopped = server.stop()
        FileHandle.standardError.write(Data((stopped ? "hapticd: actuator stopped\n" : "hapticd: could not confirm the actuator stopped; see above\n").utf8))
        if !stopped { throw ExitCode(1) }
        if Hapticd.busLost.load(ordering: .acquiring) {
            FileHandle.standardError.write(Data("hapticd: its D-Bus bus went away: exiting (69), to be started again with the next bus\n".utf8))
            throw ExitCode(69)
        }
    }

    /// Set when the D-Bus bus hapticd serves on went away: the SIGTERM it sends itself then ends
    /// with exit 69 (EX_UNAVAILABLE), not 0.
    static let busLost = Atomic<Bool>(false)
}

extension Hapticd {
    /// The longest wait between two tries of a missing bus or chip: a device that appears is
    /// served within this and one opening.
    static let longestRetryWait = Duration.seconds(2)

    /// Opens the board with `open`, waiting while its bus or chip is missing (a bus that appears
    /// late at boot, I2C enabled after install, a board plugged in later): each try after a wait
    /// twice the last, up to `longestRetryWait`, said in the journal and in systemd's status line,
    /// with the unit's start timeout extended past the wait. SIGTERM or SIGINT while it opens or
    /// waits ends the daemon (exit 0: it drove nothing). Any other error is thrown at once.
    static func openWaiting(logger: Logger, _ open: () throws -> HapticBoard) throws -> HapticBoard {
        var wait = Duration.milliseconds(250)
        var tries = 0
        SystemdNotifier.catchTermination()
        defer { SystemdNotifier.releaseTermination() }
        while true {
            do {
                let board = try open()
                if SystemdNotifier.terminationCaught {
                    logger.info("hapticd: stopped while opening the chip")
                    throw ExitCode.success
                }
                if tries > 0 { logger.notice("hapticd: the chip answered after \(tries) retr\(tries == 1 ? "y" : "ies")") }
                return board
            } catch {
                guard let missing = missingDevice(error) else { throw error }
                tries += 1
                let text = "waiting for the chip: \(missing); trying again in \(wait)"
                if tries == 1 || tries % 10 == 0 { logger.warning("hapticd: \(text)") }
                SystemdNotifier.waiting(status: text, for: wait + .seconds(30))
                if SystemdNotifier.terminationRequested(within: wait) {
                    logger.info("hapticd: stopped while waiting for the chip")
                    throw ExitCode.success
                }
                wait = min(wait * 2, longestRetryWait)
            }
        }
    }

    /// What is missing, when `error` says a bus or chip is not there (yet): no such bus, or no
    /// acknowledge at the chip's address.
    static func missingDevice(_ error: any Error) -> String? {
        let bus: I2CError
        switch error {
        case let error as I2CError: bus = error
        case DRV2605Error.bus(let error): bus = error
        default: return nil
        }
        guard bus.kind == .noSuchBus || bus.kind == .noAcknowledge else { return nil }
        return "\(bus)"
    }

    /// 78 (EX_CONFIG) for what a setting says wrong (the board file, the calibration policy, a
    /// theme, a socket systemd passed that does not listen at `--socket`); 69 (EX_UNAVAILABLE) for
    /// what is not there (no bus, no chip, another chip than the board's, a GPIO line, the
    /// socket's folder), as `haptic` exits.
    static func exitCode(for error: any Error) -> Int32 {
        switch error {
        case is BoardFileError, is CalibrationRequiredError, is FeedbackdTheme.LoadError, is SocketActivationError: return 78
        default: return 69
        }
    }
}

extension Hapticd {
    /// The theme `--theme` names (a file or a name), else `FEEDBACK_THEME`'s, else none.
    func loadTheme() throws(FeedbackdTheme.LoadError) -> FeedbackdTheme? {
        let locator = FeedbackdThemeLocator()
        if let theme { return try locator.load(theme) }
        return try locator.environmentTheme()
    }

    /// One line on a loaded theme: its name and files, its events per part, what it leaves out.
    static func summary(of theme: FeedbackdTheme) -> String {
        let parts = FeedbackProfile.allCases.map { "\($0.rawValue) \(theme.parts[$0]?.count ?? 0)" }.joined(separator: ", ")
        return "theme \(theme.name) from \(theme.files.joined(separator: " over ")): feedbacks for \(parts) event(s)"
            + (theme.skipped.isEmpty ? "" : "; not played here: \(theme.skipped.count) LED entr\(theme.skipped.count == 1 ? "y" : "ies")")
    }
}

/// The server as a service of the group: it runs until the group shuts down gracefully.
///
/// Ready is said here, once the group handles SIGTERM and SIGINT: systemd may stop a service as soon
/// as it is ready, and a signal that came earlier would end the process without stopping the chip.
struct DaemonService: Service {
    let server: HapticServer
    let status: String
    let logger: Logger
    /// The start-up's unconditional pings, ended once the engine's answers feed the watchdog.
    let startupWatchdog: WatchdogPings?

    func run() async throws {
        SystemdNotifier.ready(status: status)
        logger.info("hapticd: ready (\(status))")
        // The watchdog is fed while the engine answers (its lock is free within the interval).
        let engine = server.engine
        let watchdog = SystemdNotifier.startWatchdog {
            _ = engine.powerState
            // The chip's dead-man guard hears it too: without a heartbeat for a second it takes
            // the daemon for hung and stops the chip, before systemd's watchdog kills it.
            DeadManGuard.heartbeat()
            return true
        }
        startupWatchdog?.cancel()
        try? await gracefulShutdown()
        watchdog?.cancel()
        server.stop()
    }
}
