#!/usr/bin/env bash
# Checks per second through the bridge against a plain Python loop doing the same checks with the
# framework, side by side in one run: slice-rows on NumPy, PyTorch and JAX (FRAMEWORKS chooses),
# f32, shapes up to max-dim 64, 256, 1024 (DIMS chooses). fpdiv generates, compares and bounds in
# C, the framework computing only the two products (one worker, so one server; --exact never, as
# the loop has no exact reference); the loop runs the cases fpdiv's campaign begins with (their
# shapes, layouts, padding and row slices, from a listing run with the same seed), has the framework
# compute both paths (from and back to NumPy arrays, as a user's script would), counts the
# differing elements and judges them against the same bound (gamma_k |A||B| per element), in
# Python. ROUNDS times in turn; medians, and the time per check each way, with the loop's time in
# its two calls of the framework: the bridge's overhead per check against calling the framework
# from Python directly is the bridge's time per check less those calls' (fpdiv's generation,
# comparison and bound included, which the loop's NumPy code takes longer for). A server's
# start (about a second for PyTorch; JAX's, and its compilation of each new shape) is in the
# bridge's time: longer runs amortize it.
# Usage: FPDIV=build/fpdiv scripts/bench/bench_bridge.sh [SECONDS per run, default 5] [ROUNDS, default 3]
set -eu
FPDIV=${FPDIV:-build/fpdiv}
SECONDS_PER_RUN=${1:-5}
ROUNDS=${2:-3}
PYTHON=${FPDIV_PYTHON:-.venv/bin/python}
read -ra frameworks <<<"${FRAMEWORKS:-numpy torch jax}"
for f in "${frameworks[@]}"; do
    "$FPDIV" list | grep -qE "^  $f +cpu available" || { echo "bench_bridge: $f is unavailable here (fpdiv list)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/loop.py" <<'PY'
import json, sys, time
import numpy as np
seconds, framework, listing = float(sys.argv[1]), sys.argv[2], sys.argv[3]
if framework == "torch":
    import torch
    torch.set_num_threads(1)
    def matmul(a, b):
        return (torch.from_numpy(a) @ torch.from_numpy(b)).numpy()
elif framework == "jax":
    import jax.numpy as jnp
    def matmul(a, b):
        return np.asarray(jnp.matmul(a, b))
else:
    def matmul(a, b):
        return a @ b
rng = np.random.default_rng(1)
u = np.finfo(np.float32).eps / 2
cases = []
for line in open(listing):  # fpdiv fuzz --json's check lines
    c = json.loads(line)
    dims = [int(x) for x in c["shape"].split("x")]
    rows = c.get("slice", {"start": 0, "len": 1})
    cases.append((tuple(dims[:-3]), *dims[-3:], c["trans_a"], c["trans_b"], c["pad"],
                  slice(rows["start"], rows["start"] + rows["len"])))


def operand(lead, rows, cols, transposed, pad):
    """op(X), rows x cols (a stack of them in a batched case), stored as fpdiv stores it: transposed
    or not, each stored row padded"""
    stored_rows, stored_cols = (cols, rows) if transposed else (rows, cols)
    stored = rng.standard_normal(lead + (stored_rows, stored_cols + pad), dtype=np.float32)[..., :stored_cols]
    return stored.swapaxes(-1, -2) if transposed else stored


checks, diverging, in_framework, start = 0, 0, 0.0, time.perf_counter()
while time.perf_counter() - start < seconds:
    for lead, m, n, k, trans_a, trans_b, pad, rows in cases:
        a, b = operand(lead, m, k, trans_a, pad), operand(lead, k, n, trans_b, pad)
        called = time.perf_counter()
        p, q = matmul(a, b)[..., rows, :], matmul(a[..., rows, :], b)  # slice-rows: after vs before
        in_framework += time.perf_counter() - called
        bound = 2 * (k * u / (1 - k * u)) * (np.abs(a[..., rows, :]).astype(np.float64) @ np.abs(b).astype(np.float64))
        ratio = np.max(np.abs(p.astype(np.float64) - q) / np.where(bound > 0, bound, np.inf))
        diverging += int(np.any(p != q))
        checks += 1
        if time.perf_counter() - start >= seconds:
            break
# as fpdiv's summary says them, checks and seconds; then the seconds in the framework's calls
print(checks, f"{time.perf_counter() - start:.3f}", f"{in_framework:.3f}")
PY
for framework in "${frameworks[@]}"; do
echo "slice-rows on $framework, f32, one process: checks/s, medians of $ROUNDS rounds of $SECONDS_PER_RUN s each"
printf '  %-8s %12s %12s %8s %14s %12s %14s %12s\n' max-dim bridge loop ratio "bridge us/chk" "loop us/chk" \
       "calls us/chk" "overhead us"
for dim in ${DIMS:-64 256 1024}; do
    : >"$tmp/rounds"
    args=(--no-corpus --seed 1 --max-dim "$dim" --relations slice-rows --backends "$framework" --dtypes f32
          --exact never --jobs 1)
    # a run with the same seed lists the cases the timed runs begin with
    "$FPDIV" fuzz "${args[@]}" --cases 100 --json 2>/dev/null | grep '"type": *"check"' >"$tmp/cases"
    for round in $(seq "$ROUNDS"); do
        "$FPDIV" fuzz "${args[@]}" --time "$SECONDS_PER_RUN" 2>/dev/null |
            sed -nE 's/^([0-9]+) checks in ([0-9.]+) s .*/bridge \1 \2/p' >>"$tmp/rounds"
        echo "loop $(OMP_NUM_THREADS=1 XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" \
            "$PYTHON" "$tmp/loop.py" "$SECONDS_PER_RUN" "$framework" "$tmp/cases")" >>"$tmp/rounds"
    done
    python3 - "$dim" "$tmp/rounds" <<'PY'
import collections, statistics, sys
rate, calls = collections.defaultdict(list), []
for way, count, seconds, *in_framework in (line.split() for line in open(sys.argv[2])):
    rate[way].append(float(count) / float(seconds))
    calls += [float(in_framework[0]) / float(count)] if in_framework else []
bridge, loop, call = statistics.median(rate["bridge"]), statistics.median(rate["loop"]), statistics.median(calls)
# the overhead: a check through the bridge against the loop's two calls of the framework alone
print(f"  {sys.argv[1]:<8} {bridge:10.0f}/s {loop:10.0f}/s {bridge / loop:8.2f} {1e6 / bridge:14.1f} {1e6 / loop:12.1f} "
      f"{1e6 * call:14.1f} {1e6 / bridge - 1e6 * call:12.1f}")
PY
done
done
