// SPDX-License-Identifier: Apache-2.0

import DRV2605
import Foundation
import HapticChip
import HapticEffects
import Haptics
import HardwareAccess
import Logging

/// A board file turned into working hardware: one engine per chip, each with its saved
/// calibration restored, the chips behind a TCA9548A sharing one switch, and a group that triggers
/// them together (one GO write broadcast through every channel when they share a switch). The
/// buses and lines come from a `HardwareProvider`, so the same file opens on the Pi, on simulated
/// chips, and in tests:
///
///     let board = try HapticBoard.open(try BoardFile.load("Boards/adafruit-drv2605l.json"), hardware: LinuxHardwareProvider())
///     board.engine.play(.success)
public final class HapticBoard {
    /// One opened chip.
    public struct Chip {
        /// The driver's name in the board file.
        public let name: String
        public let engine: HapticEngine
        /// What was written at start-up to a DRV2605, the restored calibration included (nil
        /// for a chip of another family).
        public let configuration: DRV2605Configuration?
        /// What the chip drives.
        public var actuator: ActuatorType { engine.capabilities.actuator }
        /// The key its calibration is saved under (bus, address, multiplexer channel, actuator).
        public let calibrationKey: String
        /// Where its calibration came from, for people: "restored from ... (calibrated ...)" or why not.
        public let calibrationSource: String
        /// A kernel vibrator's force-feedback device as opened (`auto` resolved); nil for a chip on I2C.
        public var device: String? = nil
    }

    /// What to open and how.
    public struct Options {
        /// The actuator preset (nil: the file's default).
        public var actuator: String?
        /// The drivers to open, by name (nil: all of them, in the file's order).
        public var drivers: [String]?
        /// Options for every engine (each driver's IN/TRIG mode is set from the file).
        public var engine = HapticEngine.Options()
        /// Where calibrations are restored from (nil: none restored).
        public var calibrations: CalibrationStore? = CalibrationStore()
        /// Put before the bus in calibration keys, so simulated chips never use a real chip's
        /// calibration ("simulated:").
        public var calibrationNamespace = ""
        public var logger = Logger(label: "haptics")
        /// Every bus transaction of every chip (a CLI's `--trace`).
        public var observer: ((BusTransaction) -> Void)?
        /// A DA7280's feedback table is written into the chip's waveform memory at start-up and
        /// its short feedbacks play from there on one trigger; false leaves the memory alone and
        /// streams every feedback.
        public var usesChipMemory = true
        /// Problems that do not stop the opening (a corrupt calibration file, an unexpected part,
        /// a start-up calibration that failed).
        public var warn: (String) -> Void = { _ in }
        /// What start-up does about auto-calibration, for every chip (nil: each driver's
        /// `calibration` in the board file, `auto` unless it says otherwise).
        public var calibrationPolicy: CalibrationPolicy?
        /// What people should hear of once, not a problem: a calibration made at start-up.
        public var inform: (String) -> Void = { _ in }
        /// `false` opens the chips as they are, without the policy's start-up calibration or
        /// refusal: for a program that calibrates or diagnoses the chip itself (`haptic calibrate`).
        public var appliesCalibrationPolicy = true
        /// All drivers, the default actuator, calibrations from the default store.
        public init() {}
    }

    /// The board file it was opened from.
    public let file: BoardFile
    /// The actuator preset in use.
    public let actuator: BoardFile.Actuator
    /// The opened chips, in the order asked for.
    public let chips: [Chip]
    /// All opened chips as one group.
    public let group: HapticGroup

    /// The first opened chip's engine: the board's only one, or the one asked for first.
    public var engine: HapticEngine { chips[0].engine }

    /// The totals of what every chip's engine sees on its own bus (a chip behind a switch sees
    /// its channel's traffic only).
    private let directTraffic: @Sendable () -> BusCounters
    /// The totals on each switch's side of the bus.
    private let switchTraffic: [TCA9548A]
    /// The chips this program holds (`HardwareProvider.claim`): their locks and dead-man guards,
    /// given up when the board and its engines go (each engine holds its own chip's too).
    private let ownerships: [any ChipOwnership]

    /// Everything the board's chips and switches put on the bus so far, each transaction once:
    /// the chips' own traffic, and on a switch's side its channel selections and broadcast
    /// triggers with the traffic of the chips behind it.
    public var busTraffic: BusCounters {
        switchTraffic.reduce(directTraffic()) { total, front in
            total + front.withParent { ($0 as? MonitoredBus)?.counters ?? BusCounters() }
        }
    }

    private init(
        file: BoardFile, actuator: BoardFile.Actuator, chips: [Chip], group: HapticGroup, switches: [TCA9548A],
        ownerships: [any ChipOwnership], direct: @escaping @Sendable () -> BusCounters
    ) {
        self.ownerships = ownerships
        self.file = file
        self.actuator = actuator
        self.chips = chips
        self.group = group
        switchTraffic = switches
        directTraffic = direct
    }

    /// Opens the board's chips on `hardware`: buses and lines requested, every chip started and
    /// configured. Throws the first error with what to check (a bus that does not exist, a chip
    /// that does not answer, a line another program holds).
    public static func open(
        _ file: BoardFile, hardware: any HardwareProvider, clock: any HapticClock = SystemClock.shared,
        options: Options = Options()
    ) throws -> HapticBoard {
        let preset = try file.actuator(named: options.actuator)
        let drivesDRV2605 = file.drivers.contains { $0.family == .drv2605 && (options.drivers?.contains($0.name) ?? true) }
        // DRV2605 register values are only computed (and their limits checked) for a board that has one.
        let configuration = drivesDRV2605 ? try file.configuration(actuator: preset.name) : DRV2605Configuration(actuator: preset.specification.type)
        let drivers = try (options.drivers ?? file.drivers.map(\.name)).map { name throws(BoardFileError) -> BoardFile.Driver in
            guard let driver = file.drivers.first(where: { $0.name == name }) else {
                throw BoardFileError(
                    file: file.path, field: "drivers", problem: "has no driver '\(name)'",
                    allowed: file.drivers.map(\.name).joined(separator: ", "))
            }
            return driver
        }
        guard !drivers.isEmpty else { throw BoardFileError(file: file.path, field: "drivers", problem: "lists no drivers") }
        var engineOptions = options.engine
        engineOptions.mapping = file.mapping(for: preset.specification.type)
        var switches: [String: TCA9548A] = [:]
        // Each switch's side of the bus, counted and traced whole: its channel selections and the
        // triggers broadcast through it are bus traffic too (the chips' own engines see only
        // their channel's).
        var switchBuses: [String: MonitoredBus] = [:]
        var chips: [Chip] = []
        var ownerships: [any ChipOwnership] = []
        for driver in drivers {
            if driver.family == .kernelVibrator, let device = driver.device {
                let output = try hardware.forceFeedbackOutput(at: device)
                let engine = try HapticEngine(
                    kernelVibrator: output, actuator: preset.specification.type, clock: clock, options: engineOptions, logger: options.logger)
                chips.append(
                    Chip(
                        name: driver.name, engine: engine, configuration: nil, calibrationKey: "device=\(output.path)",
                        calibrationSource: "none needed: Linux's driver configures its chip", device: output.path))
                continue
            }
            let busPath = I2CBusPath.resolve(driver.bus)
            let key = CalibrationStore.key(
                bus: options.calibrationNamespace + busPath, address: driver.address,
                mux: driver.mux, actuator: preset.specification)
            let policy = options.calibrationPolicy ?? driver.calibration
            var chipConfiguration = configuration
            if policy == .openLoop { chipConfiguration.loop = .open }
            var source = policy == .openLoop ? "none: open loop (calibration policy open-loop)" : "none saved"
            if policy != .openLoop, let store = options.calibrations {
                let (record, warning) = store.lookup(key: key, configuration: chipConfiguration)
                if let warning { options.warn(warning) }
                if let record {
                    chipConfiguration.calibration = record.values
                    source = "restored from \(store.path) (calibrated \(ISO8601DateFormatter().string(from: record.calibratedAt)))"
                }
            }
            let base = try hardware.bus(at: busPath)
            // One owner per chip, and a guard that stops it should this program die driving it.
            let stopWrites = driver.family == .drv2605 ? DRV2605Driver.stopWrites : ChipFamilyRegistry.family(part: driver.family.rawValue)?.stopWrites ?? []
            let claim = ChipClaim(
                bus: busPath, address: driver.address, mux: driver.mux.map { ($0.address, $0.channel) },
                part: driver.part.map { "\($0)" } ?? driver.family.rawValue.uppercased(), stopWrites: stopWrites)
            let ownership = try hardware.claim(claim)
            if let ownership { ownerships.append(ownership) }
            let bus: any I2CBus
            var boardOptions = options
            if let mux = driver.mux {
                let switchKey = "\(busPath)@\(mux.address)"
                let parent = switchBuses[switchKey] ?? MonitoredBus(base, clock: clock, observer: options.observer)
                switchBuses[switchKey] = parent
                let front = switches[switchKey] ?? TCA9548A(parent: parent, address: mux.address)
                switches[switchKey] = front
                bus = front.channel(mux.channel) ?? base
                boardOptions.observer = nil  // traced once, on the switch's side
            } else {
                bus = base
            }
            if driver.family != .drv2605 {
                // Another family's chip: its module opens it (HapticChipFamily).
                guard let family = ChipFamilyRegistry.family(part: driver.family.rawValue) else {
                    throw BoardFileError(
                        file: file.path, field: "drivers", problem: "names '\(driver.family.rawValue)' for \(driver.name), a chip family no module registered",
                        allowed: (["drv2605"] + ChipFamilyRegistry.parts).joined(separator: ", "))
                }
                let opening = HapticChipOpening(
                    driver: driver, actuator: preset, file: file, bus: MonitoredBus(bus, clock: clock, observer: boardOptions.observer), clock: clock,
                    engineOptions: engineOptions, appMapping: options.engine.mapping, usesChipMemory: options.usesChipMemory, logger: options.logger,
                    warn: options.warn)
                let opened = try family.open(opening)
                if let ownership { opened.engine.hold(ownership) }
                chips.append(Chip(name: driver.name, engine: opened.engine, configuration: nil, calibrationKey: key, calibrationSource: opened.calibrationSource))
                continue
            }
            let enable = try driver.enable.map { try hardware.outputLine(chip: $0.chip, line: $0.selector, consumer: "haptic EN \(driver.name)") }
            let trigger = try driver.trigger.map { try hardware.outputLine(chip: $0.chip, line: $0.selector, consumer: "haptic IN/TRIG \(driver.name)") }
            var driverOptions = DRV2605Driver.Options()
            driverOptions.triggerPinMode = driver.triggerMode
            let start = { (configuration: DRV2605Configuration) throws -> HapticEngine in
                try HapticEngine(
                    bus: bus, address: driver.address, configuration: configuration, enableLine: enable,
                    triggerLine: trigger, clock: clock, options: engineOptions, driverOptions: driverOptions, logger: options.logger,
                    observer: boardOptions.observer)
            }
            var engine = try start(chipConfiguration)
            // Board files describe DRV2605-family chips (the engine was started on one above).
            guard let part = try engine.withDriver({ $0.part }) else { throw DRV2605Error.unsupported("\(driver.name): not a DRV2605-family chip") }
            if let expected = driver.part, part != expected, !driver.alsoAccepts.contains(part) {
                // Another chip than the board's: its voltages, library and calibration rules were
                // computed for the part named, so nothing plays on it.
                _ = engine.shutdown()
                throw WrongPartError(board: file.name, file: file.path, driver: driver.name, expected: expected, found: part, bus: busPath, address: driver.address)
            }
            // Never closed loop uncalibrated: the driver has a calibration (saved, or a programmed
            // chip's OTP), or one is made now, or the chip is refused or driven open loop.
            let (started, fromOTP) = try engine.withDriver { ($0.configuration, $0.usesProgrammedOTP) }
            if fromOTP { source = "the chip's programmed OTP (none saved)" }
            if started.loop == .open, policy != .openLoop { source = "none needed: open loop" }
            if !options.appliesCalibrationPolicy, started.loop == .closed, started.calibration == nil {
                source =
                    "none saved (calibration policy \(policy): "
                    + (policy == .auto ? "the next start-up that plays calibrates" : policy == .saved ? "playing is refused until 'haptic calibrate'" : "open loop") + ")"
            }
            if options.appliesCalibrationPolicy, started.loop == .closed, started.calibration == nil {
                switch policy {
                case .openLoop:
                    break  // set open loop above
                case .saved:
                    throw CalibrationRequiredError(driver: driver.name, file: file)
                case .auto:
                    do {
                        let values = try engine.withDriver { try $0.calibrate() }
                        chipConfiguration = try engine.withDriver { $0.configuration }
                        var note = String(
                            format: "no saved calibration: auto-calibrated at start-up (A_CAL_COMP 0x%02X, A_CAL_BEMF 0x%02X)",
                            values.compensation, values.backEMF)
                        source = "calibrated at start-up (none was saved)"
                        if let store = options.calibrations {
                            do {
                                try store.save(
                                    CalibrationRecord(
                                        key: key, part: part, configuration: started,
                                        values: values, calibratedAt: Date()))
                                note += ", saved to \(store.path)"
                                source += ", saved to \(store.path)"
                            } catch {
                                options.warn("\(driver.name): the start-up calibration could not be saved: \(error)")
                            }
                        }
                        options.inform("\(driver.name): \(note)")
                    } catch {
                        // A chip that cannot calibrate (actuator loose, open or shorted) is not
                        // driven closed loop on the reset values: it starts again open loop.
                        chipConfiguration.loop = .open
                        chipConfiguration.calibration = nil
                        engine = try start(chipConfiguration)
                        source = "none: auto-calibration at start-up failed, so open loop"
                        options.warn(
                            "\(driver.name): auto-calibration at start-up failed (\(error)): driving open loop; "
                                + "check that the actuator is wired and mounted, then run 'haptic calibrate'")
                    }
                }
            }
            if let ownership { engine.hold(ownership) }
            chips.append(Chip(name: driver.name, engine: engine, configuration: chipConfiguration, calibrationKey: key, calibrationSource: source))
        }
        // Every chip behind one switch: one GO write through all their channels starts them at once.
        let engines = chips.map(\.engine)
        let direct = zip(drivers, engines).filter { $0.0.mux == nil }.map(\.1)
        let directTraffic: @Sendable () -> BusCounters = {
            direct.map(\.statistics.bus).reduce(BusCounters(), +)
        }
        let fronts = Array(switches.values)
        if chips.count > 1, switches.count == 1, let front = switches.values.first,
            drivers.allSatisfy({ $0.family == .drv2605 && $0.mux != nil && $0.address == drivers[0].address })
        {
            let mask = drivers.compactMap(\.mux?.channel).reduce(UInt8(0)) { $0 | (UInt8(1) << UInt8($1)) }
            let target = drivers[0].address
            let traffic: @Sendable () -> BusCounters = { front.withParent { ($0 as? MonitoredBus)?.counters ?? BusCounters() } }
            let group = HapticGroup(
                engines: engines, clock: clock, broadcast: { try front.broadcast(to: target, Register.go.write(1), mask: mask) }, traffic: traffic)
            return HapticBoard(file: file, actuator: preset, chips: chips, group: group, switches: fronts, ownerships: ownerships, direct: directTraffic)
        }
        return HapticBoard(
            file: file, actuator: preset, chips: chips, group: HapticGroup(engines: engines, clock: clock), switches: fronts, ownerships: ownerships,
            direct: directTraffic)
    }
}

extension BoardFile {
    /// A board with one chip and a typical actuator, for when there is no board file: what a
    /// breakout on `bus` (path or number) at `address` is, unless said otherwise.
    public static func single(bus: String = "/dev/i2c-1", address: I2CAddress = .drv2605, actuator: ActuatorType = .lra) -> BoardFile {
        var file = single(bus: bus, address: address, actuator: .typical(actuator))
        file.description = "one DRV2605 with a typical \(actuator)"
        return file
    }

    /// A board with one chip on `bus` at `address` driving the actuator whose datasheet values are
    /// given: what an app with one breakout opens, to get the calibration policy (calibrated at the
    /// first start-up, saved, restored after) that a bare `HapticEngine` does not apply.
    public static func single(bus: String = "/dev/i2c-1", address: I2CAddress = .drv2605, actuator: ActuatorSpecification) -> BoardFile {
        let name = actuator.type.rawValue
        return BoardFile(
            path: "(no board file)", name: "single \(actuator.type) breakout", description: "one DRV2605 with an \(actuator.type)",
            supplyVolts: 5.0,
            actuators: [
                Actuator(
                    name: name, specification: actuator, library: actuator.type == .erm ? .ermB : nil,
                    loop: nil, description: nil)
            ],
            defaultActuator: name,
            drivers: [Driver(name: "main", bus: bus, address: address, part: nil, enable: nil, trigger: nil, mux: nil)],
            feedback: [:])
    }
}

extension BoardFile {
    /// A board with one vibrator Linux drives itself, through the force-feedback device at
    /// `device` (an evdev node, a `/dev/input/by-path/` name, or `auto`): what `--device` opens.
    public static func kernelVibrator(device: String, actuator: ActuatorType = .erm) -> BoardFile {
        var file = single(actuator: actuator)
        file.name = "kernel vibrator"
        file.description = "a vibrator Linux drives (\(device)) with a typical \(actuator)"
        file.drivers[0].family = .kernelVibrator
        file.drivers[0].device = device
        file.drivers[0].bus = device
        return file
    }

    /// The board file `board` names (a path, or a name from the board directories), else a single
    /// breakout on `bus` (a path or a number; default /dev/i2c-1): how the daemon and the studio
    /// pick their hardware from the command line.
    public static func named(_ board: String?, orSingleOn bus: String?) throws(BoardFileError) -> BoardFile {
        if let board { return try load(locate(board)) }
        return single(bus: I2CBusPath.resolve(bus ?? "/dev/i2c-1"))
    }
}

extension HapticBoard.Options {
    /// Only the file's first chip, with its saved calibration (simulated chips keep theirs apart):
    /// what a program that owns one actuator opens.
    public static func firstChip(of file: BoardFile, simulated: Bool) -> HapticBoard.Options {
        var options = HapticBoard.Options()
        options.drivers = [file.drivers.first?.name ?? "main"]
        options.calibrationNamespace = simulated ? "simulated:" : ""
        return options
    }
}

extension HapticBoard {
    /// Where `chip` plays, for people: "simulated DRV2605L with an LRA", or "DRV2605L at 0x5A on
    /// /dev/i2c-1" with the TCA9548A channel when there is one.
    public func origin(of chip: Chip, simulated: Bool) -> String {
        if simulated { return "simulated \(chip.engine.capabilities.chip) with an \(chip.actuator)" }
        let driver = file.drivers.first { $0.name == chip.name }
        if let device = chip.device { return "\(chip.engine.capabilities.chip) (\(device))" }
        return "\(chip.engine.capabilities.chip) at \(driver?.address ?? .drv2605) on \(I2CBusPath.resolve(driver?.bus ?? "/dev/i2c-1"))"
            + (driver?.mux.map { " via TCA9548A \($0.address) channel \($0.channel)" } ?? "")
    }
}

extension BoardFile.Line {
    /// The line by name when the file names it, else by offset.
    public var selector: GPIOLineSelector { lineName.map { .name($0) } ?? .offset(offset ?? 0) }
}
