import DRV2605
import DRV2605Simulator
import Dispatch
import Foundation
import HardwareAccess
import HardwareAccessTesting
import Haptics
import LinuxHardware
import Logging

/// The chip a verb talks to — the board through /dev/i2c-N, or the simulated DRV2605L — set up
/// from a board file when one is given; with `allDrivers`, every chip of the board as a group.
final class DeviceSession {
    /// The selected chip's engine (the board's first driver, or `--driver`).
    let engine: HapticEngine
    /// Every opened chip, by name (one unless `allDrivers`).
    let engines: [(name: String, engine: HapticEngine)]
    /// The opened chips as a group; with them all behind one TCA9548A, triggers are broadcast.
    let group: HapticGroup
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

    init(_ options: GlobalOptions, engineOptions: HapticEngine.Options = .init(), allDrivers: Bool = false) throws {
        self.options = options
        // The board file, the chip on it and the actuator.
        let boardPath = try options.board.map { name throws -> String in try BoardFile.locate(name) } ?? BoardFile.defaultBoardPath()
        board = try boardPath.map { path throws -> BoardFile in try BoardFile.load(path) }
        var actuatorSpecification: ActuatorSpecification
        var configuration: DRV2605Configuration
        var selected: BoardFile.Driver?
        if let board {
            if let wanted = options.driver {
                selected = board.drivers.first { $0.name == wanted }
                guard selected != nil else {
                    throw CLIError("board \(board.name) has no driver '\(wanted)' (it has: \(board.drivers.map(\.name).joined(separator: ", ")))", exitCode: CLIError.usage)
                }
            } else {
                selected = board.drivers.first
            }
            let preset = try board.actuator(named: options.actuator)
            actuatorSpecification = preset.specification
            configuration = try board.configuration(actuator: preset.name)
        } else {
            guard let type = ActuatorType(rawValue: (options.actuator ?? "lra").lowercased()) else {
                throw CLIError("--actuator must be lra or erm without a board file, not '\(options.actuator ?? "")'", exitCode: CLIError.usage)
            }
            actuatorSpecification = ActuatorSpecification.typical(type)
            configuration = try DRV2605Configuration(actuatorSpecification, library: type == .erm ? .ermB : nil)
        }
        boardDriver = selected
        self.actuatorSpecification = actuatorSpecification
        var addressOverride: I2CAddress?
        if options.address.lowercased() != "0x5a" || selected == nil {
            guard let value = Int(options.address.lowercased().replacingOccurrences(of: "0x", with: ""), radix: 16),
                  let parsed = I2CAddress(value) else {
                throw CLIError("--address must be a 7-bit address such as 0x5A, not '\(options.address)'", exitCode: CLIError.usage)
            }
            addressOverride = parsed
        }

        var engineOptions = engineOptions
        engineOptions.mapping = board?.mapping(for: configuration.actuator)
        let trace: ((BusTransaction) -> Void)? = options.trace ? { transaction in print("  bus \(transaction)") } : nil
        var logger = Logger(label: "haptic")
        logger.logLevel = .notice

        let defaultBus = selected?.bus ?? "/dev/i2c-1"
        let busGiven = options.bus != nil || board != nil
        let noBoard = !busGiven && !FileManager.default.fileExists(atPath: defaultBus)
            && !((try? FileManager.default.contentsOfDirectory(atPath: "/dev"))?.contains { $0.hasPrefix("i2c-") } ?? false)
        let simulate = options.simulate || noBoard
        let clock: any HapticClock = simulate && options.virtualTime ? VirtualClock() : SystemClock.shared
        self.clock = clock
        let simulatedPart = options.simulatedPart?.part ?? selected?.part ?? .drv2605L

        // The chips to open: the selected one, or every driver of the board.
        let drivers: [BoardFile.Driver?] = allDrivers && board != nil ? (board?.drivers ?? []).map { $0 } : [selected]
        var linuxBuses: [String: LinuxI2CBus] = [:]
        var linuxMuxes: [String: TCA9548A<AnyI2CBus>] = [:]
        var simulatedMuxes: [String: SimulatedTCA9548A] = [:]
        var simulatedMuxFronts: [String: TCA9548A<AnyI2CBus>] = [:]
        var opened: [(name: String, engine: HapticEngine, simulator: SimulatedDRV2605?, key: String, source: String, configuration: DRV2605Configuration)] = []
        for driver in drivers {
            let address = addressOverride ?? driver?.address ?? .drv2605
            let busPath = LinuxI2CBus.resolvePath(options.bus ?? driver?.bus ?? defaultBus)
            // Saved calibration for this chip and actuator.
            let key = CalibrationStore.key(bus: simulate ? "simulated:\(busPath)" : busPath, address: address,
                                           mux: driver?.mux, actuator: actuatorSpecification)
            var chipConfiguration = configuration
            let (record, warning) = calibrationStore.lookup(key: key, configuration: chipConfiguration)
            if let warning { FileHandle.standardError.write(Data("haptic: \(warning)\n".utf8)) }
            var source = "none saved: chip defaults (run 'haptic calibrate')"
            if let record {
                chipConfiguration.calibration = record.values
                source = "restored from \(calibrationStore.path) (calibrated \(ISO8601DateFormatter().string(from: record.calibratedAt)))"
            }
            let bus: any I2CBus
            var enableLine: (any GPIOOutputLine)?
            var triggerLine: (any GPIOOutputLine)?
            var chip: SimulatedDRV2605?
            if simulate {
                var simulatorOptions = SimulatedDRV2605.Options()
                simulatorOptions.part = simulatedPart
                simulatorOptions.address = address
                var actuator = SimulatedActuator(type: configuration.actuator)
                if case let .lra(_, _, hz) = actuatorSpecification { actuator.resonantHz = hz }
                actuator.supplyVolts = board?.supplyVolts ?? 5.0
                let simulated = SimulatedDRV2605(clock: clock, actuator: actuator, options: simulatorOptions)
                simulated.keepsTrace = false
                if let mux = driver?.mux {
                    let muxKey = "\(busPath)@\(mux.address)"
                    let switchChip = simulatedMuxes[muxKey] ?? SimulatedTCA9548A(address: mux.address)
                    simulatedMuxes[muxKey] = switchChip
                    switchChip.attach(simulated, channel: mux.channel)
                    let front = simulatedMuxFronts[muxKey] ?? TCA9548A(parent: AnyI2CBus(switchChip), address: mux.address)
                    simulatedMuxFronts[muxKey] = front
                    bus = front.channel(mux.channel) ?? switchChip
                } else {
                    bus = simulated
                }
                if driver?.enable != nil { enableLine = simulated.makeEnableLine() }
                if driver?.trigger != nil { triggerLine = simulated.makeTriggerLine() }
                chip = simulated
            } else {
                let linuxBus = try linuxBuses[busPath] ?? LinuxI2CBus(busPath)
                linuxBuses[busPath] = linuxBus
                if let mux = driver?.mux {
                    let muxKey = "\(busPath)@\(mux.address)"
                    let front = linuxMuxes[muxKey] ?? TCA9548A(parent: AnyI2CBus(linuxBus), address: mux.address)
                    linuxMuxes[muxKey] = front
                    bus = front.channel(mux.channel) ?? linuxBus
                } else {
                    bus = linuxBus
                }
                if let line = driver?.enable {
                    enableLine = try LinuxGPIOLine(chip: line.chip, line: line.lineName.map { .name($0) } ?? .offset(line.offset ?? 0),
                                                   consumer: "haptic EN \(driver?.name ?? "")", initial: false)
                }
                if let line = driver?.trigger {
                    triggerLine = try LinuxGPIOLine(chip: line.chip, line: line.lineName.map { .name($0) } ?? .offset(line.offset ?? 0),
                                                    consumer: "haptic IN/TRIG \(driver?.name ?? "")", initial: false)
                }
            }
            var chipOptions = engineOptions
            chipOptions.driver.triggerPinMode = driver?.triggerMode ?? .edge
            let engine = try HapticEngine(bus: bus, address: address, configuration: chipConfiguration, enableLine: enableLine,
                                          triggerLine: triggerLine, clock: clock, options: chipOptions, logger: logger, observer: trace)
            if let expected = driver?.part, !simulate, engine.capabilities.part != expected {
                FileHandle.standardError.write(Data("haptic: the board file expects a \(expected) for \(driver?.name ?? "the chip") but found a \(engine.capabilities.part)\n".utf8))
            }
            opened.append((driver?.name ?? "main", engine, chip, key, source, chipConfiguration))
        }
        guard let primary = opened.first(where: { $0.name == (selected?.name ?? "main") }) ?? opened.first else {
            throw CLIError("the board file lists no drivers", exitCode: CLIError.dataError)
        }
        engine = primary.engine
        engines = opened.map { ($0.name, $0.engine) }
        simulator = primary.simulator
        calibrationKey = primary.key
        calibrationSource = primary.source
        self.configuration = primary.configuration
        // All chips behind one switch: one GO write through every channel at once.
        let muxes = simulate ? Array(simulatedMuxFronts.values) : Array(linuxMuxes.values)
        let onOneMux = opened.count > 1 && muxes.count == 1 && drivers.allSatisfy { $0?.mux != nil }
            && Set(drivers.compactMap { $0.map { LinuxI2CBus.resolvePath(options.bus ?? $0.bus) } }).count == 1
        if onOneMux, let mux = muxes.first {
            let mask = drivers.compactMap { $0?.mux?.channel }.reduce(UInt8(0)) { $0 | (UInt8(1) << UInt8($1)) }
            let target = addressOverride ?? .drv2605
            group = HapticGroup(engines: opened.map(\.engine), clock: clock) { try mux.broadcast(to: target, Register.go.write(1), mask: mask) }
        } else {
            group = HapticGroup(engines: opened.map(\.engine), clock: clock)
        }
        let place: String
        if simulate {
            place = "simulated \(simulatedPart) with an \(configuration.actuator)"
                + (noBoard && !options.simulate ? " (no I2C bus found on this machine)" : "")
        } else {
            let address = addressOverride ?? selected?.address ?? .drv2605
            place = "\(address) on \(LinuxI2CBus.resolvePath(options.bus ?? defaultBus))"
                + (selected?.mux.map { " via TCA9548A \($0.address) channel \($0.channel)" } ?? "")
        }
        origin = place + (board.map { " (board \($0.name)" + (opened.count > 1 ? ", \(opened.count) chips" : "") + ")" } ?? "")
            + (simulate && options.virtualTime ? ", virtual time" : "")
    }

    /// Prints the one line saying where this runs (not in JSON mode).
    func announce() {
        if !options.json { print("haptic: \(origin)") }
    }

    /// Leaves the chip stopped and asleep.
    func finish() {
        for (_, engine) in engines {
            engine.waitUntilIdle()
            engine.stop()
            engine.runDueWork()
        }
    }

    /// The final chip state, read from the registers.
    func finalState() throws -> [String: Any] {
        let bytes = try engine.withDriver { try $0.dumpRegisters() }
        let mode = ModeRegister(rawValue: bytes[1])
        return ["standby": mode.standby, "go": bytes[0x0C] & 1 != 0, "rtp": Int(bytes[0x02]), "mode": mode.mode.description]
    }

    func printJSON(_ object: [String: Any]) {
        var object = object
        let totals = engines.map(\.engine.statistics.bus).reduce(into: BusCounters()) { total, counters in
            total.transactions += counters.transactions
            total.wireBytes += counters.wireBytes
            total.errors += counters.errors
        }
        object["bus"] = ["transactions": totals.transactions, "bytes": totals.wireBytes, "errors": totals.errors]
        if engines.count > 1 { object["chips"] = engines.map(\.name) }
        object["device"] = origin
        if let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]),
           let text = String(data: data, encoding: .utf8) {
            print(text)
        }
    }
}
