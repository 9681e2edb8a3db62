// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Whether an unchanged libfeedback client can run here: Debian's `gir1.2-lfb-0.0` and
/// `python3-gi`, and a `dbus-daemon` for a private session bus (Scripts/install-dependencies
/// installs them on Debian 12; the arm64 root under qemu-user has none of them).
private let libfeedbackClientRuns: Bool = {
    let typelibs = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu"].map { $0 + "/girepository-1.0/Lfb-0.0.typelib" }
    return typelibs.contains { FileManager.default.fileExists(atPath: $0) }
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
        && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/gi/__init__.py")
}()

/// Whether the client must run: under CI (`CI=true`) on x86_64, where Scripts/install-dependencies
/// installs its packages, a missing one fails the suite instead of skipping it. Elsewhere (a
/// developer's machine, the arm64 root) the suite skips, saying what it needs.
private let libfeedbackClientRequired: Bool = {
    #if arch(x86_64)
        return ProcessInfo.processInfo.environment["CI"] == "true"
    #else
        return false
    #endif
}()

/// `hapticd --dbus session` as a phone's apps meet feedbackd: an unchanged libfeedback client
/// (Tests/Clients/libfeedback-client.py, through python3-gi) on a private session bus, and the
/// chip's state asked of hapticd's socket at the moments that matter.
@Suite(
    .serialized,
    .enabled(
        if: libfeedbackClientRuns || libfeedbackClientRequired,
        "needs gir1.2-lfb-0.0, python3-gi and dbus-daemon (Scripts/install-dependencies); required under CI=true"))
struct FeedbackdContractTests {
    let haptic: Program
    let hapticd: Program
    let scratch: ScratchFolder
    let socket: String
    let environment: [String: String]
    let bus: PrivateBus
    let client = Program.packageRoot.appendingPathComponent("Tests/Clients/libfeedback-client.py").path

    init() throws {
        guard libfeedbackClientRuns else {
            throw ProgramError(
                "CI=true, and the libfeedback client cannot run: install gir1.2-lfb-0.0, python3-gi and dbus (Scripts/install-dependencies)")
        }
        haptic = try Program("haptic")
        hapticd = try Program("hapticd")
        scratch = try ScratchFolder()
        socket = scratch.file("hapticd.sock")
        bus = try PrivateBus(["--session"])
        let address = bus.address
        environment = [
            "HAPTIC_CALIBRATION_FILE": scratch.file("calibration.json"), "STATE_DIRECTORY": scratch.path, "HAPTIC_BOARD": "", "HAPTICD_SOCKET": "",
            "DBUS_SESSION_BUS_ADDRESS": address
        ]
    }

    /// Starts hapticd on the private bus and waits until it says it is ready (after it owns the name).
    private func startDaemon() throws -> Running {
        let daemon = try hapticd.start(["--simulate", "--socket", socket, "--dbus", "session", "--verbose"], environment: environment)
        try daemon.waitUntil("hapticd ready", deadline: .seconds(120)) { daemon.standardError.contains("hapticd: ready") }
        return daemon
    }

    private func stop(_ daemon: Running) throws -> Run {
        daemon.signal(SIGTERM)
        let run = try daemon.wait(deadline: .seconds(10))
        #expect(run.status == 0, "hapticd exited \(run.status): \(run.stderr)")
        return run
    }

    private func runClient(_ arguments: [String] = []) throws -> [String: Any] {
        let run = try Program(executable: "/usr/bin/python3").run([client, socket] + arguments, environment: environment, deadline: .seconds(120))
        #expect(run.status == 0, "the libfeedback client failed: \(run.stderr)")
        return try #require(run.json, "the client printed no JSON: \(run.stdout) \(run.stderr)")
    }

    /// The issue's session: a button press plays and ends naturally; a call with timeout 0 plays
    /// until EndFeedback, FeedbackEnded arrives (explicit), and the chip is in standby 100 ms after;
    /// a timeout expires; the profile hint and unknown events end as not-found; Profile is
    /// read and written through libfeedback.
    @Test func anUnchangedLibfeedbackClientIsServed() throws {
        let daemon = try startDaemon()
        let seen = try runClient()
        let run = try stop(daemon)
        #expect(seen["profile"] as? String == "full")
        #expect(seen["button_triggered"] as? Bool == true && seen["button_ended"] as? Bool == true)
        #expect(seen["button_reason"] as? Int == 0, "button-pressed did not end naturally: \(seen)")
        #expect(seen["call_triggered"] as? Bool == true)
        #expect(seen["call_ended_by_itself"] as? Bool == false, "a call with timeout 0 ended by itself")
        #expect((seen["playing_while_ringing"] as? String)?.contains("call feedback") == true, "not ringing after 2 s: \(seen)")
        #expect(seen["call_end_accepted"] as? Bool == true && seen["call_ended"] as? Bool == true, "no FeedbackEnded after EndFeedback")
        #expect(seen["call_reason"] as? Int == 2, "EndFeedback's end is not explicit: \(seen)")
        #expect(seen["call_end_again_accepted"] as? Bool == true, "EndFeedback on an ended event is not the success feedbackd answers: \(seen)")
        // LFB_EVENT_STATE_ENDED is 2: FeedbackEnded came before EndFeedback's answer.
        #expect(seen["async_end_accepted"] as? Bool == true && seen["async_end_state"] as? Int == 2, "EndFeedback answered before FeedbackEnded: \(seen)")
        #expect(seen["standby_100ms_after"] as? Bool == true, "the chip is not in standby 100 ms after FeedbackEnded")
        #expect(seen["alarm_reason"] as? Int == 1, "a 1 s timeout did not expire: \(seen)")
        let alarmSeconds = seen["alarm_seconds"] as? Double ?? 0
        #expect(alarmSeconds >= 0.95 && alarmSeconds < 3, "the 1 s timeout ended after \(alarmSeconds) s")
        #expect(seen["quiet_hint_reason"] as? Int == -1, "a quiet profile hint let a button press play")
        #expect(seen["unknown_reason"] as? Int == -1)
        #expect(seen["profile_after_set"] as? String == "silent", "libfeedback's profile change did not reach hapticd")
        #expect(run.stderr.contains("phone-incoming-call, timeout 0"), "\(run.stderr)")
    }

    /// The session bus going away (the user's session ended) ends hapticd, as feedbackd ends when
    /// it loses its bus: the actuator stopped, exit 69, its socket free for the hapticd the next
    /// session activates. (It stayed, holding socket and chip for a bus that was gone: feedbackd's
    /// own integration tests, run against it, found that.)
    @Test func theBusGoingAwayEndsTheDaemon() throws {
        let daemon = try startDaemon()
        bus.daemon.signal(SIGKILL)
        let run = try daemon.wait(deadline: .seconds(10))
        #expect(run.status == 69, "hapticd exited \(run.status) when its bus went away: \(run.stderr)")
        #expect(run.stderr.contains("actuator stopped"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: socket), "the socket was left behind")
    }

    /// A client that goes away while its call rings: hapticd ends the loop and the chip goes to
    /// standby, as feedbackd ends the feedback of a peer that left the bus.
    @Test func aClientThatLeavesTheBusHasItsLoopEnded() throws {
        let daemon = try startDaemon()
        let seen = try runClient(["leave"])
        #expect((seen["playing_while_ringing"] as? String)?.contains("call feedback") == true, "not ringing: \(seen)")
        let observer = try RawClient(socket)
        func status() throws -> [String: Any] {
            try observer.send(frame: Array(#"{"version": 1, "op": "status"}"#.utf8))
            return try #require(try observer.replyObject()["status"] as? [String: Any])
        }
        // The client's process has exited: the bus tells hapticd, which ends the loop.
        try daemon.waitUntil("the loop ended and the chip in standby", deadline: .seconds(5)) {
            guard let now = try? status() else { return false }
            return now["playing"] == nil && now["standby"] as? Bool == true
        }
        _ = try stop(daemon)
    }

    /// `--dbus system` under the policy file the package installs (Packaging/org.sigxcpu.Feedback.conf), on a system-type bus of
    /// the test's own with Debian's default policy (no one owns, no one calls, unless allowed): root (CI) or hapticd's user own the name
    /// and anyone's call is answered (both of feedbackd's interfaces), but only root (or hapticd's user) sets the profile; any other
    /// user is refused at start with the file named.
    @Test func theSystemBusPolicyLetsHapticdServe() throws {
        let policy = Program.packageRoot.appendingPathComponent("Packaging/org.sigxcpu.Feedback.conf").path
        let config = scratch.file("system.conf")
        let address = "unix:path=" + scratch.file("system_bus_socket")
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>system</type>
          <listen>\(address)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <deny own="*"/>
            <deny send_type="method_call"/>
            <allow send_type="signal"/>
            <allow send_requested_reply="true" send_type="method_return"/>
            <allow send_requested_reply="true" send_type="error"/>
            <allow receive_type="method_call"/>
            <allow receive_type="method_return"/>
            <allow receive_type="error"/>
            <allow receive_type="signal"/>
            <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
          </policy>
          <include>\(policy)</include>
        </busconfig>
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let systemBus = try PrivateBus(["--config-file=" + config])
        var environment = environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        let daemon = try hapticd.start(["--simulate", "--socket", socket, "--dbus", "system"], environment: environment)
        guard getuid() == 0 else {
            let run = try daemon.wait(deadline: .seconds(120))
            #expect(run.status == 69 && run.stderr.contains("org.sigxcpu.Feedback.conf"), "\(run.stderr)")
            return
        }
        try daemon.waitUntil("hapticd ready", deadline: .seconds(120)) { daemon.standardError.contains("hapticd: ready") }
        let call = try Program(executable: "/usr/bin/python3").run(
            [
                "-c",
                """
                import sys
                from gi.repository import Gio, GLib
                bus = Gio.DBusConnection.new_for_address_sync(sys.argv[1], Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
                reply = bus.call_sync("org.sigxcpu.Feedback", "/org/sigxcpu/Feedback", "org.sigxcpu.Feedback", "TriggerFeedback",
                    GLib.Variant("(ssa{sv}i)", ("org.example.System", "button-pressed", {}, -1)), GLib.VariantType("(u)"), 0, 5000, None)
                bus.call_sync("org.sigxcpu.Feedback", "/org/sigxcpu/Feedback", "org.sigxcpu.Feedback", "TriggerFeedback",
                    GLib.Variant("(ssa{sv}i)", ("org.example.System", "message-new-instant", {"sound-file": GLib.Variant("s", "/etc/shadow")}, -1)),
                    GLib.VariantType("(u)"), 0, 5000, None)
                profile = bus.call_sync("org.sigxcpu.Feedback", "/org/sigxcpu/Feedback", "org.freedesktop.DBus.Properties", "Get",
                    GLib.Variant("(ss)", ("org.sigxcpu.Feedback", "Profile")), None, 0, 5000, None)
                bus.call_sync("org.sigxcpu.Feedback", "/org/sigxcpu/Feedback", "org.sigxcpu.Feedback.Haptic", "Vibrate",
                    GLib.Variant("(sa(du))", ("org.example.System", [(0.5, 40)])), None, 0, 5000, None)
                bus.call_sync("org.sigxcpu.Feedback", "/org/sigxcpu/Feedback", "org.freedesktop.DBus.Properties", "Set",
                    GLib.Variant("(ssv)", ("org.sigxcpu.Feedback", "Profile", GLib.Variant("s", "quiet"))), None, 0, 5000, None)
                print(reply.unpack()[0], profile.unpack()[0], "vibrated", "set")
                """,
                address
            ], environment: environment, deadline: .seconds(60))
        // Root may trigger, read the profile, vibrate and set the profile.
        #expect(call.status == 0, "\(call.stderr)")
        let words = call.stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(
            words.count == 4 && UInt32(words[0]).map { $0 > 0 } == true && words[1] == "full" && words[2] == "vibrated" && words[3] == "set",
            "\(call.stdout)")
        // Any other account (nobody, in no group) may trigger events, vibrate and read the profile, not set everyone's (the bus refuses
        // it, before hapticd's own check).
        let client = """
            import sys
            from gi.repository import Gio, GLib
            bus = Gio.DBusConnection.new_for_address_sync(sys.argv[1], Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
            def call(interface, member, arguments):
                try:
                    bus.call_sync("org.sigxcpu.Feedback", "/org/sigxcpu/Feedback", interface, member, arguments, None, 0, 5000, None)
                    return "allowed"
                except GLib.Error as error:
                    # The bus's refusal ("Rejected send message") or hapticd's own.
                    return ("bus-denied" if "Rejected send message" in error.message else "denied") if "AccessDenied" in error.message else "error:" + error.message
            print(call("org.sigxcpu.Feedback", "TriggerFeedback", GLib.Variant("(ssa{sv}i)", ("org.example.Account", "button-pressed", {}, -1))),
                call("org.sigxcpu.Feedback.Haptic", "Vibrate", GLib.Variant("(sa(du))", ("org.example.Account", [(0.5, 40)]))),
                call("org.freedesktop.DBus.Properties", "Get", GLib.Variant("(ss)", ("org.sigxcpu.Feedback", "Profile"))),
                call("org.freedesktop.DBus.Properties", "Set", GLib.Variant("(ssv)", ("org.sigxcpu.Feedback", "Profile", GLib.Variant("s", "silent")))))
            """
        let nobody = try Program(executable: "/usr/bin/setpriv").run(
            ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", client, address],
            environment: environment, deadline: .seconds(60))
        #expect(nobody.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "allowed allowed allowed bus-denied", "\(nobody.stdout) \(nobody.stderr)")
        _ = systemBus
        daemon.signal(SIGTERM)
        let run = try daemon.wait(deadline: .seconds(10))
        #expect(run.status == 0)
        // A client's file is not opened by hapticd on the system bus (it runs as a user of its own).
        #expect(run.stderr.contains("the sound-file hint is ignored on the system bus"), "\(run.stderr)")
    }

    /// A second owner of the name is refused at start, naming what to do (exit 69).
    @Test func aTakenNameIsRefusedAtStart() throws {
        let daemon = try startDaemon()
        let second = try hapticd.run(
            ["--simulate", "--socket", scratch.file("second.sock"), "--dbus", "session"], environment: environment, deadline: .seconds(120))
        #expect(second.status == 69, "\(second.stderr)")
        #expect(second.stderr.contains("org.sigxcpu.Feedback") && second.stderr.contains("another program owns it"), "\(second.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("second.sock")), "the refused daemon left its socket")
        _ = try stop(daemon)
    }

    /// `org.sigxcpu.Feedback.Haptic.Vibrate` from a Gio client on the session bus, as a game or a
    /// browser calls it: a pattern plays, an empty one ends it with the chip in standby, a silent
    /// profile refuses it; and the interface hapticd introspects is feedbackd's, method for method
    /// and argument for argument (its `org.sigxcpu.Feedback.Haptic.xml` when the release is here).
    @Test func vibrateIsServedOnTheSessionBus() throws {
        let daemon = try startDaemon()
        let interfaceXML = ProcessInfo.processInfo.environment["HAPTIC_FEEDBACKD_ROOT"].map {
            $0 + "/usr/share/dbus-1/interfaces/org.sigxcpu.Feedback.Haptic.xml"
        }
        let call = try Program(executable: "/usr/bin/python3").run(
            [
                "-c",
                """
                import json, socket, struct, sys, time
                import xml.etree.ElementTree as ET
                from gi.repository import Gio, GLib
                bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
                def vibrate(pattern):
                    reply = bus.call_sync("org.sigxcpu.Feedback", "/org/sigxcpu/Feedback", "org.sigxcpu.Feedback.Haptic", "Vibrate",
                        GLib.Variant("(sa(du))", ("org.example.Game", pattern)), GLib.VariantType("(b)"), 0, 5000, None)
                    return reply.unpack()[0]
                def status():
                    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as c:
                        c.settimeout(5); c.connect(sys.argv[1])
                        body = json.dumps({"version": 1, "op": "status"}).encode()
                        c.sendall(struct.pack(">I", len(body)) + body)
                        data = b""
                        while len(data) < 4 or len(data) < 4 + struct.unpack(">I", data[:4])[0]:
                            data += c.recv(65536)
                        return json.loads(data[4:])["status"]
                def methods(node, name):
                    for interface in node.iter("interface"):
                        if interface.get("name") == name:
                            return sorted((m.get("name"), [(a.get("direction", "in"), a.get("type")) for a in m.iter("arg")]) for m in interface.iter("method"))
                seen = {}
                seen["played"] = vibrate([(0.6, 1500), (0.0, 100), (1.0, 200)])
                time.sleep(0.3)
                seen["playing"] = status().get("playing")
                seen["ended"] = vibrate([])
                time.sleep(0.1)
                seen["standby_after_empty"] = status()["standby"]
                bus.call_sync("org.sigxcpu.Feedback", "/org/sigxcpu/Feedback", "org.freedesktop.DBus.Properties", "Set",
                    GLib.Variant("(ssv)", ("org.sigxcpu.Feedback", "Profile", GLib.Variant("s", "silent"))), None, 0, 5000, None)
                seen["played_silent"] = vibrate([(1.0, 100)])
                ours = bus.call_sync("org.sigxcpu.Feedback", "/org/sigxcpu/Feedback", "org.freedesktop.DBus.Introspectable", "Introspect",
                    None, GLib.VariantType("(s)"), 0, 5000, None).unpack()[0]
                seen["ours"] = methods(ET.fromstring(ours), "org.sigxcpu.Feedback.Haptic")
                if len(sys.argv) > 2:
                    seen["feedbackds"] = methods(ET.parse(sys.argv[2]).getroot(), "org.sigxcpu.Feedback.Haptic")
                print(json.dumps(seen))
                """,
                socket
            ] + (interfaceXML.map { [$0] } ?? []), environment: environment, deadline: .seconds(60))
        _ = try stop(daemon)
        #expect(call.status == 0, "\(call.stderr)")
        let seen = try #require(call.json, "\(call.stdout) \(call.stderr)")
        #expect(seen["played"] as? Bool == true)
        #expect((seen["playing"] as? String)?.contains("org.example.Game") == true, "not vibrating 300 ms in: \(seen)")
        #expect(seen["ended"] as? Bool == true && seen["standby_after_empty"] as? Bool == true, "an empty pattern left it running: \(seen)")
        #expect(seen["played_silent"] as? Bool == false, "Vibrate played at silent")
        let ours = "\(seen["ours"] ?? "none")"
        #expect(ours.contains("Vibrate") && ours.contains("a(du)"), "\(ours)")
        if interfaceXML != nil {
            #expect(ours == "\(seen["feedbackds"] ?? "none")", "the Haptic interface differs from feedbackd's")
        }
    }
}

/// A `dbus-daemon` of the test's own, stopped when the value goes away (whatever the test did), so
/// no bus outlives its test.
final class PrivateBus {
    let daemon: Running
    /// Its address, the first line it prints.
    let address: String

    init(_ arguments: [String]) throws {
        let daemon = try Program(executable: "/usr/bin/dbus-daemon").start(arguments + ["--nofork", "--nopidfile", "--print-address=1"])
        try daemon.waitUntil("the bus's address") { daemon.standardOutput.contains("\n") }
        self.daemon = daemon
        address = String(daemon.standardOutput.prefix { $0 != "\n" })
    }

    deinit {
        daemon.signal(SIGTERM)
        _ = try? daemon.wait(deadline: .seconds(5))
    }
}
