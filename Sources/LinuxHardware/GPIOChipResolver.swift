// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Turns the "chip" of a board file or command line into a GPIO character device path, the same
/// way for libgpiod 1 and 2 (libgpiod 2 dropped `gpiod_chip_open_lookup`).
///
/// Accepted, in this order: a path (`/dev/gpiochip0`), a number (`0`), a device name
/// (`gpiochip0`), `header` (the Raspberry Pi's 40-pin header, found by label on every model),
/// or a chip label (`pinctrl-rp1`). Labels matter because chip numbers moved between Pi models
/// and kernels: the Pi 5's header chip was `gpiochip4` before kernel 6.6.y and is `gpiochip0` since.
struct GPIOChipResolver {
    /// The labels of the chip that drives the 40-pin header: Pi 5 (RP1), Pi 4 (BCM2711),
    /// Pi 1-3 and Zero (BCM2835, also used by the BCM2837 kernels).
    static let raspberryPiHeaderLabels = ["pinctrl-rp1", "pinctrl-bcm2711", "pinctrl-bcm2835"]

    /// The GPIO character devices present, e.g. ["/dev/gpiochip0", "/dev/gpiochip1"], in number order.
    var devicePaths: () -> [String]
    /// A chip's label, or nil when it cannot be opened.
    var label: (String) -> String?

    /// The device path for `specification`, or nil when no chip matches.
    func resolve(_ specification: String) -> String? {
        if specification.hasPrefix("/") { return specification }
        if let number = UInt32(specification) { return "/dev/gpiochip\(number)" }
        let paths = devicePaths()
        if paths.contains("/dev/" + specification) { return "/dev/" + specification }
        let wanted = specification == "header" ? Self.raspberryPiHeaderLabels : [specification]
        let labelled = paths.map { (path: $0, label: label($0)) }
        for candidate in wanted {
            if let match = labelled.first(where: { $0.label == candidate }) { return match.path }
        }
        return nil
    }

    /// The `/dev/gpiochipN` entries of this machine, sorted by N.
    static func gpioCharacterDevices() -> [String] {
        guard let directory = opendir("/dev") else { return [] }
        defer { closedir(directory) }
        var numbered: [(number: Int, path: String)] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard name.hasPrefix("gpiochip"), let number = Int(name.dropFirst("gpiochip".count)) else { continue }
            numbered.append((number, "/dev/" + name))
        }
        return numbered.sorted { $0.number < $1.number }.map(\.path)
    }
}
