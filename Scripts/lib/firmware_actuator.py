# SPDX-License-Identifier: Apache-2.0
"""The firmware test's actuator part: `haptic --device serial: --actuator erm` tells the image
the motor wired to its chip, and the image must then drive an ERM as the Linux build does.

`collect` boots the image again with the chip model's actuator an ERM; `gates` compares what it wrote with the Linux build's `haptic play impact-heavy --simulate
--actuator erm` afterwards.
"""
import os
import subprocess
import sys
import time

# The chip's configuration registers: RATED_VOLTAGE (0x16) to OL_LRA_PERIOD (0x20). The
# auto-calibration results in 0x18-0x1A are the chip's own, not written; the rest are.
CONFIGURATION = range(0x16, 0x21)
# The feedback played on the ERM: the table's one that differs most from the LRA's (a pushed
# real-time clip on an ERM, one ROM click on an LRA).
FEEDBACK = "impact-heavy"
# The feedback hapticd plays on the ERM: a ROM click that differs from the LRA's (Sharp Tick 1,
# effect 24, on an ERM; Sharp Tick 3, 26, on an LRA), which hapticd's engine sends as slot bytes.
SERVED = "selection"


def registers(writes):
    """The register values `writes` ((address, bytes) pairs: a register, then its values in
    order) leave, by register."""
    state = {}
    for _, data in writes:
        if data:
            first = int(data[0], 16)
            for offset, value in enumerate(data[1:]):
                state[first + offset] = value
    return state


def serve(hapticd, haptic, device, trace, transactions):
    """`hapticd --device serial: --actuator erm` on the freshly started image (the coin LRA's
    settings until told): `haptic play SERVED --socket` through it; returns its exit, output and
    the image's transactions meanwhile."""
    socket = trace + ".sock"
    with open(trace + ".hapticd.log", "w") as log:
        daemon = subprocess.Popen(
            [hapticd, "--device", device, "--actuator", "erm", "--socket", socket, "--state-directory", trace + ".state"], stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while not os.path.exists(socket) and daemon.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        before = len(transactions(trace))
        done = subprocess.run([haptic, "play", SERVED, "--socket", socket], capture_output=True, text=True, timeout=60)
        return done.returncode, (done.stdout + done.stderr).strip(), transactions(trace)[before:]
    finally:
        daemon.terminate()
        try:
            daemon.wait(timeout=30)
        except subprocess.TimeoutExpired:
            daemon.kill()


def collect(haptic, hapticd, boot, halt, model, bridge_socket, link_class, trace, transactions):
    """Boots the image (`boot()`) with the chip model's actuator an ERM, and runs the actuator's
    commands against it; returns what they answered and wrote."""
    qemu, pty, link = boot()
    server = None
    found = {}
    try:
        server = subprocess.Popen(
            [model, "serve", "--connect", bridge_socket, "--trace", trace, "--actuator", "erm"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        # The image calibrates for its coin LRA at start-up, which an ERM fails: it starts open loop.
        found["hello"] = link.line(timeout=20)
        device = f"serial:{pty}"

        def run(*arguments):
            before = len(transactions(trace))
            done = subprocess.run([haptic, *arguments, "--device", device], capture_output=True, text=True, timeout=60)
            return done.returncode, (done.stdout + done.stderr).strip(), transactions(trace)[:before], transactions(trace)[before:]

        # An actuator this side cannot name is refused before a byte is sent.
        found["unknown"] = run("play", "success", "--actuator", "piezo")
        # hapticd first, while the image still has the coin LRA's settings: it tells the ERM.
        found["served"] = serve(hapticd, haptic, device, trace, transactions)
        # The ERM: configured and calibrated by `status`, then played (configured already:
        # nothing is rewritten), then reported.
        found["configure"] = run("status", "--actuator", "erm")
        found["play"] = run("play", FEEDBACK, "--actuator", "erm")
        found["status"] = run("status")
        # The image's own checks: an LRA with an ERM library, a line short of its values, a loop
        # that is neither, an LRA resonating at 0 Hz, a maximum above the supply.
        answers = []
        for command in (
            "actuator lra 2000 2500 175000 5000 2 closed", "actuator erm 3000 3600", "actuator erm 3000 3600 0 5000 2 sideways",
            "actuator lra 2000 2500 0 5000 6 closed", "actuator erm 3000 6000 0 5000 2 closed",
        ):
            link.send(command)
            answers.append((command, link.line()))
        link.send("status")
        found["after"] = link.line()
        found["refusals"] = answers
        link.close()
    finally:
        halt(qemu, server)
    return found


def gates(found, linux_writes):
    """The gates on `collect`'s results; `linux_writes(name, extra)` gives the Linux build's
    writes for `haptic play NAME` with `extra` arguments."""
    written = lambda segment: [(t[2], t[3]) for t in segment if t[1] == "W"]
    linux = linux_writes(FEEDBACK, ("--actuator", "erm"))
    played = written(found["play"][3])
    linux_start = linux[:-len(played)] if played else linux
    # The image's registers after `actuator erm` (everything it wrote since it started) against
    # the Linux build's after its start-up for the ERM, for every configuration register Linux wrote.
    image = registers(written(found["configure"][2] + found["configure"][3]))
    expected = registers(linux_start)
    compared = [r for r in CONFIGURATION if r in expected]
    differing = [f"0x{r:02X}: image {image.get(r)}, Linux {expected[r]}" for r in compared if image.get(r) != expected[r]]
    # A write covers its first register and those after it, one a value (the driver writes
    # 0x01 to 0x20 in one block when it configures).
    rewritten = [w for w in played if w[1] and set(range(int(w[1][0], 16), int(w[1][0], 16) + len(w[1]) - 1)) & set(CONFIGURATION)]
    # hapticd's selection on the ERM: the Linux build's writes for it after the same start-up,
    # up to its GO (the standby after it comes once `haptic` has returned).
    linux_served = linux_writes(SERVED, ("--actuator", "erm"))[len(linux_start):]
    linux_to_go = linux_served[:next((i + 1 for i, w in enumerate(linux_served) if w[1][:2] == ["0C", "01"]), 0)]
    served = written(found["served"][2])
    refused = [(command, answer) for command, answer in found["refusals"] if not (answer or "").startswith("error bad-argument")]
    unknown = found["unknown"]
    results = [
        (f"an ERM on the chip: the image starts ({found['hello']!r})", (found["hello"] or "").startswith("hello haptics-firmware")),
        (f"haptic --device serial: --actuator piezo refused (exit {unknown[0]}) before a byte went to the image",
         unknown[0] == 64 and not unknown[3]),
        (f"--actuator erm: the image's {len(compared)} configuration registers Linux writes for an ERM equal its ({'; '.join(differing) or 'all equal'})",
         found["configure"][0] == 0 and len(compared) >= 5 and not differing),
        (f"then play {FEEDBACK} (exit {found['play'][0]}): {len(played)} writes equal the Linux build's for the ERM, none a configuration rewrite",
         found["play"][0] == 0 and len(played) > 0 and linux[-len(played):] == played and not rewritten),
        (f"hapticd --device serial: --actuator erm: play {SERVED} (exit {found['served'][0]}) wrote the Linux build's ERM {SERVED} up to its GO ({len(linux_to_go)} writes)",
         found["served"][0] == 0 and len(linux_to_go) > 0 and any(served[i:i + len(linux_to_go)] == linux_to_go for i in range(len(served)))),
        ("status reports the ERM, closed loop", "erm actuator (closed loop)" in found["status"][1] and "actuator=erm loop=closed" in (found["after"] or "")),
        (f"bad actuator lines refused as bad-argument ({len(found['refusals'])})", not refused),
    ]
    if not all(passed for _, passed in results):
        print(f"firmware test: --actuator erm: configured (exit {found['configure'][0]}: {found['configure'][1]!r}) with {written(found['configure'][3])}", file=sys.stderr)
        print(f"firmware test: --actuator erm: played {played}; the Linux build wrote {linux}", file=sys.stderr)
        print(f"firmware test: --actuator erm: hapticd's {SERVED} ({found['served'][1]!r}) wrote {served}; the Linux build's up to GO {linux_to_go}", file=sys.stderr)
        print(f"firmware test: --actuator erm: status {found['status'][1]!r}, {found['after']!r}; refusals {found['refusals']}", file=sys.stderr)
    return results
