#!/usr/bin/env bash
# Fuzz throughput against a NumPy harness doing the same work on the same cases, one core each,
# side by side in one run; and the share of fpdiv's time spent in GEMM arithmetic.
# Usage: FPDIV=build/fpdiv scripts/bench/bench_fuzz.sh [SECONDS per point, default 10]
set -eu
FPDIV=${FPDIV:-build/fpdiv}
SECONDS_PER_POINT=${1:-10}
PYTHON=$(command -v /usr/bin/python3 || command -v python3)
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$PYTHON" -c 'import numpy' 2>/dev/null; then
    echo "bench_fuzz: NumPy is not installed for $PYTHON (scripts/install-deps.sh installs python3-numpy)"
    exit 1
fi
echo "fuzz throughput, f32, openblas, one core; NumPy $("$PYTHON" -c 'import numpy; print(numpy.__version__)') on the same cases"
printf '  %-10s %7s %12s %12s %8s %8s\n' relation max-dim "fpdiv chk/s" "numpy case/s" ratio "GEMM %"
for dim in 16 64 256 1024; do
    for relation in slice-rows addmm; do
        args=(--no-corpus --seed 1 --max-dim "$dim" --relations "$relation" --backends openblas --dtypes f32 --exact never
              --jobs 1)
        # the timed run prints only its summary; a second run with the same seed lists the cases
        "$FPDIV" fuzz "${args[@]}" --time "$SECONDS_PER_POINT" >"$tmp/run.txt" 2>/dev/null
        "$FPDIV" fuzz "${args[@]}" --cases 400 --json 2>/dev/null | "$PYTHON" -c '
import json, sys
for line in sys.stdin:
    if json.loads(line)["type"] == "check":
        sys.stdout.write(line)' >"$tmp/cases"
        "$PYTHON" - "$tmp/run.txt" >"$tmp/fpdiv" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
rate = re.search(r"checks in [0-9.]+ s \(([0-9]+)/s\)", text).group(1)
share = re.search(r"GEMM arithmetic[^:]*: ([0-9]+)%", text).group(1)
print(rate, share)
PY
        read -r fpdiv_rate gemm_share <"$tmp/fpdiv"
        numpy_rate=$("$PYTHON" scripts/bench_numpy.py "$relation" "$tmp/cases" "$SECONDS_PER_POINT" | awk '{print $6}')
        awk -v r="$relation" -v d="$dim" -v f="$fpdiv_rate" -v n="$numpy_rate" -v g="$gemm_share" \
            'BEGIN { printf "  %-10s %7d %12.0f %12.0f %7.1fx %7.0f%%\n", r, d, f, n, f / n, g }'
    done
done
