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

    /// A da7280 bound by a device tree on a Pi: its properties read from the I2C client's node
    /// (what the kernel vibrator's rules are made from), through a udev by-path link too; none on
    /// a device without a node, and no path outside the node.
    @Test func firmwarePropertiesAreReadFromTheDevicesNode() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try add(4, name: "da7280-haptic", ff: "30000 0", minor: 68)
        try add(5, name: "pwm-vibrator", ff: "10000 0", minor: 69)
        let node = "\(root)/sys/class/input/event4/device/device/of_node"
        try FileManager.default.createDirectory(atPath: node, withIntermediateDirectories: true)
        try Data([0x00, 0x20, 0x22, 0x90]).write(to: URL(fileURLWithPath: node + "/dlg,nom-microvolt"))
        try Data().write(to: URL(fileURLWithPath: node + "/dlg,acc-enable"))
        let links = root + "/by-path"
        try FileManager.default.createDirectory(atPath: links, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: links + "/platform-i2c-event", withDestinationPath: "/dev/input/event4")
        #expect(finder.firmwareProperty("dlg,nom-microvolt", ofDeviceAt: "/dev/input/event4") == [0x00, 0x20, 0x22, 0x90])
        #expect(finder.firmwareProperty("dlg,nom-microvolt", ofDeviceAt: links + "/platform-i2c-event") == [0x00, 0x20, 0x22, 0x90])
        #expect(finder.firmwareProperty("dlg,acc-enable", ofDeviceAt: "/dev/input/event4") == [])
        #expect(finder.firmwareProperty("dlg,abs-max-microvolt", ofDeviceAt: "/dev/input/event4") == nil)
        #expect(finder.firmwareProperty("dlg,nom-microvolt", ofDeviceAt: "/dev/input/event5") == nil)
        #expect(finder.firmwareProperty("../name", ofDeviceAt: "/dev/input/event4") == nil)
    }
}
