// SPDX-License-Identifier: Apache-2.0

import Board
import HardwareAccess

/// The board's microsecond timer as the clock every driver wait is measured on: the same
/// `HapticClock` the Linux build gives the driver, so the driver's deadlines and polls are the
/// same code here. Unchecked Sendable: the firmware has one thread, and no interrupt handler
/// touches the time left out.
final class BoardClock: HapticClock, @unchecked Sendable {
    /// Time the test rig's host took to answer bridged transactions beyond what the same
    /// transactions take on a real bus (`BridgedBus`), left out of `now`. Always zero on a board
    /// with its chip on its own I2C: there `now` is the timer.
    private var hostNanoseconds: Int64 = 0

    /// The board's time as the firmware sees it: the timer, less the rig's host time.
    var now: ClockInstant { ClockInstant(nanoseconds: timer.nanoseconds - hostNanoseconds) }

    /// The timer itself, host time included: what a wait on the host is bounded by.
    var timer: ClockInstant { ClockInstant(nanoseconds: Int64(board_micros()) * 1000) }

    /// Leaves `nanoseconds` of the host's answer time out of `now`, so that the firmware's
    /// timing (a pattern's ticks, the link watchdog) is the board's own whatever the host machine
    /// is doing meanwhile. `now` never goes back: the time left out had passed on the timer.
    func leaveOut(nanoseconds: Int64) {
        if nanoseconds > 0 { hostNanoseconds += nanoseconds }
    }

    /// Sleeps with the core halted between ticks (1 ms), then spins to the microsecond.
    func sleep(until deadline: ClockInstant) {
        while deadline.nanoseconds - now.nanoseconds > 1_000_000 { board_idle() }
        while now < deadline {}
    }
}
