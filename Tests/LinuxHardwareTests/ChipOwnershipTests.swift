// SPDX-License-Identifier: Apache-2.0

import Foundation
import HardwareAccess
import Testing

@testable import LinuxHardware

/// One owner per chip: the lock a program takes when it opens a chip, what a second program is
/// told, and the dead-man guard holding the lock until it is done with the chip.
@Suite struct ChipOwnershipTests {
    let directory = NSTemporaryDirectory() + "chip-locks-\(UUID().uuidString.prefix(8))"
    let drv2605 = ChipClaim(bus: "/dev/i2c-1", address: I2CAddress(rawValue: 0x5A)!, part: "DRV2605L", stopWrites: [[0x0C, 0], [0x01, 0x40]])

    init() throws { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }

    /// A second program is refused while the first holds the chip, told who holds it and what to
    /// do; another address or another switch channel is another chip; once the first lets go the
    /// second gets it.
    @Test func aSecondOwnerIsRefusedNamingTheHolder() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try ChipLock(drv2605, directory: directory, holder: "hapticd 412")
        #expect(first.path == directory + "/haptics-i2c-1-0x5a.lock")
        let refusal = #expect(throws: ChipInUseError.self) { try ChipLock(drv2605, directory: directory) }
        #expect(refusal?.holder == "hapticd 412")
        let text = refusal.map { "\($0)" } ?? ""
        #expect(text.hasPrefix("the DRV2605L at 0x5A on /dev/i2c-1 is in use by hapticd (pid 412)"), "\(text)")
        #expect(text.contains("systemctl stop hapticd") && text.contains("without --board"), "\(text)")
        var other = drv2605
        other.address = I2CAddress(rawValue: 0x5B)!
        _ = try ChipLock(other, directory: directory)
        var behindSwitch = drv2605
        behindSwitch.mux = (I2CAddress(rawValue: 0x70)!, 3)
        #expect(ChipLock.fileName(for: behindSwitch) == "haptics-i2c-1-0x5a-mux0x70-3.lock")
        _ = try ChipLock(behindSwitch, directory: directory)
        first.release()
        _ = try ChipLock(drv2605, directory: directory)
    }

    /// A lock let go within `ChipLock.patience` is taken, not refused: for an instant after its
    /// holder lets go, a process the holder just forked still holds the descriptor, and a program
    /// started in that instant must not be told the chip is in use.
    @Test func aLockLetGoWithinThePatienceIsTaken() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let held = open(directory + "/" + ChipLock.fileName(for: drv2605), O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        #expect(flock(held, LOCK_EX | LOCK_NB) == 0)
        #expect(throws: ChipInUseError.self, "refused while held past the patience") { try ChipLock(drv2605, directory: directory) }
        let letGo = Thread {
            usleep(100_000)
            close(held)
        }
        letGo.start()
        let clock = ContinuousClock()
        let start = clock.now
        let second = try ChipLock(drv2605, directory: directory)
        #expect(second.descriptor >= 0)
        #expect(clock.now - start >= .milliseconds(90), "taken once the first let go, not before")
    }

    /// Claims of one chip within one program share its lock: a program that opens its board again
    /// before the first is gone is not refused by itself, and the chip stays held until the last
    /// claim lets go.
    @Test func claimsInOneProgramShareTheLock() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let one = try LinuxHardwareProvider(lockDirectory: directory).claim(drv2605)
        let two = try LinuxHardwareProvider(lockDirectory: directory).claim(drv2605)
        #expect(throws: ChipInUseError.self) { try ChipLock(drv2605, directory: directory) }
        one?.release()
        #expect(throws: ChipInUseError.self, "still held by the second claim") { try ChipLock(drv2605, directory: directory) }
        two?.release()
        _ = try ChipLock(drv2605, directory: directory)
    }

    /// The guard holds the chip's lock too, so that no other program takes the chip between its
    /// owner's death and the guard's stop: with the owner's own descriptor closed the chip is still
    /// held, until the guard is dismissed, which waits for it to end.
    @Test func theGuardHoldsTheLockUntilItIsDone() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lock = try ChipLock(drv2605, directory: directory)
        let bus = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { close(bus) }
        let guardProcess = try DeadManGuard(drv2605, busDescriptor: bus, lockDescriptor: lock.descriptor)
        #expect(kill(guardProcess.pid, 0) == 0, "the guard runs")
        lock.release()
        #expect(throws: ChipInUseError.self, "held by the guard") { try ChipLock(drv2605, directory: directory) }
        guardProcess.release()
        #expect(kill(guardProcess.pid, 0) != 0 && errno == ESRCH, "the guard ended and was reaped")
        _ = try ChipLock(drv2605, directory: directory)
    }
}
