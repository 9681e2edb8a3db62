// SPDX-License-Identifier: Apache-2.0

import DRV2605
import DRV2605Simulator
import Foundation
import HapticChip
import HapticEffects
import HardwareSimulation
import Testing

/// The transaction scripts shared with the kernel fixture (Tests/ChipModelScripts): every one
/// parses, and on the simulator every expectation in it holds (`drv2605-model check` runs them
/// against the fixture in the VM and compares the two).
@Suite struct ChipModelScriptTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ChipModelScripts")

    static func scripts() throws -> [ModelScript] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".txt") }.sorted()
        return try names.map { name in
            try ModelScript.parse(String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8), name: name)
        }
    }

    @Test func everyScriptHoldsOnTheSimulator() throws {
        let scripts = try Self.scripts()
        #expect(scripts.count >= 10)
        for script in scripts {
            let answers = script.runOnSimulator()
            #expect(!answers.isEmpty, "\(script.name) answered nothing")
            for answer in answers {
                #expect(answer.unexpected == nil, "\(script.name):\(answer.line): \(answer.unexpected ?? "")")
            }
        }
    }

    @Test func aWrongChipIsCaught() throws {
        // The same scripts against a chip whose OC_DETECT clears on read, as this project's
        // simulator used to model it: the short-circuit script must notice.
        var options = SimulatedDRV2605.Options()
        options.statusClearedOnRead = 0x0F
        let short = try #require(try Self.scripts().first { $0.name.contains("short") })
        #expect(short.runOnSimulator(options: options).contains { $0.unexpected != nil })
        // A chip that ignores writes in standby, where the model (and script 10) says they land.
        var strict = SimulatedDRV2605.Options()
        strict.ignoresWritesInStandby = true
        let standby = try #require(try Self.scripts().first { $0.name.contains("writes-in-standby-kept") })
        #expect(standby.runOnSimulator(options: strict).contains { $0.unexpected != nil })
        // The script's own `standby-writes ignored` reaches the chip: script 2 holds on either default.
        let readOnly = try #require(try Self.scripts().first { $0.name.contains("read-only-and-standby") })
        #expect(readOnly.runOnSimulator(options: strict).allSatisfy { $0.unexpected == nil })
        #expect(readOnly.runOnSimulator().allSatisfy { $0.unexpected == nil })
    }

    @Test func badScriptsSayWhere() {
        #expect(throws: ModelScript.ParseError.self) { try ModelScript.parse("write 01\n", name: "a") }
        #expect(throws: ModelScript.ParseError.self) { try ModelScript.parse("read 00 2 = e0\n", name: "b") }
        #expect(throws: ModelScript.ParseError.self) { try ModelScript.parse("\nfly 00\n", name: "c") }
        #expect(throws: ModelScript.ParseError.self) { try ModelScript.parse("sequence = 0:1000 5440\n", name: "e") }
        #expect(throws: ModelScript.ParseError.self) { try ModelScript.parse("sequence = -1:1000\n", name: "f") }
        #expect(throws: ModelScript.ParseError.self) { try ModelScript.parse("sequence =\n", name: "g") }
        let sequence = try? ModelScript.parse("sequence = 0:-1101 5440:0\n", name: "h")
        #expect(sequence?.steps.map(\.step) == [.sequence(expected: ["0:-1101", "5440:0"])])
        do {
            _ = try ModelScript.parse("\n\nwait forever\n", name: "d.txt")
        } catch {
            #expect(error.description == "d.txt:3: wait needs milliseconds (0-10000)")
        }
    }

    @Test func theFixturesHeaderIsTheDescriptionsOwn() throws {
        // The kernel fixture is built with the committed header: it must be what the description
        // generates now. After changing ChipModel.swift:
        //   swift run drv2605-model header > Tests/KernelFixtures/i2c-drv2605-sim/drv2605-model.h
        let committed = try String(
            contentsOf: Self.folder.deletingLastPathComponent()
                .appendingPathComponent("KernelFixtures/i2c-drv2605-sim/drv2605-model.h"), encoding: .utf8)
        #expect(committed == ChipModel.cHeader(), "the fixture's drv2605-model.h is out of date: regenerate it")
    }

    @Test func theFixturesHeaderCarriesTheSameFacts() {
        let header = ChipModel.cHeader()
        #expect(header.contains("static const u8 drv_model_reset_values[35] = { 0xE0, 0x40, 0x00, 0x00, 0x01,"))
        #expect(header.contains("#define DRV_MODEL_STATUS_CLEARED_ON_READ 0x0E"))
        #expect(header.contains("#define DRV_MODEL_LRA_PERIOD 58"))
        // Effect 16 (1000 ms alert) at index 16, effect 1 at index 1.
        let lengths = header.components(separatedBy: "drv_model_effect_ms[128] = { ")[1].components(separatedBy: " }")[0]
            .components(separatedBy: ", ").compactMap(Int.init)
        #expect(lengths.count == 128 && lengths[16] == 1000 && lengths[1] == ChipModel.effectMilliseconds(1) && lengths[124] == 0)
    }
}
