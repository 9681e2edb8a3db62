import DRV2605
import DRV2605Simulator
import Dispatch
import Foundation
import HardwareAccess
import Haptics
import LinuxHardware
import Logging

/// The chip a verb talks to: the board through /dev/i2c-N, or the simulated DRV2605L.
final class DeviceSession {
    let engine: HapticEngine
    let clock: any HapticClock
    let simulator: SimulatedDRV2605?
    /// One line for people: where this runs ("simulated DRV2605L, no I2C bus found", …).
    let origin: String
    let options: GlobalOptions
    private var signalSources: [any DispatchSourceSignal] = []

    init(_ options: GlobalOptions, engineOptions: HapticEngine.Options = .init()) throws {
        self.options = options
        guard let actuator = ActuatorType(rawValue: options.actuator.lowercased()) else {
            throw CLIError("--actuator must be lra or erm, not '\(options.actuator)'", exitCode: CLIError.usage)
        }
        guard let addressValue = Int(options.address.lowercased().replacingOccurrences(of: "0x", with: ""), radix: 16),
              let address = I2CAddress(addressValue) else {
            throw CLIError("--address must be a 7-bit address such as 0x5A, not '\(options.address)'", exitCode: CLIError.usage)
        }
        let configuration = try Self.configuration(for: actuator)
        var engineOptions = engineOptions
        engineOptions.policy = (try? HapticsPolicy.load()) ?? HapticsPolicy()
        let trace: ((BusTransaction) -> Void)? = options.trace ? { transaction in print("  bus \(transaction)") } : nil
        var logger = Logger(label: "haptic")
        logger.logLevel = .notice

        let defaultBus = "/dev/i2c-1"
        let noBoard = options.bus == nil && !FileManager.default.fileExists(atPath: defaultBus)
            && !((try? FileManager.default.contentsOfDirectory(atPath: "/dev"))?.contains { $0.hasPrefix("i2c-") } ?? false)
        if options.simulate || noBoard {
            guard let part = Part(name: options.simulatedPart) else {
                throw CLIError("--simulated-part must be drv2605l, drv2605, drv2604l or drv2604", exitCode: CLIError.usage)
            }
            let clock: any HapticClock = options.virtualTime ? VirtualClock() : SystemClock.shared
            var simulatorOptions = SimulatedDRV2605.Options()
            simulatorOptions.part = part
            let chip = SimulatedDRV2605(clock: clock, actuator: SimulatedActuator(type: actuator), options: simulatorOptions)
            chip.keepsTrace = false
            self.clock = clock
            simulator = chip
            origin = "simulated \(part) with an \(actuator)" + (noBoard && !options.simulate ? " (no I2C bus found on this machine)" : "")
                + (options.virtualTime ? ", virtual time" : "")
            engine = try HapticEngine(bus: chip, address: address, configuration: configuration, clock: clock,
                                      options: engineOptions, logger: logger, observer: trace)
        } else {
            let path = LinuxI2CBus.resolvePath(options.bus ?? defaultBus)
            let bus = try LinuxI2CBus(path)
            clock = SystemClock.shared
            simulator = nil
            engine = try HapticEngine(bus: bus, address: address, configuration: configuration, clock: clock,
                                      options: engineOptions, logger: logger, observer: trace)
            origin = "\(engine.capabilities.part) at \(address) on \(path)"
        }
        installSignalHandlers()
    }

    /// A configuration for the typical actuators of the supported breakouts, until board files
    /// say what is really wired (a 2.0 Vrms, 175 Hz coin LRA; a 3 V ERM).
    static func configuration(for actuator: ActuatorType) throws -> DRV2605Configuration {
        switch actuator {
        case .lra: return try DRV2605Configuration(.lra(ratedVrms: 2.0, maximumVrms: 2.5, resonantHz: 175))
        case .erm: return try DRV2605Configuration(.erm(ratedVolts: 3.0, maximumVolts: 3.6), library: .ermB)
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
