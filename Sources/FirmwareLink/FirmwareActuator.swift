// SPDX-License-Identifier: Apache-2.0

import DRV2605
import HapticBoards
import HapticChip
import HapticEffects
import Haptics

/// The actuator wired to the firmware's chip, as the host tells it (`actuator ...`): the
/// firmware keeps nothing across a reset and starts with the common breakout's coin LRA, so a
/// board with an ERM, or an LRA of other ratings, must say so before it plays, or the chip's
/// voltages and library are for the wrong motor. The firmware computes the chip's
/// configuration from these values with the same `DRV2605Configuration` the Linux build uses.
///
/// Voltages, the resonance and the supply travel in thousandths (millivolts, millihertz), so
/// the values are rounded to thousandths here: the configuration this side computes from them
/// is the firmware's, to the bit.
public struct FirmwareActuator: Sendable, Equatable {
    /// The actuator's datasheet values, rounded to thousandths.
    public let specification: ActuatorSpecification
    /// The ROM library and the loop, as the configuration chose them.
    public let library: EffectLibrary
    public let loop: LoopMode
    /// The chip's supply, rounded to millivolts.
    public let supplyVolts: Double
    /// The chip's configuration for this actuator, before calibration: what the firmware
    /// computes from `command`.
    public let configuration: DRV2605Configuration

    /// The actuator of `specification`, with the library and loop a board file chose (nil: the
    /// actuator type's usual ones). Throws when a DRV2605L could not drive it: the values out of
    /// the registers' range, or a library for the other actuator type.
    public init(
        _ specification: ActuatorSpecification, library: EffectLibrary? = nil, loop: LoopMode? = nil, supplyVolts: Double = 5.0
    ) throws(DRV2605Error) {
        func thousandths(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
        switch specification {
        case let .lra(rated, maximum, hertz):
            self.specification = .lra(ratedVrms: thousandths(rated), maximumVrms: thousandths(maximum), resonantHz: thousandths(hertz))
        case let .erm(rated, maximum):
            self.specification = .erm(ratedVolts: thousandths(rated), maximumVolts: thousandths(maximum))
        }
        self.supplyVolts = thousandths(supplyVolts)
        let configuration = try DRV2605Configuration(self.specification, library: library, loop: loop, supplyVolts: self.supplyVolts)
        // The firmware checks against the part it found; the DRV2605L, the breakouts' part and
        // the one with every library, refuses no less here, before anything is sent.
        try configuration.validate(for: .drv2605L)
        self.configuration = configuration
        self.library = configuration.library
        self.loop = configuration.loop
    }

    /// The actuator a board file's preset describes (`--board`, `--actuator`).
    public init(board: BoardFile, actuator name: String? = nil) throws(BoardFileError) {
        let preset = try board.actuator(named: name)
        do {
            try self.init(preset.specification, library: preset.library, loop: preset.loop, supplyVolts: board.supplyVolts)
        } catch {
            throw BoardFileError(file: board.path, field: "actuators.\(preset.name)", problem: error.description, allowed: nil)
        }
    }

    /// The firmware's command: `actuator TYPE RATED_MV MAXIMUM_MV RESONANT_MHZ SUPPLY_MV LIBRARY
    /// LOOP` (RESONANT_MHZ 0 for an ERM; LIBRARY the register's number, 1...7).
    public var command: String {
        func thousandths(_ value: Double) -> String { String(Int((value * 1000).rounded())) }
        let (type, rated, maximum, hertz): (String, Double, Double, Double)
        switch specification {
        case let .lra(ratedVrms, maximumVrms, resonantHz): (type, rated, maximum, hertz) = ("lra", ratedVrms, maximumVrms, resonantHz)
        case let .erm(ratedVolts, maximumVolts): (type, rated, maximum, hertz) = ("erm", ratedVolts, maximumVolts, 0)
        }
        return ["actuator", type, thousandths(rated), thousandths(maximum), thousandths(hertz), thousandths(supplyVolts), String(library.rawValue), loop.rawValue]
            .joined(separator: " ")
    }
}
