// SPDX-License-Identifier: Apache-2.0

import DA7280
import DA7280Simulator
import Foundation
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

    @Test func eventsAreClearedByWritingOnesAndReadOnlyRegistersKeepTheirValue() {
        #expect(DA7280Model.afterWrite(register: DA7280Register.irqEvent1.rawValue, old: 0xC4, written: 0x40) == 0x84)
        #expect(DA7280Model.afterWrite(register: DA7280Register.irqEvent1.rawValue, old: 0xC4, written: 0x00) == 0xC4)
        #expect(DA7280Model.afterWrite(register: DA7280Register.chipRevision.rawValue, old: 0xBA, written: 0x00) == 0xBA)
        #expect(DA7280Model.afterWrite(register: DA7280Register.topControl2.rawValue, old: 0x10, written: 0x7F) == 0x7F)
    }

    /// Only DRO out of IDLE drives; with acceleration the level saturates at 0x7F, without it the
    /// byte is signed.
    @Test func theDriveFollowsModeStandbyAndAcceleration() {
        let dro = DA7280Register.TopControl1(mode: .directRegisterOverride, standbyEnabled: true).rawValue
        let idle = DA7280Register.TopControl1(mode: .directRegisterOverride, standbyEnabled: false).rawValue
        let acceleration = DA7280Register.TopConfiguration1.acceleration.rawValue
        #expect(DA7280Model.drive(topControl1: dro, topControl2: 0x7F, topConfiguration1: acceleration) == 1)
        #expect(DA7280Model.drive(topControl1: dro, topControl2: 0xFF, topConfiguration1: acceleration) == 1)
        #expect(DA7280Model.drive(topControl1: idle, topControl2: 0x7F, topConfiguration1: acceleration) == 0)
        #expect(DA7280Model.drive(topControl1: 0x08, topControl2: 0x7F, topConfiguration1: acceleration) == 0)
        #expect(DA7280Model.drive(topControl1: dro, topControl2: 0x81, topConfiguration1: 0) == -1)
        #expect(abs(DA7280Model.drive(topControl1: dro, topControl2: 63, topConfiguration1: 0) - 63.0 / 127) < 1e-12)
    }
}
