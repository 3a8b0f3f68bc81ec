#!/usr/bin/env bash
# Fuzz throughput against a NumPy harness doing the same work on the same cases, one core each,
# side by side in one run; and the share of fpdiv's time spent in GEMM arithmetic. Each point runs
# fpdiv and NumPy in turn, ROUNDS times, and reports the medians: on a shared machine either side's
# rate moves by 5-10% from one run to the next.
#
# Once per class of CPU this one can stand in for: as it is (fpdiv's widest vector paths, the
# OpenBLAS kernel set picked here), then as an AVX2-only machine, where this one has more (fpdiv's
# AVX2 paths, FPDIV_VECTOR_WIDTH=avx2, and OpenBLAS's Haswell kernels for fpdiv and NumPy alike,
# OPENBLAS_CORETYPE=Haswell: what OpenBLAS picks on an AVX2 Intel CPU). Each table's heading says
# which paths ran. CLASSES=native or CLASSES=avx2 runs one.
# The regression guards (issue 56), on every class: at max-dim 16, at least 10x the NumPy harness; at
# max-dim 1024, at least 85% of the time in GEMM arithmetic. A guard missed is said, and the script
# exits 1 once every table is out.
# Usage: FPDIV=build/fpdiv scripts/bench/bench_fuzz.sh [SECONDS per run, default 5] [ROUNDS, default 3]
set -euo pipefail
FPDIV=${FPDIV:-build/fpdiv}
SECONDS_PER_RUN=${1:-5}
ROUNDS=${2:-3}
PYTHON=$(command -v /usr/bin/python3 || command -v python3)
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$PYTHON" -c 'import numpy' 2>/dev/null; then
    echo "bench_fuzz: NumPy is not installed for $PYTHON (scripts/install-deps.sh installs python3-numpy)"
    exit 1
fi
widest=$("$FPDIV" env --json | "$PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["vector_width"])')
classes=${CLASSES:-native $([ "$widest" = avx512 ] && echo avx2)}
[ "$widest" = avx512 ] || echo "bench_fuzz: the AVX-512 class is unmeasured here: this CPU's widest vector path is $widest"

# bench_class CLASS: one table, under the class's environment (set by the caller)
bench_class() {
paths=$("$FPDIV" env --json | "$PYTHON" -c '
import json, sys
e = json.load(sys.stdin)
print("fpdiv vector paths", e["vector_width"] + ", OpenBLAS kernel set", e["backends"]["openblas"]["kernel_set"])')
echo
echo "fuzz throughput, class $1: $paths; f32, openblas, one core;"
echo "NumPy $("$PYTHON" -c 'import numpy; print(numpy.__version__)') on the same cases, medians of $ROUNDS alternating runs of $SECONDS_PER_RUN s each"
echo "(ranges: the rounds' own ratios and GEMM shares)"
printf '  %-10s %7s %12s %12s %8s %13s %8s %13s\n' relation max-dim "fpdiv chk/s" "numpy case/s" ratio "ratio range" "GEMM %" \
       "GEMM range"
for dim in ${DIMS:-16 64 256 1024}; do
    for relation in slice-rows addmm; do
        args=(--no-corpus --seed 1 --max-dim "$dim" --relations "$relation" --backends openblas --dtypes f32 --exact never
              --jobs 1)
        # a run with the same seed lists the cases the timed runs begin with
        "$FPDIV" fuzz "${args[@]}" --cases 400 --json 2>/dev/null | "$PYTHON" -c '
import json, sys
for line in sys.stdin:
    if json.loads(line)["type"] == "check":
        sys.stdout.write(line)' >"$tmp/cases"
        : >"$tmp/rounds"
        for round in $(seq "$ROUNDS"); do
            "$FPDIV" fuzz "${args[@]}" --time "$SECONDS_PER_RUN" >"$tmp/run.txt" 2>/dev/null
            numpy_rate=$("$PYTHON" scripts/bench_numpy.py "$relation" "$tmp/cases" "$SECONDS_PER_RUN" | awk '{print $6}')
            "$PYTHON" - "$tmp/run.txt" "$numpy_rate" >>"$tmp/rounds" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
rate = re.search(r"checks in [0-9.]+ s \(([0-9]+)/s\)", text).group(1)
share = re.search(r"GEMM arithmetic[^:]*: ([0-9.]+)%", text).group(1)
print(rate, sys.argv[2], share)
PY
        done
        "$PYTHON" - "$relation" "$dim" "$tmp/rounds" <<'PY'
import statistics, sys
relation, dim, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rounds = [tuple(float(x) for x in line.split()) for line in open(path)]
fpdiv = statistics.median(r[0] for r in rounds)
numpy = statistics.median(r[1] for r in rounds)
share = statistics.median(r[2] for r in rounds)
ratios = [r[0] / r[1] for r in rounds]
shares = [r[2] for r in rounds]
print(f"  {relation:<10} {dim:7d} {fpdiv:12.0f} {numpy:12.0f} {fpdiv / numpy:7.1f}x {min(ratios):5.1f}-{max(ratios):4.1f}x "
      f"{share:7.1f}% {min(shares):6.1f}-{max(shares):4.1f}%")
# the regression guards (issue 56): at max-dim 16, 10x the NumPy harness; at 1024, 85% in GEMMs
guard = {16: (fpdiv / numpy >= 10, f"{fpdiv / numpy:.1f}x the NumPy harness (guard: 10x)"),
         1024: (share >= 85, f"{share:.1f}% of the time in GEMMs (guard: 85%)")}.get(dim)
if guard:
    print(f"    guard {'met' if guard[0] else 'MISSED'}: {relation} at max-dim {dim}, {guard[1]}")
PY
    done
done
}

for class in $classes; do
    case $class in
    native) bench_class native ;;
    avx2) (export FPDIV_VECTOR_WIDTH=avx2 OPENBLAS_CORETYPE=Haswell; bench_class avx2) ;;
    *) echo "bench_fuzz: CLASSES: no class '$class' (native, avx2)"; exit 1 ;;
    esac
done | tee "$tmp/tables"
if grep -q 'guard MISSED' "$tmp/tables"; then
    echo "bench_fuzz: a regression guard was missed (above)"
    exit 1
fi
