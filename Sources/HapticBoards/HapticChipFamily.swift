// SPDX-License-Identifier: Apache-2.0

import HapticChip
import Haptics
import HardwareAccess
import Logging

/// A family of haptic driver chips that a board file can name by its `"part"`, beside the
/// DRV2605 family that this module drives itself (its effect library, calibration store and
/// IN/TRIG line are the engine's). A family is a module of its own: its driver behind the
/// `HapticChip` protocols, and a value of this type saying how a board file names it and how one
/// of its chips is opened. Adding a family edits nothing here: it is registered
/// (`ChipFamilyRegistry.register(_:)`) before a board file is read, as the programs register
/// every family of this package (`StandardChipFamilies.register()` in `ChipFamilies`).
public protocol HapticChipFamily: Sendable {
    /// The board file's `"part"` naming the family, lowercase (`"da7280"`).
    var part: String { get }
    /// The chip's I2C address when the driver entry gives none.
    var defaultAddress: I2CAddress { get }
    /// Why a driver entry may not name EN or IN/TRIG lines or a calibration policy, when it may
    /// not (the board file's error says it): nil when it may.
    var refusesPinsBecause: String? { get }
    /// The writes that stop the chip's drive from another process, each one transaction from its
    /// register on: what a program's dead-man guard writes after the program died
    /// (`ChipClaim.stopWrites`).
    var stopWrites: [[UInt8]] { get }
    /// The keys this family reads in an actuator preset besides the common ones (a DA7280's
    /// `"impedanceOhms"`): kept for it in `BoardFile.Actuator.familyKeys`. None by default.
    var actuatorKeys: [String] { get }
    /// The keys this family reads in its own driver entries besides the common ones: kept for it
    /// in `BoardFile.Driver.familyKeys`. None by default.
    var driverKeys: [String] { get }
    /// Checks the family's keys in an actuator preset as the board file is read, whatever chip
    /// the preset is fitted to (a value of the wrong type or range fails there, naming its
    /// field, not when a chip of this family is first opened).
    func checkActuatorKeys(_ keys: BoardFileFamilyKeys, specification: ActuatorSpecification) throws(BoardFileError)
    /// Checks the family's keys in one of its driver entries as the board file is read.
    func checkDriverKeys(_ keys: BoardFileFamilyKeys) throws(BoardFileError)
    /// Opens one chip of the board: checks and configures it on `opening.bus`, and returns its
    /// engine. A board file's value the chip cannot take is a `BoardFileError` naming its field.
    func open(_ opening: HapticChipOpening) throws -> HapticChipOpened
}

extension HapticChipFamily {
    /// No keys of its own.
    public var actuatorKeys: [String] { [] }
    /// No keys of its own.
    public var driverKeys: [String] { [] }
    /// Nothing to check.
    public func checkActuatorKeys(_ keys: BoardFileFamilyKeys, specification: ActuatorSpecification) throws(BoardFileError) {}
    /// Nothing to check.
    public func checkDriverKeys(_ keys: BoardFileFamilyKeys) throws(BoardFileError) {}
}

/// What a family is given to open one chip of a board file.
public struct HapticChipOpening {
    /// The board file's driver entry (its bus, address and mux already applied to `bus`).
    public var driver: BoardFile.Driver
    /// The actuator preset in use.
    public var actuator: BoardFile.Actuator
    /// The whole board file (its path for errors, its feedback overrides).
    public var file: BoardFile
    /// The chip's bus, counted and traced as the board's other chips' are.
    public var bus: MonitoredBus
    public var clock: any HapticClock
    /// The engine's options: the policy, and as `mapping` the standard table for the actuator
    /// type under the board's overrides (a family with a table of its own puts it under them).
    public var engineOptions: HapticEngine.Options
    /// The app's own feedback table (`HapticBoard.Options.engine.mapping`), which replaces any
    /// family's table when given.
    public var appMapping: FeedbackMapping?
    /// Whether the chip's own waveform memory may be written at start-up.
    public var usesChipMemory: Bool
    public var logger: Logger
    /// Problems that do not stop the opening.
    public var warn: (String) -> Void

    public init(
        driver: BoardFile.Driver, actuator: BoardFile.Actuator, file: BoardFile, bus: MonitoredBus, clock: any HapticClock,
        engineOptions: HapticEngine.Options, appMapping: FeedbackMapping?, usesChipMemory: Bool, logger: Logger, warn: @escaping (String) -> Void
    ) {
        self.driver = driver
        self.actuator = actuator
        self.file = file
        self.bus = bus
        self.clock = clock
        self.engineOptions = engineOptions
        self.appMapping = appMapping
        self.usesChipMemory = usesChipMemory
        self.logger = logger
        self.warn = warn
    }
}

/// One chip a family opened.
public struct HapticChipOpened {
    public var engine: HapticEngine
    /// Where its calibration comes from, for `status` ("none needed: the chip measures its
    /// actuator itself").
    public var calibrationSource: String

    public init(engine: HapticEngine, calibrationSource: String) {
        self.engine = engine
        self.calibrationSource = calibrationSource
    }
}

/// The chip families board files may name besides the DRV2605 family, by their `"part"`.
public enum ChipFamilyRegistry {
    private static let families = Locked<[any HapticChipFamily]>([])

    /// Makes `family` known to board files (replacing one registered with the same part).
    public static func register(_ family: any HapticChipFamily) {
        families.withLock { families in
            families.removeAll { $0.part == family.part }
            families.append(family)
        }
    }

    /// The family a board file's `"part"` names, if one is registered.
    public static func family(part: String) -> (any HapticChipFamily)? {
        let wanted = part.asciiLowercased()
        return families.withLock { families in families.first { $0.part == wanted } }
    }

    /// Every registered family, in the order registered.
    public static var all: [any HapticChipFamily] { families.withLock { $0 } }

    /// Every registered family's part, in the order registered.
    public static var parts: [String] { families.withLock { families in families.map(\.part) } }
}
