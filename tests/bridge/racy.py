"""A framework for the bridge's tests with a race between callers (numpy #29391, OpenBLAS #4741:
a buffer shared by threads, no lock): each product goes through one module-wide scratch array,
and a caller that another overtakes reads the other's product. Called from one thread at a time,
it is NumPy's and right."""
import time

import numpy as np

NAME = "racy"
DTYPES = [("f64", "f64", "f64"), ("f32", "f32", "f32")]
FEATURES = {"concurrent"}
TYPES = {"f64": np.float64, "f32": np.float32}
scratch = {}  # the shared buffer, by shape and type


def PROVENANCE():
    return {"library": "a test framework", "version": "1"}


def matmul(a, b, bias, route, execution, dtypes, threads):
    t = TYPES[dtypes[0]]
    product = a.astype(t) @ b.astype(t)
    key = (product.shape, t)
    buffer = scratch.setdefault(key, np.empty(product.shape, t))
    buffer[...] = product
    time.sleep(0.02)  # the rest of the work, without the GIL: another caller writes meanwhile
    return buffer.copy()
