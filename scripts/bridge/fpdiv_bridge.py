#!/usr/bin/env python3
"""fpdiv_bridge.py — the bridge's server: one framework's matrix products, served to fpdiv.

fpdiv runs `PYTHON fpdiv_bridge.py FRAMEWORK` (a module of frameworks/, or a file NAME.py) with a
connected socket on descriptor 3 and a shared-memory file on descriptor 4. On the socket each side
writes JSON objects, one per line (protocol 2):

  server -> fpdiv, once:  {"hello": 2, "framework": "torch", "provenance": {"library": "PyTorch",
                          "version": "2.5.1", ...}, "dtypes": [["f32", "f32", "f32"], ...],
                          "features": ["fused_bias", "routes", "vmap", "compile"], "codes": CODES}
                          or {"hello": 2, "error": "why it cannot serve"}
  fpdiv -> server:        {"op": "gemm", "seq": 7, "memory": BYTES, "progress": 0, "table": 64, "count": 3,
                          "concurrent": false}
  server -> fpdiv:        {"seq": 7, "results": [{"ok": true}, {"ok": false, "why": "..."}, ...]}

A request carries `count` independent GEMMs (the small ones of several checks: a round trip costs
more than their products), answered in one line, a result for each, in order; one whose
"concurrent" is true runs them from as many threads at once, started together (the concurrent
relation: a framework called from several threads, as a threaded server calls it). They are described
in the shared memory at `table`: a row of 64-bit integers each, FIELDS below (offsets in bytes,
the rest in elements; a type, route or execution by its place in DTYPE, ROUTE, EXECUTION; bias -1
when there is none). The hello's "codes" names them all in order, and fpdiv refuses a server that
reads them otherwise. As it goes the server writes one byte for each GEMM at `progress` in the
shared memory: 1 when it begins, 2 when it is done, 3 when the framework raised. If the server
dies or hangs, fpdiv reads them: the GEMMs done stand, the one it was at fails with the reason,
the others go to a new server.

A, B and bias are in the input and output types ("in", "out" of "dtype"), stored row-major: A is
m x k in rows of `ld` elements (k x m when `trans`: the operand is its transpose), B is k x n (n x k
when `trans`), batch entries `stride` elements apart. The server writes C (m x n, out type) and
nothing else. bf16 travels as its 16 bits. The framework module computes; this file only moves
bytes. A framework is a module with:

  NAME, PROVENANCE() -> {key: value} (library, version, device, ...), DTYPES: [(in, out, acc)],
  FEATURES: a set of "fused_bias" (its bias is fused, as torch.addmm's), "bias_added" (it adds the
  bias to the rounded product), "routes" (one row, column or element as a product of its own),
  "vmap", "compile", "threads", "out_views" (the product written through out= a strided or a
  transposed view), "out_reversed" (out= a view of negative strides), "concurrent" (matmul may be
  called from several threads at once), "scalars" (its own alpha and beta, as torch.addmm's),
  matmul(a, b, bias, route, execution, dtypes, threads) -> an array-like of (batch, m, n) values
  (with "scalars", also a keyword scalars=None, below)

where a and b are NumPy views of the shared memory (batch x m x k, batch x k x n, with the stored
layout: a transposed operand is a transposed view; bf16 as the float32 values it stands for,
exactly), bias a vector of n or None, route one of "gemm", "gemv-rows", "gemv-cols", "dot",
"vmap-rows", "out-strided" (out= every other column of a (batch, m, 2n) array), "out-transposed"
(out= the transpose of a (batch, n, m) array), "out-reversed" (out= a (batch, m, n) array with its
rows and columns reversed), execution "default", "eager" or "compiled", dtypes the request's [in, out, acc] and
threads the thread count (0: the framework's own). A failure raises; its message is the error.
scalars, for a framework with "scalars" on route "gemm" (the alpha-beta relation's second path),
is None or (alpha, beta, prior): return alpha * a @ b + beta * bias where there is a bias (prior
None), else alpha * a @ b with beta 0, prior (batch x m x n) being what C held before: NaN or an
infinity the product must not read, as BLAS's beta = 0 and torch.addmm's beta=0 promise. alpha and
beta are powers of two, alpha of either sign (fields alpha_exp, beta_exp and alpha_negative, 0 for
every other product).
"""
import importlib.util
import json
import mmap
import os
import socket
import sys
import threading
import traceback

import numpy as np

import fpenv

PROTOCOL = 2
RUNNING, DONE, RAISED = 1, 2, 3  # the progress bytes
FIELDS = ("in", "out", "acc", "batch", "m", "n", "k", "threads", "route", "execution",
          "a", "a_trans", "a_ld", "a_stride", "b", "b_trans", "b_ld", "b_stride", "c", "c_ld", "c_stride", "bias",
          "alpha_exp", "beta_exp", "alpha_negative")
DTYPE = ("f64", "f32", "f16", "bf16")
ROUTE = ("gemm", "gemv-rows", "gemv-cols", "dot", "vmap-rows", "syrk",  # syrk, gemmt-*, gemm-col-major: never
         "out-strided", "out-transposed", "out-reversed", "gemmt-upper", "gemmt-lower",  # sent (no such feature)
         "gemm-col-major")
EXECUTION = ("default", "eager", "compiled")
SOCKET_FD, MEMORY_FD = 3, 4
STORAGE = {"f64": np.float64, "f32": np.float32, "f16": np.float16, "bf16": np.uint16}


def bf16_bits_to_f32(bits):
    """bfloat16 bits as the float32 values they stand for (exact)."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16_bits(x):
    """float32 values rounded to bfloat16 (nearest even; NaN stays NaN), as 16 bits."""
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.asarray(x, dtype=np.float32))
    return np.where(nan, ((u >> 16) | 0x40).astype(np.uint16), rounded)


def load_framework(name):
    here = os.path.dirname(os.path.abspath(__file__))
    path = name if name.endswith(".py") else os.path.join(here, "frameworks", name + ".py")
    if name.endswith(".py"):  # a user's framework may import its neighbours (after the real packages)
        sys.path.append(os.path.dirname(path))
    spec = importlib.util.spec_from_file_location("fpdiv_framework", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def operand(memory, offset, trans, ld, stride, dtype, batch, rows, cols):
    """The logical rows x cols operand of every batch entry, as a view of the shared memory."""
    storage = np.dtype(STORAGE[dtype])
    size = storage.itemsize
    stored_rows, stored_cols = (cols, rows) if trans else (rows, cols)
    view = np.ndarray((batch, stored_rows, stored_cols), dtype=storage, buffer=memory, offset=offset,
                      strides=(stride * size, ld * size, size))
    if trans:
        view = view.transpose(0, 2, 1)
    return bf16_bits_to_f32(view) if dtype == "bf16" else view


def store(memory, offset, ld, stride, dtype, result, batch, m, n):
    storage = np.dtype(STORAGE[dtype])
    size = storage.itemsize
    c = np.ndarray((batch, m, n), dtype=storage, buffer=memory, offset=offset, strides=(stride * size, ld * size, size))
    values = np.asarray(result)
    if values.shape != (batch, m, n):
        raise ValueError(f"the framework returned shape {values.shape}, not {(batch, m, n)}")
    if dtype == "bf16":
        c[...] = f32_to_bf16_bits(values.astype(np.float32))
    else:
        np.copyto(c, values, casting="unsafe")


def gemm(framework, memory, row):
    """One GEMM of a request: `row` is its fields, FIELDS."""
    (t_in, t_out, t_acc, batch, m, n, k, threads, route, execution, a, a_trans, a_ld, a_stride,
     b, b_trans, b_ld, b_stride, c, c_ld, c_stride, bias, alpha_exp, beta_exp, alpha_negative) = row
    dt_in, dt_out = DTYPE[t_in], DTYPE[t_out]
    a = operand(memory, a, a_trans, a_ld, a_stride, dt_in, batch, m, k)
    b = operand(memory, b, b_trans, b_ld, b_stride, dt_in, batch, k, n)
    bias = None if bias < 0 else operand(memory, bias, False, n, n, dt_out, 1, 1, n)[0, 0]
    more = {}
    if alpha_exp or beta_exp or alpha_negative:  # the alpha-beta relation's path
        alpha = -(2.0 ** alpha_exp) if alpha_negative else 2.0 ** alpha_exp
        if "scalars" not in framework.FEATURES:
            raise ValueError(f"fpdiv sent alpha and beta to {framework.NAME}, whose FEATURES lack \"scalars\"")
        if bias is None:  # beta 0 on what C held, in a copy (C is written below)
            more["scalars"] = (alpha, 0.0, np.array(operand(memory, c, False, c_ld, c_stride, dt_out, batch, m, n)))
        else:
            more["scalars"] = (alpha, 2.0 ** beta_exp, None)
    result = framework.matmul(a, b, bias=bias, route=ROUTE[route], execution=EXECUTION[execution],
                              dtypes=[dt_in, dt_out, DTYPE[t_acc]], threads=threads, **more)
    store(memory, c, c_ld, c_stride, dt_out, result, batch, m, n)


def run_one(framework, memory, progress, rows, i, results, start):
    """GEMM i of a request, its progress byte and its result; after the others' arrival at `start`
    where the request runs them at once."""
    if start is not None:
        start.wait()
    memory[progress + i] = RUNNING
    try:
        try:
            gemm(framework, memory, rows[i])
        finally:
            fpenv.restore_default()  # for the calls after it (fpenv.py)
        memory[progress + i] = DONE
        results[i] = {"ok": True}
    except Exception as e:
        memory[progress + i] = RAISED
        detail = traceback.format_exception_only(type(e), e)[-1].strip()
        results[i] = {"ok": False, "why": detail[:400]}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: fpdiv_bridge.py FRAMEWORK (fpdiv starts it; see the README)")
    channel = socket.socket(fileno=SOCKET_FD)
    reader = channel.makefile("rb")  # bytes: json reads UTF-8 itself

    def send(obj):
        channel.sendall((json.dumps(obj) + "\n").encode())

    try:
        framework = load_framework(sys.argv[1])
        send({"hello": PROTOCOL, "framework": framework.NAME, "provenance": framework.PROVENANCE(),
              "dtypes": [list(d) for d in framework.DTYPES], "features": sorted(framework.FEATURES),
              "codes": {"fields": FIELDS, "dtype": DTYPE, "route": ROUTE, "execution": EXECUTION}})
    except Exception as e:  # the framework is not installed, or fails to start: fpdiv says why
        send({"hello": PROTOCOL, "error": f"{type(e).__name__}: {e}"})
        return
    memory, mapped = None, 0
    for line in reader:
        req = json.loads(line)
        if req.get("op") == "bye":
            break
        if req["memory"] > mapped:
            memory = mmap.mmap(MEMORY_FD, req["memory"])
            mapped = req["memory"]
        progress, count = req["progress"], req["count"]
        table = np.frombuffer(memory, dtype=np.int64, count=count * len(FIELDS), offset=req["table"])
        rows = table.reshape(count, len(FIELDS)).tolist()
        results = [None] * count
        if req.get("concurrent"):  # each from a thread of its own, all started together
            start = threading.Barrier(count)
            callers = [threading.Thread(target=run_one, args=(framework, memory, progress, rows, i, results, start))
                       for i in range(count)]
            for caller in callers:
                caller.start()
            for caller in callers:
                caller.join()
        else:
            for i in range(count):
                run_one(framework, memory, progress, rows, i, results, None)
        send({"seq": req["seq"], "results": results})


if __name__ == "__main__":
    main()
