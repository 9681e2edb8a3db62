// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Finds the vibrator among the kernel's input devices, as feedbackd does: the device udev tagged
/// `FEEDBACKD_TYPE=vibra` (feedbackd's own rules tag drv260x, pwm-vibrator, gpio-vibrator and
/// others), else the first device with force feedback that is not hapticd's own uinput device
/// (whose name starts with "hapticd", and which would play back into hapticd).
///
/// Reads sysfs (`/sys/class/input/eventN/device/{name,capabilities/ff}`, `eventN/dev`) and udev's
/// database (`/run/udev/data/c13:MINOR`); both roots are parameters, so a test gives a tree of its own.
public struct VibratorFinder: Sendable {
    /// Where sysfs is (`/sys`).
    public var sysfs: String
    /// Where udev keeps its database (`/run/udev/data`).
    public var udevData: String
    /// Where the device nodes are (`/dev/input`).
    public var devices: String

    /// One input device with force feedback.
    public struct Candidate: Sendable, Equatable {
        /// Its node (`/dev/input/event3`).
        public var path: String
        /// Its name ("drv260x:haptics").
        public var name: String
        /// Whether udev tagged it `FEEDBACKD_TYPE=vibra`.
        public var taggedVibra: Bool
    }

    /// A finder over this machine's sysfs and udev database.
    public init(sysfs: String = "/sys", udevData: String = "/run/udev/data", devices: String = "/dev/input") {
        self.sysfs = sysfs
        self.udevData = udevData
        self.devices = devices
    }

    private func read(_ path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every input device with force feedback, in event number order.
    public func candidates() -> [Candidate] {
        let folder = sysfs + "/class/input"
        let events = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasPrefix("event") }
            .sorted { (Int($0.dropFirst(5)) ?? 0) < (Int($1.dropFirst(5)) ?? 0) }
        return events.compactMap { event in
            let base = "\(folder)/\(event)"
            // capabilities/ff: hexadecimal words, most significant first; all zero means none.
            guard let ff = read(base + "/device/capabilities/ff"), ff.contains(where: { $0 != "0" && $0 != " " }) else { return nil }
            let name = read(base + "/device/name") ?? ""
            var tagged = false
            if let number = read(base + "/dev"), let udev = read("\(udevData)/c\(number)") {
                tagged = udev.split(separator: "\n").contains("E:FEEDBACKD_TYPE=vibra")
            }
            return Candidate(path: "\(devices)/\(event)", name: name, taggedVibra: tagged)
        }
    }

    /// A property from the device tree node of the device an input device node belongs to
    /// (`eventN/device/device/of_node/NAME`: the I2C client drv260x or da7280 was bound to), its
    /// bytes; nil on a machine without a device tree, or when the node lacks it. A udev link
    /// (`/dev/input/by-path/...-event`) is followed to the node it names.
    public func firmwareProperty(_ name: String, ofDeviceAt path: String) -> [UInt8]? {
        let link = try? FileManager.default.destinationOfSymbolicLink(atPath: path)
        let event = URL(fileURLWithPath: link ?? path).lastPathComponent
        guard !name.contains("/"), !name.hasPrefix("."), event.hasPrefix("event") else { return nil }
        return FileManager.default.contents(atPath: "\(sysfs)/class/input/\(event)/device/device/of_node/\(name)").map { [UInt8]($0) }
    }

    /// The vibrator feedbackd would use, or nil when there is none.
    public func vibrator() -> Candidate? {
        let all = candidates().filter { !$0.name.hasPrefix("hapticd") }
        return all.first(where: \.taggedVibra) ?? all.first
    }
}
