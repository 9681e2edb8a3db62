// SPDX-License-Identifier: Apache-2.0

import DRV2605
import HapticBoards
import HapticChip
import HapticEffects
import Testing

@testable import FirmwareLink
@testable import Haptics

/// What `haptic --device serial: --actuator` / `--board` tells the firmware: the actuator's
/// datasheet values in thousandths, so that the firmware computes the configuration this side
/// computes, to the bit.
@Suite struct FirmwareActuatorTests {
    @Test func theTypicalActuatorsAsCommands() throws {
        #expect(try FirmwareActuator(.typicalERM).command == "actuator erm 3000 3600 0 5000 2 closed")
        #expect(try FirmwareActuator(.typicalLRA).command == "actuator lra 2000 2500 175000 5000 6 closed")
    }

    @Test func valuesAreRoundedToWhatTheFirmwareReceives() throws {
        let actuator = try FirmwareActuator(.lra(ratedVrms: 1.8004, maximumVrms: 2.2, resonantHz: 172.4996), supplyVolts: 3.2999)
        #expect(actuator.command == "actuator lra 1800 2200 172500 3300 6 closed")
        #expect(actuator.specification == .lra(ratedVrms: 1.8, maximumVrms: 2.2, resonantHz: 172.5) && actuator.supplyVolts == 3.3)
        // The firmware parses 1800 as 1800 / 1000: the configuration this side assumes is that one.
        let received = try DRV2605Configuration(.lra(ratedVrms: 1.8, maximumVrms: 2.2, resonantHz: 172.5), library: .lra, loop: .closed, supplyVolts: 3.3)
        #expect(actuator.configuration == received)
    }

    @Test func aBoardFilesPresetWithItsLibraryLoopAndSupply() throws {
        var board = BoardFile.single(actuator: .erm(ratedVolts: 1.3, maximumVolts: 3.0))
        board.supplyVolts = 3.3
        board.actuators[0].library = .ermA
        #expect(try FirmwareActuator(board: board).command == "actuator erm 1300 3000 0 3300 1 open")
    }

    @Test func aLibraryForTheOtherActuatorIsRefusedBeforeAnythingIsSent() {
        #expect(throws: DRV2605Error.self) { try FirmwareActuator(.typicalLRA, library: .ermB) }
    }

    @Test func theFirmwaresAnswerSaysWhatItDrives() throws {
        let line = ScriptedFirmwareLine { command in
            command.hasPrefix("actuator ") ? ["done success", "ok actuator erm loop=open calibrated=no"] : ["error unknown-command \(command)"]
        }
        let device = FirmwareDevice(line: line)
        let answer = try device.setActuator(try FirmwareActuator(.typicalERM))
        #expect(answer == FirmwareDevice.ActuatorAnswer(type: "erm", loop: "open", calibrated: false))
        #expect(line.written == ["actuator erm 3000 3600 0 5000 2 closed"])
    }

    @Test func aRefusedActuatorIsTyped() {
        let line = ScriptedFirmwareLine { _ in ["error bad-argument actuator: invalid configuration: DRIVE_TIME is 40; allowed 0...31"] }
        let device = FirmwareDevice(line: line)
        #expect(throws: FirmwareDeviceError.refused(kind: "bad-argument", message: "actuator: invalid configuration: DRIVE_TIME is 40; allowed 0...31")) {
            try device.setActuator(try FirmwareActuator(.typicalERM))
        }
    }

    /// hapticd's driver: told at start, and again before the first command after the board was
    /// reset (its `hello` already arrived), so that nothing plays on the coin LRA's settings.
    @Test func aResetBoardIsToldTheActuatorAgainBeforeItsNextCommand() throws {
        let line = LockedFirmwareLine(respond: firmwareAnswers(extra: { $0.hasPrefix("actuator ") ? ["ok actuator erm loop=closed calibrated=yes"] : nil }))
        let actuator = try FirmwareActuator(.typicalERM)
        let driver = try FirmwareChipDriver(device: FirmwareDevice(line: line), actuator: actuator)
        #expect(line.written == [actuator.command, "status"])
        try driver.wake()
        #expect(line.written.count == 3 && line.written.last == "wake")
        line.arrive("hello haptics-firmware mps2-an385 DRV2605L")
        try driver.wake()
        #expect(Array(line.written.suffix(2)) == [actuator.command, "wake"])
        #expect(driver.resetsDetected == 1)
        try driver.wake()
        #expect(line.written.count == 6 && line.written.last == "wake")
    }
}
