import DRV2605
import DRV2605Simulator
import Dispatch
import Foundation
import HardwareAccess
import Haptics
import LinuxHardware
import Logging

/// The chip a verb talks to: the board through /dev/i2c-N, or the simulated DRV2605L, set up from
/// a board file when one is given.
final class DeviceSession {
    let engine: HapticEngine
    let clock: any HapticClock
    let simulator: SimulatedDRV2605?
    /// One line for people: where this runs ("simulated DRV2605L, no I2C bus found", …).
    let origin: String
    let options: GlobalOptions
    let board: BoardFile?
    let boardDriver: BoardFile.Driver?
    let configuration: DRV2605Configuration
    let actuatorSpecification: ActuatorSpecification
    /// The key saved calibrations are filed under for this chip and actuator.
    let calibrationKey: String
    let calibrationStore = CalibrationStore()
    /// Where the calibration in use came from, for `status`.
    let calibrationSource: String
    private var signalSources: [any DispatchSourceSignal] = []

    init(_ options: GlobalOptions, engineOptions: HapticEngine.Options = .init()) throws {
        self.options = options
        // The board file, the chip on it and the actuator.
        let boardPath = try options.board.map { name throws -> String in try BoardFile.locate(name) } ?? BoardFile.defaultBoardPath()
        board = try boardPath.map { path throws -> BoardFile in try BoardFile.load(path) }
        var actuatorSpecification: ActuatorSpecification
        var configuration: DRV2605Configuration
        if let board {
            let driver: BoardFile.Driver?
            if let wanted = options.driver {
                driver = board.drivers.first { $0.name == wanted }
                guard driver != nil else {
                    throw CLIError("board \(board.name) has no driver '\(wanted)' (it has: \(board.drivers.map(\.name).joined(separator: ", ")))", exitCode: CLIError.usage)
                }
            } else {
                driver = board.drivers.first
            }
            boardDriver = driver
            let preset = try board.actuator(named: options.actuator)
            actuatorSpecification = preset.specification
            configuration = try board.configuration(actuator: preset.name)
        } else {
            boardDriver = nil
            guard let type = ActuatorType(rawValue: (options.actuator ?? "lra").lowercased()) else {
                throw CLIError("--actuator must be lra or erm without a board file, not '\(options.actuator ?? "")'", exitCode: CLIError.usage)
            }
            actuatorSpecification = Self.typicalActuator(type)
            configuration = try DRV2605Configuration(actuatorSpecification, library: type == .erm ? .ermB : nil)
        }
        self.actuatorSpecification = actuatorSpecification
        var address = boardDriver?.address ?? .drv2605
        if options.address.lowercased() != "0x5a" || boardDriver == nil {
            guard let value = Int(options.address.lowercased().replacingOccurrences(of: "0x", with: ""), radix: 16),
                  let parsed = I2CAddress(value) else {
                throw CLIError("--address must be a 7-bit address such as 0x5A, not '\(options.address)'", exitCode: CLIError.usage)
            }
            address = parsed
        }

        var engineOptions = engineOptions
        engineOptions.policy = (try? HapticsPolicy.load()) ?? HapticsPolicy()
        engineOptions.mapping = board?.mapping(for: configuration.actuator)
        let trace: ((BusTransaction) -> Void)? = options.trace ? { transaction in print("  bus \(transaction)") } : nil
        var logger = Logger(label: "haptic")
        logger.logLevel = .notice

        let defaultBus = boardDriver?.bus ?? "/dev/i2c-1"
        let busGiven = options.bus != nil || board != nil
        let noBoard = !busGiven && !FileManager.default.fileExists(atPath: defaultBus)
            && !((try? FileManager.default.contentsOfDirectory(atPath: "/dev"))?.contains { $0.hasPrefix("i2c-") } ?? false)
        let simulate = options.simulate || noBoard
        let busPath = LinuxI2CBus.resolvePath(options.bus ?? defaultBus)

        // Saved calibration for this chip and actuator.
        calibrationKey = CalibrationStore.key(bus: simulate ? "simulated:\(busPath)" : busPath, address: address,
                                              mux: boardDriver?.mux, actuator: actuatorSpecification)
        let (record, warning) = calibrationStore.lookup(key: calibrationKey, configuration: configuration)
        if let warning { FileHandle.standardError.write(Data("haptic: \(warning)\n".utf8)) }
        if let record {
            configuration.calibration = record.values
            calibrationSource = "restored from \(calibrationStore.path) (calibrated \(ISO8601DateFormatter().string(from: record.calibratedAt)))"
        } else {
            calibrationSource = "none saved: chip defaults (run 'haptic calibrate')"
        }
        self.configuration = configuration

        let bus: any I2CBus
        var enableLine: (any GPIOOutputLine)?
        var triggerLine: (any GPIOOutputLine)?
        if simulate {
            let partName = options.simulatedPart == "drv2605l" ? (boardDriver?.part?.description ?? "drv2605l") : options.simulatedPart
            guard let part = Part(name: partName) else {
                throw CLIError("--simulated-part must be drv2605l, drv2605, drv2604l or drv2604", exitCode: CLIError.usage)
            }
            let clock: any HapticClock = options.virtualTime ? VirtualClock() : SystemClock.shared
            var simulatorOptions = SimulatedDRV2605.Options()
            simulatorOptions.part = part
            simulatorOptions.address = address
            var actuator = SimulatedActuator(type: configuration.actuator)
            if case let .lra(_, _, hz) = actuatorSpecification { actuator.resonantHz = hz }
            actuator.supplyVolts = board?.supplyVolts ?? 5.0
            let chip = SimulatedDRV2605(clock: clock, actuator: actuator, options: simulatorOptions)
            chip.keepsTrace = false
            if let mux = boardDriver?.mux {
                let switchChip = SimulatedTCA9548A(address: mux.address)
                switchChip.attach(chip, channel: mux.channel)
                bus = TCA9548A(parent: switchChip, address: mux.address).channel(mux.channel) ?? switchChip
            } else {
                bus = chip
            }
            if boardDriver?.enable != nil { enableLine = chip.makeEnableLine() }
            if boardDriver?.trigger != nil { triggerLine = chip.makeTriggerLine() }
            self.clock = clock
            simulator = chip
            origin = "simulated \(part) with an \(configuration.actuator)" + (board.map { " (board \($0.name))" } ?? "")
                + (noBoard && !options.simulate ? " (no I2C bus found on this machine)" : "")
                + (options.virtualTime ? ", virtual time" : "")
        } else {
            let linuxBus = try LinuxI2CBus(busPath)
            if let mux = boardDriver?.mux {
                bus = TCA9548A(parent: linuxBus, address: mux.address).channel(mux.channel) ?? linuxBus
            } else {
                bus = linuxBus
            }
            if let line = boardDriver?.enable {
                enableLine = try LinuxGPIOLine(chip: line.chip, line: line.lineName.map { .name($0) } ?? .offset(line.offset ?? 0),
                                               consumer: "haptic EN", initial: false)
            }
            if let line = boardDriver?.trigger {
                triggerLine = try LinuxGPIOLine(chip: line.chip, line: line.lineName.map { .name($0) } ?? .offset(line.offset ?? 0),
                                                consumer: "haptic IN/TRIG", initial: false)
            }
            clock = SystemClock.shared
            simulator = nil
            origin = "\(address) on \(busPath)" + (boardDriver?.mux.map { " via TCA9548A \($0.address) channel \($0.channel)" } ?? "")
                + (board.map { " (board \($0.name))" } ?? "")
        }
        engine = try HapticEngine(bus: bus, address: address, configuration: configuration, enableLine: enableLine,
                                  triggerLine: triggerLine, clock: clock, options: engineOptions, logger: logger, observer: trace)
        if let expected = boardDriver?.part, !simulate, engine.capabilities.part != expected {
            FileHandle.standardError.write(Data("haptic: the board file expects a \(expected) but the chip is a \(engine.capabilities.part)\n".utf8))
        }
        installSignalHandlers()
    }

    /// The typical actuators of the supported breakouts, when no board file says what is wired:
    /// a 2.0 Vrms (2.5 Vrms maximum), 175 Hz coin LRA, or a 3 V (3.6 V maximum) ERM.
    static func typicalActuator(_ type: ActuatorType) -> ActuatorSpecification {
        switch type {
        case .lra: return .lra(ratedVrms: 2.0, maximumVrms: 2.5, resonantHz: 175)
        case .erm: return .erm(ratedVolts: 3.0, maximumVolts: 3.6)
        }
    }

    /// SIGINT and SIGTERM stop the actuator and put the chip to sleep before the process exits.
    private func installSignalHandlers() {
        let engine = self.engine
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                engine.shutdown()
                FileHandle.standardError.write(Data("haptic: interrupted; actuator stopped\n".utf8))
                exit(130)
            }
            source.resume()
            signalSources.append(source)
        }
    }

    /// Prints the one line saying where this runs (not in JSON mode).
    func announce() {
        if !options.json { print("haptic: \(origin)") }
    }

    /// Leaves the chip stopped and asleep.
    func finish() {
        engine.waitUntilIdle()
        engine.stop()
        engine.runDueWork()
    }

    /// The final chip state, read from the registers.
    func finalState() throws -> [String: Any] {
        let bytes = try engine.withDriver { try $0.dumpRegisters() }
        let mode = ModeRegister(rawValue: bytes[1])
        return ["standby": mode.standby, "go": bytes[0x0C] & 1 != 0, "rtp": Int(bytes[0x02]), "mode": mode.mode.description]
    }

    func printJSON(_ object: [String: Any]) {
        var object = object
        let stats = engine.statistics
        object["bus"] = ["transactions": stats.bus.transactions, "bytes": stats.bus.wireBytes, "errors": stats.bus.errors]
        object["device"] = origin
        if let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]),
           let text = String(data: data, encoding: .utf8) {
            print(text)
        }
    }
}
