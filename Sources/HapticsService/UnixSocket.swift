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
public final class UnixConnection: @unchecked Sendable {
    /// -1 once closed.
    private let descriptorLock = NSLock()
    /// Held for a whole message, so a reply and a pushed message never interleave.
    private let sendLock = NSLock()
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

    /// Waits up to `timeout` for bytes (or the peer's hang-up). A signal does not cut the wait
    /// short (seen under qemu-user: an interrupted poll taken for a timeout lost a reply).
    public func waitForInput(timeout: Duration) -> Readiness {
        let deadline = SystemClock.shared.now.advanced(by: timeout)
        while true {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let remaining = deadline.duration(since: SystemClock.shared.now)
            let milliseconds = Int32(clamping: max(0, (remaining.nanoseconds + 999_999) / 1_000_000))
            let result = poll(&entry, 1, milliseconds)
            if result == 0 { return .timedOut }
            if result < 0 {
                if errno == EINTR, SystemClock.shared.now < deadline { continue }
                return errno == EINTR ? .timedOut : .closed
            }
            if entry.revents & Int16(POLLIN) != 0 { return .readable }
            return .closed
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
        var buffer = [UInt8](repeating: 0, count: count)
        var offset = 0
        // What has arrived is taken at once; the wait (a poll) only when nothing has: a message
        // that came whole costs one system call per read, not two.
        while offset < count {
            let received = buffer[offset...].withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if received > 0 {
                offset += received
                continue
            }
            if received == 0 {
                if offset == 0 { return nil }
                throw ServiceSocketError(operation: "read from", path: path, errno: nil, detail: "closed in the middle of a message")
            }
            let error = errno
            if error == EINTR { continue }
            guard error == EAGAIN || error == EWOULDBLOCK else {
                throw ServiceSocketError(operation: "read from", path: path, errno: error, detail: "read failed")
            }
            if waitForInput(timeout: timeout) == .timedOut {
                throw ServiceSocketError(
                    operation: "read from", path: path, errno: nil,
                    detail: "no data within \(timeout) in the middle of a message")
            }
        }
        return buffer
    }

    /// Reads one frame: `nil` at a clean end of the connection.
    public func readFrame(timeout: Duration) throws -> [UInt8]? {
        guard let header = try read(count: 4, timeout: timeout) else { return nil }
        let length = try ServiceFrame.length(ofHeader: header)
        guard let payload = try read(count: length, timeout: timeout) else { throw ServiceFrame.FrameError.truncated }
        return payload
    }
}

/// The daemon's listening socket.
public final class UnixListener: @unchecked Sendable {
    private let descriptor: Int32
    private let closed = NSLock()
    private var isClosed = false
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
        guard first else { return }
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
