// SPDX-License-Identifier: Apache-2.0

import CLinuxHardware
import Foundation
import HardwareAccess

/// One owner per chip: an exclusive `flock` on a file per bus, address and multiplexer channel in
/// `/run/lock` (`haptics-i2c-1-0x5a.lock`), taken by whichever program opens the chip (haptic,
/// hapticd, haptic studio) and held until it lets go or ends; the kernel drops it with the last
/// descriptor, so a killed holder never leaves it behind. The file says who holds it ("hapticd
/// 412"), which a refused program names.
public final class ChipLock {
    /// Where the lock files are: `/run/lock` (a tmpfs every user may create files in, as
    /// serial-port locks use), else the system's temporary folder.
    public static var defaultDirectory: String {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: "/run/lock", isDirectory: &isDirectory) && isDirectory.boolValue
            && access("/run/lock", W_OK) == 0 ? "/run/lock" : NSTemporaryDirectory()
    }

    /// The lock file's path.
    public let path: String
    /// Its descriptor, holding the lock (-1 once released).
    public private(set) var descriptor: CInt

    /// The file for a claim: "haptics-i2c-1-0x5a.lock", "...-mux0x70-3.lock" behind a switch.
    public static func fileName(for claim: ChipClaim) -> String {
        let bus = URL(fileURLWithPath: claim.bus).lastPathComponent
        let address = String(format: "0x%02x", claim.address.rawValue)
        let mux = claim.mux.map { String(format: "-mux0x%02x-%d", $0.address.rawValue, $0.channel) } ?? ""
        return "haptics-\(bus)-\(address)\(mux).lock"
    }

    /// Why the lock file could not be opened (a read-only /run/lock in a sandbox): then nothing
    /// is locked, and the program says so rather than refusing to play.
    public private(set) var problem: String?

    /// Takes the lock for `claim` in `directory`, or throws `ChipInUseError` naming the holder.
    /// `holder` is what the file is made to say: this program's name and pid. A lock file that
    /// cannot be opened at all leaves the chip unlocked (`problem` says why).
    public init(_ claim: ChipClaim, directory: String = ChipLock.defaultDirectory, holder: String = ChipLock.thisProgram) throws {
        path = (directory as NSString).appendingPathComponent(Self.fileName(for: claim))
        var fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        if fd >= 0 {
            // Another user's program may take it next (the file outlives its maker): writable by all.
            _ = fchmod(fd, 0o666)
        } else {
            fd = open(path, O_RDONLY | O_CLOEXEC)
        }
        guard fd >= 0 else {
            descriptor = -1
            problem = "\(path) cannot be opened (\(String(cString: strerror(errno)))): \(claim.description) is not locked against other programs"
            return
        }
        guard Self.lockWithin(Self.patience, fd) else {
            let text = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            close(fd)
            throw ChipInUseError(chip: claim.description, holder: text?.isEmpty == false ? text : nil, lockFile: path)
        }
        descriptor = fd
        let line = Array((holder + "\n").utf8)
        if ftruncate(fd, 0) == 0 { _ = line.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } }
    }

    /// How long a held lock is waited for before the chip is refused. A lock lives as long as
    /// any process holds its descriptor, and every process this program's holder forks holds a
    /// copy until it closes it or execs: for that instant a chip just let go still looks held.
    /// A real owner holds it far longer, so a refusal only waits this long.
    public static let patience = Duration.milliseconds(250)

    /// Tries the exclusive lock every 5 ms until it is taken or `patience` has passed.
    private static func lockWithin(_ patience: Duration, _ fd: CInt) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: patience)
        while clh_lock_exclusive(fd) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, clock.now < deadline else { return false }
            usleep(5000)
        }
        return true
    }

    deinit { release() }

    /// Lets the chip go.
    public func release() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    /// "haptic 1234": this program's name and pid, as a refused program shows it.
    public static var thisProgram: String {
        "\(URL(fileURLWithPath: CommandLine.arguments.first ?? "haptic").lastPathComponent) \(getpid())"
    }
}
