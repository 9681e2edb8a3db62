// SPDX-License-Identifier: Apache-2.0

import DRV2605
import HapticChip
import HapticEffects
import Testing

@Suite struct RegisterFileTests {
    /// A typed register lands on its own address and nowhere else.
    @Test func typedRegistersAddressTheirOwnByte() {
        var file = RegisterFile()
        file[ModeRegister.self] = ModeRegister(mode: .realTimePlayback)
        file[Control3Register.self].unsignedRTP = true
        file[.ratedVoltage] = 0x53
        var expected = [UInt8](repeating: 0, count: 0x23)
        expected[0x01] = 0x05
        expected[0x1D] = 0x08
        expected[0x16] = 0x53
        #expect(file.bytes == expected)
        #expect(file[GoRegister.self].go == false)
        file[GoRegister.self].go = true
        #expect(file.bytes[0x0C] == 1)
    }

    /// The sequencer's slots are 0x04-0x0B, filled in order and zero-padded.
    @Test func waveformSlotsFillTheSequencerInOrder() {
        var file = Part.drv2605L.resetValues
        #expect(file.waveformSlots == [1, 0, 0, 0, 0, 0, 0, 0])
        file.waveformSlots = [47, 0x8A, 14]
        #expect(file.bytes[0x04...0x0B] == [47, 0x8A, 14, 0, 0, 0, 0, 0])
        #expect(file[.go] == 0 && file[.librarySelection] == 0, "the neighbours are untouched")
    }

    /// A burst read places its bytes from its first register on; short and over-long reads are
    /// clipped instead of trapping.
    @Test func burstsArePlacedAtTheirFirstRegister() {
        let burst = RegisterFile(bytes: [0xAA, 0xBB], from: .supplyVoltage)
        #expect(burst[.supplyVoltage] == 0xAA && burst[.lraResonancePeriod] == 0xBB)
        #expect(burst.bytes.prefix(0x21).allSatisfy { $0 == 0 })
        let long = RegisterFile(bytes: [UInt8](repeating: 7, count: 100))
        #expect(long.bytes.count == 0x23 && long[.lraResonancePeriod] == 7)
        let short = RegisterFile(bytes: [0xE0])
        #expect(short[StatusRegister.self].deviceID == 7 && short[.mode] == 0)
        #expect(burst[address: 0x22] == 0xBB && burst[address: 0x23] == nil)
    }

    /// The start-up image is the register file from RTP_INPUT to the part's last configuration
    /// register: CONTROL5 and OL_LRA_PERIOD only on the L parts.
    @Test func startupImageIsASliceOfTheConfiguredFile() throws {
        let configuration = try DRV2605Configuration(.typicalLRA)
        let file = configuration.registerFile(for: .drv2605L, slots: [1])
        #expect(configuration.registerImage(for: .drv2605L, slots: [1]) == Array(file.bytes[0x02...0x20]))
        #expect(configuration.registerImage(for: .drv2605, slots: [1]).count == 0x1E - 0x02 + 1)
        #expect(file[FeedbackControlRegister.self] == configuration.feedbackControl)
        #expect(file[.ratedVoltage] == configuration.ratedVoltage)
    }
}
