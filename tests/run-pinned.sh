#!/usr/bin/env bash
# The CLI suite and the corpus replay again with OpenBLAS made to pick another kernel set than it
# picks on this CPU (OPENBLAS_CORETYPE), so that no test depends on the one it picks. CI runs it
# for two of the kernel sets this CPU runs: an older one (Sandybridge: AVX, no FMA) and the widest
# (an AVX-512 set where the CPU has one; Prescott's kernels, which the tests pin, where not).
# BLIS and oneMKL are pinned to their sets of the same class of CPU (BLIS_ARCH_TYPE, MKL_CBWR: for
# Sandybridge, sandybridge and AVX), and fpdiv's own vector paths narrowed to it
# (FPDIV_VECTOR_WIDTH): a run pinned to Sandybridge is an AVX machine's as a whole.
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
# fpdiv's vector paths, BLIS's configuration and oneMKL's code path on the CPUs an OpenBLAS kernel
# set is for (fpdiv has no paths between baseline and AVX2; the classes of backend_pinned.c)
class_of() {
    case $1 in
    SkylakeX | Cooperlake | SapphireRapids) echo "avx512 skx AVX512" ;;
    Haswell | Zen | Excavator) echo "avx2 haswell AVX2" ;;
    Sandybridge) echo "baseline sandybridge AVX" ;;
    Nehalem) echo "baseline penryn SSE4_2" ;;
    *) echo "baseline generic COMPATIBLE" ;;
    esac
}
status=0
replayed=$(mktemp) committed_dir=$(mktemp -d)
trap 'rm -rf "$replayed" "$committed_dir"' EXIT
# the starter cases as committed, whatever a user's campaigns have added to corpus/
committed=$("$(dirname "$0")/committed-corpus.sh" "$committed_dir/cases") || exit 2
for core in "${cores[@]}"; do
    read -r width blis mkl <<<"$(class_of "$core")"
    export OPENBLAS_CORETYPE=$core BLIS_ARCH_TYPE=$blis MKL_CBWR=$mkl FPDIV_VECTOR_WIDTH=$width
    echo "=== OPENBLAS_CORETYPE=$core BLIS_ARCH_TYPE=$blis MKL_CBWR=$mkl FPDIV_VECTOR_WIDTH=$width"
    FPDIV=$FPDIV "$(dirname "$0")/cli/run.sh" || status=1
    $FPDIV replay "$committed" >"$replayed" || status=1
    tail -1 "$replayed"
    grep -E '^(changed|fixed|worse) ' "$replayed" && status=1
done
exit $status
