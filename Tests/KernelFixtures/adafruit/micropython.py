"""MicroPython's const(), which CPython lacks."""


def const(value):
    return value
