// SPDX-License-Identifier: Apache-2.0

#if !LIBGPIOD2
    import CLinuxHardware
    import HardwareAccess

    /// libgpiod 1.x (Debian 12, Raspberry Pi OS bookworm): a chip, a line, `gpiod_line_request_output`.
    /// Its twin for 2.x is LibGPIOD2.swift; Package.swift compiles one of them.
    enum LibGPIOD {
        static let major = 1

        struct Request {
            var chip: OpaquePointer
            var line: OpaquePointer
        }

        static var version: String { String(cString: gpiod_version_string()) }

        static func label(ofChipAt path: String) -> String? {
            guard let chip = gpiod_chip_open(path) else { return nil }
            defer { gpiod_chip_close(chip) }
            return gpiod_chip_label(chip).map { String(cString: $0) }
        }

        static func requestOutput(path: String, line: GPIOLineSelector, consumer: String, initial: Bool) -> Result<Request, LibGPIODFailure> {
            guard let chip = gpiod_chip_open(path) else { return .failure(LibGPIODFailure(errno: clh_errno(), chipMissing: true)) }
            let found: OpaquePointer?
            switch line {
            case let .offset(offset): found = gpiod_chip_get_line(chip, offset)
            case let .name(name): found = gpiod_chip_find_line(chip, name)
            }
            guard let found else {
                let errno = clh_errno() == 0 ? ENOENT : clh_errno()
                gpiod_chip_close(chip)
                return .failure(LibGPIODFailure(errno: errno, chipMissing: false))
            }
            guard gpiod_line_request_output(found, consumer, initial ? 1 : 0) == 0 else {
                let errno = clh_errno()
                gpiod_chip_close(chip)
                return .failure(LibGPIODFailure(errno: errno, chipMissing: false))
            }
            return .success(Request(chip: chip, line: found))
        }

        /// 0, or the errno.
        static func set(_ request: Request, _ high: Bool) -> CInt {
            gpiod_line_set_value(request.line, high ? 1 : 0) == 0 ? 0 : clh_errno()
        }

        static func release(_ request: Request) {
            gpiod_line_release(request.line)
            gpiod_chip_close(request.chip)
        }
    }
#endif
