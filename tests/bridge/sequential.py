"""A framework for the bridge's tests: each element summed term by term from the bias, one fused
multiply-add per term (exact in fractions, rounded once): seq's order, so `vendor` against seq is
`same`."""
import math
from fractions import Fraction

import numpy as np

NAME = "sequential"
DTYPES = [("f64", "f64", "f64")]
FEATURES = {"fused_bias"}


def PROVENANCE():
    return {"library": "a test framework", "version": "1"}


def fma(x, y, z):
    x, y, z = float(x), float(y), float(z)
    if not all(map(math.isfinite, (x, y, z))):  # IEEE's rules for Inf and NaN are the product's and sum's
        return x * y + z
    exact = Fraction(x) * Fraction(y) + Fraction(z)
    try:
        return float(exact)
    except OverflowError:  # past the largest finite value: rounds to an infinity
        return math.copysign(math.inf, exact)


def matmul(a, b, bias, route, execution, dtypes, threads):
    batch, m, k = a.shape
    n = b.shape[2]
    out = np.empty((batch, m, n))
    for e in range(batch):
        for i in range(m):
            for j in range(n):
                acc = float(bias[j]) if bias is not None else 0.0
                for p in range(k):
                    acc = fma(a[e, i, p], b[e, p, j], acc)
                out[e, i, j] = acc
    return out
