#!/usr/bin/env python3
"""Writes frozen_stream_v3.inc: generator 3's values from a model written from its description in
src/gen/gen.c, independent of the C code (the Philox key, SplitMix64 and rounding are generator 2's,
from frozen_stream_v2.py).  Run:
    python3 tests/unit/frozen_stream_v3.py > tests/unit/frozen_stream_v3.inc
"""
import struct

from frozen_stream_v2 import M32, bits, print_table, value as value_v2

SQRT3_F32 = struct.unpack("f", struct.pack("f", 3 ** 0.5))[0]
WIDE_BINADES = {"F64": 30, "F32": 20, "F16": 5, "BF16": 20}


def draw32(key, row, col):
    """The even column takes the low half of its pair's output, the odd one the high half."""
    return bits(key, row, col >> 1) >> (32 * (col & 1)) & M32


def value(dist, dtype, key, row, col):
    if dtype == "F64":  # binary64 inputs are generator 2's
        return value_v2(dist, dtype, bits(key, row, col))
    if dist == "NORMAL":  # generator 2's quarters, less their mean, times sqrt(3) rounded to binary32
        x = bits(key, row, col)
        s = sum((x >> shift) & 0xFFFF for shift in (0, 16, 32, 48))
        return (s + 2 - 2 ** 17) * 2.0 ** -16 * SQRT3_F32
    w = draw32(key, row, col)
    if dist == "UNIFORM":
        return (w - 2 ** 32 if w >> 31 else w) * 2.0 ** -31
    if dist == "INT":
        return float(((w >> 4) * 9 >> 28) - 4)
    span = WIDE_BINADES[dtype]
    exponent = ((w >> 23 & 0xFF) * (2 * span + 1) >> 8) - span
    significand = 1.0 + (w & 0x7FFFFF) * 2.0 ** -23
    return (-significand if w >> 31 else significand) * 2.0 ** exponent


def main():
    print_table(3, value)

if __name__ == "__main__":
    main()
