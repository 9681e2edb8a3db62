// SPDX-License-Identifier: Apache-2.0

import DA7280
import DA7280Simulator
import Foundation
import HardwareSimulation
import Testing

/// The DA7280 model both emulations use: its rules, and the kernel fixture's header made from it.
@Suite struct DA7280ModelTests {
    /// The fixture's header is generated from the model: a changed rule with a stale header is caught.
    @Test func theFixturesHeaderIsTheModels() throws {
        // Regenerate with:
        //   swift run drv2605-model header --chip da7280 > Tests/KernelFixtures/i2c-da7280-sim/da7280-model.h
        let committed = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("KernelFixtures/i2c-da7280-sim/da7280-model.h"), encoding: .utf8)
        #expect(committed == DA7280Model.cHeader(), "the fixture's da7280-model.h is out of date: regenerate it")
    }

    /// IRQ_EVENT1 clears where 1s are written, and its E_WARNING and E_SEQ_FAULT take their
    /// diagnosis registers with them [DS T21-T23]; the read-only registers keep their value.
    @Test func eventsAreClearedByWritingOnesAndReadOnlyRegistersKeepTheirValue() {
        var registers = DA7280Model.resetValues
        registers[0x03] = 0xC4
        DA7280Model.write(0x40, to: 0x03, in: &registers)
        #expect(registers[0x03] == 0x84)
        DA7280Model.write(0x00, to: 0x03, in: &registers)
        #expect(registers[0x03] == 0x84)
        DA7280Model.write(0x00, to: 0x00, in: &registers)
        #expect(registers[0x00] == 0xBA)
        DA7280Model.write(0x7F, to: 0x23, in: &registers)
        #expect(registers[0x23] == 0x7F)
        registers[0x03] = 0x30
        registers[0x04] = 0x88
        registers[0x05] = 0x40
        DA7280Model.write(0xFF, to: 0x04, in: &registers)
        #expect(registers[0x04] == 0x88, "IRQ_EVENT_WARNING_DIAG is not written: it clears with E_WARNING")
        DA7280Model.write(0x20, to: 0x03, in: &registers)
        #expect(registers[0x04] == 0 && registers[0x05] == 0x40 && registers[0x03] == 0x10)
        DA7280Model.write(0x10, to: 0x03, in: &registers)
        #expect(registers[0x05] == 0 && registers[0x03] == 0)
    }

    /// The register map's reset values [DS T19-T75]: nothing wrong in IRQ_STATUS1 at power-on,
    /// the chip's own LRA period, FRQ_LOCKED_LIM in TOP_INT_CFG1.
    @Test func resetValuesAreTheDatasheets() {
        let reset = DA7280Model.resetValues
        #expect(reset[0x06] == 0x00, "IRQ_STATUS1 at power-on: no under-voltage")
        #expect(reset[0x0A] == 0x21 && reset[0x0B] == 0x4F)
        #expect(reset[0x17] == 0x81 && reset[0x13] == 0x1E && reset[0x14] == 0x01 && reset[0x16] == 0x40 && reset[0x6E] == 0x01)
        #expect(reset[0x2C] == 0x84 && reset[0x2D] == 0x80)
    }

    static func registers(ctl1: UInt8, ctl2: UInt8, cfg1: UInt8, nominal: UInt8 = 128, absolute: UInt8 = 141, events: UInt8 = 0) -> [UInt8] {
        var registers = DA7280Model.resetValues
        registers[0x22] = ctl1
        registers[0x23] = ctl2
        registers[0x13] = cfg1
        registers[0x0C] = nominal
        registers[0x0D] = absolute
        registers[0x03] = events
        return registers
    }

    /// DRO drives whatever STANDBY_EN says [DS T46]; with acceleration 0x00-0x7F is 0-100 % of
    /// NOMMAX and 0x80-0xFF nothing [DS T47]; without it the byte is signed and full scale is
    /// ABSMAX [DS §5.9.1], so 0x7F drives ABSMAX/NOMMAX of the rating; a latched fault holds the
    /// chip idle [DS §5.6.6].
    @Test func theDriveFollowsModeAccelerationAndFaults() {
        let acceleration = DA7280Register.TopConfiguration1.acceleration.rawValue
        let dro = DA7280Register.TopControl1(mode: .directRegisterOverride, standbyEnabled: true).rawValue
        let droFromIdle = DA7280Register.TopControl1(mode: .directRegisterOverride, standbyEnabled: false).rawValue
        #expect(DA7280Model.drive(Self.registers(ctl1: dro, ctl2: 0x7F, cfg1: acceleration)) == 1)
        #expect(DA7280Model.drive(Self.registers(ctl1: droFromIdle, ctl2: 0x7F, cfg1: acceleration)) == 1, "STANDBY_EN does not stop DRO")
        #expect(DA7280Model.drive(Self.registers(ctl1: dro, ctl2: 0xFF, cfg1: acceleration)) == 0)
        #expect(DA7280Model.drive(Self.registers(ctl1: dro, ctl2: 0x80, cfg1: acceleration)) == 0)
        #expect(DA7280Model.drive(Self.registers(ctl1: 0x08, ctl2: 0x7F, cfg1: acceleration)) == 0)
        #expect(DA7280Model.drive(Self.registers(ctl1: dro, ctl2: 0x7F, cfg1: 0)) == 141.0 / 128)
        #expect(DA7280Model.drive(Self.registers(ctl1: dro, ctl2: 0x81, cfg1: 0)) == -141.0 / 128)
        #expect(DA7280Model.drive(Self.registers(ctl1: dro, ctl2: 0x80, cfg1: 0)) == -141.0 / 128)
        #expect(abs(DA7280Model.drive(Self.registers(ctl1: dro, ctl2: 115, cfg1: 0)) - 115.0 * 141 / (127 * 128)) < 1e-12)
        for event in [UInt8(0x02), 0x08, 0x10, 0x40, 0x80] {
            #expect(DA7280Model.drive(Self.registers(ctl1: dro, ctl2: 0x7F, cfg1: acceleration, events: event)) == 0, "event \(event)")
        }
        for event in [UInt8(0x01), 0x04, 0x20] {
            #expect(DA7280Model.drive(Self.registers(ctl1: dro, ctl2: 0x7F, cfg1: acceleration, events: event)) == 1, "event \(event)")
        }
    }

    /// A `sequence` expectation is compared level by level: one level off, or one change missing,
    /// is a broken expectation (what `drv2605-model check` counts), and the answer's text is what
    /// the fixture's `sequence_timeline` shows.
    @Test func aSequenceExpectationIsComparedLevelByLevel() throws {
        let memory = "write 84 01 01 06 07 a7 0f b3 01\nwrite 28 00\nwrite 22 0b\nwrite 22 1b\n"
        let played = "0:155 5440:311 10880:466 16320:1000 21760:800 27200:600 32640:400 38080:200 43520:0"
        let right = try ModelScript.parse(memory + "sequence = \(played)\n", name: "right").runOnSimulatedDA7280()
        #expect(right.last?.text == "sequence \(played)")
        #expect(right.allSatisfy { $0.unexpected == nil })
        for wrong in [played.replacingOccurrences(of: "5440:311", with: "5440:310"), String(played.dropLast(8))] {
            let answers = try ModelScript.parse(memory + "sequence = \(wrong)\n", name: "wrong").runOnSimulatedDA7280()
            #expect(answers.last?.unexpected != nil, "\(wrong)")
        }
    }

    static let scriptFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ChipModelScripts/da7280")

    /// The DA7280 transaction scripts the VM runs against the kernel fixture (`drv2605-model check
    /// --chip da7280`): each parses, and every expectation in it holds on the simulated chip.
    @Test func everyDA7280ScriptHoldsOnTheSimulator() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.scriptFolder.path).filter { $0.hasSuffix(".txt") }.sorted()
        #expect(names.count >= 8)
        for name in names {
            let script = try ModelScript.parse(String(contentsOf: Self.scriptFolder.appendingPathComponent(name), encoding: .utf8), name: name)
            let answers = script.runOnSimulatedDA7280()
            #expect(answers.contains { $0.text.hasPrefix("drive") || $0.text.hasPrefix("read") }, "\(name) checks nothing")
            for answer in answers {
                #expect(answer.unexpected == nil, "\(name):\(answer.line): \(answer.unexpected ?? "")")
            }
        }
    }
}
