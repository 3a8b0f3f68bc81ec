#!/usr/bin/env python3
"""Writes frozen_stream_v4.inc: generator 4's values from a model written from its description in
src/gen/gen_v4.c, independent of the C code (the tensor key and rounding are generator 2's, from
frozen_stream_v2.py), and checks the claim made there about the position lattice.  Run:
    python3 tests/unit/frozen_stream_v4.py > tests/unit/frozen_stream_v4.inc
"""
import struct

from frozen_stream_v2 import M32, print_table

STEP = 0x9E3779B9
SQRT3_F32 = struct.unpack("f", struct.pack("f", 3 ** 0.5))[0]
WIDE_BINADES = {"F64": 30, "F32": 20, "F16": 5, "BF16": 20}


def position(key, row, col):
    return (key + STEP * (col + STEP * row)) & M32


def first_round(x):
    x ^= x >> 17
    return x * 0xED5AD4BB & M32


def keyed_rounds(y, key):
    x = y ^ key
    x ^= x >> 11
    x = x * 0xAC4C1B51 & M32
    x ^= x >> 15
    x = x * 0x31848BAB & M32
    return x ^ x >> 14


def signed32(w):
    return w - 2 ** 32 if w >> 31 else w


def value(dist, dtype, key, row, col):
    k1 = key >> 32
    y = first_round(position(key & M32, row, col))
    w, w2 = keyed_rounds(y, k1), keyed_rounds(y, ~k1 & M32)
    if dist == "NORMAL":  # four 16-bit quarters, less their mean, times sqrt(3) rounded to binary32
        s = (w & 0xFFFF) + (w >> 16) + (w2 & 0xFFFF) + (w2 >> 16)
        return (s + 2 - 2 ** 17) * 2.0 ** -16 * SQRT3_F32
    if dist == "UNIFORM":
        if dtype == "F64":
            both = signed32(w) << 32 | w2
            return (both >> 11) * 2.0 ** -52
        return signed32(w) * 2.0 ** -31
    if dist == "INT":
        return float(((w >> 4) * 9 >> 28) - 4)
    span = WIDE_BINADES[dtype]
    exponent = ((w >> 23 & 0xFF) * (2 * span + 1) >> 8) - span
    significand = 1.0 + (w & 0x7FFFFF) * 2.0 ** -23
    if dtype == "F64":
        significand += (w2 >> 3) * 2.0 ** -52
    return (-significand if w >> 31 else significand) * 2.0 ** exponent


def check_lattice():
    """Two elements share a position iff (dcol, drow) is in {dc + STEP * dr = 0 mod 2^32}. Its
    Gauss-reduced basis spans every vector, and those near 0 are its small combinations: none but
    zero has |dc| < 52777 and |dr| < 52777 (rows and columns), and none has dr = 0 or dc = 0 inside
    2^32 (one row, one column)."""
    u, v = (2 ** 32, 0), (-STEP % 2 ** 32, 1)
    norm = lambda a: a[0] * a[0] + a[1] * a[1]
    while True:
        if norm(u) > norm(v):
            u, v = v, u
        m = round((u[0] * v[0] + u[1] * v[1]) / norm(u))
        if m == 0:
            break
        v = (v[0] - m * u[0], v[1] - m * u[1])
    # a reduced basis: every lattice vector inside the square is a small combination of u and v
    near = [(a * u[0] + b * v[0], a * u[1] + b * v[1]) for a in range(-8, 9) for b in range(-8, 9) if a or b]
    assert all((dc + STEP * dr) % 2 ** 32 == 0 for dc, dr in near)
    assert min(max(abs(dc), abs(dr)) for dc, dr in near) >= 52777, "a shorter lattice vector"
    assert all(dc != 0 and dr != 0 for dc, dr in near)


def main():
    check_lattice()
    print_table(4, value)


if __name__ == "__main__":
    main()
