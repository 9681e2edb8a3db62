# SPDX-License-Identifier: Apache-2.0
"""The names adafruit_bus_device's annotations use (CPython evaluates them; CircuitPython does not)."""
ReadableBuffer = bytes
WriteableBuffer = bytearray
