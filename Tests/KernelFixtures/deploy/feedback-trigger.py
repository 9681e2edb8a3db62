#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A libfeedback app's first call on a session where nothing owns org.sigxcpu.Feedback yet: Debian's
gir1.2-lfb-0.0, unchanged, triggers one event and waits for its end. D-Bus activation must start
hapticd (hapticd-session.service) for the call to be answered. Exits 0 when the event played."""
import sys

import gi

gi.require_version("Lfb", "0.0")
from gi.repository import GLib, Lfb  # noqa: E402

Lfb.init("org.example.DeployCheck")
loop = GLib.MainLoop()
event = Lfb.Event.new("button-pressed")
ended = []
event.connect("feedback-ended", lambda *_: (ended.append(True), loop.quit()))
try:
    triggered = event.trigger_feedback()
except GLib.Error as error:
    print(f"trigger_feedback failed: {error.message}")
    sys.exit(1)
GLib.timeout_add_seconds(10, loop.quit)
loop.run()
print(f"libfeedback: triggered {triggered}, ended {bool(ended)}")
sys.exit(0 if triggered and ended else 1)
