// SPDX-License-Identifier: Apache-2.0

import ChipFamilies
import DA7280Simulator
import DRV2605
import DRV2605Simulator
import HapticBoards
import HapticChip
import HapticEffects
import Haptics
import HardwareAccess
import HardwareSimulation

/// The chips a board file describes, simulated, for `HapticBoard.open`: one `SimulatedDRV2605`
/// (or `SimulatedDA7280`, for a `da7280` part) per driver at its bus and address (behind a simulated TCA9548A where the file puts a switch),
/// with the board's actuator and supply, and EN and IN/TRIG lines wired to the chip they drive.
///
///     let board = try BoardFile.load("Boards/tca9548a-four-lra.json")
///     let hardware = SimulatedHardware(board: board, clock: clock)
///     let opened = try HapticBoard.open(board, hardware: hardware, clock: clock)
///     hardware.chips["left"]?.output   // what that actuator did
public final class SimulatedHardware: HardwareProvider {
    /// The simulated DRV2605-family chips by driver name.
    public let chips: [String: SimulatedDRV2605]
    /// The simulated DA7280s by driver name.
    public let da7280Chips: [String: SimulatedDA7280]
    /// The simulated switches, by "bus@address".
    public let switches: [String: SimulatedTCA9548A]
    /// The simulated kernel vibrators by device path (a board's `"device"` drivers).
    public let vibrators: [String: SimulatedForceFeedbackOutput]
    private let buses: [String: any I2CBus]
    private let lines: [String: (chip: SimulatedDRV2605, isEnable: Bool)]

    /// Simulates every driver of `board` with its `actuator` preset (nil: the default); `part`
    /// overrides the part each driver names (default DRV2605L), and `family` the chip family
    /// (a DA7280 where the board names a DRV2605, or the other way): the chip a wrongly fitted
    /// board would carry, which the board's drivers must then refuse.
    public init(
        board: BoardFile, actuator: String? = nil, part: Part? = nil, family: BoardFile.ChipFamily? = nil, clock: any HapticClock,
        keepsTrace: Bool = true
    ) throws {
        let preset = try board.actuator(named: actuator)
        var chips: [String: SimulatedDRV2605] = [:]
        var da7280Chips: [String: SimulatedDA7280] = [:]
        var switches: [String: SimulatedTCA9548A] = [:]
        var buses: [String: any I2CBus] = [:]
        var lines: [String: (chip: SimulatedDRV2605, isEnable: Bool)] = [:]
        var vibrators: [String: SimulatedForceFeedbackOutput] = [:]
        for driver in board.drivers {
            if driver.family == .kernelVibrator, let device = driver.device {
                vibrators[device] = SimulatedForceFeedbackOutput(name: "simulated vibrator", path: device, clock: clock)
                continue
            }
            let path = I2CBusPath.resolve(driver.bus)
            if (family ?? driver.family) == .da7280 {
                let chip = SimulatedDA7280(clock: clock, address: driver.address)
                chip.keepsTrace = keepsTrace
                da7280Chips[driver.name] = chip
                if let mux = driver.mux {
                    let key = "\(path)@\(mux.address)"
                    let device = switches[key] ?? SimulatedTCA9548A(address: mux.address)
                    device.attach(chip, channel: mux.channel)
                    switches[key] = device
                    buses[path] = device
                } else {
                    buses[path] = chip
                }
                continue
            }
            var options = SimulatedDRV2605.Options()
            options.part = part ?? driver.part ?? .drv2605L
            options.address = driver.address
            var model = SimulatedActuator(type: preset.specification.type)
            if case let .lra(_, _, hz) = preset.specification { model.resonantHz = hz }
            model.supplyVolts = board.supplyVolts
            let chip = SimulatedDRV2605(clock: clock, actuator: model, options: options)
            chip.keepsTrace = keepsTrace
            chips[driver.name] = chip
            if let mux = driver.mux {
                let key = "\(path)@\(mux.address)"
                let device = switches[key] ?? SimulatedTCA9548A(address: mux.address)
                device.attach(chip, channel: mux.channel)
                switches[key] = device
                buses[path] = device
            } else {
                buses[path] = chip
            }
            if let line = driver.enable { lines[Self.lineKey(line.chip, line.selector)] = (chip, true) }
            if let line = driver.trigger { lines[Self.lineKey(line.chip, line.selector)] = (chip, false) }
        }
        self.chips = chips
        self.vibrators = vibrators
        self.da7280Chips = da7280Chips
        self.switches = switches
        self.buses = buses
        self.lines = lines
    }

    /// The simulated chip (or switch) the board puts on `path`; a path the board does not name
    /// is an error, as a missing `/dev/i2c-N` would be.
    public func bus(at path: String) throws -> any I2CBus {
        let resolved = I2CBusPath.resolve(path)
        guard let bus = buses[resolved] else {
            throw I2CError(.noSuchBus, operation: "open \(resolved)", bus: resolved, detail: "no simulated chip on this bus")
        }
        return bus
    }

    /// The EN or IN/TRIG pin of the chip the board wires `line` on `chip` to.
    public func outputLine(chip: String, line: GPIOLineSelector, consumer: String) throws -> any GPIOOutputLine {
        guard let wired = lines[Self.lineKey(chip, line)] else {
            throw GPIOError(.noSuchLine, line: "\(chip):\(line) (\(consumer))", detail: "not wired to a simulated chip")
        }
        return wired.isEnable ? wired.chip.makeEnableLine() : wired.chip.makeTriggerLine()
    }

    /// The simulated kernel vibrator the board names at `path`.
    public func forceFeedbackOutput(at path: String) throws -> any ForceFeedbackOutput {
        guard let output = vibrators[path] else {
            throw ForceFeedbackDeviceError(operation: "open", path: path, errno: 2, detail: "no simulated vibrator there")
        }
        return output
    }

    private static func lineKey(_ chip: String, _ line: GPIOLineSelector) -> String { "\(chip):\(line)" }
}
