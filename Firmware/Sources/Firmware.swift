// SPDX-License-Identifier: Apache-2.0

import Board
import DRV2605
import HapticEffects
import HapticChip
import HapticFeedback
import HardwareAccess

/// The firmware: the DRV2605 driver and the feedback table the Linux programs use, behind the
/// serial protocol. It starts the chip (identify, reset, configuration, standby) and says so on
/// serial port 0: `hello haptics-firmware BOARD CHIP`, or `error chip ...` and then only
/// `status` works until it is reset.
@main
struct Firmware {
    static func main() {
        let clock = BoardClock()
        let bridged = board_bridges_bus() != 0
        let bus: any I2CBus = bridged ? BridgedBus(clock: clock) : BoardBus()
        // The common breakout's coin LRA, as `haptic` assumes without a board file.
        let configuration: DRV2605Configuration
        do throws(DRV2605Error) {
            configuration = try DRV2605Configuration(.typicalLRA)
        } catch {
            configuration = DRV2605Configuration(actuator: .lra)
        }
        let enable: (any GPIOOutputLine)? = bridged ? nil : BoardLine(index: 0, name: "EN")
        let driver = DRV2605Driver(bus: bus, configuration: configuration, enableLine: enable, clock: clock)
        let player = FeedbackPlayer(driver: driver, mapping: .standard(for: configuration.actuator))
        let interpreter = CommandInterpreter(player: player, clock: clock)
        let board = String(cString: board_name())
        do throws(DRV2605Error) {
            let part = try driver.start()
            try calibrateIfNeeded(driver)
            interpreter.port.send("hello haptics-firmware ", board, " ", part.description)
        } catch {
            interpreter.port.send("error chip ", board, ": ", error.description)
        }
        // A main loop stuck for 2 s (longer than any single step it takes) resets the board; the
        // start-up above (a calibration takes about a second) runs before it is armed.
        board_watchdog_start(2000)
        interpreter.run()
    }
}

/// Never closed loop uncalibrated, as `HapticBoard`'s `auto` policy on Linux: a chip without a
/// calibration (firmware keeps none across resets, and an unprogrammed chip's OTP holds none) is
/// calibrated at start-up; one that cannot be (an actuator loose, open or shorted) is started
/// again open loop.
func calibrateIfNeeded(_ driver: DRV2605Driver) throws(DRV2605Error) {
    guard driver.configuration.loop == .closed, driver.configuration.calibration == nil, !driver.usesProgrammedOTP else { return }
    do throws(DRV2605Error) {
        _ = try driver.calibrate()
        if driver.power == .ready { try driver.enterStandby() }
    } catch {
        var openLoop = driver.configuration
        openLoop.loop = .open
        openLoop.calibration = nil
        try driver.reconfigure(openLoop)
    }
}

/// A board GPIO output (EN, IN/TRIG) as the driver's line.
final class BoardLine: GPIOOutputLine {
    let index: Int32
    let name: String
    init(index: Int32, name: String) {
        self.index = index
        self.name = name
    }
    func set(_ high: Bool) throws(GPIOError) { board_gpio_set(index, high ? 1 : 0) }
    func release() {}
}
