#!/usr/bin/env bash
# Checks per second on each BLAS library (and on fpdiv's own seq kernel, for scale), one core, side
# by side in one run: the same campaign (slice-rows and addmm, f32, one seed) on each, ROUNDS
# times in turn, medians reported with the GEMM share of the time. A library's rate says what a
# campaign on it costs; the GEMM share, how much of that is the library's own arithmetic.
# BACKENDS, DTYPES and DIMS choose other backends, input types and max-dims: `make bench` also
# runs the tensor-core models, on f16 and bf16 inputs.
# Usage: FPDIV=build/fpdiv scripts/bench/bench_libraries.sh [SECONDS per run, default 3] [ROUNDS, default 3]
set -eu
FPDIV=${FPDIV:-build/fpdiv}
SECONDS_PER_RUN=${1:-3}
ROUNDS=${2:-3}
read -ra libraries <<<"${BACKENDS:-seq openblas refblas blis mkl}"
dtypes=${DTYPES:-f32}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for b in "${libraries[@]}"; do
    "$FPDIV" list | grep -qE "^  $b +cpu available" || { echo "bench_libraries: $b is unavailable here (fpdiv list)"; exit 1; }
done
echo "checks/s per backend: slice-rows and addmm, $dtypes, seed 1, one worker, one thread; medians of $ROUNDS rounds of"
echo "$SECONDS_PER_RUN s, the backends in turn within each round (GEMM %: the share of time in the paths' products)"
printf '  %-9s' max-dim
for b in "${libraries[@]}"; do printf ' %18s' "$b"; done
printf '\n'
for dim in ${DIMS:-64 1024}; do
    : >"$tmp/rounds"
    for round in $(seq "$ROUNDS"); do
        for b in "${libraries[@]}"; do
            "$FPDIV" fuzz --no-corpus --seed 1 --max-dim "$dim" --relations slice-rows,addmm --backends "$b" --dtypes "$dtypes" \
                --exact never --jobs 1 --time "$SECONDS_PER_RUN" 2>/dev/null |
                sed -nE "s/^([0-9]+) checks in ([0-9.]+) s .*/$b \1 \2/p; s/^time in GEMM arithmetic[^:]*: ([0-9.]+)%.*/$b share \1/p" \
                >>"$tmp/rounds"
        done
    done
    python3 - "$dim" "$tmp/rounds" "${libraries[@]}" <<'PY'
import collections, statistics, sys
dim, path, libraries = sys.argv[1], sys.argv[2], sys.argv[3:]
rate, share = collections.defaultdict(list), collections.defaultdict(list)
for words in (line.split() for line in open(path)):
    (share[words[0]].append(float(words[2])) if words[1] == "share"
     else rate[words[0]].append(float(words[1]) / float(words[2])))
def rate_text(r):  # a tensor-core model runs about one check a second at max-dim 1024
    return "%8.0f" % r if r >= 100 else "%8.3g" % r
cells = ["%s (%4.1f%%)" % (rate_text(statistics.median(rate[b])), statistics.median(share[b])) for b in libraries]
print("  %-9s %s" % (dim, " ".join("%18s" % c for c in cells)))
PY
done
