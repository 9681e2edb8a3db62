// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Foundation
import HardwareAccess
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A D-Bus failure at start-up or on the connection, saying what to do.
public struct DBusError: Error, CustomStringConvertible, Equatable {
    /// What was being done ("connect to the session bus", "own org.sigxcpu.Feedback").
    public var operation: String
    /// sd-bus's (negative errno) result, made positive.
    public var errno: Int32
    /// What to do about it.
    public var hint: String

    /// One line.
    public var description: String {
        "cannot \(operation): \(String(cString: strerror(errno)))" + (hint.isEmpty ? "" : "; \(hint)")
    }
}

/// Which message bus to serve on.
public enum DBusBusKind: String, Sendable, CaseIterable {
    /// The user's session bus (`$DBUS_SESSION_BUS_ADDRESS`): where feedbackd serves phones' apps.
    case session
    /// The system bus: needs the policy file `Packaging/org.sigxcpu.Feedback.conf` installed.
    case system
}

/// A method call handed to an object's handler, read and answered on the bus thread.
struct DBusCall {
    let message: OpaquePointer
    let errorOut: UnsafeMutablePointer<sd_bus_error>?

    var interface: String? { sd_bus_message_get_interface(message).map { String(cString: $0) } }
    var member: String? { sd_bus_message_get_member(message).map { String(cString: $0) } }
    /// The caller's unique name (":1.42").
    var sender: String { sd_bus_message_get_sender(message).map { String(cString: $0) } ?? "" }
    var signature: String { sd_bus_message_get_signature(message, 1).map { String(cString: $0) } ?? "" }
    var isMethodCall: Bool { sd_bus_message_is_method_call(message, nil, nil) > 0 }

    /// The caller's effective user id, asked of the bus.
    func senderUID() -> uid_t? {
        var creds: OpaquePointer?
        guard sd_bus_query_sender_creds(message, UInt64(SD_BUS_CREDS_EUID), &creds) >= 0, let creds else { return nil }
        defer { sd_bus_creds_unref(creds) }
        var uid: uid_t = 0
        return sd_bus_creds_get_euid(creds, &uid) >= 0 ? uid : nil
    }

    /// Replies with what `fill` appends; returns the handler's result for sd-bus.
    func reply(_ fill: (DBusWriter) throws(DBusWireError) -> Void = { _ throws(DBusWireError) in }) -> Int32 {
        var reply: OpaquePointer?
        var result = sd_bus_message_new_method_return(message, &reply)
        guard result >= 0, let reply else { return result }
        defer { sd_bus_message_unref(reply) }
        do {
            try fill(DBusWriter(message: reply))
        } catch {
            return fail(DBusCall.failed, error.description)
        }
        result = sd_bus_send(nil, reply, nil)
        return result < 0 ? result : 1
    }

    /// Replies with error `name` (a D-Bus error name) saying `text`.
    func fail(_ name: String, _ text: String) -> Int32 {
        sd_bus_error_set(errorOut, name, text)
    }

    static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
    static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
    static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    static let failed = "org.freedesktop.DBus.Error.Failed"
}

/// One connection to a message bus, driven by a thread of its own: sd-bus objects are used on
/// that thread only, and other threads hand it work with `post` (an eventfd wakes its poll).
final class DBusConnection: @unchecked Sendable {
    /// The bus; touched on the bus thread only once `start` has run.
    private let bus: OpaquePointer
    /// A pipe whose write end wakes the bus thread's poll.
    private let wake: Int32
    private let wakeReader: Int32
    private let posted = Locked<[@Sendable () -> Void]>([])
    private let stopping = Atomic<Bool>(false)
    private let ended = DispatchSemaphore(value: 0)
    private var slots: [OpaquePointer] = []
    private var handlers: [Handler] = []
    /// Called on the bus thread when the connection fails for good (the bus went away).
    var onFailure: (@Sendable (DBusError) -> Void)?

    /// What a callback reaches through sd-bus's userdata.
    final class Handler {
        let handle: (DBusCall) -> Int32
        init(_ handle: @escaping (DBusCall) -> Int32) { self.handle = handle }
    }

    /// Connects to `kind`'s bus.
    init(_ kind: DBusBusKind) throws(DBusError) {
        var bus: OpaquePointer?
        let result = kind == .session ? sd_bus_open_user(&bus) : sd_bus_open_system(&bus)
        guard result >= 0, let bus else {
            throw DBusError(
                operation: "connect to the \(kind.rawValue) bus", errno: -result,
                hint: kind == .session
                    ? "is DBUS_SESSION_BUS_ADDRESS set (run inside the user's session, or under dbus-run-session)?"
                    : "is dbus running (systemctl status dbus)?")
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            sd_bus_flush_close_unref(bus)
            throw DBusError(operation: "make a pipe", errno: errno, hint: "")
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        self.bus = bus
        wakeReader = ends[0]
        wake = ends[1]
    }

    deinit {
        for slot in slots { sd_bus_slot_unref(slot) }
        sd_bus_flush_close_unref(bus)
        Glibc.close(wake)
        Glibc.close(wakeReader)
    }

    /// Owns `name`, refusing to take it from another owner.
    func requestName(_ name: String, busKind: DBusBusKind) throws(DBusError) {
        let result = sd_bus_request_name(bus, name, 0)
        guard result >= 0 else {
            let hint: String =
                switch -result {
                case EEXIST: "another program owns it (feedbackd?): stop it, or run hapticd without --dbus"
                case EACCES, EPERM:
                    "the bus's policy does not allow it: install Packaging/org.sigxcpu.Feedback.conf in /usr/share/dbus-1/system.d (the swift-haptics package does)"
                default: ""
                }
            throw DBusError(operation: "own \(name) on the \(busKind.rawValue) bus", errno: -result, hint: hint)
        }
    }

    /// Serves every message to `path` with `handle` (return 1 when answered, 0 to let sd-bus
    /// answer, a negative errno after `DBusCall.fail`).
    func addObject(_ path: String, _ handle: @escaping (DBusCall) -> Int32) throws(DBusError) {
        try register(handle, operation: "serve \(path)") { slot, userdata in sd_bus_add_object(bus, &slot, path, dispatch, userdata) }
    }

    /// Calls `handle` with each message matching `rule`.
    func addMatch(_ rule: String, _ handle: @escaping (DBusCall) -> Int32) throws(DBusError) {
        try register(handle, operation: "watch the bus (\(rule))") { slot, userdata in sd_bus_add_match(bus, &slot, rule, dispatch, userdata) }
    }

    /// Keeps `handle` (sd-bus holds it as userdata, unretained) and the slot `add` makes for it.
    private func register(
        _ handle: @escaping (DBusCall) -> Int32, operation: String, _ add: (inout OpaquePointer?, UnsafeMutableRawPointer) -> Int32
    ) throws(DBusError) {
        let handler = Handler(handle)
        var slot: OpaquePointer?
        let result = add(&slot, Unmanaged.passUnretained(handler).toOpaque())
        guard result >= 0, let slot else { throw DBusError(operation: operation, errno: -result, hint: "") }
        handlers.append(handler)
        slots.append(slot)
    }

    /// Sends signal `member` of `interface` from `path`, with what `fill` appends. Bus thread only.
    func emitSignal(path: String, interface: String, member: String, _ fill: (DBusWriter) throws(DBusWireError) -> Void) -> Bool {
        var message: OpaquePointer?
        guard sd_bus_message_new_signal(bus, &message, path, interface, member) >= 0, let message else { return false }
        defer { sd_bus_message_unref(message) }
        do {
            try fill(DBusWriter(message: message))
        } catch {
            return false
        }
        return sd_bus_send(bus, message, nil) >= 0
    }

    /// Runs `work` on the bus thread, soon.
    func post(_ work: @escaping @Sendable () -> Void) {
        posted.withLock { $0.append(work) }
        var one: UInt8 = 1
        _ = Glibc.write(wake, &one, 1)
    }

    /// Runs the work posted so far, now, in order. Bus thread only: a method's handler that must
    /// send what it posted before its reply (feedbackd sends `FeedbackEnded` before it answers
    /// `EndFeedback`, and libfeedback's client sees the event ended when the answer comes).
    func runPosted() {
        for work in posted.withLock({ queue -> [@Sendable () -> Void] in
            defer { queue.removeAll() }
            return queue
        }) { work() }
    }

    /// Starts the bus thread.
    func start(name: String) {
        let thread = Thread { [self] in
            run()
            ended.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Stops the bus thread (after the work already posted) and waits up to a second for it.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        post {}
        _ = ended.wait(timeout: .now() + 1)
    }

    private func run() {
        while true {
            runPosted()
            if stopping.load(ordering: .acquiring) {
                sd_bus_flush(bus)
                return
            }
            var result: Int32
            repeat { result = sd_bus_process(bus, nil) } while result > 0
            if result < 0 {
                onFailure?(DBusError(operation: "stay on the bus", errno: -result, hint: "the bus went away; restart hapticd"))
                return
            }
            var timeout: UInt64 = 0
            var milliseconds: Int32 = 1000
            if sd_bus_get_timeout(bus, &timeout) >= 0, timeout != UInt64.max {
                let now = UInt64(SystemClock.shared.now.nanoseconds / 1000)
                milliseconds = Int32(min(1000, timeout > now ? (timeout - now + 999) / 1000 : 0))
            }
            var descriptors = [
                pollfd(fd: sd_bus_get_fd(bus), events: Int16(truncatingIfNeeded: sd_bus_get_events(bus)), revents: 0),
                pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0)
            ]
            if poll(&descriptors, 2, milliseconds) > 0, descriptors[1].revents != 0 {
                var drained = [UInt8](repeating: 0, count: 256)
                while Glibc.read(wakeReader, &drained, drained.count) > 0 {}
            }
        }
    }
}

/// sd-bus's callback: the userdata is the handler.
private func dispatch(_ message: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
    guard let message, let userdata else { return 0 }
    let handler = Unmanaged<DBusConnection.Handler>.fromOpaque(userdata).takeUnretainedValue()
    return handler.handle(DBusCall(message: message, errorOut: error))
}
