// SPDX-License-Identifier: Apache-2.0

import HardwareAccess

/// The GPIO calls LinuxHardware makes, behind a seam: tests inject errno values and check what
/// was requested. The live form is `LibGPIODBackend`: libgpiod 1.x or 2.x, whichever the installed
/// header calls for.
public protocol GPIOBackend: AnyObject {
    /// Opens `chip` (a path, number, device name, `header` or label: see `GPIOChipResolver`) and
    /// requests `line` as an output driven to `initial`. Returns a handle ≥ 0, or -1 with the errno in `lastErrno`; `chipMissing` tells
    /// whether the chip itself could not be found.
    func requestOutput(chip: String, line: GPIOLineSelector, consumer: String, initial: Bool) -> (handle: Int, chipMissing: Bool)
    /// Sets a requested line; 0 or -1 with `lastErrno`.
    func setValue(_ handle: Int, _ high: Bool) -> CInt
    /// Releases the line and closes its chip.
    func release(_ handle: Int)
    var lastErrno: CInt { get }
}
