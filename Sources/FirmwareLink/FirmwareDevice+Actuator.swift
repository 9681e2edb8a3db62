// SPDX-License-Identifier: Apache-2.0

import HapticBoards
import Haptics
import HardwareAccess

extension FirmwareDevice {
    /// What the firmware made of an `actuator` command.
    public struct ActuatorAnswer: Sendable, Equatable {
        /// "erm" or "lra": the feedback table the firmware now plays from.
        public var type: String
        /// "closed" or "open": open after a calibration that failed (an actuator loose, open or
        /// shorted), as `HapticBoard`'s `auto` policy falls back on Linux.
        public var loop: String
        /// Whether the chip holds a calibration (closed loop needs one).
        public var calibrated: Bool
    }

    /// Tells the firmware which actuator its chip drives. It stops what plays, configures the
    /// chip for `actuator` and, in closed loop, calibrates it (about a second); an actuator it
    /// already drives is left as it is, calibration included.
    @discardableResult
    public func setActuator(_ actuator: FirmwareActuator) throws(FirmwareDeviceError) -> ActuatorAnswer {
        let answer = try locked { () throws(FirmwareDeviceError) in
            try request(actuator.command, expecting: "ok actuator", within: .seconds(5))
        }
        let words = answer.split(separator: " ").map(String.init)
        func field(_ name: String) -> String? {
            words.first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
        }
        return ActuatorAnswer(type: words.count > 2 ? words[2] : "?", loop: field("loop") ?? "?", calibrated: field("calibrated") == "yes")
    }

    /// Hands every payload that has already arrived, and is not an answer to anything, to
    /// `unsolicited`, without waiting: what a caller checks before a request whose meaning the
    /// firmware's state changes (a `hello` after the board was reset).
    func takeArrivedLines() throws(FirmwareDeviceError) {
        try locked { () throws(FirmwareDeviceError) in
            while true {
                let arrived: [UInt8]
                do throws(SerialError) {
                    arrived = try line.read(timeout: .zero)
                } catch {
                    throw .link(error)
                }
                if arrived.isEmpty { break }
                appendReceived(arrived)
            }
            // Unasked payloads (ID 0) only: answers to earlier requests are late and dropped.
            while let next = takeReceived() {
                if case let .frame(0, text) = next { unsolicited(text) }
            }
        }
    }
}
