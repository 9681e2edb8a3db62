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

    /// A property from the device tree node of the chip an input device node belongs to, its
    /// bytes; nil on a machine without a device tree, when the node lacks it, or when the chip
    /// cannot be told apart from another of its kind whose node says otherwise. A udev link
    /// (`/dev/input/by-path/...-event`) is followed to the node it names.
    ///
    /// The node is the I2C client's (`firmwareNodes(ofDeviceAt:)`), where Linux puts a device
    /// tree's properties; drv260x and da7280 make the I2C adapter their input device's parent, so
    /// the input device's own parent has the bus's node, not the chip's.
    public func firmwareProperty(_ name: String, ofDeviceAt path: String) -> [UInt8]? {
        guard !name.contains("/"), !name.hasPrefix(".") else { return nil }
        let values = firmwareNodes(ofDeviceAt: path).map { FileManager.default.contents(atPath: "\($0)/\(name)").map { [UInt8]($0) } }
        guard let first = values.first, values.allSatisfy({ $0 == first }) else { return nil }
        return first
    }

    /// The firmware nodes (sysfs `of_node` folders) of the chip behind an input device node: one
    /// when it is known, several when the bus has more chips bound to the same driver (their input
    /// devices cannot be told apart in sysfs), none without a device tree.
    ///
    /// The input device's parent (`eventN/device/device`) is the chip itself for drivers that
    /// allocate their input device with the chip as parent; drv260x, drv2665, drv2667 and da7280
    /// set it to the I2C adapter instead (`input_dev->dev.parent = client->dev.parent`). On an
    /// adapter (a folder with `N-00AA` clients) the chip is the client whose bound driver has the
    /// input device's stem: `drv260x-haptics` for "drv260x:haptics", `da7280` for "da7280-haptic".
    public func firmwareNodes(ofDeviceAt path: String) -> [String] {
        let link = try? FileManager.default.destinationOfSymbolicLink(atPath: path)
        let event = URL(fileURLWithPath: link ?? path).lastPathComponent
        guard event.hasPrefix("event"), !event.contains("/") else { return [] }
        let input = "\(sysfs)/class/input/\(event)/device"
        let parent = input + "/device"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
        let bus = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: parent)) ?? parent).lastPathComponent
        guard bus.hasPrefix("i2c-"), let number = Int(bus.dropFirst(4)) else {
            return FileManager.default.fileExists(atPath: parent + "/of_node") ? [parent + "/of_node"] : []
        }
        let stem = Self.stem(read(input + "/name") ?? "")
        return entries.filter { Self.isClient($0, ofBus: number) }.sorted().compactMap { client in
            let folder = "\(parent)/\(client)"
            guard let driver = try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/driver"),
                !stem.isEmpty, Self.stem(URL(fileURLWithPath: driver).lastPathComponent) == stem,
                FileManager.default.fileExists(atPath: folder + "/of_node")
            else { return nil }
            return folder + "/of_node"
        }
    }

    /// A name up to its first character that is neither a letter nor a digit: the driver's stem.
    static func stem(_ name: String) -> String { String(name.prefix { $0.isLetter || $0.isNumber }).lowercased() }

    /// Whether a folder in an adapter's is one of its I2C clients (`1-005a`: bus, dash, four hex digits).
    static func isClient(_ entry: String, ofBus bus: Int) -> Bool {
        let parts = entry.split(separator: "-")
        return parts.count == 2 && Int(parts[0]) == bus && parts[1].count == 4 && parts[1].allSatisfy(\.isHexDigit)
    }

    /// The vibrator feedbackd would use, or nil when there is none.
    public func vibrator() -> Candidate? {
        let all = candidates().filter { !$0.name.hasPrefix("hapticd") }
        return all.first(where: \.taggedVibra) ?? all.first
    }
}
