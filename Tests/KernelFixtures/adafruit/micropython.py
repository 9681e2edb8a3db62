# SPDX-License-Identifier: Apache-2.0
"""MicroPython's const(), which CPython lacks."""


def const(value):
    return value
