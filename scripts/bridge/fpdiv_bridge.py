#!/usr/bin/env python3
"""fpdiv_bridge.py — the bridge's server: one framework's matrix products, served to fpdiv.

fpdiv runs `PYTHON fpdiv_bridge.py FRAMEWORK` (a module of frameworks/, or a file NAME.py) with a
connected socket on descriptor 3 and a shared-memory file on descriptor 4. On the socket each side
writes JSON objects, one per line (protocol 1):

  server -> fpdiv, once:  {"hello": 1, "framework": "torch", "provenance": {"library": "PyTorch",
                          "version": "2.5.1", ...}, "dtypes": [["f32", "f32", "f32"], ...],
                          "features": ["fused_bias", "routes", "vmap", "compile"]}
                          or {"hello": 1, "error": "why it cannot serve"}
  fpdiv -> server:        {"op": "gemm", "seq": 7, "memory": BYTES, "dtype": ["bf16", "bf16", "f32"],
                          "batch": 1, "m": 4, "n": 8, "k": 300, "threads": 1, "route": "gemm",
                          "execution": "default",
                          "a": {"offset": 0, "trans": false, "ld": 300, "stride": 1200},
                          "b": {...}, "c": {"offset": ..., "ld": 8, "stride": 32},
                          "bias": {"offset": ...} or null}
  server -> fpdiv:        {"seq": 7, "ok": true}  or  {"seq": 7, "ok": false, "why": "..."}

A, B and bias are in the input and output types ("in", "out" of "dtype"), stored row-major: A is
m x k in rows of `ld` elements (k x m when `trans`: the operand is its transpose), B is k x n (n x k
when `trans`), batch entries `stride` elements apart. The server writes C (m x n, out type) and
nothing else. bf16 travels as its 16 bits. The framework module computes; this file only moves
bytes. A framework is a module with:

  NAME, PROVENANCE() -> {key: value} (library, version, device, ...), DTYPES: [(in, out, acc)],
  FEATURES: a set of "fused_bias" (its bias is fused, as torch.addmm's), "bias_added" (it adds the
  bias to the rounded product), "routes" (one row, column or element as a product of its own),
  "vmap", "compile", "threads",
  matmul(a, b, bias, route, execution, dtypes, threads) -> an array-like of (batch, m, n) values

where a and b are NumPy views of the shared memory (batch x m x k, batch x k x n, with the stored
layout: a transposed operand is a transposed view; bf16 as the float32 values it stands for,
exactly), bias a vector of n or None, route one of "gemm", "gemv-rows", "gemv-cols", "dot",
"vmap-rows", execution "default", "eager" or "compiled", dtypes the request's [in, out, acc] and
threads the thread count (0: the framework's own). A failure raises; its message is the error.
"""
import importlib.util
import json
import mmap
import os
import socket
import sys
import traceback

import numpy as np

PROTOCOL = 1
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


def operand(memory, spec, dtype, batch, rows, cols):
    """The logical rows x cols operand of every batch entry, as a view of the shared memory."""
    storage = np.dtype(STORAGE[dtype])
    size = storage.itemsize
    stored_rows, stored_cols = (cols, rows) if spec["trans"] else (rows, cols)
    view = np.ndarray((batch, stored_rows, stored_cols), dtype=storage, buffer=memory, offset=spec["offset"],
                      strides=(spec["stride"] * size, spec["ld"] * size, size))
    if spec["trans"]:
        view = view.transpose(0, 2, 1)
    return bf16_bits_to_f32(view) if dtype == "bf16" else view


def store(memory, spec, dtype, result, batch, m, n):
    storage = np.dtype(STORAGE[dtype])
    size = storage.itemsize
    c = np.ndarray((batch, m, n), dtype=storage, buffer=memory, offset=spec["offset"],
                   strides=(spec["stride"] * size, spec["ld"] * size, size))
    values = np.asarray(result)
    if values.shape != (batch, m, n):
        raise ValueError(f"the framework returned shape {values.shape}, not {(batch, m, n)}")
    c[...] = f32_to_bf16_bits(values.astype(np.float32)) if dtype == "bf16" else values.astype(storage)


def gemm(framework, memory, req):
    dt_in, dt_out, _ = req["dtype"]
    batch, m, n, k = req["batch"], req["m"], req["n"], req["k"]
    a = operand(memory, req["a"], dt_in, batch, m, k)
    b = operand(memory, req["b"], dt_in, batch, k, n)
    bias = None
    if req.get("bias") is not None:
        bias = operand(memory, {"offset": req["bias"]["offset"], "trans": False, "ld": n, "stride": n}, dt_out, 1, 1, n)
        bias = bias[0, 0]
    result = framework.matmul(a, b, bias=bias, route=req["route"], execution=req["execution"], dtypes=req["dtype"],
                              threads=req.get("threads", 0))
    store(memory, req["c"], dt_out, result, batch, m, n)


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
              "dtypes": [list(d) for d in framework.DTYPES], "features": sorted(framework.FEATURES)})
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
        try:
            gemm(framework, memory, req)
            send({"seq": req["seq"], "ok": True})
        except Exception as e:
            detail = traceback.format_exception_only(type(e), e)[-1].strip()
            send({"seq": req["seq"], "ok": False, "why": detail[:400]})


if __name__ == "__main__":
    main()
