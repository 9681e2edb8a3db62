// SPDX-License-Identifier: Apache-2.0

import DRV2605
import Foundation
import HapticChip
import HapticEffects
import Haptics
import HardwareAccess

/// A board file: what is wired to the Pi — which bus, which chips, which GPIO lines, which
/// actuators — so that nobody has to guess voltages or libraries.
///
/// Format 1 (JSON; see Boards/README.md):
/// ```json
/// { "format": 1, "name": "adafruit-drv2605l", "description": "…", "bus": "/dev/i2c-1",
///   "actuators": { "lra": { "type": "lra", "ratedVrms": 2.0, "maximumVrms": 2.5, "resonantHz": 175 },
///                  "erm": { "type": "erm", "ratedVolts": 3.0, "maximumVolts": 3.6, "library": "B" } },
///   "defaultActuator": "lra",
///   "drivers": [ { "name": "main", "address": "0x5A", "part": "drv2605l",
///                  "enable": { "chip": "pinctrl-bcm2711", "line": 17 },
///                  "trigger": { "chip": "pinctrl-bcm2711", "line": 27 },
///                  "mux": { "address": "0x70", "channel": 0 }, "calibration": "auto" } ],
///   "feedback": { "impact-heavy": [1], "success": [2, "wait 80", 1] } }
/// ```
public struct BoardFile: Sendable, Equatable {
    /// The `format` this version reads and writes.
    public static let currentFormat = 1

    /// A GPIO line by chip (label, name, path or number) and offset or line name.
    public struct Line: Sendable, Equatable {
        /// Path, number, `gpiochipN`, label, or `header` (the Pi's 40-pin header on any model).
        public var chip: String
        /// The line's offset on the chip (the BCM GPIO number on a Pi).
        public var offset: UInt32?
        /// The line's name instead ("GPIO17").
        public var lineName: String?
        /// A line by offset or by name.
        public init(chip: String, offset: UInt32?, lineName: String?) {
            self.chip = chip
            self.offset = offset
            self.lineName = lineName
        }
    }

    /// A TCA9548A I2C switch channel in front of a chip.
    public struct MuxChannel: Sendable, Equatable {
        /// The switch's own address (0x70-0x77).
        public var address: I2CAddress
        /// 0...7.
        public var channel: Int
        /// Channel `channel` of the switch at `address`.
        public init(address: I2CAddress, channel: Int) {
            self.address = address
            self.channel = channel
        }
    }

    /// An actuator preset: its datasheet values and how to drive it.
    public struct Actuator: Sendable, Equatable {
        /// What `--actuator` and `defaultActuator` call it.
        public var name: String
        /// The datasheet values the voltages and timings are computed from.
        public var specification: ActuatorSpecification
        /// The ROM library, when not the usual one for the actuator type.
        public var library: EffectLibrary?
        /// Open or closed loop, when not the usual one.
        public var loop: LoopMode?
        /// A note for people (the part number, where it is mounted).
        public var description: String?
        /// The preset's other keys, which chip families read (a DA7280's `"impedanceOhms"`,
        /// `"maximumMilliamps"` and `"shape"`), checked by each registered family that owns one.
        public var familyKeys = BoardFileFamilyKeys()
    }

    /// Which driver chip a board's driver entry is: what opens it. The DRV2605 family and kernel
    /// vibrators are this module's; any other is a registered `HapticChipFamily`, by its part.
    public struct ChipFamily: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue.asciiLowercased() }
        /// TI's DRV2605, DRV2605L, DRV2604 and DRV2604L (the exact part in `Driver.part`).
        public static let drv2605 = ChipFamily(rawValue: "drv2605")
        /// A vibrator Linux drives itself, through its force-feedback device (`"device"`: an
        /// evdev node, a `/dev/input/by-path/` name, or `auto`).
        public static let kernelVibrator = ChipFamily(rawValue: "kernel-vibrator")
    }

    /// One haptic driver chip on the board.
    public struct Driver: Sendable, Equatable {
        /// What `--driver` calls it.
        public var name: String
        /// The I2C bus, "/dev/i2c-1" or "1".
        public var bus: String
        /// 0x5A for every DRV2605 (the chip has no address pins); another family's default
        /// (0x4A for a DA7280) unless said.
        public var address: I2CAddress
        /// The DRV2605-family part expected; a different one found at start-up is refused
        /// (`WrongPartError`), unless it is among `alsoAccepts`.
        public var part: Part?
        /// Other parts the board works with (`"alsoAccepts": ["drv2605"]`): a board sold with
        /// either chip fitted.
        public var alsoAccepts: [Part] = []
        /// The GPIO line wired to EN, if any: lets the engine shut the chip down when idle.
        public var enable: Line?
        /// The GPIO line wired to IN/TRIG, if any: a prepared trigger without a bus write.
        public var trigger: Line?
        /// How IN/TRIG starts playback: `edge` (default) or `level`.
        public var triggerMode: DRV2605Driver.TriggerPinMode = .edge
        /// The TCA9548A channel in front of the chip, if any.
        public var mux: MuxChannel?
        /// What start-up does about auto-calibration (`"calibration"`; default `auto`).
        public var calibration: CalibrationPolicy = .auto
        /// The chip (a registered family's part, such as `"da7280"`, makes it that family's; a
        /// DRV2605-family part, or none, a DRV2605; `"device"` a kernel vibrator).
        public var family: ChipFamily = .drv2605
        /// A kernel vibrator's force-feedback device (`"device"`), nil for a chip on I2C.
        public var device: String?
        /// The entry's keys that its family owns (`HapticChipFamily.driverKeys`), checked by it.
        public var familyKeys = BoardFileFamilyKeys()
    }

    /// Where the file was read from (errors name it).
    public var path: String
    /// The board's name (`--board` finds known boards by it).
    public var name: String
    /// A line for people.
    public var description: String
    /// The chip's VDD: actuator maxima above it are rejected.
    public var supplyVolts: Double
    /// The actuator presets, by name.
    public var actuators: [Actuator]
    /// The preset used without `--actuator`.
    public var defaultActuator: String
    /// The chips on the board.
    public var drivers: [Driver]
    /// Mapping overrides: feedback name → ROM sequence.
    public var feedback: [FeedbackKind: WaveformSequence]

    /// The preset called `name` (nil: the default), or an error listing the names there are.
    public func actuator(named name: String?) throws(BoardFileError) -> Actuator {
        let wanted = name ?? defaultActuator
        guard let found = actuators.first(where: { $0.name == wanted }) else {
            throw BoardFileError(
                file: path, field: "actuators", problem: "has no actuator named '\(wanted)'",
                allowed: actuators.map(\.name).joined(separator: ", "))
        }
        return found
    }

    /// The chip configuration for an actuator preset, from its datasheet values.
    public func configuration(actuator name: String? = nil) throws(BoardFileError) -> DRV2605Configuration {
        let preset = try actuator(named: name)
        do {
            return try DRV2605Configuration(preset.specification, library: preset.library, loop: preset.loop, supplyVolts: supplyVolts)
        } catch {
            throw BoardFileError(file: path, field: "actuators.\(preset.name)", problem: error.description, allowed: nil)
        }
    }

    /// The standard mapping for the actuator with the board's overrides applied.
    public func mapping(for actuator: ActuatorType) -> FeedbackMapping {
        mapping(over: FeedbackMapping.standard(for: actuator))
    }

    /// `base` (a chip module's table) with the board's overrides applied.
    public func mapping(over base: FeedbackMapping) -> FeedbackMapping {
        var mapping = base
        for (kind, sequence) in feedback { mapping.override(kind, with: .rom(sequence)) }
        return mapping
    }
}

/// A board file problem, naming the file, the field and what is allowed.
public struct BoardFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The board file's path.
    public var file: String
    /// The JSON path of the field at fault, e.g. `drivers[0].enable.line`.
    public var field: String
    /// What is wrong with it.
    public var problem: String
    /// What would be accepted, when that can be said.
    public var allowed: String?

    /// A problem with `field` of `file` (a chip family's module names what its chip cannot take).
    public init(file: String, field: String, problem: String, allowed: String? = nil) {
        self.file = file
        self.field = field
        self.problem = problem
        self.allowed = allowed
    }

    /// One line: file, field, problem, what is allowed.
    public var description: String {
        "board file \(file): \(field) \(problem)" + (allowed.map { " (allowed: \($0))" } ?? "")
    }
}

extension BoardFile {
    /// Where `--board NAME` looks for NAME.json, in order.
    public static func searchDirectories(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        var directories: [String] = []
        if let custom = environment["HAPTIC_BOARDS_DIR"] { directories.append(custom) }
        directories.append(FileManager.default.currentDirectoryPath + "/Boards")
        // Next to a binary built in the repository (.build/<config>/haptic → Boards/).
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        for _ in 0..<4 {
            directory = directory.deletingLastPathComponent()
            directories.append(directory.path + "/Boards")
        }
        directories += ["/usr/local/share/haptics/boards", "/usr/share/haptics/boards"]
        return directories
    }

    /// The machine's own board file, used when no `--board` is given: `$HAPTIC_BOARD` (a name or
    /// a path, as `--board` takes it), else `/etc/haptics/board.json` if it exists.
    public static func defaultBoardPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let named = environment["HAPTIC_BOARD"], !named.isEmpty {
            // A name, as `--board` takes it; an unknown one is returned as it is, so that loading
            // it names what is wrong.
            return (try? locate(named)) ?? named
        }
        let system = "/etc/haptics/board.json"
        return FileManager.default.fileExists(atPath: system) ? system : nil
    }

    /// Finds a board by name (a file in a board directory) or by path.
    public static func locate(_ nameOrPath: String) throws(BoardFileError) -> String {
        if nameOrPath.contains("/") || nameOrPath.hasSuffix(".json") {
            guard FileManager.default.fileExists(atPath: nameOrPath) else {
                throw BoardFileError(file: nameOrPath, field: "file", problem: "does not exist", allowed: nil)
            }
            return nameOrPath
        }
        for directory in searchDirectories() {
            let candidate = "\(directory)/\(nameOrPath).json"
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        throw BoardFileError(
            file: nameOrPath, field: "name", problem: "is not a known board",
            allowed: knownBoards().map(\.name).joined(separator: ", "))
    }

    /// Every board file found in the search directories (first of each name wins).
    public static func knownBoards() -> [(name: String, path: String)] {
        var seen: Set<String> = []
        var result: [(String, String)] = []
        for directory in searchDirectories() {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            for file in files.sorted() where file.hasSuffix(".json") {
                let name = String(file.dropLast(5))
                if seen.insert(name).inserted { result.append((name, "\(directory)/\(file)")) }
            }
        }
        return result
    }

    /// Reads and validates a board file.
    public static func load(_ path: String) throws(BoardFileError) -> BoardFile {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw BoardFileError(file: path, field: "file", problem: "cannot be read (\(error.localizedDescription))", allowed: nil)
        }
        guard data.count <= 1 << 20 else {
            throw BoardFileError(file: path, field: "file", problem: "is larger than 1 MiB", allowed: nil)
        }
        return try parse(data, path: path)
    }

    /// Parses board-file JSON (`path` names it in errors).
    public static func parse(_ data: Data, path: String) throws(BoardFileError) -> BoardFile {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw BoardFileError(file: path, field: "file", problem: "is not valid JSON (\(error.localizedDescription))", allowed: nil)
        }
        let reader = FieldReader(file: path)
        let top = try reader.object(root, "(top level)")
        let format = try reader.int(top["format"], "format")
        guard format == currentFormat else {
            throw BoardFileError(file: path, field: "format", problem: "is \(format)", allowed: "\(currentFormat)")
        }
        let name = try reader.string(top["name"], "name")
        let description = try reader.optionalString(top["description"], "description") ?? name
        let defaultBus = try reader.optionalString(top["bus"], "bus") ?? "/dev/i2c-1"
        let supply = try reader.optionalDouble(top["supplyVolts"], "supplyVolts") ?? 5.0
        guard supply >= 2.0, supply <= 5.2 else {
            throw BoardFileError(file: path, field: "supplyVolts", problem: "is \(supply) V", allowed: "2.0 to 5.2 (the DRV2605L's supply range)")
        }

        let actuatorObject = try reader.object(top["actuators"], "actuators")
        guard !actuatorObject.isEmpty else {
            throw BoardFileError(file: path, field: "actuators", problem: "is empty", allowed: "at least one actuator")
        }
        var actuators: [Actuator] = []
        for key in actuatorObject.keys.sorted() {
            actuators.append(try reader.actuator(actuatorObject[key], name: key))
        }
        let defaultActuator = try reader.optionalString(top["defaultActuator"], "defaultActuator") ?? actuators[0].name
        guard actuators.contains(where: { $0.name == defaultActuator }) else {
            throw BoardFileError(
                file: path, field: "defaultActuator", problem: "is '\(defaultActuator)'",
                allowed: actuators.map(\.name).joined(separator: ", "))
        }

        let driverList = try reader.array(top["drivers"], "drivers")
        guard !driverList.isEmpty else {
            throw BoardFileError(file: path, field: "drivers", problem: "is empty", allowed: "at least one driver")
        }
        var drivers: [Driver] = []
        for (index, item) in driverList.enumerated() {
            drivers.append(try reader.driver(item, index: index, defaultBus: defaultBus))
        }
        let names = drivers.map(\.name)
        if Set(names).count != names.count {
            throw BoardFileError(file: path, field: "drivers", problem: "repeat a name (\(names.joined(separator: ", ")))", allowed: "unique names")
        }

        var feedback: [FeedbackKind: WaveformSequence] = [:]
        if let overrides = top["feedback"] {
            let object = try reader.object(overrides, "feedback")
            for key in object.keys.sorted() {
                guard let kind = FeedbackKind.all.first(where: { $0.name == key }) else {
                    throw BoardFileError(
                        file: path, field: "feedback.\(key)", problem: "is not a feedback",
                        allowed: FeedbackKind.all.map(\.name).joined(separator: ", "))
                }
                feedback[kind] = try reader.sequence(object[key], "feedback.\(key)")
            }
        }
        return BoardFile(
            path: path, name: name, description: description, supplyVolts: supply, actuators: actuators,
            defaultActuator: defaultActuator, drivers: drivers, feedback: feedback)
    }
}
