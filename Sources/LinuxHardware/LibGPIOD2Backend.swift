#if LIBGPIOD2
import CLinuxHardware

/// The libgpiod backend of this build: 2.x, chosen by Package.swift from the installed `gpiod.h`.
public typealias LibGPIODBackend = LibGPIOD2Backend

/// libgpiod 2.x (Debian 13, Raspberry Pi OS trixie): line settings, a line config and a request
/// config make one `gpiod_line_request`, which lives on after its chip is closed.
/// Its twin for libgpiod 1.x is `LibGPIOD1Backend`; Package.swift compiles exactly one of them.
public final class LibGPIOD2Backend: GPIOBackend {
    private struct Request {
        var request: OpaquePointer
        var offset: UInt32
    }
    private var requests: [Int: Request] = [:]
    private var nextHandle = 0
    private var errnoValue: CInt = 0
    private let resolver: GPIOChipResolver

    /// libgpiod's own version string, e.g. "2.2.1".
    public static var libraryVersion: String { String(cString: gpiod_api_version()) }

    public init() {
        resolver = GPIOChipResolver(devicePaths: GPIOChipResolver.gpioCharacterDevices) { path in
            guard let chip = gpiod_chip_open(path) else { return nil }
            defer { gpiod_chip_close(chip) }
            guard let info = gpiod_chip_get_info(chip) else { return nil }
            defer { gpiod_chip_info_free(info) }
            return gpiod_chip_info_get_label(info).map { String(cString: $0) }
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
        defer { gpiod_chip_close(chipPointer) }
        var offset: UInt32
        switch line {
        case let .offset(value):
            offset = value
        case let .name(name):
            let found = gpiod_chip_get_line_offset_from_name(chipPointer, name)
            guard found >= 0 else {
                errnoValue = clh_errno() == 0 ? ENOENT : clh_errno()
                return (-1, false)
            }
            offset = UInt32(found)
        }
        guard let settings = gpiod_line_settings_new(), let lineConfig = gpiod_line_config_new(),
              let requestConfig = gpiod_request_config_new() else {
            errnoValue = ENOMEM
            return (-1, false)
        }
        defer {
            gpiod_line_settings_free(settings)
            gpiod_line_config_free(lineConfig)
            gpiod_request_config_free(requestConfig)
        }
        guard gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT) == 0,
              gpiod_line_settings_set_output_value(settings, initial ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE) == 0,
              gpiod_line_config_add_line_settings(lineConfig, &offset, 1, settings) == 0 else {
            errnoValue = clh_errno() == 0 ? EINVAL : clh_errno()
            return (-1, false)
        }
        gpiod_request_config_set_consumer(requestConfig, consumer)
        guard let request = gpiod_chip_request_lines(chipPointer, requestConfig, lineConfig) else {
            errnoValue = clh_errno()
            return (-1, false)
        }
        let handle = nextHandle
        nextHandle += 1
        requests[handle] = Request(request: request, offset: offset)
        return (handle, false)
    }

    public func setValue(_ handle: Int, _ high: Bool) -> CInt {
        guard let request = requests[handle] else {
            errnoValue = EBADF
            return -1
        }
        let result = gpiod_line_request_set_value(request.request, request.offset,
                                                  high ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE)
        if result < 0 { errnoValue = clh_errno() }
        return result
    }

    public func release(_ handle: Int) {
        guard let request = requests.removeValue(forKey: handle) else { return }
        gpiod_line_request_release(request.request)
    }

    public var lastErrno: CInt { errnoValue }

    deinit {
        for handle in Array(requests.keys) { release(handle) }
    }
}
#endif
