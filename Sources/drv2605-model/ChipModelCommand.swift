// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import DA7280Simulator
import DRV2605
import DRV2605Simulator
import Foundation
import HapticChip
import HapticEffects
import HardwareAccess
import HardwareSimulation
import LinuxHardware

/// `drv2605-model`: the chip descriptions' tools. `header` prints the C header a kernel fixture
/// is built with; `check` runs the transaction scripts against a chip on a real I2C bus (the
/// fixture in the VM) and against the simulator, and compares what they answer. Both take
/// `--chip drv2605` (the default) or `--chip da7280`.
@main
struct ChipModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drv2605-model",
        abstract: "The chip descriptions both emulations share: their C headers, and the check that they agree.",
        subcommands: [Header.self, Check.self, Serve.self])

    /// Which chip's description.
    enum Chip: String, ExpressibleByArgument, CaseIterable {
        case drv2605
        case da7280

        /// The kernel fixture module's parameters folder.
        var parameters: String { self == .drv2605 ? "/sys/module/i2c_drv2605_sim/parameters" : "/sys/module/i2c_da7280_sim/parameters" }
        /// The VDD each script starts with, in millivolts.
        var supplyMillivolts: Int { self == .drv2605 ? Int(ChipModel.supplyVolts * 1000) : 3300 }
    }

    struct Header: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the C header for a kernel fixture (Tests/KernelFixtures).")
        @Option(help: "The chip: drv2605 (i2c-drv2605-sim) or da7280 (i2c-da7280-sim).") var chip: Chip = .drv2605
        func run() { print(chip == .drv2605 ? ChipModel.cHeader() : DA7280Model.cHeader(), terminator: "") }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run transaction scripts against the chip on --bus and against the simulator; print every difference.",
            discussion:
                "Each script starts on a fresh chip: the fixture's fresh_chip parameter is written, and the simulator is new. Exits 1 on a difference or a broken expectation.")
        @Option(help: "The chip: drv2605 (i2c-drv2605-sim) or da7280 (i2c-da7280-sim).") var chip: Chip = .drv2605
        @Option(help: "The I2C bus of the emulated chip (a path or a number).") var bus: String
        @Option(
            help:
                "The fixture module's parameters folder (fresh_chip, actuator, supply_mv, standby_writes_ignored, drive_permille, sequence_timeline); the chip's fixture by default."
        )
        var parameters: String?
        var folder: String { parameters ?? chip.parameters }
        @Argument(help: "Script files (Tests/ChipModelScripts/*.txt).") var scripts: [String]

        func setParameter(_ name: String, _ value: String) throws {
            do { try value.write(toFile: "\(folder)/\(name)", atomically: false, encoding: .utf8) } catch {
                throw ValidationError("cannot write \(folder)/\(name): is the fixture module (i2c-\(chip.rawValue)-sim) loaded? (\(error.localizedDescription))")
            }
        }

        /// A healthy actuator, the model's supply and a fresh chip: how each script starts, and
        /// how the fixture is left whatever happens (the tests after this one rely on it).
        func restoreFixture() throws {
            try setParameter("actuator", "0")
            try setParameter("supply_mv", String(chip.supplyMillivolts))
            if chip == .drv2605 { try setParameter("standby_writes_ignored", ChipModel.ignoresWritesInStandby ? "1" : "0") }
            try setParameter("fresh_chip", "1")
        }

        func run() throws {
            let device = try LinuxI2CBus(bus)
            defer { try? restoreFixture() }
            var differences = 0
            var broken = 0
            for path in scripts {
                let name = (path as NSString).lastPathComponent
                let script = try ModelScript.parse(try String(contentsOfFile: path, encoding: .utf8), name: name)
                try restoreFixture()
                var failure: (any Error)?
                let fixture = script.run(
                    on: device, address: chip == .drv2605 ? .drv2605 : .da7280, wait: { usleep(useconds_t($0) * 1000) },
                    setActuator: { state in
                        do { try setParameter("actuator", state == .ok ? "0" : state == .open ? "1" : "2") } catch { failure = error }
                    },
                    setSupply: { millivolts in
                        do { try setParameter("supply_mv", String(millivolts)) } catch { failure = error }
                    },
                    setStandbyWritesIgnored: { ignored in
                        guard chip == .drv2605 else { return }
                        do { try setParameter("standby_writes_ignored", ignored ? "1" : "0") } catch { failure = error }
                    },
                    readDrive: {
                        guard chip == .da7280 else { return nil }
                        let text = try? String(contentsOfFile: "\(folder)/drive_permille", encoding: .utf8)
                        return text.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
                    },
                    readSequence: {
                        // The fixture's last sequence, without where a stop cut it short (a wall-clock time).
                        guard chip == .da7280, let text = try? String(contentsOfFile: "\(folder)/sequence_timeline", encoding: .utf8) else { return nil }
                        return text.split(whereSeparator: \.isWhitespace).map(String.init).filter { !$0.hasPrefix("stopped:") }
                    })
                if let failure { throw failure }
                let simulator = chip == .drv2605 ? script.runOnSimulator() : script.runOnSimulatedDA7280()
                for (left, right) in zip(fixture, simulator) where left.text != right.text {
                    differences += 1
                    print("\(name):\(left.line): fixture \(left.text), simulator \(right.text)")
                }
                for answer in fixture where answer.unexpected != nil {
                    broken += 1
                    print("\(name):\(answer.line): fixture: \(answer.unexpected!)")
                }
                for answer in simulator where answer.unexpected != nil {
                    broken += 1
                    print("\(name):\(answer.line): simulator: \(answer.unexpected!)")
                }
            }
            print("model agreement\(chip == .drv2605 ? "" : " (DA7280)"): \(scripts.count) scripts, \(differences) differences, \(broken) broken expectations")
            if differences > 0 || broken > 0 { throw ExitCode(1) }
        }
    }
}
