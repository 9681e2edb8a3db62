// SPDX-License-Identifier: Apache-2.0

import DA7280
import HapticBoards
import HapticChip
import Haptics
import HardwareAccess

/// Dialog's (Renesas') DA7280 as a board file names it (`"part": "da7280"`): the chip checked and
/// configured for the board's actuator, and an engine on it through the chip-neutral protocol,
/// with the DA7280 module's own feedback table (`DA7280FeedbackTable`) under the board file's
/// overrides (an app's `HapticBoard.Options.engine.mapping` replaces both). The table's short
/// feedbacks are written into the chip's waveform memory at start-up and play from there; the
/// rest stream (DRO).
public struct DA7280Family: HapticChipFamily {
    /// The family; it holds nothing (each chip's settings come from its board file).
    public init() {}

    /// `"part": "da7280"`.
    public var part: String { "da7280" }
    /// 0x4A, the chip's address unless its ADDR pins change it.
    public var defaultAddress: I2CAddress { .da7280 }
    /// The chip has neither line and measures its actuator itself.
    public var refusesPinsBecause: String? { "a DA7280 has no EN or IN/TRIG pin and calibrates itself" }
    /// TOP_CTL1 and TOP_CTL2 to zero (`DA7280Driver.stopWrites`).
    public var stopWrites: [[UInt8]] { DA7280Driver.stopWrites }
    /// What a DA7280 needs to know of its actuator besides the common values: the coil's
    /// resistance in ohms (`"impedanceOhms"`), the actuator's current limit in mA
    /// (`"maximumMilliamps"`), and an ERM's build (`"shape"`: `coin`, the default, or `bar`),
    /// which the chip drives differently.
    public var actuatorKeys: [String] { ["impedanceOhms", "maximumMilliamps", "shape"] }

    /// The values' types and ranges, wherever a preset gives them; whether they are there at all
    /// is asked only of a preset fitted to a DA7280 (`BoardFile.Actuator.da7280Actuator`).
    public func checkActuatorKeys(_ keys: BoardFileFamilyKeys, specification: ActuatorSpecification) throws(BoardFileError) {
        _ = try keys.positiveNumber("impedanceOhms")
        _ = try keys.positiveNumber("maximumMilliamps")
        _ = try Self.ermShape(keys, specification: specification)
    }

    /// An ERM's shape: `"shape"`, `coin` without it; refused on an LRA.
    static func ermShape(_ keys: BoardFileFamilyKeys, specification: ActuatorSpecification) throws(BoardFileError) -> DA7280Actuator.Kind {
        guard let text = try keys.string("shape") else { return .ermCoin }
        switch (specification.type, text.lowercased()) {
        case (.erm, "coin"): return .ermCoin
        case (.erm, "bar"): return .ermBar
        default: throw keys.error("shape", "is '\(text)'", allowed: "coin or bar, for an ERM")
        }
    }

    /// Starts the chip (identity, the actuator's limits, the waveform memory) and returns its
    /// engine; an actuator it cannot drive is refused by the board file's field.
    public func open(_ opening: HapticChipOpening) throws -> HapticChipOpened {
        let actuator = try opening.actuator.da7280Actuator(file: opening.file.path)
        var chipOptions = DA7280Driver.Options()
        if opening.usesChipMemory { chipOptions.storedFeedbacks = DA7280FeedbackTable.storedFeedbacks(for: actuator) }
        let chip = DA7280Driver(bus: opening.bus, address: opening.driver.address, actuator: actuator, clock: opening.clock, options: chipOptions)
        try chip.start()
        if let note = chip.memoryNote { opening.warn("DA7280 at \(opening.driver.address): \(note)") }
        let capabilities = HapticEngine.Capabilities(
            chip: "DA7280", actuator: opening.actuator.specification.type, loop: actuator.kind == .ermCoin ? .open : .closed,
            hasTriggerPin: false, hasEnablePin: false)
        let engine = HapticEngine(
            driver: chip, library: nil, capabilities: capabilities,
            mapping: opening.appMapping ?? Self.mapping(for: actuator, preset: opening.actuator, file: opening.file), bus: opening.bus,
            options: opening.engineOptions, logger: opening.logger)
        return HapticChipOpened(engine: engine, calibrationSource: "none needed: the DA7280 measures its actuator itself")
    }

    /// The chip's table where it has one for the actuator, else the standard table; the board's
    /// overrides on top.
    public static func mapping(for actuator: DA7280Actuator, preset: BoardFile.Actuator, file: BoardFile) -> FeedbackMapping {
        let standard = FeedbackMapping.standard(for: preset.specification.type)
        guard let envelopes = DA7280FeedbackTable.envelopes(for: actuator) else { return file.mapping(over: standard) }
        return file.mapping(over: FeedbackMapping(envelopes: envelopes, fallback: standard))
    }
}

extension BoardFile.ChipFamily {
    /// Dialog's (Renesas') DA7280 (`DA7280Family`).
    public static let da7280 = BoardFile.ChipFamily(rawValue: "da7280")
}

extension BoardFile.Actuator {
    /// The actuator as a DA7280 is told about it: the rated and maximum voltages, the
    /// resonance, and the impedance and current limit this chip needs besides.
    public func da7280Actuator(file: String) throws(BoardFileError) -> DA7280Actuator {
        func missing(_ key: String, _ what: String) -> BoardFileError {
            BoardFileError(file: file, field: "actuators.\(name).\(key)", problem: "is missing: a DA7280 needs the actuator's \(what)")
        }
        guard let impedanceOhms = try familyKeys.positiveNumber("impedanceOhms") else { throw missing("impedanceOhms", "coil resistance in ohms") }
        guard let maximumMilliamps = try familyKeys.positiveNumber("maximumMilliamps") else { throw missing("maximumMilliamps", "current limit in mA") }
        let actuator: DA7280Actuator
        switch specification {
        case let .lra(rated, maximum, hz):
            actuator = DA7280Actuator(
                kind: .lra, nominalVolts: rated, absoluteMaximumVolts: maximum, maximumCurrentMilliamps: maximumMilliamps,
                impedanceOhms: impedanceOhms, resonantHz: hz)
        case let .erm(rated, maximum):
            actuator = DA7280Actuator(
                kind: try DA7280Family.ermShape(familyKeys, specification: specification), nominalVolts: rated, absoluteMaximumVolts: maximum,
                maximumCurrentMilliamps: maximumMilliamps, impedanceOhms: impedanceOhms)
        }
        // What the chip cannot take is refused here, naming the board file's field.
        if let problem = actuator.problem {
            let lra = actuator.kind == .lra
            let key: String
            switch problem.value {
            case .nominalVolts: key = lra ? "ratedVrms" : "ratedVolts"
            case .absoluteMaximumVolts: key = lra ? "maximumVrms" : "maximumVolts"
            case .maximumCurrent: key = "maximumMilliamps"
            case .impedance: key = "impedanceOhms"
            case .resonance: key = "resonantHz"
            }
            throw BoardFileError(file: file, field: "actuators.\(name).\(key)", problem: "a DA7280 cannot drive it: \(problem.text)")
        }
        return actuator
    }
}
