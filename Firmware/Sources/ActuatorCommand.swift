// SPDX-License-Identifier: Apache-2.0

import DRV2605
import HapticEffects
import HapticChip
import HapticFeedback
import HardwareAccess

/// `actuator TYPE RATED_MV MAXIMUM_MV RESONANT_MHZ SUPPLY_MV LIBRARY LOOP`: the actuator wired
/// to the chip, from its datasheet values in thousandths (RESONANT_MHZ 0 for an ERM), the ROM
/// library's number (1...7) and `closed` or `open`. The image starts with the common breakout's
/// coin LRA; a board with another motor says so first (`haptic --device serial: --actuator` or
/// `--board`), and the chip's configuration is computed from the values by the same
/// `DRV2605Configuration` the Linux build uses. The playback is stopped, the chip configured
/// and, in closed loop, calibrated (a calibration that fails leaves it open loop, as at
/// start-up); the feedback table becomes the actuator type's. An actuator already configured is
/// left as it is, calibration included (compared with the configuration asked for last, the
/// start-up's coin LRA before any). Answered `ok actuator TYPE loop=L calibrated=yes|no`.
extension CommandInterpreter {
    func setActuator(_ arguments: [String]) throws(HapticChipError) {
        guard let configuration = actuatorConfiguration(arguments) else { return }
        let driver = player.driver
        guard let part = driver.part else { throw .notStarted }
        do throws(HapticChipError) {
            try configuration.validate(for: part)
        } catch {
            port.send("error bad-argument actuator: ", error.description)
            return
        }
        // Against what was asked last, not what the chip runs: a calibration that failed leaves
        // it open loop, and asking again for the same closed loop must not calibrate again.
        if configuration != requestedConfiguration {
            if player.playing != nil { try player.stop() }
            try driver.reconfigure(configuration)
            requestedConfiguration = configuration
            player.mapping = .standard(for: configuration.actuator)
            try calibrateIfNeeded(driver)
        }
        let applied = driver.configuration
        port.send(
            "ok actuator ", applied.actuator == .lra ? "lra" : "erm", " loop=", applied.loop.rawValue, " calibrated=",
            applied.calibration != nil ? "yes" : "no")
    }

    /// The configuration `arguments` describe, or nil after sending the refusal.
    private func actuatorConfiguration(_ arguments: [String]) -> DRV2605Configuration? {
        var values: [Int] = []
        for word in arguments.dropFirst().prefix(5) {
            guard let value = Int(word), (0...1_000_000).contains(value) else { break }
            values.append(value)
        }
        let type = arguments.first
        guard arguments.count == 7, values.count == 5, let type, "lra".sameBytes(as: type) || "erm".sameBytes(as: type),
            let library = EffectLibrary(rawValue: UInt8(min(values[4], 255))), library != .empty
        else {
            port.send("error bad-argument actuator lra|erm RATED_MV MAXIMUM_MV RESONANT_MHZ SUPPLY_MV LIBRARY(1-7) closed|open")
            return nil
        }
        let loop: LoopMode
        if "closed".sameBytes(as: arguments[6]) {
            loop = .closed
        } else if "open".sameBytes(as: arguments[6]) {
            loop = .open
        } else {
            port.send("error bad-argument actuator: the loop is closed or open, not ", arguments[6])
            return nil
        }
        func volts(_ thousandths: Int) -> Double { Double(thousandths) / 1000 }
        let specification: ActuatorSpecification =
            "lra".sameBytes(as: type)
            ? .lra(ratedVrms: volts(values[0]), maximumVrms: volts(values[1]), resonantHz: volts(values[2]))
            : .erm(ratedVolts: volts(values[0]), maximumVolts: volts(values[1]))
        do throws(HapticChipError) {
            return try DRV2605Configuration(specification, library: library, loop: loop, supplyVolts: volts(values[3]))
        } catch {
            port.send("error bad-argument actuator: ", error.description)
            return nil
        }
    }
}
