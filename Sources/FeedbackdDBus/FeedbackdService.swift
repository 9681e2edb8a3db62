// SPDX-License-Identifier: Apache-2.0

import Foundation
import HapticsService
import Logging

/// feedbackd's D-Bus API, served by hapticd: `org.sigxcpu.Feedback` at `/org/sigxcpu/Feedback`,
/// so a program written for feedbackd (through libfeedback, or its own D-Bus calls) plays on
/// this board unchanged.
///
/// - `TriggerFeedback(s app_id, s event, a{sv} hints, i timeout) → u id`: the event plays
///   (once with timeout -1, repeated until `EndFeedback` with 0, for N seconds with N), through
///   the same arbitration and profiles as the socket's clients. Hints: `profile` (full, quiet or
///   silent: the event plays as if the profile were at most that), `important` (a boolean: an
///   alarm or call plays through a silencing profile), `sound-file` (heard instead of the
///   theme's sound; on the session bus only).
/// - `EndFeedback(u id)`: ends it, the actuator stopped; an id that is not playing (ended
///   already) is answered success, as feedbackd answers it.
/// - Signal `FeedbackEnded(u id, u reason)`: once per id, with feedbackd's reasons
///   (`FeedbackEndReason`: an unknown or silenced event ends at once as not-found).
/// - Property `Profile` (read and write): the global profile; `PropertiesChanged` when it
///   changes, whoever changed it. On the system bus only root and hapticd's user may set it.
/// - `org.sigxcpu.Feedback.Haptic.Vibrate(s app_id, a(du) pattern) → b` (feedbackd 0.6 and
///   later), on the same object: the app's own pattern of (magnitude 0.0-1.0, ms) pairs, as
///   `HapticServer.vibrate` plays it; an empty pattern ends the last one.
///
/// A caller that leaves the bus has its feedback ended, as feedbackd does.
public final class FeedbackdService: Sendable {
    /// The bus name, the object path and the interface feedbackd serves.
    public static let busName = "org.sigxcpu.Feedback"
    /// The object path.
    public static let objectPath = "/org/sigxcpu/Feedback"
    /// The interface.
    public static let interface = "org.sigxcpu.Feedback"
    /// The haptic interface, on the same object.
    public static let hapticInterface = "org.sigxcpu.Feedback.Haptic"

    private let server: HapticServer
    private let connection: DBusConnection
    private let kind: DBusBusKind
    private let logger: Logger
    private let daemonUID = getuid()

    /// Connects to `bus`, owns the name and serves the object; fails (naming what to do) when the
    /// bus cannot be reached or another program owns the name. Nothing is served until `start`.
    /// `busLost` is called (on the bus thread, once) when the bus goes away for good: a session
    /// that ended, a bus daemon that stopped. The name is gone with it, so the daemon should end
    /// (as feedbackd does) rather than hold its socket and chip for a bus that is no more.
    public init(
        server: HapticServer, bus kind: DBusBusKind, logger: Logger, busLost: (@Sendable (DBusError) -> Void)? = nil
    ) throws(DBusError) {
        self.server = server
        self.kind = kind
        self.logger = logger
        connection = try DBusConnection(kind)
        try connection.addObject(Self.objectPath) { [unowned self] call in handle(call) }
        try connection.addMatch(
            "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged'"
        ) { [unowned self] call in
            peerChanged(call)
        }
        try connection.requestName(Self.busName, busKind: kind)
        connection.onFailure = { [logger] error in
            logger.error("hapticd: D-Bus: \(error)")
            busLost?(error)
        }
        let connection = connection
        server.observeGlobalProfile { profile in
            connection.post {
                _ = connection.emitSignal(path: Self.objectPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged") {
                    w throws(DBusWireError) in
                    try w.string(Self.interface)
                    try w.dictionary(strings: [("Profile", profile.rawValue)])
                    try w.emptyStringArray()
                }
            }
        }
    }

    /// Serves on a thread of its own.
    public func start() {
        connection.start(name: "hapticd-dbus")
        logger.info("hapticd: serving \(Self.busName) on the \(kind.rawValue) bus")
    }

    /// Stops serving (the name is released as the connection closes).
    public func stop() {
        connection.stop()
    }

    // MARK: - Calls (on the bus thread)

    private func handle(_ call: DBusCall) -> Int32 {
        guard call.isMethodCall, let member = call.member else { return 0 }
        let reader = DBusReader(message: call.message)
        switch (call.interface ?? Self.interface, member) {
        case (Self.interface, "TriggerFeedback"): return triggerFeedback(call, reader)
        case (Self.interface, "EndFeedback"): return endFeedback(call, reader)
        case (Self.hapticInterface, "Vibrate"): return vibrate(call, reader)
        case ("org.freedesktop.DBus.Properties", "Get"): return getProperty(call, reader)
        case ("org.freedesktop.DBus.Properties", "GetAll"): return getAllProperties(call, reader)
        case ("org.freedesktop.DBus.Properties", "Set"): return setProperty(call, reader)
        case ("org.freedesktop.DBus.Introspectable", "Introspect"):
            return call.reply { w throws(DBusWireError) in try w.string(Self.introspection) }
        case (Self.interface, _), (Self.hapticInterface, _):
            return call.fail(DBusCall.unknownMethod, "\(call.interface ?? Self.interface) has no method \(member)")
        default:
            return 0
        }
    }

    private func triggerFeedback(_ call: DBusCall, _ reader: DBusReader) -> Int32 {
        guard call.signature == "ssa{sv}i" else {
            return call.fail(DBusCall.invalidArgs, "TriggerFeedback takes (s app_id, s event, a{sv} hints, i timeout), not (\(call.signature))")
        }
        var trigger: FeedbackTrigger
        do {
            let app = try reader.string()
            let event = try reader.string()
            let hints = try reader.dictionary()
            let timeout = try reader.int32()
            guard !app.isEmpty else { return call.fail(DBusCall.invalidArgs, "app_id must not be empty (e.g. org.example.App)") }
            guard !event.isEmpty else { return call.fail(DBusCall.invalidArgs, "event must not be empty (e.g. button-pressed)") }
            guard timeout >= -1 else { return call.fail(DBusCall.invalidArgs, "timeout is -1 (once), 0 (until EndFeedback) or seconds, not \(timeout)") }
            trigger = FeedbackTrigger(app: String(app.prefix(128)), event: event, timeout: Int(timeout))
            switch hints["profile"] {
            case .string(let name)?:
                guard let profile = FeedbackProfile(rawValue: name) else {
                    return call.fail(DBusCall.invalidArgs, "the profile hint is one of full, quiet, silent, not '\(name)'")
                }
                trigger.profile = profile
            case nil: break
            case let other?: return call.fail(DBusCall.invalidArgs, "the profile hint is a string, not \(other)")
            }
            if case .bool(let important)? = hints["important"] { trigger.important = important }
            // The sound-file hint names a file hapticd opens: on the session bus hapticd runs as the
            // user (as feedbackd does), on the system bus as a user of its own, which opens no file
            // a client names (a confused deputy otherwise).
            if case .string(let file)? = hints["sound-file"], !file.isEmpty {
                if kind == .session {
                    trigger.soundFile = file
                } else {
                    logger.info("hapticd: D-Bus \(call.sender): the sound-file hint is ignored on the system bus (hapticd opens no file a client names there)")
                }
            }
        } catch {
            return call.fail(DBusCall.invalidArgs, "TriggerFeedback: \(error)")
        }
        let connection = connection
        let id = server.trigger(trigger, owner: call.sender) { id, reason in
            connection.post {
                _ = connection.emitSignal(path: Self.objectPath, interface: Self.interface, member: "FeedbackEnded") { w throws(DBusWireError) in
                    try w.uint32(id)
                    try w.uint32(reason.wireValue)
                }
            }
        }
        logger.debug("hapticd: D-Bus \(call.sender) (\(trigger.app)): \(trigger.event), timeout \(trigger.timeout): id \(id)")
        return call.reply { w throws(DBusWireError) in try w.uint32(id) }
    }

    private func vibrate(_ call: DBusCall, _ reader: DBusReader) -> Int32 {
        guard call.signature == "sa(du)" else {
            return call.fail(DBusCall.invalidArgs, "Vibrate takes (s app_id, a(du) pattern), not (\(call.signature))")
        }
        let app: String
        let pattern: [(magnitude: Double, milliseconds: UInt32)]
        do {
            app = try reader.string()
            pattern = try reader.magnitudesAndDurations(limit: HapticServer.vibrateMaximumPairs)
        } catch {
            return call.fail(DBusCall.invalidArgs, "Vibrate: \(error)")
        }
        guard !app.isEmpty else { return call.fail(DBusCall.invalidArgs, "app_id must not be empty (e.g. org.example.Game)") }
        let played = server.vibrate(app: String(app.prefix(128)), pattern: pattern, owner: call.sender)
        logger.debug("hapticd: D-Bus \(call.sender) (\(app)): Vibrate \(pattern.count) pair(s): \(played ? "plays" : "refused")")
        return call.reply { w throws(DBusWireError) in try w.bool(played) }
    }

    private func endFeedback(_ call: DBusCall, _ reader: DBusReader) -> Int32 {
        guard call.signature == "u", let id = try? reader.uint32() else {
            return call.fail(DBusCall.invalidArgs, "EndFeedback takes (u id), not (\(call.signature))")
        }
        // feedbackd answers success for an event that has already ended (or never was), with a
        // warning in its log (fbd_feedback_manager_handle_end_feedback): a client ending a
        // feedback that ended by itself meanwhile is no error.
        if !server.endTriggered(id) {
            logger.warning("hapticd: EndFeedback for \(id), which is not playing (it has ended, or never started): nothing to end")
        }
        // FeedbackEnded first, then the answer, as feedbackd sends them: libfeedback's client
        // finds the event ended when EndFeedback returns (feedbackd's own integration test checks).
        connection.runPosted()
        return call.reply()
    }

    private func getProperty(_ call: DBusCall, _ reader: DBusReader) -> Int32 {
        guard call.signature == "ss", let interface = try? reader.string(), let name = try? reader.string() else {
            return call.fail(DBusCall.invalidArgs, "Get takes (s interface, s property)")
        }
        guard interface == Self.interface else { return call.fail(DBusCall.unknownInterface, "no interface \(interface) here") }
        guard name == "Profile" else { return call.fail(DBusCall.unknownProperty, "\(Self.interface) has no property \(name)") }
        let profile = server.globalProfile
        return call.reply { w throws(DBusWireError) in try w.variant(string: profile.rawValue) }
    }

    private func getAllProperties(_ call: DBusCall, _ reader: DBusReader) -> Int32 {
        guard call.signature == "s", let interface = try? reader.string() else {
            return call.fail(DBusCall.invalidArgs, "GetAll takes (s interface)")
        }
        let profile = server.globalProfile
        let entries = interface == Self.interface ? [("Profile", profile.rawValue)] : []
        return call.reply { w throws(DBusWireError) in try w.dictionary(strings: entries) }
    }

    private func setProperty(_ call: DBusCall, _ reader: DBusReader) -> Int32 {
        guard call.signature == "ssv", let interface = try? reader.string(), let name = try? reader.string(), let value = try? reader.variant() else {
            return call.fail(DBusCall.invalidArgs, "Set takes (s interface, s property, v value)")
        }
        guard interface == Self.interface else { return call.fail(DBusCall.unknownInterface, "no interface \(interface) here") }
        guard name == "Profile" else { return call.fail(DBusCall.unknownProperty, "\(Self.interface) has no property \(name)") }
        guard case .string(let text) = value, let profile = FeedbackProfile(rawValue: text) else {
            return call.fail(DBusCall.invalidArgs, "Profile is one of full, quiet, silent")
        }
        if kind == .system {
            guard let uid = call.senderUID(), uid == 0 || uid == daemonUID else {
                return call.fail(DBusCall.accessDenied, "only root or hapticd's user may set the global profile on the system bus")
            }
        }
        server.setGlobalProfile(profile)
        logger.info("hapticd: global profile set to \(profile.rawValue) over D-Bus by \(call.sender)")
        return call.reply()
    }

    /// A peer that leaves the bus has its feedback ended.
    private func peerChanged(_ call: DBusCall) -> Int32 {
        let reader = DBusReader(message: call.message)
        guard let name = try? reader.string(), (try? reader.string()) != nil, let newOwner = try? reader.string() else { return 0 }
        if name.hasPrefix(":") && newOwner.isEmpty { server.endTriggered(owner: name) }
        return 0
    }

    /// The interface as feedbackd's introspection data describes it, with the standard ones.
    static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
          <interface name="org.sigxcpu.Feedback">
            <method name="TriggerFeedback">
              <arg direction="in" type="s" name="app_id"/>
              <arg direction="in" type="s" name="event"/>
              <arg direction="in" type="a{sv}" name="hints"/>
              <arg direction="in" type="i" name="timeout"/>
              <arg direction="out" type="u" name="id"/>
            </method>
            <method name="EndFeedback">
              <arg direction="in" type="u" name="id"/>
            </method>
            <signal name="FeedbackEnded">
              <arg type="u" name="id"/>
              <arg type="u" name="reason"/>
            </signal>
            <property name="Profile" type="s" access="readwrite"/>
          </interface>
          <interface name="org.sigxcpu.Feedback.Haptic">
            <method name="Vibrate">
              <arg direction="in" type="s" name="app_id"/>
              <arg direction="in" type="a(du)" name="pattern"/>
              <arg direction="out" type="b" name="success"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get">
              <arg direction="in" type="s" name="interface_name"/>
              <arg direction="in" type="s" name="property_name"/>
              <arg direction="out" type="v" name="value"/>
            </method>
            <method name="GetAll">
              <arg direction="in" type="s" name="interface_name"/>
              <arg direction="out" type="a{sv}" name="properties"/>
            </method>
            <method name="Set">
              <arg direction="in" type="s" name="interface_name"/>
              <arg direction="in" type="s" name="property_name"/>
              <arg direction="in" type="v" name="value"/>
            </method>
            <signal name="PropertiesChanged">
              <arg type="s" name="interface_name"/>
              <arg type="a{sv}" name="changed_properties"/>
              <arg type="as" name="invalidated_properties"/>
            </signal>
          </interface>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect">
              <arg direction="out" type="s" name="xml_data"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
            <method name="GetMachineId">
              <arg direction="out" type="s" name="machine_uuid"/>
            </method>
          </interface>
        </node>
        """
}
