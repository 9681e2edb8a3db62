// SPDX-License-Identifier: Apache-2.0

import Foundation
import HardwareAccess

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Why the service's socket could not be used, with what to do about it.
public struct ServiceSocketError: Error, CustomStringConvertible, Equatable {
    /// What was being done ("connect to", "listen on"...).
    public var operation: String
    /// The socket.
    public var path: String
    /// The system's error, when there was one.
    public var errno: Int32?
    /// What happened, in words.
    public var detail: String

    /// One line, with a hint at what to do.
    public var description: String {
        var text = "\(operation) \(path): \(detail)"
        if let errno { text += " (\(String(cString: strerror(errno))))" }
        switch errno {
        case ENOENT?, ECONNREFUSED?: text += "; is hapticd running? (systemctl status hapticd)"
        case EACCES?: text += "; join the group that owns the socket (see Scripts/setup-pi)"
        default: break
        }
        return text
    }
}

/// A connected stream socket: one client of the daemon, or the client's end. Reads have
/// deadlines; writes never raise SIGPIPE.
///
/// Reads are buffered: a wait for input takes whatever has arrived in one system call (the
/// wait itself is a blocking receive with a timeout, not a `poll` followed by reads), and frames
/// are cut from that buffer. A request that came whole costs its reader one system call; the
/// daemon's client thread, asleep between requests, gets its request in the same call that wakes
/// it. One thread reads a connection at a time (the lock only keeps that safe).
public final class UnixConnection: @unchecked Sendable {
    /// -1 once closed.
    private let descriptorLock = NSLock()
    /// Held for a whole message, so a reply and a pushed message never interleave.
    private let sendLock = NSLock()
    /// Held while reading: guards `received`, `consumed` and `receiveTimeout`.
    private let readLock = NSLock()
    /// Bytes received and not yet read, from `consumed` on.
    private var received: [UInt8] = []
    private var consumed = 0
    /// The SO_RCVTIMEO last set, so a wait with the same timeout costs no extra system call.
    private var receiveTimeout: Duration?
    private var descriptor: Int32
    /// The socket path, for messages.
    public let path: String

    init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close() }

    /// Connects to the daemon at `path`.
    public static func connect(to path: String) throws(ServiceSocketError) -> UnixConnection {
        var address = try socketAddress(path, operation: "connect to")
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ServiceSocketError(operation: "connect to", path: path, errno: errno, detail: "no socket") }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let error = errno
            Glibc.close(fd)
            throw ServiceSocketError(operation: "connect to", path: path, errno: error, detail: "no daemon answers")
        }
        return UnixConnection(descriptor: fd, path: path)
    }

    /// The file descriptor, or -1 once closed.
    var fd: Int32 { descriptorLock.withLock { descriptor } }

    /// Closes the connection (idempotent).
    public func close() {
        let fd = descriptorLock.withLock { () -> Int32 in
            defer { descriptor = -1 }
            return descriptor
        }
        if fd >= 0 { Glibc.close(fd) }
    }

    /// Ends both directions without closing the descriptor: wakes a thread blocked reading it.
    public func shutDown() {
        let fd = fd
        if fd >= 0 { Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// The peer's process, user and group (SO_PEERCRED): who is asking, as the kernel says.
    public var peer: (pid: Int32, uid: UInt32, gid: UInt32)? {
        var credentials = PeerCredentials()
        var length = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
        return (credentials.pid, credentials.uid, credentials.gid)
    }

    /// Writes all of `bytes`, whole, even when several threads send (a reply, a pushed message).
    public func send(_ bytes: [UInt8]) throws(ServiceSocketError) {
        sendLock.lock()
        defer { sendLock.unlock() }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 {
                if errno == EINTR { continue }
                throw ServiceSocketError(operation: "write to", path: path, errno: errno, detail: "the peer went away")
            }
            offset += written
        }
    }

    /// What `waitForInput` saw.
    public enum Readiness: Equatable { case readable, timedOut, closed }

    /// Waits up to `timeout` for bytes (or the peer's hang-up), taking what arrives into the
    /// buffer; `.readable` at once when bytes are already buffered. A signal does not cut the
    /// wait short (seen under qemu-user: an interrupted poll taken for a timeout lost a reply).
    public func waitForInput(timeout: Duration) -> Readiness {
        readLock.lock()
        defer { readLock.unlock() }
        if received.count > consumed { return .readable }
        let deadline = SystemClock.shared.now.advanced(by: timeout)
        while true {
            let remaining = deadline.duration(since: SystemClock.shared.now)
            // Out of time (or none given): one look at what has arrived, without waiting.
            let blocking = remaining > .zero
            if blocking { setReceiveTimeout(remaining) }
            let count = receive(blocking: blocking)
            if count > 0 { return .readable }
            if count == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: if !blocking || SystemClock.shared.now >= deadline { return .timedOut }
            default: return .closed
            }
        }
    }

    /// SO_RCVTIMEO: how long a blocking receive waits, rounded up to a millisecond (the kernel
    /// counts in ticks anyway). A timeout of zero would mean forever, so the least is 1 ms.
    private func setReceiveTimeout(_ timeout: Duration) {
        let microseconds = max(1000, (timeout.nanoseconds + 999_999) / 1_000_000 * 1000)
        let rounded = Duration.microseconds(microseconds)
        guard rounded != receiveTimeout else { return }
        var value = timeval(tv_sec: Int(microseconds / 1_000_000), tv_usec: Int(microseconds % 1_000_000))
        if setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size)) == 0 { receiveTimeout = rounded }
    }

    /// Receives what has arrived onto the buffer, up to `wanted` bytes but at least a page's
    /// worth: the count, 0 at the peer's end, -1 with `errno` set. Non-blocking unless
    /// `blocking`. Called with `readLock` held.
    private func receive(blocking: Bool, wanted: Int = 0) -> Int {
        if consumed > 0, consumed == received.count {
            received.removeAll(keepingCapacity: received.capacity <= 1 << 16)
            consumed = 0
        }
        let chunk = max(4096, wanted)
        let start = received.count
        // Room for the chunk, from an array of zeros rather than `repeatElement`: appending a
        // `Repeated` goes through the standard library's unspecialized index arithmetic, and in
        // CI's ThreadSanitizer stage 40 threads doing so at once all hung in the runtime's
        // `once_slow` (Range<Int>'s prespecialized metadata), 1 run in 2.
        received += [UInt8](repeating: 0, count: chunk)
        let count = received.withUnsafeMutableBytes { raw in
            Glibc.recv(fd, raw.baseAddress! + start, chunk, blocking ? 0 : Int32(MSG_DONTWAIT))
        }
        let error = errno
        received.removeLast(chunk - max(0, count))
        errno = error
        return count
    }

    /// The old wait, for a read in the middle of a message: `poll` up to `timeout`.
    private func pollForInput(timeout: Duration) -> Bool {
        let deadline = SystemClock.shared.now.advanced(by: timeout)
        while true {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let remaining = deadline.duration(since: SystemClock.shared.now)
            let milliseconds = Int32(clamping: max(0, (remaining.nanoseconds + 999_999) / 1_000_000))
            let result = poll(&entry, 1, milliseconds)
            if result == 0 { return false }
            if result < 0 {
                if errno == EINTR, SystemClock.shared.now < deadline { continue }
                return errno != EINTR
            }
            return true
        }
    }

    /// Whether the peer has closed its end (without consuming any of its bytes).
    public var peerHasLeft: Bool {
        let hangUp: Int16 = pollReadHangUp | Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)
        var entry = pollfd(fd: fd, events: Int16(POLLIN) | pollReadHangUp, revents: 0)
        guard poll(&entry, 1, 0) > 0 else { return false }
        if entry.revents & hangUp != 0 { return true }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) == 0
    }

    /// Reads exactly `count` bytes, each wait bounded by `timeout`; `nil` when the peer closed
    /// before the first byte (a clean end between messages).
    public func read(count: Int, timeout: Duration) throws(ServiceSocketError) -> [UInt8]? {
        readLock.lock()
        defer { readLock.unlock() }
        guard try buffer(count, timeout: timeout) else { return nil }
        defer { consumed += count }
        return Array(received[consumed..<consumed + count])
    }

    /// Reads one frame: `nil` at a clean end of the connection.
    public func readFrame(timeout: Duration) throws -> [UInt8]? {
        readLock.lock()
        defer { readLock.unlock() }
        guard try buffer(4, timeout: timeout) else { return nil }
        let length = try ServiceFrame.length(ofHeader: received[consumed..<consumed + 4])
        guard try buffer(4 + length, timeout: timeout) else { throw ServiceFrame.FrameError.truncated }
        defer { consumed += 4 + length }
        return Array(received[consumed + 4..<consumed + 4 + length])
    }

    /// Makes sure `count` bytes are buffered, each wait bounded by `timeout`: false when the peer
    /// closed with nothing buffered (a clean end between messages). What has arrived is taken at
    /// once; the wait (a poll) comes only when not enough has. Called with `readLock` held.
    private func buffer(_ count: Int, timeout: Duration) throws(ServiceSocketError) -> Bool {
        while received.count - consumed < count {
            let got = receive(blocking: false, wanted: count - (received.count - consumed))
            if got > 0 { continue }
            if got == 0 {
                if received.count == consumed { return false }
                throw ServiceSocketError(operation: "read from", path: path, errno: nil, detail: "closed in the middle of a message")
            }
            let error = errno
            if error == EINTR { continue }
            guard error == EAGAIN || error == EWOULDBLOCK else {
                throw ServiceSocketError(operation: "read from", path: path, errno: error, detail: "read failed")
            }
            if !pollForInput(timeout: timeout) {
                throw ServiceSocketError(
                    operation: "read from", path: path, errno: nil,
                    detail: "no data within \(timeout) in the middle of a message")
            }
        }
        return true
    }
}

/// The daemon's listening socket.
public final class UnixListener: @unchecked Sendable {
    private let descriptor: Int32
    private let closed = NSLock()
    private var isClosed = false
    /// Whether the socket and its file are this listener's own (false: systemd's, passed by
    /// socket activation, which outlive the daemon).
    private let ownsSocket: Bool
    /// Where it listens.
    public let path: String

    /// Binds and listens at `path`, replacing a stale socket file left by a daemon that died
    /// (only when nothing answers there: a second daemon is refused, not silently stolen from).
    ///
    /// The socket is bound under a temporary name beside `path`, made to listen, then renamed into
    /// place: a client that finds the file can connect at once. Bound at `path` itself, the file
    /// exists from `bind` and refuses connections (`ECONNREFUSED`) until `listen`, a window a
    /// client polling for the file hit under qemu-user.
    public init(path: String, mode: mode_t = 0o660, backlog: Int32 = 64) throws(ServiceSocketError) {
        self.path = path
        _ = try socketAddress(path, operation: "listen on")
        if let existing = try? UnixConnection.connect(to: path) {
            existing.close()
            throw ServiceSocketError(
                operation: "listen on", path: path, errno: nil,
                detail: "another hapticd already answers there; stop it first or pass another --socket")
        }
        // The temporary name falls back to `path` itself only when the longer name would not fit.
        let temporary = (try? socketAddress("\(path).\(getpid())", operation: "listen on")) != nil ? "\(path).\(getpid())" : path
        var address = try socketAddress(temporary, operation: "listen on")
        unlink(temporary)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ServiceSocketError(operation: "listen on", path: path, errno: errno, detail: "no socket") }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, chmod(temporary, mode) == 0, listen(fd, backlog) == 0, rename(temporary, path) == 0 else {
            let error = errno
            Glibc.close(fd)
            if bound == 0 { unlink(temporary) }
            throw ServiceSocketError(
                operation: "listen on", path: path, errno: error,
                detail: "cannot bind (does the folder exist and is it writable?)")
        }
        descriptor = fd
        ownsSocket = true
    }

    /// Listens on a socket the service manager made and passed (systemd's socket activation:
    /// `hapticd.socket`), already bound at `path` and listening. It stays systemd's: closing
    /// neither removes its file nor shuts it down, so that a client that connects while no
    /// daemon runs waits in its queue and starts the next one.
    public init(adopting descriptor: Int32, path: String) {
        self.path = path
        self.descriptor = descriptor
        ownsSocket = false
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    }

    /// Waits up to `timeout` for a client; nil on timeout or once closed.
    public func accept(timeout: Duration) -> UnixConnection? {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard !closed.withLock({ isClosed }),
            poll(&entry, 1, Int32(clamping: timeout.nanoseconds / 1_000_000)) > 0,
            !closed.withLock({ isClosed })
        else { return nil }
        let fd = Glibc.accept(descriptor, nil, nil)
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return UnixConnection(descriptor: fd, path: path)
    }

    /// Stops listening and removes the socket file. The descriptor itself stays open until the
    /// listener is released: a thread still inside `accept` must never poll a number the
    /// system has already handed to someone else's socket.
    public func close() {
        let first = closed.withLock { () -> Bool in
            defer { isClosed = true }
            return !isClosed
        }
        guard first, ownsSocket else { return }
        // The file goes first: while it exists, it accepts.
        unlink(path)
        Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }

    deinit {
        close()
        Glibc.close(descriptor)
    }
}

/// `struct ucred` (SO_PEERCRED's answer), which Glibc's Swift module leaves out (it needs
/// _GNU_SOURCE): the same three fields in the same order.
private struct PeerCredentials {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// POLLRDHUP (Linux, _GNU_SOURCE): the peer shut down its writing side.
private let pollReadHangUp: Int16 = 0x2000

private func socketAddress(_ path: String, operation: String) throws(ServiceSocketError) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard !bytes.isEmpty, bytes.count < capacity else {
        throw ServiceSocketError(
            operation: operation, path: path, errno: nil,
            detail: "a socket path must be 1 to \(capacity - 1) bytes long")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (index, byte) in bytes.enumerated() { raw[index] = byte }
    }
    return address
}
