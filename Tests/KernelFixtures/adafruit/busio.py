# SPDX-License-Identifier: Apache-2.0
"""A stand-in for Blinka's busio, enough for adafruit_bus_device: I2C on Linux's i2c-dev.

Blinka itself needs a recognised board; this VM is not one. The methods are those
adafruit_bus_device.I2CDevice calls, with the same keyword arguments.
"""
import fcntl
import os

I2C_SLAVE = 0x0703


class I2C:
    """An I2C bus: /dev/i2c-N (a path), in place of busio.I2C(scl, sda)."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDWR)
        self.address = None

    def try_lock(self):
        return True

    def unlock(self):
        pass

    def _select(self, address):
        if address != self.address:
            fcntl.ioctl(self.fd, I2C_SLAVE, address)
            self.address = address

    def writeto(self, address, buffer, *, start=0, end=None):
        self._select(address)
        os.write(self.fd, bytes(buffer[start:end]))

    def readfrom_into(self, address, buffer, *, start=0, end=None):
        self._select(address)
        end = len(buffer) if end is None else end
        data = os.read(self.fd, end - start)
        buffer[start:start + len(data)] = data

    def writeto_then_readfrom(self, address, out_buffer, in_buffer, *, out_start=0, out_end=None, in_start=0, in_end=None):
        # A write, then a read (a stop between them): the DRV2605 keeps its register pointer.
        self.writeto(address, out_buffer, start=out_start, end=out_end)
        self.readfrom_into(address, in_buffer, start=in_start, end=in_end)
