#!/usr/bin/env python3
"""The NumPy side of fpdiv's throughput benchmark: the same work per case, in the way a user
would write it with NumPy, on the same shapes.

Usage: bench_numpy.py RELATION SHAPES_FILE SECONDS
  RELATION     slice-rows or addmm
  SHAPES_FILE  one "[BATCHx]MxNxK" per line (fpdiv fuzz --json's shapes, so both do the same work)
  SECONDS      run the list round and round for this long

Per case: random float32 A (m x k), B (k x n) and bias (n); then
  slice-rows: (A @ B)[0:1] against A[0:1] @ B, compared bitwise;
  addmm:      A @ B + bias against [A, 1] @ [B; bias] (the bias as one more term), bitwise.
Prints "cases N seconds S cases_per_second R". Run it with OPENBLAS_NUM_THREADS=1 for one core.
"""
import sys
import time

import numpy as np


def shapes(path):
    out = []
    with open(path) as f:
        for line in f:
            dims = [int(x) for x in line.strip().split("x")]
            out.append(dims[-3:])  # m, n, k: the batch is folded away as NumPy users would loop
    return out


def slice_rows(rng, m, n, k):
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    full = a @ b
    part = a[0:1] @ b
    return np.array_equal(full[0:1].view(np.uint32), part.view(np.uint32))


def addmm(rng, m, n, k):
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    bias = rng.standard_normal(n, dtype=np.float32)
    first = a @ b + bias
    fused = np.hstack([a, np.ones((m, 1), np.float32)]) @ np.vstack([b, bias[None, :]])
    return np.array_equal(first.view(np.uint32), fused.view(np.uint32))


def main():
    relation, path, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    work = {"slice-rows": slice_rows, "addmm": addmm}[relation]
    todo = shapes(path)
    rng = np.random.default_rng(1)
    cases, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for m, n, k in todo:
            work(rng, m, n, k)
            cases += 1
            if cases % 64 == 0 and time.perf_counter() - start >= seconds:
                break
    elapsed = time.perf_counter() - start
    print(f"cases {cases} seconds {elapsed:.2f} cases_per_second {cases / elapsed:.1f}")


if __name__ == "__main__":
    main()
