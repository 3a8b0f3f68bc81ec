#!/usr/bin/env bash
# Records the starter corpus that `make test` replays: every case pinned to what makes it portable.
# OpenBLAS runs kernel sets any x86-64 CPU (Prescott) or any AVX2 CPU (Haswell, Sandybridge) runs,
# on one thread, so `fpdiv replay corpus` says reproduced on every machine that can run them and
# elsewhere, never fixed, on any other. The seeds are fixed: on any machine that runs those three
# kernel sets the script records the same cases.
# Usage: FPDIV=build/fpdiv scripts/record-corpus.sh DIR   (DIR must not exist yet)
set -euo pipefail
FPDIV=${FPDIV:-build/fpdiv}
out=${1:?usage: scripts/record-corpus.sh DIR}
if [ -e "$out" ]; then
    echo "record-corpus: $out exists; give a new directory" >&2
    exit 2
fi
# --threads 2: the threads relation's most threads, which otherwise follow the machine's cores; --jobs 1:
# the first case of a signature is the first found, not the one whichever worker reported first
campaign() { "$FPDIV" fuzz --fail-on never --max-dim 64 --threads 2 --jobs 1 --corpus "$out" "$@" | grep -E '^corpus '; }
campaign --seed 2026 --cases 4000 --core Prescott
campaign --seed 2027 --cases 4000 --core Haswell
campaign --seed 2028 --cases 3000 --relations core --core Haswell,Prescott,Sandybridge
campaign --seed 2029 --cases 600 --max-dim 32 --relations cast-out --dtypes f16,bf16 --core Prescott
echo "record-corpus: $(find "$out" -name '*.json' | wc -l) cases in $out"
