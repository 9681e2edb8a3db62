// SPDX-License-Identifier: Apache-2.0

import Foundation
import LinuxHardware
import Testing

/// The vibrator found as feedbackd finds it, in a sysfs and udev database of the test's own: a
/// phone's (a keyboard, a tagged drv260x, a game pad with rumble) and hapticd's own uinput device.
@Suite struct VibratorFinderTests {
    let root = NSTemporaryDirectory() + "vibrators-\(UUID().uuidString.prefix(8))"

    /// Input device `event` named `name` with force-feedback bits `ff` (sysfs's hex words), its
    /// node 13:`minor`, tagged vibra by udev when `vibra`.
    func add(_ event: Int, name: String, ff: String, minor: Int, vibra: Bool = false) throws {
        let base = "\(root)/sys/class/input/event\(event)"
        try FileManager.default.createDirectory(atPath: base + "/device/capabilities", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/udev", withIntermediateDirectories: true)
        try "\(name)\n".write(toFile: base + "/device/name", atomically: true, encoding: .utf8)
        try "\(ff)\n".write(toFile: base + "/device/capabilities/ff", atomically: true, encoding: .utf8)
        try "13:\(minor)\n".write(toFile: base + "/dev", atomically: true, encoding: .utf8)
        let udev = "I:123\nE:ID_INPUT=1\n" + (vibra ? "E:FEEDBACKD_TYPE=vibra\n" : "") + "G:seat\n"
        try udev.write(toFile: "\(root)/udev/c13:\(minor)", atomically: true, encoding: .utf8)
    }

    var finder: VibratorFinder { VibratorFinder(sysfs: root + "/sys", udevData: root + "/udev", devices: "/dev/input") }

    @Test func theTaggedVibratorComesFirst() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try add(0, name: "gpio-keys", ff: "0", minor: 64)
        try add(1, name: "Xbox Wireless Controller", ff: "107030000 0", minor: 65)
        try add(2, name: "hapticd DRV2605 haptics", ff: "107030000 0", minor: 66, vibra: true)
        try add(10, name: "drv260x:haptics", ff: "107030000 0", minor: 74, vibra: true)
        #expect(finder.candidates().map(\.path) == ["/dev/input/event1", "/dev/input/event2", "/dev/input/event10"], "no keyboard, event numbers in order")
        #expect(finder.vibrator()?.path == "/dev/input/event10", "the tagged vibrator, not hapticd's own device")
    }

    @Test func withoutATagTheFirstForceFeedbackDeviceThatIsNotHapticdsOwn() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try add(3, name: "hapticd DRV2605 haptics", ff: "107030000 0", minor: 67)
        try add(5, name: "pwm-vibrator", ff: "10000 0", minor: 69)
        #expect(finder.vibrator()?.name == "pwm-vibrator")
        try? FileManager.default.removeItem(atPath: root + "/sys/class/input/event5")
        #expect(finder.vibrator() == nil, "hapticd's own device is never the vibrator")
    }

    /// A chip bound by a device tree on a Pi, laid out as Linux lays it out: `eventN` and its input
    /// device under the I2C adapter (drv260x and da7280 make the adapter their input device's
    /// parent), the chip an I2C client beside it with its driver and device tree node, and
    /// `/sys/class/input/eventN` a link into that tree. `properties` are the node's.
    func addOnI2C(
        _ event: Int, name: String, input: Int, bus: Int = 1, address: Int, driver: String, properties: [String: [UInt8]]
    ) throws {
        let fm = FileManager.default
        let adapter = "\(root)/sys/devices/platform/soc/fe804000.i2c/i2c-\(bus)"
        let client = adapter + "/" + String(format: "%d-%04x", bus, address)
        let inputFolder = "\(adapter)/input/input\(input)"
        try fm.createDirectory(atPath: "\(inputFolder)/event\(event)", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: inputFolder + "/capabilities", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: client + "/of_node", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: adapter + "/of_node", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: "\(root)/sys/bus/i2c/drivers/\(driver)", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: "\(root)/sys/class/input", withIntermediateDirectories: true)
        try "\(name)\n".write(toFile: inputFolder + "/name", atomically: true, encoding: .utf8)
        try "107030000 0\n".write(toFile: inputFolder + "/capabilities/ff", atomically: true, encoding: .utf8)
        try "13:\(64 + event)\n".write(toFile: "\(inputFolder)/event\(event)/dev", atomically: true, encoding: .utf8)
        if !fm.fileExists(atPath: "\(inputFolder)/device") {
            try fm.createSymbolicLink(atPath: "\(inputFolder)/device", withDestinationPath: "../../../i2c-\(bus)")
        }
        try fm.createSymbolicLink(atPath: "\(inputFolder)/event\(event)/device", withDestinationPath: "../../input\(input)")
        try fm.createSymbolicLink(atPath: client + "/driver", withDestinationPath: "../../../../../../bus/i2c/drivers/\(driver)")
        try fm.createSymbolicLink(
            atPath: "\(root)/sys/class/input/event\(event)",
            withDestinationPath: "../../devices/platform/soc/fe804000.i2c/i2c-\(bus)/input/input\(input)/event\(event)")
        for (property, bytes) in properties { try Data(bytes).write(to: URL(fileURLWithPath: "\(client)/of_node/\(property)")) }
        // The bus's own node has properties a chip's reader must not take for the chip's.
        try Data([0x00, 0x01, 0x86, 0xA0]).write(to: URL(fileURLWithPath: adapter + "/of_node/clock-frequency"))
    }

    /// A da7280 and a drv2605l on a Pi's I2C bus, bound from its device tree: each input device's
    /// properties are read from its own chip's node (what the kernel vibrator's rules are made
    /// from), not from the adapter the input device hangs under, through a udev by-path link too;
    /// none outside the node.
    @Test func firmwarePropertiesAreReadFromTheChipsI2CClient() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let nominal: [UInt8] = [0x00, 0x1B, 0x77, 0x40]  // 1.8 V
        try addOnI2C(3, name: "da7280-haptic", input: 2, address: 0x4A, driver: "da7280", properties: ["dlg,nom-microvolt": nominal, "dlg,acc-enable": []])
        try addOnI2C(4, name: "drv260x:haptics", input: 3, address: 0x5A, driver: "drv260x-haptics", properties: ["vib-rated-mv": [0, 0, 0x07, 0xD0]])
        #expect(finder.candidates().map(\.name) == ["da7280-haptic", "drv260x:haptics"], "both found through the class links")
        #expect(finder.firmwareNodes(ofDeviceAt: "/dev/input/event3").map { $0.hasSuffix("/1-004a/of_node") } == [true])
        #expect(finder.firmwareProperty("dlg,nom-microvolt", ofDeviceAt: "/dev/input/event3") == nominal)
        #expect(finder.firmwareProperty("dlg,acc-enable", ofDeviceAt: "/dev/input/event3") == [])
        #expect(finder.firmwareProperty("vib-rated-mv", ofDeviceAt: "/dev/input/event4") == [0, 0, 0x07, 0xD0])
        #expect(finder.firmwareProperty("vib-rated-mv", ofDeviceAt: "/dev/input/event3") == nil, "not the other chip's")
        #expect(finder.firmwareProperty("clock-frequency", ofDeviceAt: "/dev/input/event3") == nil, "not the bus's")
        #expect(finder.firmwareProperty("../name", ofDeviceAt: "/dev/input/event3") == nil)
        let links = root + "/by-path"
        try FileManager.default.createDirectory(atPath: links, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: links + "/platform-fe804000.i2c-event", withDestinationPath: "/dev/input/event3")
        #expect(finder.firmwareProperty("dlg,nom-microvolt", ofDeviceAt: links + "/platform-fe804000.i2c-event") == nominal)
    }

    /// Two da7280s on one bus: their input devices look alike in sysfs, so a property is given
    /// only where both nodes agree; where they differ neither is taken for the other's.
    @Test func twoChipsOfOneKindOnOneBusGiveOnlyWhatTheyAgreeOn() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try addOnI2C(
            3, name: "da7280-haptic", input: 2, address: 0x4A, driver: "da7280", properties: ["dlg,nom-microvolt": [0, 0x1B, 0x77, 0x40], "dlg,actuator-type": Array("LRA\0".utf8)])
        try addOnI2C(
            4, name: "da7280-haptic", input: 3, address: 0x4B, driver: "da7280", properties: ["dlg,nom-microvolt": [0, 0x2D, 0xC6, 0xC0], "dlg,actuator-type": Array("LRA\0".utf8)])
        #expect(finder.firmwareNodes(ofDeviceAt: "/dev/input/event4").count == 2)
        #expect(finder.firmwareProperty("dlg,nom-microvolt", ofDeviceAt: "/dev/input/event4") == nil)
        #expect(finder.firmwareProperty("dlg,actuator-type", ofDeviceAt: "/dev/input/event4") == Array("LRA\0".utf8))
    }

    /// A driver that makes the chip its input device's parent (most do): the parent's own node.
    @Test func aChipThatIsItsInputDevicesParentGivesItsOwnNode() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try add(5, name: "pwm-vibrator", ff: "10000 0", minor: 69)
        let node = "\(root)/sys/class/input/event5/device/device/of_node"
        try FileManager.default.createDirectory(atPath: node, withIntermediateDirectories: true)
        try Data([0, 0, 0, 1]).write(to: URL(fileURLWithPath: node + "/pwm-names"))
        #expect(finder.firmwareProperty("pwm-names", ofDeviceAt: "/dev/input/event5") == [0, 0, 0, 1])
        #expect(finder.firmwareProperty("pwm-names", ofDeviceAt: "/dev/input/event6") == nil)
    }
}
