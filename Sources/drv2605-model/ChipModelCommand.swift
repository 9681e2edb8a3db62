// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import DA7280Simulator
import DRV2605
import DRV2605Simulator
import Foundation
import HardwareAccess
import LinuxHardware

/// `drv2605-model`: the chip description's tools. `header` prints the C header the kernel
/// fixture is built with; `check` runs the transaction scripts against a chip on a real I2C bus
/// (the fixture in the VM) and against the simulator, and compares what they answer.
@main
struct ChipModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drv2605-model",
        abstract: "The DRV2605L description both emulated chips share: its C header, and the check that they agree.",
        subcommands: [Header.self, Check.self])

    struct Header: ParsableCommand {
        /// Which chip's fixture the header is for.
        enum Chip: String, ExpressibleByArgument, CaseIterable {
            case drv2605
            case da7280
        }
        static let configuration = CommandConfiguration(abstract: "Print the C header for a kernel fixture (Tests/KernelFixtures).")
        @Option(help: "The chip: drv2605 (i2c-drv2605-sim) or da7280 (i2c-da7280-sim).") var chip: Chip = .drv2605
        func run() { print(chip == .drv2605 ? ChipModel.cHeader() : DA7280Model.cHeader(), terminator: "") }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run transaction scripts against the chip on --bus and against the simulator; print every difference.",
            discussion:
                "Each script starts on a fresh chip: the fixture's fresh_chip parameter is written, and the simulator is new. Exits 1 on a difference or a broken expectation.")
        @Option(help: "The I2C bus of the emulated chip (a path or a number).") var bus: String
        @Option(help: "The fixture module's parameters folder (fresh_chip, actuator, supply_mv, standby_writes_ignored).")
        var parameters = "/sys/module/i2c_drv2605_sim/parameters"
        @Argument(help: "Script files (Tests/ChipModelScripts/*.txt).") var scripts: [String]

        func setParameter(_ name: String, _ value: String) throws {
            do { try value.write(toFile: "\(parameters)/\(name)", atomically: false, encoding: .utf8) } catch {
                throw ValidationError("cannot write \(parameters)/\(name): is the fixture module (i2c-drv2605-sim) loaded? (\(error.localizedDescription))")
            }
        }

        /// A healthy actuator, the model's supply and a fresh chip: how each script starts, and
        /// how the fixture is left whatever happens (the tests after this one rely on it).
        func restoreFixture() throws {
            try setParameter("actuator", "0")
            try setParameter("supply_mv", String(Int(ChipModel.supplyVolts * 1000)))
            try setParameter("standby_writes_ignored", ChipModel.ignoresWritesInStandby ? "1" : "0")
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
                    on: device, wait: { usleep(useconds_t($0) * 1000) },
                    setActuator: { state in
                        do { try setParameter("actuator", state == .ok ? "0" : state == .open ? "1" : "2") } catch { failure = error }
                    },
                    setSupply: { millivolts in
                        do { try setParameter("supply_mv", String(millivolts)) } catch { failure = error }
                    },
                    setStandbyWritesIgnored: { ignored in
                        do { try setParameter("standby_writes_ignored", ignored ? "1" : "0") } catch { failure = error }
                    })
                if let failure { throw failure }
                let simulator = script.runOnSimulator()
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
            print("model agreement: \(scripts.count) scripts, \(differences) differences, \(broken) broken expectations")
            if differences > 0 || broken > 0 { throw ExitCode(1) }
        }
    }
}
