// SPDX-License-Identifier: Apache-2.0

import CLinuxHardware
import HardwareAccess

/// The live GPIO backend: libgpiod, 1.x or 2.x, whichever Package.swift found installed. What
/// does not depend on the version lives here (finding the chip, the table of requests, errno);
/// the calls that do are `LibGPIOD` in LibGPIOD1.swift or LibGPIOD2.swift, one compiled per build.
public final class LibGPIODBackend: GPIOBackend {
    private var requests: [Int: LibGPIOD.Request] = [:]
    private var nextHandle = 0
    private var errnoValue: CInt = 0
    private let resolver = GPIOChipResolver(devicePaths: GPIOChipResolver.gpioCharacterDevices, label: LibGPIOD.label(ofChipAt:))

    /// libgpiod's own version string, e.g. "1.6.3" or "2.2.1".
    public static var libraryVersion: String { LibGPIOD.version }

    /// Opens nothing until a line is requested.
    public init() {}

    /// Resolves `chip`, then requests `line` through the installed libgpiod.
    public func requestOutput(chip: String, line: GPIOLineSelector, consumer: String, initial: Bool) -> (handle: Int, chipMissing: Bool) {
        guard let path = resolver.resolve(chip) else {
            errnoValue = ENOENT
            return (-1, true)
        }
        switch LibGPIOD.requestOutput(path: path, line: line, consumer: consumer, initial: initial) {
        case let .success(request):
            let handle = nextHandle
            nextHandle += 1
            requests[handle] = request
            return (handle, false)
        case let .failure(failure):
            errnoValue = failure.errno
            return (-1, failure.chipMissing)
        }
    }

    /// 0, or -1 with `lastErrno`.
    public func setValue(_ handle: Int, _ high: Bool) -> CInt {
        guard let request = requests[handle] else {
            errnoValue = EBADF
            return -1
        }
        let errno = LibGPIOD.set(request, high)
        guard errno == 0 else {
            errnoValue = errno
            return -1
        }
        return 0
    }

    /// Releases the request (its chip was closed at request time on 2.x, here on 1.x).
    public func release(_ handle: Int) {
        guard let request = requests.removeValue(forKey: handle) else { return }
        LibGPIOD.release(request)
    }

    /// The errno of the last failure.
    public var lastErrno: CInt { errnoValue }

    deinit {
        for handle in Array(requests.keys) { release(handle) }
    }
}

/// Why libgpiod refused a request: its errno, and whether the chip itself was the problem.
struct LibGPIODFailure: Error {
    var errno: CInt
    var chipMissing: Bool
}
