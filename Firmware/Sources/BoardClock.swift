// SPDX-License-Identifier: Apache-2.0

import Board
import HardwareAccess

/// The board's microsecond timer as the clock every driver wait is measured on: the same
/// `HapticClock` the Linux build gives the driver, so the driver's deadlines and polls are the
/// same code here.
final class BoardClock: HapticClock {
    var now: ClockInstant { ClockInstant(nanoseconds: Int64(board_micros()) * 1000) }

    /// Sleeps with the core halted between ticks (1 ms), then spins to the microsecond.
    func sleep(until deadline: ClockInstant) {
        while deadline.nanoseconds - now.nanoseconds > 1_000_000 { board_idle() }
        while now < deadline {}
    }
}
