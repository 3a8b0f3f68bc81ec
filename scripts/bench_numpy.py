#!/usr/bin/env python3
"""The NumPy side of fpdiv's throughput benchmark: the same work per case, in the way a user
would write it with NumPy, on the same cases.

Usage: bench_numpy.py RELATION CASES_FILE SECONDS
  RELATION    slice-rows or addmm
  CASES_FILE  fpdiv fuzz --json's "check" lines, one per line: each case's shape
              ("[BATCHx]MxNxK"), layouts, row padding, bias and row slice, so that both do the
              same work
  SECONDS     run the list round and round for this long

Per case: random float32 A (m x k), B (k x n), each stored transposed where fpdiv's was and
with its rows padded as fpdiv's were, and bias (n), a stack of BATCH of each where the case is
batched (one bias); then
  slice-rows: (A @ B (+ bias))[rows] against A[rows] @ B (+ bias), compared bitwise;
  addmm:      A @ B + bias against [A, 1] @ [B; bias] (the bias as one more term), bitwise.
The values are standard normal whatever fpdiv's distribution: among NumPy's generators, only
uniform in [0, 1) is cheaper. Prints "cases N seconds S cases_per_second R". Run it with
OPENBLAS_NUM_THREADS=1 for one core.
"""
import json
import sys
import time

import numpy as np


def cases(path):
    out = []
    with open(path) as f:
        for line in f:
            check = json.loads(line)
            dims = [int(x) for x in check["shape"].split("x")]
            lead = tuple(dims[:-3])  # (BATCH,) for a batched case: NumPy's stacked matmul
            m, n, k = dims[-3:]
            rows = check.get("slice", {"start": 0, "len": 1})
            out.append((lead, m, n, k, check["trans_a"], check["trans_b"], check["pad"], check["bias"],
                        slice(rows["start"], rows["start"] + rows["len"])))
    return out


def operand(rng, lead, rows, cols, transposed, pad):
    """op(X), rows x cols, stored by rows of the stored matrix plus `pad` unused elements each."""
    stored_rows, stored_cols = (cols, rows) if transposed else (rows, cols)
    stored = rng.standard_normal(lead + (stored_rows, stored_cols + pad), dtype=np.float32)[..., :stored_cols]
    # transposed: NumPy hands BLAS the transposed layout, as fpdiv does
    return stored.swapaxes(-1, -2) if transposed else stored


def slice_rows(rng, lead, m, n, k, trans_a, trans_b, pad, bias, rows):
    a = operand(rng, lead, m, k, trans_a, pad)
    b = operand(rng, lead, k, n, trans_b, pad)
    full = a @ b
    part = a[..., rows, :] @ b
    if bias:
        add = rng.standard_normal(n, dtype=np.float32)
        full += add
        part += add
    return np.array_equal(full[..., rows, :].view(np.uint32), part.view(np.uint32))


def addmm(rng, lead, m, n, k, trans_a, trans_b, pad, bias, rows):
    a = operand(rng, lead, m, k, trans_a, pad)
    b = operand(rng, lead, k, n, trans_b, pad)
    add = rng.standard_normal(n, dtype=np.float32)
    first = a @ b + add
    ones = np.ones(lead + (m, 1), np.float32)
    fused = np.concatenate([a, ones], axis=-1) @ np.concatenate([b, np.broadcast_to(add, lead + (1, n))], axis=-2)
    return np.array_equal(first.view(np.uint32), fused.view(np.uint32))


def main():
    relation, path, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    work = {"slice-rows": slice_rows, "addmm": addmm}[relation]
    listed = cases(path)
    rng = np.random.default_rng(1)
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for case in listed:
            work(rng, *case)
            done += 1
            if done % 64 == 0 and time.perf_counter() - start >= seconds:
                break
    elapsed = time.perf_counter() - start
    print(f"cases {done} seconds {elapsed:.2f} cases_per_second {done / elapsed:.1f}")


if __name__ == "__main__":
    main()
