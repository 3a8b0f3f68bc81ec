#!/usr/bin/env python3
"""torch_mkl.py — PyTorch's CPU matmul against fpdiv's `mkl` backend, output hash for output hash.

PyTorch's CPU torch.mm / torch.addmm / F.linear run oneMKL (linked into the torch wheel). For each
shape below, fpdiv generates the case's inputs, `fpdiv export` writes them as .npy files, torch
computes the product on one thread, and this script hashes torch's output bytes with XXH3-64, the
hash `fpdiv check` reports for its outputs.

  torch_mkl.py record FPDIV            print the table (tests/cli/data/torch_mkl.tsv) for this machine
  torch_mkl.py compare FPDIV TABLE     torch here against the table: exit 1 on a mismatch

Needs torch and xxhash (pip install torch xxhash). Every row runs under one MKL code path:
COMPATIBLE (MKL_CBWR=COMPATIBLE, the same bits on every x86-64 CPU), AUTO (the CPU's own
reproducible path) or OFF (MKL's default, the CPU's own fastest path). AUTO and OFF rows name the
CPU class they were recorded on, and are compared only on that class.

  torch_mkl.py cpu                     this machine's CPU class, as the table names it
"""
import json
import os
import subprocess
import sys
import tempfile

# op, dtype, shape (MxNxK), transposed B: F.linear(x, W, b) multiplies by W.t(), a transposed view
ROWS = [
    ("mm", "f32", "2x3x5", False),
    ("mm", "f32", "4x256x192", False),
    ("mm", "f32", "4x256x193", False),
    ("mm", "f32", "13x1000x1000", False),
    ("mm", "f32", "1x300x700", False),
    ("mm", "f64", "16x16x400", False),
    ("addmm", "f32", "4x256x192", False),
    ("addmm", "f32", "4x256x193", False),
    ("addmm", "f32", "37x64x515", False),
    ("linear", "f32", "8x64x300", True),
]
CODE_PATHS = ["COMPATIBLE", "AUTO", "OFF"]
GENERATOR = "3"  # the inputs of generator version 3: a newer generator must not change the table


def cpu_class():
    """What MKL's own code path depends on: the vendor and the widest vector ISA."""
    vendor, flags = "unknown", set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key.strip() == "vendor_id":
                vendor = value.strip()
            elif key.strip() == "flags":
                flags = set(value.split())
                break
    isa = "avx512" if "avx512f" in flags else "avx2" if "avx2" in flags else "sse"
    return f"{vendor}/{isa}"


def export_inputs(fpdiv, op, dtype, shape, trans_b, work):
    """The case's inputs as fpdiv generates them (seed 1, index 0), as numpy arrays."""
    import numpy as np

    corpus, out = os.path.join(work, "corpus"), os.path.join(work, "export")
    args = [fpdiv, "check", "--relation", "repeat", "--backend", "seq", "--shape", shape, "--dtype", dtype,
            "--seed", "1", "--generator", GENERATOR, "--save", corpus, "--fail-on", "never"]
    if trans_b:
        args.append("--trans-b")
    if op != "mm":
        args.append("--bias")
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    (case,) = [os.path.join(d, f) for d, _, fs in os.walk(corpus) for f in fs if f.endswith(".json")]
    subprocess.run([fpdiv, "export", case, "--to", "torch", "-o", out], check=True, stdout=subprocess.DEVNULL)
    a, b = np.load(os.path.join(out, "A.npy"))[0], np.load(os.path.join(out, "B.npy"))[0]
    bias = np.load(os.path.join(out, "bias.npy")) if op != "mm" else None
    return a, b, bias


def torch_output(op, a, b, bias):
    import torch

    torch.set_num_threads(1)
    a, b = torch.from_numpy(a), torch.from_numpy(b)
    if op == "mm":
        return torch.mm(a, b)
    if op == "addmm":
        return torch.addmm(torch.from_numpy(bias), a, b)
    weight = b.t().contiguous()  # stored n x k, as a Linear layer's weight
    return torch.nn.functional.linear(a, weight, torch.from_numpy(bias))


def run_row(fpdiv, row, work):
    """torch's output hash for one row, computed in a child that runs under the code path."""
    import xxhash

    op, dtype, shape, trans_b = row
    a, b, bias = export_inputs(fpdiv, op, dtype, shape, trans_b, work)
    out = torch_output(op, a, b, bias).numpy()
    return "%016x" % xxhash.xxh3_64_intdigest(out.tobytes())


def hashes(fpdiv, code_path):
    """Every row's hash in a fresh interpreter: oneMKL reads MKL_CBWR once, at its first call."""
    env = dict(os.environ)
    env.pop("MKL_CBWR", None)
    if code_path != "OFF":  # OFF is the variable unset: MKL reads any value, OFF too, as AUTO
        env["MKL_CBWR"] = code_path
    child = subprocess.run([sys.executable, __file__, "_rows", fpdiv], env=env, check=True, capture_output=True,
                           text=True)
    return json.loads(child.stdout)


def record(fpdiv):
    import torch

    print("# torch.mm / torch.addmm / F.linear output hashes (XXH3-64), one thread; tests/cli/torch_mkl.py")
    print(f"# recorded with torch {torch.__version__} ({torch.backends.mkl.is_available() and 'MKL'}) on {cpu_class()}")
    print("# op\tdtype\tshape\ttrans_b\tcode_path\tcpu\thash")
    for code_path in CODE_PATHS:
        cpu = "any" if code_path == "COMPATIBLE" else cpu_class()
        for row, h in zip(ROWS, hashes(fpdiv, code_path)):
            op, dtype, shape, trans_b = row
            print(f"{op}\t{dtype}\t{shape}\t{int(trans_b)}\t{code_path}\t{cpu}\t{h}")


def compare(fpdiv, table):
    want = {}
    with open(table) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            op, dtype, shape, trans_b, code_path, cpu, h = line.split()
            want[(op, dtype, shape, trans_b == "1", code_path)] = (cpu, h)
    failed = 0
    for code_path in CODE_PATHS:
        for row, got in zip(ROWS, hashes(fpdiv, code_path)):
            cpu, h = want.get(row + (code_path,), (None, None))
            if cpu not in ("any", cpu_class()):
                continue  # OFF is the CPU's own path: recorded on another class
            ok = h == got
            failed += not ok
            print(f"{'ok' if ok else 'MISMATCH'} {code_path} {' '.join(map(str, row))}: torch {got}, table {h}")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "_rows":
        with tempfile.TemporaryDirectory() as work:
            print(json.dumps([run_row(sys.argv[2], row, os.path.join(work, str(i))) for i, row in enumerate(ROWS)]))
    elif sys.argv[1:] == ["cpu"]:
        print(cpu_class())
    elif len(sys.argv) == 3 and sys.argv[1] == "record":
        record(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
