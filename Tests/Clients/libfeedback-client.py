#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An unchanged libfeedback client (Debian's gir1.2-lfb-0.0 through python3-gi), as a GTK or Phosh
app uses it, against whatever owns org.sigxcpu.Feedback on the session bus. Prints one JSON object
with what it saw; the contract test (FeedbackdContractTests) judges it.

    libfeedback-client.py SOCKET            the whole session below
    libfeedback-client.py SOCKET leave      triggers a loop and exits without ending it

SOCKET is hapticd's socket, asked for the chip's state (standby) at the moments that matter."""
import json
import socket
import struct
import sys
import time

import gi

gi.require_version("Lfb", "0.0")
from gi.repository import GLib, Lfb  # noqa: E402


def status(path):
    """The chip's state from hapticd's own socket (a 4-byte big-endian length, then JSON)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(5)
        client.connect(path)
        body = json.dumps({"version": 1, "op": "status"}).encode()
        client.sendall(struct.pack(">I", len(body)) + body)

        def exactly(count):
            data = b""
            while len(data) < count:
                chunk = client.recv(count - len(data))
                if not chunk:
                    raise RuntimeError("hapticd closed the socket")
                data += chunk
            return data

        length = struct.unpack(">I", exactly(4))[0]
        return json.loads(exactly(length))["status"]


def run_until(condition, seconds):
    """Runs GLib's main context (where libfeedback's signals arrive) until condition() or the deadline."""
    context = GLib.MainContext.default()
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        while context.pending():
            context.iteration(False)
        time.sleep(0.002)
    return condition()


class Watched:
    """An event whose end is recorded: when, and why."""

    def __init__(self, name, timeout=-1, profile=None):
        self.event = Lfb.Event.new(name)
        self.event.set_timeout(timeout)
        if profile:
            self.event.set_feedback_profile(profile)
        self.ended_at = None
        self.event.connect("feedback-ended", self.on_ended)

    def on_ended(self, event):
        self.ended_at = time.monotonic()

    def trigger(self):
        self.triggered_at = time.monotonic()
        return self.event.trigger_feedback()

    def wait(self, seconds):
        return run_until(lambda: self.ended_at is not None, seconds)

    def reason(self):
        return int(self.event.get_end_reason())


def main():
    path = sys.argv[1]
    leave = len(sys.argv) > 2 and sys.argv[2] == "leave"
    Lfb.init("org.example.HapticsContract")
    seen = {}
    if leave:
        ring = Watched("phone-incoming-call", timeout=0)
        seen["triggered"] = ring.trigger()
        run_until(lambda: False, 0.5)
        seen["playing_while_ringing"] = status(path).get("playing")
        print(json.dumps(seen), flush=True)
        return  # no EndFeedback, no uninit: the process goes, its bus connection with it

    seen["profile"] = Lfb.get_feedback_profile()

    press = Watched("button-pressed")
    seen["button_triggered"] = press.trigger()
    seen["button_ended"] = press.wait(5)
    seen["button_reason"] = press.reason()

    ring = Watched("phone-incoming-call", timeout=0)
    seen["call_triggered"] = ring.trigger()
    run_until(lambda: ring.ended_at is not None, 2.0)
    seen["call_ended_by_itself"] = ring.ended_at is not None
    seen["playing_while_ringing"] = status(path).get("playing")
    seen["call_end_accepted"] = ring.event.end_feedback()
    seen["call_ended"] = ring.wait(5)
    seen["call_reason"] = ring.reason()
    # Ending it again, once it has ended: feedbackd answers success (and logs a warning).
    try:
        seen["call_end_again_accepted"] = ring.event.end_feedback()
    except GLib.Error as error:
        seen["call_end_again_accepted"] = str(error)
    # Ended asynchronously, as GTK apps do: feedbackd sends FeedbackEnded before its answer, so
    # the event has ended when the answer's callback runs (feedbackd's own integration test
    # checks the same).
    again = Watched("phone-incoming-call", timeout=0)
    again.trigger()
    run_until(lambda: False, 0.3)
    answered = {}

    def on_end_finished(event, result):
        answered["accepted"] = event.end_feedback_finish(result)
        answered["state"] = int(event.get_state())

    again.event.end_feedback_async(None, on_end_finished)
    run_until(lambda: "state" in answered, 5)
    seen["async_end_accepted"] = answered.get("accepted")
    seen["async_end_state"] = answered.get("state")
    if ring.ended_at is not None:
        time.sleep(max(0.0, ring.ended_at + 0.1 - time.monotonic()))
        seen["standby_100ms_after"] = status(path)["standby"]

    alarm = Watched("alarm-clock-elapsed", timeout=1)
    seen["alarm_triggered"] = alarm.trigger()
    seen["alarm_ended"] = alarm.wait(5)
    seen["alarm_reason"] = alarm.reason()
    if alarm.ended_at is not None:
        seen["alarm_seconds"] = round(alarm.ended_at - alarm.triggered_at, 3)

    hinted = Watched("button-pressed", profile="quiet")
    hinted.trigger()
    hinted.wait(5)
    seen["quiet_hint_reason"] = hinted.reason()

    unknown = Watched("x-no-such-event")
    unknown.trigger()
    unknown.wait(5)
    seen["unknown_reason"] = unknown.reason()

    Lfb.set_feedback_profile("silent")
    run_until(lambda: status(path)["globalProfile"] == "silent", 5)
    seen["profile_after_set"] = status(path)["globalProfile"]
    Lfb.set_feedback_profile("full")
    run_until(lambda: status(path)["globalProfile"] == "full", 5)

    Lfb.uninit()
    print(json.dumps(seen), flush=True)


if __name__ == "__main__":
    main()
