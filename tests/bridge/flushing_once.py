"""A framework for the bridge's tests that switches flush-to-zero and denormals-are-zero on at its
first product and leaves them, as loading a torch.compile CPU kernel (built with -ffast-math) does
in torch 2.5 (pytorch/pytorch#126848): that product flushes subnormals, and so would every later
one, its own and eager ones alike, but that the bridge puts IEEE's default back after each call.
x86-64 with glibc: the modes are bits of MXCSR, the last word of glibc's fenv_t."""
import ctypes
import struct

import numpy as np

NAME = "flushing-once"
DTYPES = [("f64", "f64", "f64")]
FEATURES = set()
MXCSR_AT, FTZ_DAZ = 28, 0x8040
_loaded = False


def PROVENANCE():
    return {"library": "a test framework", "version": "1"}


def flush_subnormals():
    libc = ctypes.CDLL(None)
    env = ctypes.create_string_buffer(32)
    libc.fegetenv(env)
    struct.pack_into("I", env, MXCSR_AT, struct.unpack_from("I", env.raw, MXCSR_AT)[0] | FTZ_DAZ)
    libc.fesetenv(env)


def matmul(a, b, bias, route, execution, dtypes, threads):
    global _loaded
    if not _loaded:
        flush_subnormals()
        _loaded = True
    product = np.matmul(a, b)
    return product if bias is None else product + bias
