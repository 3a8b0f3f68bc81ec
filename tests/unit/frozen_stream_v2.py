#!/usr/bin/env python3
"""Writes frozen_stream_v2.inc: generator 2's values from a model written from its description in
src/gen/rng.h and src/gen/gen.c, independent of the C code, so the frozen test checks the definition and
not just the code's past output.  Run:
    python3 tests/unit/frozen_stream_v2.py > tests/unit/frozen_stream_v2.inc
    python3 tests/unit/frozen_stream_v2.py specials > tests/unit/frozen_specials_v2.inc
"""
import math
import struct
import sys

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF


def philox4x32_10(ctr, key):
    x0, x1, x2, x3 = ctr
    k0, k1 = key
    for _ in range(10):
        p0, p1 = 0xD2511F53 * x0, 0xCD9E8D57 * x2
        x0, x1, x2, x3 = ((p1 >> 32) ^ x1 ^ k0) & M32, p1 & M32, ((p0 >> 32) ^ x3 ^ k1) & M32, p0 & M32
        k0, k1 = (k0 + 0x9E3779B9) & M32, (k1 + 0xBB67AE85) & M32
    return x0, x1, x2, x3


def tensor_key(seed, index, stream, batch):
    out = philox4x32_10((M32, M32, batch | stream << 24, index), (seed & M32, seed >> 32))
    return out[1] << 32 | out[0]


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def bits(key, row, col):
    return mix64((key + (row << 32 | col) * 0x9E3779B97F4A7C15) & M64)


WIDE_BINADES = {"F64": 30, "F32": 20, "F16": 5, "BF16": 20}


def value(dist, dtype, x):
    if dist == "NORMAL":  # four 16-bit uniforms, each the midpoint of its interval
        s = sum(((x >> shift) & 0xFFFF) + 0.5 for shift in (0, 16, 32, 48))
        return (s * 2.0**-16 - 2.0) * 1.7320508075688772
    if dist == "UNIFORM":
        return (x >> 11) * 2.0**-52 - 1.0
    if dist == "INT":
        return float(((x >> 32) * 9 >> 32) - 4)
    span = WIDE_BINADES[dtype]
    exponent = ((x >> 32) * (2 * span + 1) >> 32) - span
    significand = 1.0 + ((x >> 1) & 0x7FFFFF) * 2.0**-23
    return (-significand if x & 1 else significand) * 2.0**exponent


def round_to(dtype, v):
    """Round to nearest even with the type's significand bits (every value here is a normal number)."""
    if dtype == "F64" or v == 0:
        return v
    assert abs(v) >= {"F32": 2.0**-126, "F16": 2.0**-14, "BF16": 2.0**-126}[dtype], "subnormal: not modelled"
    if dtype == "F32":
        return struct.unpack("f", struct.pack("f", v))[0]
    digits = {"F16": 11, "BF16": 8}[dtype]
    _, e = math.frexp(v)
    scale = 2.0 ** (digits - e)
    return round(v * scale) / scale  # exact scaling; round() breaks ties to even


F32_SPECIALS = [0.0, -0.0, math.inf, -math.inf, math.nan, 2.0**-149, -(2.0**-126 - 2.0**-149),
                (2 - 2.0**-23) * 2.0**127]


def special_or_value(seed, index, stream, row, col, rate):
    """An f32 `normal` element of a recipe with specials: the tensor's special key draws first."""
    draw = bits(tensor_key(seed, index, stream | 0x80, 0), row, col)
    if (draw & M32) < rate * 2.0**32:
        return F32_SPECIALS[(draw >> 32) % len(F32_SPECIALS)]
    return round_to("F32", value("NORMAL", "F32", bits(tensor_key(seed, index, stream, 0), row, col)))


def c_double(v):
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "-INFINITY" if v < 0 else "INFINITY"
    return v.hex()


def main():
    seed, index = 0x5EED, 3
    if len(sys.argv) > 1 and sys.argv[1] == "specials":
        print("/* Generator 2, f32 normal data with specials at rate 0.25: seed 0x5eed, case index 3, stream B,"
              " from tests/unit/frozen_stream_v2.py specials. {row, col, value}. */")
        for col in range(48):
            print(f"{{{col % 3}, {col * 5}, {c_double(special_or_value(seed, index, 2, col % 3, col * 5, 0.25))}}},")
        return
    print_table(2, lambda dist, dtype, key, row, col: value(dist, dtype, bits(key, row, col)))


def print_table(generator, element):
    """The frozen entries of a generator: element(dist, dtype, tensor key, row, col) is the
    unrounded value. Rows and columns vary with the entry: odd and even, near 0 and past 2^20."""
    seed, index = 0x5EED, 3
    print(f"/* Generator {generator} at seed 0x5eed, case index 3, batch 0, from"
          f" tests/unit/frozen_stream_v{generator}.py. {{dist, in, stream, row, col, value}}. */")
    streams = (("A", 1), ("B", 2), ("BIAS", 3))
    for d, dist in enumerate(("NORMAL", "UNIFORM", "INT", "WIDE")):
        for t, dtype in enumerate(("F64", "F32", "F16", "BF16")):
            for s, (name, stream) in enumerate(streams):
                row = 0 if name == "BIAS" else d + t + 1000 * s
                col = 7 + t + 7 * s + (1 << 20) * (d & 1)
                v = round_to(dtype, element(dist, dtype, tensor_key(seed, index, stream, 0), row, col))
                print(f"{{FPD_DIST_{dist}, FPD_{dtype}, FPD_STREAM_{name}, {row}, {col}, {v.hex()}}},")

if __name__ == "__main__":
    main()
