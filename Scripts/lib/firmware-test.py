#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Scripts/firmware test: a firmware image in QEMU, checked against the Linux build.

Usage: firmware-test.py IMAGE.elf MACHINE (mps2-an385, the Cortex-M3; mps2-an386, the Cortex-M4).

QEMU runs the image on MACHINE with its serial port 0 (the command protocol) and port 1 (the bus
bridge) on Unix sockets. `drv2605-model serve` answers the bridged transactions from the project's
simulated DRV2605L and writes them down; the image also clocks every transaction out on the
board's own I2C controller, to an EEPROM that only acknowledges, and QEMU's i2c trace records what
that controller code put on the wire.

For each of the 23 feedbacks, `haptic play NAME --simulate --virtual-time --trace` (the Linux
build, on its simulated chip) gives the bus writes of a start and one feedback. The image starts
once and then plays the 23 in a row, driven by `play NAME` lines; its writes from start-up plus
those between `play NAME` and `done NAME` must equal the Linux ones byte for byte.

Then the protocol's other promises: a typed refusal for a name it does not know, `status`, a
pattern streamed in real time, and the link watchdog stopping the actuator when the host goes
quiet; a planted trap (an undefined instruction, in a boot of its own) whose fault handler stops
the chip on the board's controller before the image ends; `haptic --device serial:` on the same port; then `hapticd --device serial:` serving the
image's chip to `haptic ... --socket` (a feedback, a pattern file, SIGTERM while a feedback plays);
then the image booted again with an ERM on the model's chip, told by `--actuator erm`
(firmware_actuator.py).
Prints one HIL-MCU line with each bound under `gates:`; exits 1 when one fails.
"""
import os
import re
import select
import subprocess
import sys
import tempfile
import time
import tty

import firmware_actuator

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WATCHDOG_MS = 300
# The link watchdog may fire up to this long after its time (the main loop's tick is 1 ms; the
# stop itself is a few bus transactions over the bridge).
WATCHDOG_SLACK_MS = 50


HEARTBEAT = os.path.join(ROOT, "Examples", "patterns", "heartbeat.ahap")
DOORBELL = os.path.join(ROOT, "Examples", "patterns", "doorbell.ahap")
# Notes at once (impact-heavy preempted by effect 47), a wait, until-finished: each rule in use.
# It begins with a feedback the image has not played since the tour (the driver loads only what
# the chip does not hold, and the Linux build's chip starts empty).
SEQUENCE = "warning, wait 0.25, impact-heavy, effect 47, until-finished, wait 0.1, selection"


def fail(message):
    print(f"firmware test: {message}", file=sys.stderr)
    sys.exit(1)


def bin_path(name):
    out = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True, check=True)
    return os.path.join(out.stdout.strip(), name)


def linux_writes(haptic, name, verb="play", timed=False, extra=()):
    """The Linux build's bus writes for `haptic VERB NAME` on its simulated chip (with their
    times in microseconds of its virtual clock when `timed`)."""
    # A machine with no saved calibration, as the image (which keeps none across resets): both
    # calibrate at start-up under the `auto` policy.
    scratch = tempfile.mkdtemp(prefix="firmware-linux-")
    env = dict(os.environ, HOME=scratch, HAPTIC_CALIBRATION_FILE=os.path.join(scratch, "calibration.json"))
    env.pop("HAPTIC_BOARD", None)
    run = subprocess.run([haptic, verb, name, "--simulate", "--virtual-time", "--trace", *extra], capture_output=True, text=True, env=env, timeout=60)
    if run.returncode != 0:
        fail(f"haptic {verb} {name} failed: {run.stderr.strip()}")
    writes = []
    for line in (run.stdout + run.stderr).splitlines():
        match = re.match(r"\s*bus\s+(\S+)\s+W 0x([0-9A-F]{2}) \[([0-9A-F ]*)\]", line)
        if match:
            write = (match.group(2), match.group(3).split())
            writes.append((round(float(match.group(1)) * 1e6),) + write if timed else write)
    return writes


def go_offsets(board, linux):
    """Each time's first GO (`0C 01`), from the first write, on the image's clock (its bridged
    transactions) and on the Linux build's virtual clock (its timed writes after start-up), in
    microseconds: [(image, Linux)], and the worst difference. Notes or clicks placed at the same
    time start one after another (each stops the one before, loads its sequence and writes GO: a
    few bridged writes, which the Linux build's virtual clock does not count), so only the first
    GO of each time is compared."""
    board_writes = [t for t in board if t[1] == "W"]
    board_gos = [t[0] for t in board_writes if t[3][:2] == ["0C", "01"]]
    linux_gos = [w[0] for w in linux if w[2][:2] == ["0C", "01"]]
    if not board_writes or not linux or len(board_gos) != len(linux_gos):
        return [], -1
    board_first, linux_first = board_writes[0][0], linux[0][0]
    pairs = [(b - board_first, l - linux_first) for i, (b, l) in enumerate(zip(board_gos, linux_gos)) if i == 0 or l != linux_gos[i - 1]]
    return pairs, max((abs(b - l) for b, l in pairs), default=-1)


def bridge_transactions(path):
    """The bridge server's trace: (micros, W/R, address, bytes, answer)."""
    result = []
    with open(path) as handle:
        for line in handle:
            match = re.match(r"(\d+) ([WR]) ([0-9A-F]{2}) \[([0-9A-F ]*)\](?: -> \[([0-9A-F ]*)\])?", line)
            if match:
                result.append((int(match.group(1)), match.group(2), match.group(3), match.group(4).split(), (match.group(5) or "").split()))
    return result


def wire_transactions(path):
    """QEMU's i2c trace as transactions: each start(addr) opens one, its sends are the bytes."""
    result = []
    current = None
    with open(path) as handle:
        for line in handle:
            start = re.search(r"i2c_event start\(addr:0x([0-9a-f]+)\)", line)
            if start:
                if current is not None:
                    result.append(current)
                current = (start.group(1).upper(), [])
                continue
            if re.search(r"i2c_event start_async", line):
                # the read half of a combined transaction: nothing more is written in it
                if current is not None:
                    result.append(current)
                current = None
                continue
            sent = re.search(r"i2c_send send\(addr:0x[0-9a-f]+\) data:0x([0-9a-f]+)", line)
            if sent and current is not None:
                current[1].append(sent.group(1).upper().zfill(2))
            if re.search(r"i2c_event finish", line) and current is not None:
                result.append(current)
                current = None
    if current is not None:
        result.append(current)
    return result


def crc16(data):
    """CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF): the serial frames' checksum,
    written here apart from the Swift (SerialFrame) that both ends of the link run."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


assert crc16(b"123456789") == 0x29B1, "CRC-16/CCITT-FALSE's check value"


def frame(frame_id, payload):
    """`#ID:LEN:PAYLOAD*CRC\\n`, as docs/firmware.md defines a frame."""
    body = f"{frame_id}:{len(payload)}:".encode() + payload
    return b"#" + body + b"*%04X\n" % crc16(body)


FRAME = re.compile(rb"#(\d{1,5}):(\d{1,3}):")


def parse_frame(data):
    """(ID, payload text) of one frame's bytes from its `#` to its line end, or None when its
    shape, length or CRC is wrong."""
    match = FRAME.match(data)
    if not match:
        return None
    length = int(match.group(2))
    payload = data[match.end():match.end() + length]
    rest = data[match.end() + length:].rstrip(b"\r\n")
    if len(payload) != length or len(rest) != 5 or rest[:1] != b"*":
        return None
    try:
        crc = int(rest[1:], 16)
    except ValueError:
        return None
    if crc16(data[1:match.end() + length]) != crc:
        return None
    return int(match.group(1)), payload.decode(errors="replace")


# What the image says unasked, in frames with ID 0.
UNASKED = ("done ", "hello ", "error playback ", "error link-lost ", "error bad-frame ", "error fault ")


class Link:
    """The command port (a pty, as a board's USB serial port is a tty): frames out, frames in,
    each read with a deadline. Every frame from the image must be whole, its CRC right, and an
    answer must carry its command's ID (what it says unasked, ID 0)."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self.fd)
        self.buffer = b""
        self.sent_id = 0
        self.last_id = None

    def send(self, line):
        self.sent_id = self.sent_id % 65535 + 1
        os.write(self.fd, frame(self.sent_id, line.encode()))

    def send_raw(self, data):
        """Bytes as they are: noise, a damaged or a partial frame."""
        os.write(self.fd, data)

    def close(self):
        os.close(self.fd)

    def line(self, timeout=10.0):
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                chunk = os.read(self.fd, 4096)
                if not chunk:
                    return None
                self.buffer += chunk
        data, self.buffer = self.buffer.split(b"\n", 1)
        if not data.startswith(b"#"):
            fail(f"the image sent bytes outside a frame: {data!r}")
        parsed = parse_frame(data + b"\n")
        if parsed is None:
            fail(f"the image sent a damaged frame: {data!r}")
        self.last_id, text = parsed
        return text

    def expect(self, prefix, timeout=10.0):
        answer = self.line(timeout)
        if answer is None or not answer.startswith(prefix):
            fail(f"expected '{prefix}...', the image answered {answer!r}")
        wanted = 0 if answer.startswith(UNASKED) else self.sent_id
        if self.last_id != wanted:
            fail(f"'{answer}' came with ID {self.last_id}, not {wanted}")
        return answer


def boot(elf, machine, bridge_socket, wire_trace, real_time=False, extra=(), command_log=None):
    """Starts QEMU on the image; returns it, its command port's pty and a link on it, opened
    before the bridge's client connects (the image waits for it), so that `hello` is not missed.
    `real_time`: the image's clock is the host's (no -icount), for figures in the host's seconds.
    `command_log`: QEMU also writes what the image sends on the command port there, which outlives
    the pty (an image that ends closes it, and the kernel drops what its reader had not read)."""
    # Time from instructions, not the host: the figures are the image's, whatever else the machine runs.
    clock = [] if real_time else ["-icount", "shift=5,sleep=off"]
    qemu = subprocess.Popen(
        ["qemu-system-arm", "-M", machine, "-nographic", "-monitor", "none", "-semihosting", "-kernel", elf, *clock,
         "-chardev", "pty,id=commands" + (f",logfile={command_log}" if command_log else ""),
         "-chardev", f"socket,id=bridge,path={bridge_socket},server=on,wait=on",
         "-serial", "chardev:commands", "-serial", "chardev:bridge",
         "-device", "at24c-eeprom,bus=i2c,address=0x5a,rom-size=256",
         "-trace", f"enable=i2c_*,file={wire_trace}", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    # QEMU names the pty before it waits for the bridge's client.
    pty = None
    while pty is None:
        announced = qemu.stdout.readline().decode(errors="replace")
        if not announced:
            fail("QEMU ended before it opened the command port")
        found = re.search(r"redirected to (/dev/pts/\d+) \(label commands\)", announced)
        pty = found.group(1) if found else None
    return qemu, pty, Link(pty)


def halt(qemu, server):
    """Ends QEMU, and the bridge's server with it."""
    qemu.terminate()
    try:
        qemu.wait(timeout=10)
    except subprocess.TimeoutExpired:
        qemu.kill()
    if server:
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


def gpio_writes(path):
    """QEMU's log of writes to the unmodelled GPIO block (-d unimp, in the log QEMU's trace also
    goes to): [(offset, value)]."""
    result = []
    if os.path.exists(path):
        with open(path) as handle:
            for line in handle:
                match = re.search(r"gpio: unimplemented device write \(size \d+, offset 0x([0-9a-f]+), value 0x([0-9a-f]+)\)", line)
                if match:
                    result.append((int(match.group(1), 16), int(match.group(2), 16)))
    return result


def trap_stop(elf, machine, model, bridge_socket, wire_trace, bridge_trace):
    """Boots the image, holds a level (the chip driving in real time), then `trap`: returns the
    fault line, QEMU's exit status, whether the chip was driving before it, the writes the fault
    handler put on the wire after the image's last bridged transaction, and the GPIO writes
    (offset, value) it made before and after the trap."""
    # QEMU's log of unmodelled devices goes where its trace goes (Debian's QEMU traces to its log).
    gpio_log = wire_trace
    command_log = bridge_trace + ".commands"
    qemu, _, link = boot(elf, machine, bridge_socket, wire_trace, extra=("-d", "unimp"), command_log=command_log)
    server = None
    try:
        server = subprocess.Popen([model, "serve", "--connect", bridge_socket, "--trace", bridge_trace], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        link.expect("hello haptics-firmware", timeout=20)
        link.send("watchdog 0")
        link.expect("ok watchdog")
        link.send("level 800000")
        link.expect("ok level")
        driving = [t for t in bridge_transactions(bridge_trace) if t[1] == "W" and drives(t[3])]
        gpio_before = gpio_writes(gpio_log)
        link.send("trap")
        link.line(timeout=10)
        try:
            status = qemu.wait(timeout=20)
        except subprocess.TimeoutExpired:
            status = None
        link.close()
    finally:
        halt(qemu, server)
    # The fault line as the image sent it (from QEMU's copy: the pty closes with the image).
    # It is a frame (ID 0) whose CRC must hold: the handler's text is a constant made by hand.
    with open(command_log, "rb") as handle:
        frames = [parse_frame(line) for line in handle.read().split(b"\n") if line.startswith(b"#")]
    fault = next((text for parsed in frames if parsed for frame_id, text in [parsed] if frame_id == 0 and text.startswith("error fault")), "")
    bridged = len(bridge_transactions(bridge_trace))
    # The wire carries every bridged transaction first (mirrored), then what the handler wrote.
    after = [(address, data) for address, data in wire_transactions(wire_trace)[bridged:]]
    return fault, status, bool(driving), after, gpio_before, gpio_writes(gpio_log)[len(gpio_before):]


# The link watchdog as the firmware ships it, and the ping interval of the host's driver
# (FirmwareChipDriver's keepAlive): the real intervals.
LINK_WATCHDOG_MS = 2000
HOST_PING_MS = 500


def timed_transactions(path):
    """The bridge's transactions with both clocks (`serve --host-times`), in milliseconds:
    [(image_ms, host_ms, W/R, bytes)]. The image's clock leaves out the rig's time answering a
    bridged transaction (BoardClock), which a board's own bus does not take."""
    result = []
    with open(path) as handle:
        for line in handle:
            match = re.match(r"(\d+) ([WR]) [0-9A-F]{2} \[([0-9A-F ]*)\].* host=(\d+)", line)
            if match:
                result.append((int(match.group(1)) / 1000, int(match.group(4)) / 1000, match.group(2), match.group(3).split()))
    return result


def drives(data):
    """An RTP level that moves the actuator: RTP_INPUT (0x02) non-zero, alone or in a burst from MODE."""
    return (data[:1] == ["02"] and data[1:2] != ["00"]) or (data[:1] == ["01"] and len(data) > 2 and data[2] != "00")


def stops(data):
    """The stop: GO 0, RTP 0 or MODE standby (0x40)."""
    return data[:2] in (["0C", "00"], ["02", "00"], ["01", "40"])


def link_watchdog(elf, machine, model, haptic, hapticd, work):
    """The link watchdog at its real interval (2 s): the image booted without -icount, so that its
    clock runs with the host's and hapticd's pings (every 0.5 s) land as they would on a board.
    Three ways a host goes quiet while the actuator drives: a held level (`level`, the host streaming
    a level at a time), a pattern the board streams on its own timer (`start`), and hapticd killed
    with SIGKILL while it plays a pattern there. Returns, for each, in milliseconds from the host's
    last byte (hapticd: from the kill) on the image's clock: `drive`, the first drive, and `stop`, the
    first stop after it on the bus; `host_stop`, that stop on the host's clock; `said`, the link's
    answer (hapticd held the link)."""
    bridge_socket = os.path.join(work, "watchdog.sock")
    trace = os.path.join(work, "watchdog.trace")
    qemu, pty, link = boot(elf, machine, bridge_socket, os.path.join(work, "watchdog-i2c.trace"), real_time=True)
    server = None
    cases = {}

    def timeline(start_ms, quiet_ms):
        """From host time start_ms on: the first drive and the first stop after it, in milliseconds
        after the host's quiet_ms: `drive` and `stop` on the image's clock (quiet_ms placed on it from
        the last transaction before it: no bridged transaction between, so both clocks ran alike),
        `host_stop` on the host's."""
        every = timed_transactions(trace)
        writes = [t for t in every if t[1] >= start_ms and t[2] == "W"]
        drive = next((t for t in writes if drives(t[3])), None)
        stop = next((t for t in writes if drive and t[0] > drive[0] and stops(t[3])), None)
        anchor = max((t for t in every if t[1] <= quiet_ms), key=lambda t: t[1], default=None)
        quiet_image = anchor[0] + (quiet_ms - anchor[1]) if anchor else None
        return {"drive": drive[0] - quiet_image if drive and anchor else None, "stop": stop[0] - quiet_image if stop and anchor else None,
                "host_stop": stop[1] - quiet_ms if stop else None}

    def quiet_after(command, answer):
        sent = time.monotonic() * 1000
        link.send(command)
        link.expect(answer)
        lost = link.line(timeout=(LINK_WATCHDOG_MS + 3000) / 1000) or ""
        return dict(timeline(sent, sent), said=lost)

    try:
        server = subprocess.Popen([model, "serve", "--connect", bridge_socket, "--trace", trace, "--host-times"],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        link.expect("hello haptics-firmware", timeout=20)
        # A held level, then silence.
        cases["held level"] = quiet_after("level 800000", "ok level")
        # A pattern the board renders and streams on its own timer, 3.5 s long (about what its heap
        # holds), then silence from `start`.
        for command, answer in (("upload begin", "ok upload begin"), ("upload continuous 0 3500000 800000 500000 0 0 0 1 1", "ok upload continuous"),
                                ("upload end", "ok upload end")):
            link.send(command)
            link.expect(answer)
        cases["board's stream"] = quiet_after("start", "ok start")
        link.close()
        # hapticd playing a 4.6 s pattern on the board, killed 2.4 s into it: past one watchdog interval
        # (its pings held the link until then), and early enough that the stop is the watchdog's.
        pattern = os.path.join(work, "long.ahap")
        with open(pattern, "w") as handle:
            handle.write('{"Version": 1.0, "Pattern": [{"Event": {"Time": 0.0, "EventType": "HapticContinuous", "EventDuration": 4.6, '
                         '"EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8}]}}]}')
        socket_path = os.path.join(work, "watchdog-hapticd.sock")
        daemon = subprocess.Popen([hapticd, "--device", f"serial:{pty}", "--socket", socket_path, "--state-directory", os.path.join(work, "watchdog-state")],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = None
        try:
            deadline = time.monotonic() + 30
            while not os.path.exists(socket_path) and daemon.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            asked = time.monotonic() * 1000
            client = subprocess.Popen([haptic, "pattern", pattern, "--socket", socket_path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 10
            while not any(drives(t[3]) for t in timed_transactions(trace) if t[1] >= asked and t[2] == "W") and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(2.4)
            killed = time.monotonic() * 1000
            daemon.kill()
            daemon.wait(timeout=10)
            time.sleep((LINK_WATCHDOG_MS + 1500) / 1000)
            cases["hapticd killed"] = dict(timeline(asked, killed), said="(hapticd held the link)")
        finally:
            if daemon.poll() is None:
                daemon.kill()
            if client:
                client.kill()
                client.wait(timeout=10)
    finally:
        halt(qemu, server)
    return cases


def main():
    elf, machine = sys.argv[1], sys.argv[2]
    subprocess.run(["swift", "build", "--product", "haptic"], cwd=ROOT, check=True, capture_output=True)
    subprocess.run(["swift", "build", "--product", "drv2605-model"], cwd=ROOT, check=True, capture_output=True)
    subprocess.run(["swift", "build", "--product", "hapticd"], cwd=ROOT, check=True, capture_output=True)
    haptic = bin_path("haptic")
    hapticd = bin_path("hapticd")
    model = bin_path("drv2605-model")
    work = tempfile.mkdtemp(prefix="firmware-test-")
    bridge_socket = os.path.join(work, "bridge.sock")
    bridge_trace = os.path.join(work, "bridge.trace")
    wire_trace = os.path.join(work, "i2c.trace")

    started = time.monotonic()
    server = None
    qemu, pty, link = boot(elf, machine, bridge_socket, wire_trace)
    try:
        server = subprocess.Popen([model, "serve", "--connect", bridge_socket, "--trace", bridge_trace], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        hello = link.expect("hello haptics-firmware", timeout=20)
        boot_ms = (time.monotonic() - started) * 1000
        link.send("feedbacks")
        names = link.expect("ok feedbacks").split()[2:]
        startup = bridge_transactions(bridge_trace)

        # The tour: each feedback's writes between its `play` and its `done`.
        segments = {}
        lengths = []
        for name in names:
            before = len(bridge_transactions(bridge_trace))
            link.send(f"play {name}")
            ok = link.expect(f"ok play {name}")
            lengths.append(int(ok.split()[-1]))
            link.expect(f"done {name}", timeout=10)
            segments[name] = bridge_transactions(bridge_trace)[before:]

        # Refusals are typed and leave nothing running.
        link.send("play no-such-feedback")
        refusal = link.expect("error unknown-feedback")
        link.send("frobnicate")
        unknown = link.expect("error unknown-command")
        # The link's frames. Noise between frames is skipped; a frame damaged on the way (one bit of
        # `play impact-heavy` flipped) is refused with ID 0 and nothing of it is done; a frame cut
        # short by the next and one that pauses past 100 ms are dropped, not glued to what
        # follows; after each, the next frame is answered with its own ID.
        before_frames = len(bridge_transactions(bridge_trace))
        link.send_raw(b"\x00\xffnoise\r\n*7:12:")
        link.send("ping")
        frame_answers = [link.expect("ok ping")]
        damaged = bytearray(frame(link.sent_id + 1, b"play impact-heavy"))
        damaged[12] ^= 0x01
        link.send_raw(bytes(damaged))
        frame_answers.append(link.expect("error bad-frame checksum"))
        link.send_raw(frame(link.sent_id + 1, b"play impact-heavy")[:9])
        link.send("ping")
        frame_answers += [link.expect("error bad-frame cut"), link.expect("ok ping")]
        paused = frame(link.sent_id + 1, b"play impact-heavy")
        link.send_raw(paused[:9])
        time.sleep(0.3)
        link.send_raw(paused[9:])
        frame_answers.append(link.expect("error bad-frame timed-out"))
        link.send("status")
        after_frames = link.expect("ok status")
        frames_drove = [t for t in bridge_transactions(bridge_trace)[before_frames:] if t[1] == "W"]
        # Bad pattern uploads: each refused with its kind; none crashes the image or plays.
        bad_uploads = [
            ("start", "error bad-argument"),  # nothing rendered yet
            ("upload point 0 0", "error bad-argument"),  # before `upload begin`
            ("upload begin", "ok upload begin"),
            ("upload point 0 0", "error bad-argument"),  # before a curve
            ("upload transient x 1 1 1", "error bad-argument"),
            ("upload continuous 0 1000", "error bad-argument"),
            ("upload transient -5 500000 500000 1", "error bad-argument"),
            ("upload transient 0 2000000 500000 1", "error bad-argument"),
            ("upload transient 0 500000 500000 2", "error bad-argument"),
            ("upload parameter NoSuchControl 0 0", "error bad-argument"),
            ("upload frobnicate", "error bad-argument"),
        ] + [(f"upload transient {i * 20000} 500000 500000 1", "ok upload transient") for i in range(24)] + [
            ("upload transient 990000 500000 500000 1", "error too-long"),
            # A sequence's notes: refused by kind as well.
            ("notes wait 1000", "error bad-argument"),  # before `notes begin`
            ("notes begin", "ok notes begin"),
            ("start", "error bad-argument"),  # begun, not ended
            ("notes feedback no-such-feedback", "error unknown-feedback"),
            ("notes effect 124", "error bad-argument"),
            ("notes wait -1", "error bad-argument"),
            ("notes until-finished now", "error bad-argument"),
            ("notes frobnicate", "error bad-argument"),
        ] + [("notes wait 1000", "ok notes wait") for _ in range(32)] + [
            ("notes effect 1", "error too-long"),
            ("upload begin", "ok upload begin"),
            ("upload transient 0 500000 500000 1", "ok upload transient"),
            ("upload end", "ok upload end"),
        ]
        upload_answers = []
        for command, expected in bad_uploads:
            link.send(command)
            upload_answers.append((command, expected, link.line()))
        link.send("status")
        after_uploads = link.expect("ok status")
        link.send("status")
        status = link.expect("ok status")
        link.send("ping")
        link.expect("ok ping")
        link.send("prepare selection")
        link.expect("ok prepare selection")
        link.send("stop")
        link.expect("ok stop")

        # A pattern: levels streamed one per tick from the board's timer.
        pattern_levels = [40, 80, 100, 60, 20]
        before = len(bridge_transactions(bridge_trace))
        link.send("pattern 5 " + " ".join(str(level) for level in pattern_levels))
        link.expect("ok pattern")
        link.expect("done pattern")
        streamed = bridge_transactions(bridge_trace)[before:]
        rtp = [t for t in streamed if t[1] == "W" and t[3] and t[3][0] == "02"]
        rtp_times = [t[0] for t in rtp]

        # The link watchdog: a long feedback, then silence.
        link.send(f"watchdog {WATCHDOG_MS}")
        link.expect("ok watchdog")
        before = len(bridge_transactions(bridge_trace))
        link.send("play vibration-default")
        link.expect("ok play vibration-default")
        lost = link.expect("error link-lost", timeout=5)
        after = bridge_transactions(bridge_trace)[before:]
        go = next((t for t in after if t[1] == "W" and t[3][:2] == ["0C", "01"]), None)
        stop = next((t for t in after if t[1] == "W" and t[0] > (go[0] if go else 0) and (t[3][:2] == ["0C", "00"] or t[3][:2] == ["01", "40"])), None)
        link.send("status")
        after_watchdog = link.expect("ok status")
        link.send("watchdog 2000")
        link.expect("ok watchdog")
        link.close()

        # The same image from `haptic --device serial:` (the Linux program as a user runs it).
        before = len(bridge_transactions(bridge_trace))
        device = f"serial:{pty}"
        cli = {}
        for verb in (["status"], ["play", "success"], ["play", "impact-huge"], ["stop"]):
            run = subprocess.run([haptic, *verb, "--device", device], capture_output=True, text=True, timeout=30)
            cli[" ".join(verb)] = (run.returncode, (run.stdout + run.stderr).strip())
        cli_writes = [(t[2], t[3]) for t in bridge_transactions(bridge_trace)[before:] if t[1] == "W"]

        # A pattern file rendered on the board: `haptic pattern` parses it here, uploads its events
        # and the image renders and streams it on its own timer.
        before = len(bridge_transactions(bridge_trace))
        run = subprocess.run([haptic, "pattern", HEARTBEAT, "--device", device], capture_output=True, text=True, timeout=60)
        board_pattern = (run.returncode, (run.stdout + run.stderr).strip(), bridge_transactions(bridge_trace)[before:])
        # One longer than the board's heap can render (20 s): refused before anything plays.
        long_pattern = os.path.join(work, "long.ahap")
        with open(long_pattern, "w") as handle:
            handle.write('{"Version": 1.0, "Pattern": [{"Event": {"Time": 0.0, "EventType": "HapticContinuous", "EventDuration": 20.0, '
                         '"EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}]}}]}')
        before = len(bridge_transactions(bridge_trace))
        run = subprocess.run([haptic, "pattern", long_pattern, "--device", device], capture_output=True, text=True, timeout=60)
        too_long = (run.returncode, (run.stdout + run.stderr).strip(), [t for t in bridge_transactions(bridge_trace)[before:] if t[1] == "W"])

        # A pattern of transients alone: ROM clicks, as the Linux build plays it.
        before = len(bridge_transactions(bridge_trace))
        run = subprocess.run([haptic, "pattern", DOORBELL, "--device", device], capture_output=True, text=True, timeout=60)
        board_clicks = (run.returncode, (run.stdout + run.stderr).strip(), bridge_transactions(bridge_trace)[before:])

        # A sequence placed in time on the board by the rules the Linux build uses: `haptic
        # sequence` uploads its notes and waits, the image starts each note on its timer.
        before = len(bridge_transactions(bridge_trace))
        run = subprocess.run([haptic, "sequence", SEQUENCE, "--device", device], capture_output=True, text=True, timeout=60)
        board_sequence = (run.returncode, (run.stdout + run.stderr).strip(), bridge_transactions(bridge_trace)[before:])

        # hapticd serving the microcontroller: this machine's engine and service, the firmware's chip.
        # The chip as the tour left it before success (selection's sequence loaded), so that the
        # daemon's success is compared with the tour's from the same state.
        link = Link(pty)
        # Under -icount with sleep=off the image's clock runs ahead of the host's while it idles
        # (it skips to its next timer event), so the daemon's pings, half a second apart on the
        # host, can be more than the default 2 s apart on the image: the watchdog is lengthened
        # for this part (the watchdog itself is gated above, and a stop on exit below).
        link.send("watchdog 60000")
        link.expect("ok watchdog")
        link.send("play selection")
        link.expect("ok play selection")
        link.expect("done selection")
        link.close()
        daemon_socket = os.path.join(work, "hapticd.sock")
        daemon_log_path = os.path.join(work, "hapticd.log")
        with open(daemon_log_path, "w") as daemon_log:
            daemon = subprocess.Popen(
                [hapticd, "--device", device, "--verbose", "--socket", daemon_socket, "--state-directory", os.path.join(work, "state")],
                stdout=daemon_log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 30
            while not os.path.exists(daemon_socket) and daemon.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            served = {}
            before = len(bridge_transactions(bridge_trace))
            for name, verb in (("play success", ["play", "success"]), ("pattern", ["pattern", HEARTBEAT])):
                run = subprocess.run([haptic, *verb, "--socket", daemon_socket], capture_output=True, text=True, timeout=60)
                served[name] = (run.returncode, (run.stdout + run.stderr).strip(), bridge_transactions(bridge_trace)[before:])
                before = len(bridge_transactions(bridge_trace))
            # SIGTERM while a long feedback plays: the daemon stops the actuator before it exits.
            player = subprocess.Popen([haptic, "play", "vibration-alert", "--socket", daemon_socket], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 10
            while not any(t[1] == "W" and t[3][:2] == ["0C", "01"] for t in bridge_transactions(bridge_trace)[before:]) and time.monotonic() < deadline:
                time.sleep(0.01)
            daemon.terminate()
            daemon_exit = daemon.wait(timeout=30)
            player.wait(timeout=30)
            terminated = bridge_transactions(bridge_trace)[before:]
        finally:
            if daemon.poll() is None:
                daemon.kill()
        with open(daemon_log_path) as daemon_log:
            daemon_output = daemon_log.read().strip()
        link = Link(pty)
        link.send("status")
        after_daemon = link.expect("ok status")
        link.close()
    finally:
        halt(qemu, server)
    # A board with an ERM: the image booted again, the chip model's actuator an ERM.
    actuator_found = firmware_actuator.collect(
        haptic, hapticd, lambda: boot(elf, machine, bridge_socket + "-erm", wire_trace + "-erm"), halt, model, bridge_socket + "-erm", Link, bridge_trace + "-erm",
        lambda path: bridge_transactions(path))
    # A planted trap (the test image's `trap`: an undefined instruction) while a level is held: the
    # fault handler's stop on the board's own controller (the wire), then the image's end.
    trap = trap_stop(elf, machine, model, bridge_socket + "-trap", wire_trace + "-trap", bridge_trace + "-trap")
    total_s = time.monotonic() - started
    # The link watchdog at the real intervals (a boot of its own, on the host's clock).
    watchdog_started = time.monotonic()
    quiet = link_watchdog(elf, machine, model, haptic, hapticd, work)
    watchdog_s = time.monotonic() - watchdog_started
    killed = quiet["hapticd killed"]
    stream = quiet["board's stream"]

    def ms(value):
        return "?" if value is None else f"{value:.0f}"

    # The Linux build's writes, one process per feedback (each starts the chip, as the image did once).
    startup_writes = [(t[2], t[3]) for t in startup if t[1] == "W"]
    identical = 0
    differences = []
    for name in names:
        expected = linux_writes(haptic, name)
        got = startup_writes + [(t[2], t[3]) for t in segments[name] if t[1] == "W"]
        if expected == got:
            identical += 1
        else:
            differences.append((name, expected, got))
    for name, expected, got in differences[:3]:
        print(f"firmware test: {name}: the Linux build wrote", file=sys.stderr)
        for address, data in expected:
            print(f"    W {address} [{' '.join(data)}]", file=sys.stderr)
        print("  the image wrote", file=sys.stderr)
        for address, data in got:
            print(f"    W {address} [{' '.join(data)}]", file=sys.stderr)

    # The board's controller: the same transactions on the wire, in the same order.
    bridged = bridge_transactions(bridge_trace)
    wire = wire_transactions(wire_trace)
    bridged_wire = [(t[2], t[3]) for t in bridged]
    wire_matches = wire == bridged_wire

    sizes = subprocess.run([os.path.join(ROOT, "Scripts", "firmware"), "size", machine], capture_output=True, text=True, cwd=ROOT)
    flash = re.search(r"flash (\d+) B of (\d+)", sizes.stdout)
    static = re.search(r"RAM (\d+) B static", sizes.stdout)
    heap_region = re.search(r"\+ (\d+) B heap", sizes.stdout)
    heap_peak = re.search(r"heap=(\d+)", after_watchdog)
    flash_bytes, flash_budget = (int(flash.group(1)), int(flash.group(2))) if flash else (0, 0)
    # RAM in use: data, bss and the stack, plus the most heap the run ever took (the firmware counts it).
    static_bytes = int(static.group(1)) if static else 0
    heap_bytes = int(heap_peak.group(1)) if heap_peak else 0
    ram_bytes, ram_budget = static_bytes + heap_bytes, 32768
    # The heap is the RAM the static data leaves (the linker script gives it all), so RAM used can
    # never pass the budget: the gate is the heap's headroom instead. At the run's peak (the tour,
    # a pattern rendered on the board, a sequence, bad uploads) a fifth of the heap must be free,
    # for what a user's own upload needs beyond the run's largest and for fragmentation.
    heap_region_bytes = int(heap_region.group(1)) if heap_region else 0
    heap_limit = heap_region_bytes * 4 // 5

    success_writes = [(t[2], t[3]) for t in segments["success"] if t[1] == "W"]
    rtp_gaps = [b - a for a, b in zip(rtp_times, rtp_times[1:])]
    worst_gap_us = max((abs(gap - 5000) for gap in rtp_gaps), default=-1)
    mean_gap_us = (rtp_times[-1] - rtp_times[0]) / (len(rtp_times) - 1) if len(rtp_times) > 1 else -1
    watchdog_ms = (stop[0] - go[0]) / 1000 if go and stop else -1
    expected_rtp = len(pattern_levels) + 1  # the clip ends at zero

    served_success = [(t[2], t[3]) for t in served["play success"][2] if t[1] == "W"]
    # haptic returns once the daemon played it: the standby after the effect comes later.
    success_to_go = success_writes[:next((i + 1 for i, w in enumerate(success_writes) if w[1][:2] == ["0C", "01"]), 0)]
    pattern_rtp = [t for t in served["pattern"][2] if t[1] == "W" and t[3] and t[3][0] == "02"]
    # The levels the Linux build streams for the same pattern on its own chip, in the same order.
    linux_rtp = [w[1][1] for w in linux_writes(haptic, HEARTBEAT, verb="pattern") if w[1][:1] == ["02"] and len(w[1]) == 2]
    served_rtp = [t[3][1] for t in pattern_rtp if len(t[3]) == 2]
    sigterm_go = next((t for t in terminated if t[1] == "W" and t[3][:2] == ["0C", "01"]), None)
    sigterm_stop = next((t for t in terminated if sigterm_go and t[1] == "W" and t[0] > sigterm_go[0] and (t[3][:2] == ["0C", "00"] or t[3][:2] == ["01", "40"])), None)
    alert_ms = lengths[names.index("vibration-alert")] if "vibration-alert" in names else 0
    sigterm_stop_ms = (sigterm_stop[0] - sigterm_go[0]) / 1000 if sigterm_go and sigterm_stop else -1

    # The pattern the board rendered: its RTP levels with repeats collapsed (the Linux player writes
    # a level only when it changes; the board's player writes every step), and their times.
    def changes(levels):
        return [level for i, level in enumerate(levels) if i == 0 or level != levels[i - 1]]
    board_rtp_writes = [t for t in board_pattern[2] if t[1] == "W" and len(t[3]) == 2 and t[3][0] == "02"]
    board_rtp = [t[3][1] for t in board_rtp_writes]
    board_gaps = [b[0] - a[0] for a, b in zip(board_rtp_writes, board_rtp_writes[1:])]
    board_worst_us = max((abs(gap - 5000) for gap in board_gaps), default=-1)
    served_gaps = [b[0] - a[0] for a, b in zip(pattern_rtp, pattern_rtp[1:]) if len(a[3]) == 2 and len(b[3]) == 2]
    served_worst_us = max((abs(gap - 5000) for gap in served_gaps), default=-1)
    # The sequence: the image's writes equal the Linux build's for the same notes after its
    # start-up, and each GO leaves at the note's place in time on the board's timer.
    linux_sequence = linux_writes(haptic, SEQUENCE, verb="sequence", timed=True)
    linux_sequence_writes = [(w[1], w[2]) for w in linux_sequence][len(startup_writes):]
    sequence_writes = [(t[2], t[3]) for t in board_sequence[2] if t[1] == "W"]
    board_gos = [t for t in board_sequence[2] if t[1] == "W" and t[3][:2] == ["0C", "01"]]
    sequence_offsets, worst_go_us = go_offsets(board_sequence[2], linux_sequence[len(startup_writes):])
    # A pattern of transients alone: ROM clicks on the board, as on Linux.
    # Its sounds left out, as the firmware leaves them (no audio device is opened).
    linux_clicks = linux_writes(haptic, DOORBELL, verb="pattern", timed=True, extra=("--no-audio",))
    linux_clicks_writes = [(w[1], w[2]) for w in linux_clicks][len(startup_writes):]
    clicks_writes = [(t[2], t[3]) for t in board_clicks[2] if t[1] == "W"]
    click_offsets, worst_click_us = go_offsets(board_clicks[2], linux_clicks[len(startup_writes):])
    too_long_played = [w for w in too_long[2] if w[3][:2] == ["0C", "01"] or w[3][:1] == ["02"]]
    heap_room = re.search(r"this board has (\d+)", too_long[1])

    upload_wrong = [(c, e, a) for c, e, a in upload_answers if a is None or not a.startswith(e)]
    gates = [
        (f"the image says it is for {machine}", f"haptics-firmware {machine} " in hello and f"board={machine} " in status),
        (f"{identical} of {len(names)} feedbacks identical to the Linux build's writes", identical == len(names) == 23),
        (f"every bridged transaction ({len(bridged)}) on the board's I2C wire, same bytes and order", wire_matches and len(bridged) > 0),
        (f"flash {flash_bytes} <= {flash_budget}", 0 < flash_bytes <= flash_budget),
        (f"heap peak {heap_bytes} B <= 80 % of the heap's {heap_region_bytes} B ({heap_limit}); RAM {ram_bytes} of {ram_budget} (static {static_bytes}: the heap takes the rest)",
         static_bytes > 0 and 0 < heap_bytes <= heap_limit),
        (f"pattern: {len(rtp)} RTP writes for {expected_rtp} levels", len(rtp) == expected_rtp),
        # Each level leaves on the image's timer. A bridged write waits for the host's answer, which
        # a busy CI machine can make ten milliseconds; the image's clock is charged a 400 kHz bus's
        # time instead (75 us for an RTP write, BridgedBus), so these are the firmware's own figures
        # whatever the host does, and a level may be late by its main loop's pass, not by a tick.
        (f"pattern mean tick {mean_gap_us:.0f} us within 2% of 5000", abs(mean_gap_us - 5000) <= 100),
        (f"pattern worst tick deviation {worst_gap_us} us <= 500 (a tenth of a tick)", 0 <= worst_gap_us <= 500),
        # From the GO frame, which leaves a few ms after the command's last byte (the watchdog's start).
        (f"watchdog stop {watchdog_ms:.1f} ms after GO within {WATCHDOG_MS - WATCHDOG_SLACK_MS}...{WATCHDOG_MS + WATCHDOG_SLACK_MS}",
         WATCHDOG_MS - WATCHDOG_SLACK_MS <= watchdog_ms <= WATCHDOG_MS + WATCHDOG_SLACK_MS),
        ("after the watchdog: nothing playing, the chip in standby", "playing=-" in after_watchdog and "power=standby" in after_watchdog),
        (f"a planted trap while a level was held ({'driving' if trap[2] else 'NOT driving'}): '{trap[0][:40]}', then the handler's stop on the wire "
         f"({' '.join('[' + ' '.join(data) + ']' for _, data in trap[3]) or 'nothing'}: GO 0, RTP 0, MODE standby at 0x5A), the image ended (QEMU exit {trap[1]})",
         trap[2] and trap[0].startswith("error fault") and trap[3] == [("5A", ["0C", "00"]), ("5A", ["02", "00"]), ("5A", ["01", "40"])] and trap[1] == 1),
        # EN (GPIO 0 pin 0) and IN/TRIG (pin 1): driven as outputs and low by the handler, nothing
        # on them before (the test image's chip is bridged, its EN unused until the fault).
        (f"the handler's EN and IN/TRIG: GPIO 0 writes after the trap {[(hex(o), hex(v)) for o, v in trap[5]]} "
         f"(OUTENSET 0x10 pins 0 and 1, DATAOUT 0x4 both low), none before ({len(trap[4])})",
         not trap[4] and {(0x10, 0x1), (0x10, 0x2)} <= set(trap[5]) and [v for o, v in trap[5] if o == 0x4][-2:] == [0, 0]),
        ("refusals typed", refusal.startswith("error unknown-feedback") and unknown.startswith("error unknown-command")),
        (f"frames: noise skipped, a damaged, a cut and a paused 'play impact-heavy' refused ({'; '.join(frame_answers[i] for i in (1, 2, 4))}), each next frame answered; "
         f"nothing written to the chip meanwhile ({len(frames_drove)} writes), nothing playing",
         len(frame_answers) == 5 and not frames_drove and "playing=-" in after_frames),
        (f"bad pattern and sequence uploads refused by kind ({len(upload_answers)} lines, {len(upload_wrong)} answered otherwise), the image answers after them and plays nothing",
         not upload_wrong and "playing=-" in after_uploads),
        (f"haptic --device serial: status, play success (exit {cli['play success'][0]}), stop: exit 0",
         cli["status"][0] == 0 and cli["play success"][0] == 0 and cli["stop"][0] == 0),
        (f"haptic --device serial: play impact-huge refused (exit {cli['play impact-huge'][0]})", cli["play impact-huge"][0] == 65),
        (f"haptic --device serial: play success wrote what the tour's success wrote ({len(success_writes)} writes)",
         any(cli_writes[i:i + len(success_writes)] == success_writes for i in range(len(cli_writes)))),
        (f"haptic pattern {os.path.basename(HEARTBEAT)} --device serial: (exit {board_pattern[0]}) rendered on the board: its {len(changes(board_rtp))} RTP level changes "
         f"equal the Linux build's ({len(changes(linux_rtp))})", board_pattern[0] == 0 and len(board_rtp) > 0 and changes(board_rtp) == changes(linux_rtp)),
        (f"the board's timer streamed it: {len(board_rtp)} RTP writes 5 ms apart, worst deviation {board_worst_us} us <= 500",
         len(board_gaps) > 0 and 0 <= board_worst_us <= 500),
        (f"a 20 s pattern refused (exit {too_long[0]}, 'too-long'), nothing played",
         too_long[0] == 65 and "too-long" in too_long[1] and not too_long_played),
        (f"haptic sequence --device serial: (exit {board_sequence[0]}): {len(sequence_writes)} writes equal the Linux build's for the same notes",
         board_sequence[0] == 0 and len(sequence_writes) > 0 and sequence_writes == linux_sequence_writes),
        # Each note's GO where the Linux build's virtual clock places it. That clock does not move
        # while the bus is written; the image's does: a note that could not be made ready ahead (the
        # one before still played, on both) stops it and loads its sequence before its GO, about
        # a millisecond of bridged transactions and the image's own code.
        (f"the board's timer started its notes where the Linux build's schedule does ({len(sequence_offsets)} times, {len(board_gos)} GOs), worst {worst_go_us} us off <= 2000",
         len(sequence_offsets) > 1 and 0 <= worst_go_us <= 2000),
        (f"haptic pattern {os.path.basename(DOORBELL)} --device serial: (exit {board_clicks[0]}), transients alone: {len(clicks_writes)} writes (ROM clicks) equal the Linux build's",
         board_clicks[0] == 0 and "ROM clicks" in board_clicks[1] and len(clicks_writes) > 0 and clicks_writes == linux_clicks_writes),
        (f"its {len(click_offsets)} clicks' GOs where the Linux build's pattern player puts them, worst {worst_click_us} us off <= 2000",
         len(click_offsets) > 1 and 0 <= worst_click_us <= 2000),
        (f"hapticd --device serial: play success (exit {served['play success'][0]}) wrote what the tour's success wrote up to its GO ({len(success_to_go)} writes)",
         served["play success"][0] == 0 and len(success_to_go) > 0 and any(served_success[i:i + len(success_to_go)] == success_to_go for i in range(len(served_success)))),
        # hapticd's player uploads the pattern and the board renders and times it: every level the
        # Linux build streams, in order, on the board's timer, whatever the host's load.
        (f"hapticd --device serial: pattern {os.path.basename(HEARTBEAT)} (exit {served['pattern'][0]}) rendered on the board: "
         f"its {len(changes(served_rtp))} RTP level changes equal the Linux build's ({len(changes(linux_rtp))})",
         served["pattern"][0] == 0 and len(served_rtp) > 0 and changes(served_rtp) == changes(linux_rtp)),
        # The board's player writes every step (this machine's writes only changes): as many writes
        # as `haptic pattern --device serial:` made the board write.
        (f"hapticd's pattern on the board's timer: {len(served_rtp)} RTP writes (the board's {len(board_rtp)}) 5 ms apart, worst deviation {served_worst_us} us <= 500",
         len(served_rtp) == len(board_rtp) and len(served_gaps) > 0 and 0 <= served_worst_us <= 500),
        # Before the feedback's own end: the daemon's stop, not the effect running out.
        (f"hapticd SIGTERM while vibration-alert played: exit {daemon_exit}, the actuator stopped {sigterm_stop_ms:.1f} ms after its GO, "
         f"before its own end at {alert_ms} ms", daemon_exit == 0 and 0 <= sigterm_stop_ms < alert_ms),
        ("after hapticd: nothing playing, the chip in standby", "playing=-" in after_daemon and "power=standby" in after_daemon),
    ] + [
        # On the image's clock, the watchdog's own: the host's last byte left before the image heard
        # it, so the stop is no earlier than the watchdog's time after it, less 5 ms (the 1 ms tick,
        # and the answer time of the transaction that placed the byte on the image's clock), and
        # later by at most the main loop's pass and the stop's transactions (WATCHDOG_SLACK_MS).
        (f"link watchdog at {LINK_WATCHDOG_MS} ms, {name}: driving {ms(case['drive'])} ms after the host's last byte, stopped {ms(case['stop'])} ms after it, "
         f"within {LINK_WATCHDOG_MS - 5}...{LINK_WATCHDOG_MS + WATCHDOG_SLACK_MS}, said '{case['said'][:30]}'",
         case["drive"] is not None and case["stop"] is not None and case["drive"] < case["stop"]
         and LINK_WATCHDOG_MS - 5 <= case["stop"] <= LINK_WATCHDOG_MS + WATCHDOG_SLACK_MS and case["said"].startswith("error link-lost"))
        for name, case in quiet.items() if name != "hapticd killed"
    ] + [
        # hapticd's last byte (a ping, at most 0.5 s before the kill) starts the watchdog; before the
        # kill its pings held the link for longer than the watchdog's time.
        (f"link watchdog, hapticd killed with SIGKILL: driving from {ms(killed['drive'])} ms (its pings held the link >= {LINK_WATCHDOG_MS} ms), "
         f"stopped {ms(killed['stop'])} ms after the kill, within {LINK_WATCHDOG_MS - HOST_PING_MS - 5}...{LINK_WATCHDOG_MS + WATCHDOG_SLACK_MS}",
         killed["drive"] is not None and killed["drive"] <= -LINK_WATCHDOG_MS and killed["stop"] is not None
         and LINK_WATCHDOG_MS - HOST_PING_MS - 5 <= killed["stop"] <= LINK_WATCHDOG_MS + WATCHDOG_SLACK_MS),
        (f"the link watchdog's real-time boot {watchdog_s:.1f} s <= 30", watchdog_s <= 30),
    ] + firmware_actuator.gates(actuator_found, lambda name, extra: linux_writes(haptic, name, extra=extra)) + [
        (f"run {total_s:.1f} s <= 60", total_s <= 60),
    ]
    print(f"firmware test: {hello}; {status}")
    for verb, (code, output) in cli.items():
        print(f"firmware test: haptic {verb} --device serial:{pty}: exit {code}: {output.splitlines()[-1] if output else ''}")
    for name, (code, output, _) in served.items():
        print(f"firmware test: haptic {name} --socket (hapticd --device serial:{pty}): exit {code}: {output.splitlines()[-1] if output else ''}")
    print(
        f"HIL-MCU: {machine}: {identical} of {len(names)} feedbacks, bus writes {'identical to' if identical == len(names) else 'DIFFERENT from'} the Linux build's, "
        f"flash {flash_bytes} B, RAM {ram_bytes} B (static {static_bytes} B, heap peak {heap_bytes} B); boot to hello {boot_ms:.0f} ms, tour {sum(lengths)} ms of feedback, "
        f"{len(bridged)} bridged transactions, pattern mean tick {mean_gap_us:.0f} us (worst deviation {worst_gap_us} us; the host's answer time left out, a 400 kHz bus's charged), watchdog stop {watchdog_ms:.1f} ms; "
        f"link watchdog at its real {LINK_WATCHDOG_MS} ms (QEMU on the host's clock): held level stopped {ms(quiet['held level']['stop'])} ms and the board's stream "
        f"{ms(stream['stop'])} ms after the host's last byte, hapticd killed: {ms(killed['stop'])} ms after the kill (on the host's clock "
        f"{ms(quiet['held level']['host_stop'])}, {ms(stream['host_stop'])}, {ms(killed['host_stop'])} ms); "
        f"haptic pattern --device serial: rendered on the board, {len(board_rtp)} levels, worst tick deviation {board_worst_us} us, "
        f"heap room {heap_room.group(1) if heap_room else '?'} B; "
        f"haptic pattern {os.path.basename(DOORBELL)} --device serial: {len(click_offsets)} ROM clicks, worst {worst_click_us} us off the Linux build's; "
        f"haptic sequence --device serial: {len(board_gos)} GOs on the board's timer, its notes' times worst {worst_go_us} us off the Linux build's schedule; "
        f"hapticd --device serial: pattern rendered on the board ({len(served_rtp)} writes, worst tick deviation {served_worst_us} us), SIGTERM stop {sigterm_stop_ms:.1f} ms after GO; run {total_s:.1f} s")
    print("gates: " + "; ".join(f"{text} {'ok' if passed else 'FAILED'}" for text, passed in gates))
    print("not gated: boot time (QEMU's start, not the image's), the tour's length (the effects' own), and the link watchdog's stops on the host's clock "
          "(they include the rig's time answering each bridged transaction, which a board's own bus does not take; the image's clock, gated, leaves it out).")
    if not all(passed for _, passed in gates):
        print(f"firmware test: the tour's success wrote {success_writes}; through hapticd: {served_success}", file=sys.stderr)
        print(f"firmware test: hapticd's pattern levels {served_rtp}; the Linux build's {linux_rtp}", file=sys.stderr)
        print(f"firmware test: the sequence ({board_sequence[1]}): the image wrote {sequence_writes}; the Linux build {linux_sequence_writes}; GO offsets (image, Linux) {sequence_offsets}", file=sys.stderr)
        print(f"firmware test: the clicks ({board_clicks[1]}): the image wrote {clicks_writes}; the Linux build {linux_clicks_writes}; GO offsets (image, Linux) {click_offsets}", file=sys.stderr)
        print(f"firmware test: haptic pattern --device serial: said {board_pattern[1]!r}; its levels {board_rtp}", file=sys.stderr)
        print(f"firmware test: the 20 s pattern: {too_long[:2]}", file=sys.stderr)
        print(f"firmware test: uploads answered otherwise: {upload_wrong}", file=sys.stderr)
        print(f"firmware test: around hapticd's SIGTERM: {terminated}", file=sys.stderr)
        print("firmware test: hapticd said:\n" + daemon_output, file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
