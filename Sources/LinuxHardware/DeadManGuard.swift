// SPDX-License-Identifier: Apache-2.0

import CLinuxHardware
import Foundation
import HardwareAccess

/// Stops a chip when the program driving it dies: a small process forked from it at the chip's
/// opening that holds the bus and the chip's stop, and waits for the end of a pipe only the program
/// writes to. Any death closes that pipe (SIGKILL, a crash, an abort from systemd's watchdog, the
/// out-of-memory killer), and the guard then writes the stop (a DRV2605's GO cleared and MODE to
/// standby, a DA7280's TOP_CTL1 to zero) at once, and says so on the program's standard error. A
/// direct I2C chip has no timeout of its own: without it, a stream's last level drives until
/// power is removed.
///
/// The guard is in a session of its own, ignores the polite signals (a terminal's ^C, systemd's
/// SIGTERM to the whole unit), keeps the chip's lock (`ChipLock`) until it has written, so no other
/// program takes the chip in between, and closes every other descriptor the program had. At a
/// normal exit the program tells it so (an atexit handler), and the guard stops the chip quietly;
/// `release()` dismisses it without a write.
public final class DeadManGuard {
    /// The guard's process id.
    public let pid: pid_t
    private var writeEnd: CInt

    /// How long a program that sends heartbeats (`heartbeat()`) may go without one before the
    /// guard takes it for hung and stops the chip: a hung hapticd's motor stops within this and a
    /// heartbeat's interval, whatever systemd's watchdog does after.
    public static let hangTimeout = Duration.seconds(1)

    /// Tells every guard of this process that the program still answers. Sent by a program whose
    /// engine answering is checked (hapticd, with its watchdog); until the first, a guard waits
    /// for the program's end only (a `haptic` that calibrates for a second is not hung).
    public static func heartbeat() { clh_guard_heartbeat() }

    /// Starts the guard for `claim` on the bus open at `busDescriptor`, holding `lockDescriptor`
    /// too (-1: none).
    public init(_ claim: ChipClaim, busDescriptor: CInt, lockDescriptor: CInt) throws {
        let writes = claim.stopTransactions.map { transaction in
            var write = clh_guard_write()
            write.address = UInt16(transaction.address.rawValue)
            write.length = UInt16(min(transaction.bytes.count, 32))
            withUnsafeMutableBytes(of: &write.bytes) { buffer in
                for (index, byte) in transaction.bytes.prefix(32).enumerated() { buffer[index] = byte }
            }
            return write
        }
        let program = ChipLock.thisProgram
        let message = Array("haptics guard: \(program) ended without stopping \(claim.description): the guard stopped it\n".utf8)
        let hung = Array("haptics guard: \(program) sent no heartbeat for \(Self.hangTimeout): taken for hung, \(claim.description) stopped\n".utf8)
        let hangMilliseconds = CInt(Self.hangTimeout.components.seconds * 1000)
        var child: pid_t = 0
        let end = writes.withUnsafeBufferPointer { buffer in
            message.withUnsafeBufferPointer { text in
                hung.withUnsafeBufferPointer { hangText in
                    text.withMemoryRebound(to: CChar.self) { characters in
                        hangText.withMemoryRebound(to: CChar.self) { hangCharacters in
                            clh_guard_start(
                                busDescriptor, lockDescriptor, buffer.baseAddress, CInt(buffer.count), characters.baseAddress, characters.count,
                                hangMilliseconds, hangCharacters.baseAddress, hangCharacters.count, &child)
                        }
                    }
                }
            }
        }
        guard end >= 0 else {
            throw I2CError(.other, operation: "start the dead-man guard for \(claim.description)", bus: claim.bus, detail: String(cString: strerror(errno)))
        }
        writeEnd = end
        pid = child
    }

    deinit { release() }

    /// Dismisses the guard without a write (the program gives the chip up, stopped), and waits for
    /// it to end, so the lock it held is free.
    public func release() {
        guard writeEnd >= 0 else { return }
        clh_guard_release(writeEnd, pid)
        writeEnd = -1
    }
}

/// A chip this program holds on Linux: its lock and its dead-man guard, shared by every claim of
/// the chip in this process (a program that opens its board again before the first is gone takes
/// nothing from itself), given up with the last (`LinuxHardwareProvider.claim`).
final class LinuxChipOwnership: ChipOwnership {
    private let key: String
    private var released = false

    /// The process's claims by lock file: the lock and guard, and how many claims share them.
    private static let held = HeldClaims()

    private final class HeldClaims: @unchecked Sendable {
        let lock = NSLock()
        var claims: [String: (lock: ChipLock, guardProcess: DeadManGuard?, count: Int)] = [:]
    }

    /// A claim of `claim`'s chip: the process's existing one, or `make()`'s lock and guard.
    init(_ claim: ChipClaim, directory: String, make: () throws -> (ChipLock, DeadManGuard?)) throws {
        key = (directory as NSString).appendingPathComponent(ChipLock.fileName(for: claim))
        let held = Self.held
        held.lock.lock()
        defer { held.lock.unlock() }
        if let existing = held.claims[key] {
            held.claims[key]?.count = existing.count + 1
            return
        }
        let (lock, guardProcess) = try make()
        held.claims[key] = (lock, guardProcess, 1)
    }

    deinit { release() }

    func release() {
        let held = Self.held
        held.lock.lock()
        defer { held.lock.unlock() }
        guard !released, let entry = held.claims[key] else { return }
        released = true
        guard entry.count == 1 else {
            held.claims[key]?.count = entry.count - 1
            return
        }
        held.claims[key] = nil
        entry.guardProcess?.release()
        entry.lock.release()
    }
}
