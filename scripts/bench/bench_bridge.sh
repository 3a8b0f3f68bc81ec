#!/usr/bin/env bash
# Checks per second through the bridge against a plain Python loop doing the same checks with the
# framework, side by side in one run: slice-rows on NumPy, f32, shapes up to max-dim 64, 256, 1024. fpdiv
# generates, compares and bounds in C, the framework computing only the two products (one worker,
# so one server; --exact never, as the loop has no exact reference); the loop draws the same
# kind of case with NumPy's generator, computes both paths, counts the differing elements and
# judges them against the same bound (gamma_k |A||B| per element), in Python. ROUNDS times in
# turn; medians.
# Usage: FPDIV=build/fpdiv scripts/bench/bench_bridge.sh [SECONDS per run, default 5] [ROUNDS, default 3]
set -eu
FPDIV=${FPDIV:-build/fpdiv}
SECONDS_PER_RUN=${1:-5}
ROUNDS=${2:-3}
PYTHON=${FPDIV_PYTHON:-.venv/bin/python}
"$FPDIV" list | grep -qE "^  numpy +cpu available" || { echo "bench_bridge: numpy is unavailable here (fpdiv list)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/loop.py" <<'PY'
import sys, time
import numpy as np
seconds, max_dim = float(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(1)
u = np.finfo(np.float32).eps / 2
checks, diverging, start = 0, 0, time.perf_counter()
while time.perf_counter() - start < seconds:
    m, n, k = (int(rng.integers(1, max_dim + 1)) for _ in range(3))
    m = max(m, 2)
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    row = int(rng.integers(0, m))
    p, q = (a @ b)[row], a[row] @ b  # slice-rows: after vs before
    bound = 2 * (k * u / (1 - k * u)) * (np.abs(a[row]).astype(np.float64) @ np.abs(b).astype(np.float64))
    ratio = np.max(np.abs(p.astype(np.float64) - q) / np.where(bound > 0, bound, np.inf))
    diverging += int(np.any(p != q))
    checks += 1
print(f"{checks / (time.perf_counter() - start):.0f}")
PY
echo "slice-rows on NumPy, f32, one process: checks/s, medians of $ROUNDS rounds of $SECONDS_PER_RUN s each"
printf '  %-8s %12s %12s %8s\n' max-dim bridge loop ratio
for dim in 64 256 1024; do
    : >"$tmp/rounds"
    for round in $(seq "$ROUNDS"); do
        "$FPDIV" fuzz --no-corpus --seed 1 --max-dim "$dim" --relations slice-rows --backends numpy --dtypes f32 \
            --exact never --jobs 1 --time "$SECONDS_PER_RUN" 2>/dev/null |
            sed -nE 's/^[0-9]+ checks in [0-9.]+ s \(([0-9]+)\/s\).*/bridge \1/p' >>"$tmp/rounds"
        echo "loop $("$PYTHON" "$tmp/loop.py" "$SECONDS_PER_RUN" "$dim")" >>"$tmp/rounds"
    done
    python3 - "$dim" "$tmp/rounds" <<'PY'
import collections, statistics, sys
rate = collections.defaultdict(list)
for way, value in (line.split() for line in open(sys.argv[2])):
    rate[way].append(float(value))
bridge, loop = statistics.median(rate["bridge"]), statistics.median(rate["loop"])
print(f"  {sys.argv[1]:<8} {bridge:10.0f}/s {loop:10.0f}/s {bridge / loop:8.2f}")
PY
done
