# SPDX-License-Identifier: Apache-2.0
"""Adafruit's CircuitPython DRV2605 library (adafruit-circuitpython-drv2605, from PyPI, unchanged)
against the emulated chip in the VM, through busio.py here (a stand-in for Blinka's busio.I2C on
/dev/i2c-N). The fixture's parameters show what reached the chip. Prints one line starting with `adafruit:`.

usage: adafruit_check.py /dev/i2c-N
"""
import sys
import time

import adafruit_drv2605
import busio

PARAMETERS = "/sys/module/i2c_drv2605_sim/parameters"


def registers():
    with open(PARAMETERS + "/registers") as file:
        return [int(word, 16) for word in file.read().split()]


def parameter(name):
    with open(PARAMETERS + "/" + name) as file:
        return int(file.read())


def main():
    failures = []

    def check(condition, message):
        if not condition:
            failures.append(message)

    drv = adafruit_drv2605.DRV2605(busio.I2C(sys.argv[1]))
    r = registers()
    check(r[0x01] == 0x00, f"MODE 0x{r[0x01]:02x} after DRV2605(): expected internal trigger, out of standby")
    check(r[0x03] & 0x07 == 1, f"LIBRARY_SEL 0x{r[0x03]:02x}: expected TS2200 library A")
    check(r[0x1D] & 0x20, f"CONTROL3 0x{r[0x1D]:02x}: expected ERM open loop")
    check(r[0x1A] & 0x80 == 0, f"FEEDBACK 0x{r[0x1A]:02x}: expected ERM")

    # Effect 47 (Buzz 1 - 100%): GO while it plays, cleared by the chip after it.
    drv.sequence[0] = adafruit_drv2605.Effect(47)
    drv.play()
    start = time.monotonic()
    r = registers()
    check(r[0x04] == 47 and r[0x0C] == 1, f"after play(): slot 0x{r[0x04]:02x}, GO {r[0x0C]}")
    while registers()[0x0C] == 1 and time.monotonic() - start < 3:
        time.sleep(0.005)
    played = time.monotonic() - start
    check(registers()[0x0C] == 0, "GO never cleared after effect 47")

    # stop() clears GO in the middle of the 1000 ms alert (effect 16).
    drv.sequence[0] = adafruit_drv2605.Effect(16)
    drv.play()
    time.sleep(0.1)
    check(registers()[0x0C] == 1, "effect 16 was not playing 100 ms after play()")
    drv.stop()
    check(registers()[0x0C] == 0, "stop() did not clear GO")

    # Real-time playback.
    drv.mode = adafruit_drv2605.MODE_REALTIME
    drv.realtime_value = 100
    peak = parameter("rtp_peak")
    check(peak == 100, f"realtime_value 100 reached RTP as {peak}")
    drv.realtime_value = 0
    drv.mode = adafruit_drv2605.MODE_INTTRIG

    if failures:
        print("adafruit: FAILED: " + "; ".join(failures))
        sys.exit(1)
    print(f"adafruit: adafruit-circuitpython-drv2605 initialised the emulated chip (ERM open loop, library A), "
          f"played effect 47 (GO cleared by the chip after {played * 1000:.0f} ms), stopped effect 16 mid-way, and drove RTP to {peak}")


main()
