#!/usr/bin/env bash
# The CLI suite and the corpus replay again with OpenBLAS made to pick another kernel set than it
# picks on this CPU (OPENBLAS_CORETYPE), so that no test depends on the one it picks. CI runs it
# for two of the kernel sets this CPU runs: an older one (Sandybridge: AVX, no FMA) and the widest
# (an AVX-512 set where the CPU has one; Prescott's kernels, which the tests pin, where not).
# fpdiv's own vector paths are narrowed to the kernel set's class of CPU (FPDIV_VECTOR_WIDTH):
# a run pinned to Sandybridge is an AVX machine's as a whole, fpdiv's baseline paths included.
# Usage: FPDIV=build/fpdiv tests/run-pinned.sh [CORE...]   (default: two this CPU runs, not its own)
set -u
FPDIV=${FPDIV:-build/fpdiv}
cores=("$@")
if [ ${#cores[@]} -eq 0 ]; then
    mapfile -t cores < <($FPDIV env --json | python3 -c '
import json, sys
o = json.load(sys.stdin)["backends"]["openblas"]
runs = [c for c in o["kernel_sets"]["runs"] if c != o["kernel_set"]]
widest = [c for c in ("Cooperlake", "SkylakeX") if c in runs][:1]
prefer = [c for c in ["Sandybridge"] + widest + ["Prescott", "Haswell", "Nehalem", "Zen"] if c in runs]
print("\n".join((prefer + [c for c in runs if c not in prefer])[:2]))')
fi
if [ ${#cores[@]} -eq 0 ]; then
    echo "run-pinned: this CPU runs no kernel set of OpenBLAS's but its own" >&2
    exit 1
fi
# fpdiv's vector paths on the CPUs a kernel set is for (fpdiv has none between baseline and AVX2)
vector_width_of() {
    case $1 in
    SkylakeX | Cooperlake | SapphireRapids) echo avx512 ;;
    Haswell | Zen | Excavator) echo avx2 ;;
    *) echo baseline ;;
    esac
}
status=0
replayed=$(mktemp)
trap 'rm -f "$replayed"' EXIT
for core in "${cores[@]}"; do
    export OPENBLAS_CORETYPE=$core FPDIV_VECTOR_WIDTH=$(vector_width_of "$core")
    echo "=== OPENBLAS_CORETYPE=$core FPDIV_VECTOR_WIDTH=$FPDIV_VECTOR_WIDTH"
    FPDIV=$FPDIV "$(dirname "$0")/cli/run.sh" || status=1
    $FPDIV replay corpus >"$replayed" || status=1
    tail -1 "$replayed"
    grep -E '^(changed|fixed|worse) ' "$replayed" && status=1
done
exit $status
