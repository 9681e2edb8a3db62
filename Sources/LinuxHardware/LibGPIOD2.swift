// SPDX-License-Identifier: Apache-2.0

#if LIBGPIOD2
    import CLinuxHardware
    import HardwareAccess

    /// libgpiod 2.x (Debian 13, Raspberry Pi OS trixie): line settings, a line config and a request
    /// config make one `gpiod_line_request`, which lives on after its chip is closed.
    /// Its twin for 1.x is LibGPIOD1.swift; Package.swift compiles one of them.
    enum LibGPIOD {
        static let major = 2

        struct Request {
            var request: OpaquePointer
            var offset: UInt32
        }

        static var version: String { String(cString: gpiod_api_version()) }

        static func label(ofChipAt path: String) -> String? {
            guard let chip = gpiod_chip_open(path) else { return nil }
            defer { gpiod_chip_close(chip) }
            guard let info = gpiod_chip_get_info(chip) else { return nil }
            defer { gpiod_chip_info_free(info) }
            return gpiod_chip_info_get_label(info).map { String(cString: $0) }
        }

        static func requestOutput(path: String, line: GPIOLineSelector, consumer: String, initial: Bool) -> Result<Request, LibGPIODFailure> {
            guard let chip = gpiod_chip_open(path) else { return .failure(LibGPIODFailure(errno: clh_errno(), chipMissing: true)) }
            defer { gpiod_chip_close(chip) }
            func failure(_ fallback: CInt) -> Result<Request, LibGPIODFailure> {
                .failure(LibGPIODFailure(errno: clh_errno() == 0 ? fallback : clh_errno(), chipMissing: false))
            }
            var offset: UInt32
            switch line {
            case let .offset(value):
                offset = value
            case let .name(name):
                let found = gpiod_chip_get_line_offset_from_name(chip, name)
                guard found >= 0 else { return failure(ENOENT) }
                offset = UInt32(found)
            }
            guard let settings = gpiod_line_settings_new(), let lineConfig = gpiod_line_config_new(),
                let requestConfig = gpiod_request_config_new()
            else { return failure(ENOMEM) }
            defer {
                gpiod_line_settings_free(settings)
                gpiod_line_config_free(lineConfig)
                gpiod_request_config_free(requestConfig)
            }
            guard gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT) == 0,
                gpiod_line_settings_set_output_value(settings, value(initial)) == 0,
                gpiod_line_config_add_line_settings(lineConfig, &offset, 1, settings) == 0
            else { return failure(EINVAL) }
            gpiod_request_config_set_consumer(requestConfig, consumer)
            guard let request = gpiod_chip_request_lines(chip, requestConfig, lineConfig) else { return failure(EIO) }
            return .success(Request(request: request, offset: offset))
        }

        /// 0, or the errno.
        static func set(_ request: Request, _ high: Bool) -> CInt {
            gpiod_line_request_set_value(request.request, request.offset, value(high)) == 0 ? 0 : clh_errno()
        }

        static func release(_ request: Request) {
            gpiod_line_request_release(request.request)
        }

        private static func value(_ high: Bool) -> gpiod_line_value {
            high ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE
        }
    }
#endif
