#if !LIBGPIOD2
import CLinuxHardware

/// The libgpiod backend of this build: 1.x, chosen by Package.swift from the installed `gpiod.h`.
public typealias LibGPIODBackend = LibGPIOD1Backend

/// libgpiod 1.x (Debian 12, Raspberry Pi OS bookworm): a chip, a line, `gpiod_line_request_output`.
/// Its twin for libgpiod 2.x is `LibGPIOD2Backend`; Package.swift compiles exactly one of them.
public final class LibGPIOD1Backend: GPIOBackend {
    private struct Request {
        var chip: OpaquePointer
        var line: OpaquePointer
    }
    private var requests: [Int: Request] = [:]
    private var nextHandle = 0
    private var errnoValue: CInt = 0
    private let resolver: GPIOChipResolver

    /// libgpiod's own version string, e.g. "1.6.3".
    public static var libraryVersion: String { String(cString: gpiod_version_string()) }

    public init() {
        resolver = GPIOChipResolver(devicePaths: GPIOChipResolver.gpioCharacterDevices) { path in
            guard let chip = gpiod_chip_open(path) else { return nil }
            defer { gpiod_chip_close(chip) }
            return gpiod_chip_label(chip).map { String(cString: $0) }
        }
    }

    public func requestOutput(chip: String, line: GPIOLineSelector, consumer: String, initial: Bool) -> (handle: Int, chipMissing: Bool) {
        guard let path = resolver.resolve(chip) else {
            errnoValue = ENOENT
            return (-1, true)
        }
        guard let chipPointer = gpiod_chip_open(path) else {
            errnoValue = clh_errno()
            return (-1, true)
        }
        let linePointer: OpaquePointer?
        switch line {
        case let .offset(offset): linePointer = gpiod_chip_get_line(chipPointer, offset)
        case let .name(name): linePointer = gpiod_chip_find_line(chipPointer, name)
        }
        guard let linePointer else {
            errnoValue = clh_errno() == 0 ? ENOENT : clh_errno()
            gpiod_chip_close(chipPointer)
            return (-1, false)
        }
        guard gpiod_line_request_output(linePointer, consumer, initial ? 1 : 0) == 0 else {
            errnoValue = clh_errno()
            gpiod_chip_close(chipPointer)
            return (-1, false)
        }
        let handle = nextHandle
        nextHandle += 1
        requests[handle] = Request(chip: chipPointer, line: linePointer)
        return (handle, false)
    }

    public func setValue(_ handle: Int, _ high: Bool) -> CInt {
        guard let request = requests[handle] else {
            errnoValue = EBADF
            return -1
        }
        let result = gpiod_line_set_value(request.line, high ? 1 : 0)
        if result < 0 { errnoValue = clh_errno() }
        return result
    }

    public func release(_ handle: Int) {
        guard let request = requests.removeValue(forKey: handle) else { return }
        gpiod_line_release(request.line)
        gpiod_chip_close(request.chip)
    }

    public var lastErrno: CInt { errnoValue }

    deinit {
        for handle in Array(requests.keys) { release(handle) }
    }
}
#endif
