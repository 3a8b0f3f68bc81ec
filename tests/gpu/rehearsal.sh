#!/usr/bin/env bash
# A rehearsal of scripts/gpu/check.sh on a stand-in GPU machine, so that a session holding a GPU
# spends none of its minutes on the script's own faults: nvidia-smi names a GPU, and the bundle's
# fpdiv lists the GPU backends available and runs, under each one's name on the command line, a CPU
# stand-in: cuda-seq and cuda-tiled: seq; cuda-splitk: splitk; cuda-wmma: blocked (a tensor-core
# model would take minutes to explain on a CPU, issue 56); cublas: blis; cublaslt: the reference
# BLAS. `device seq,cuda-seq`, one backend twice, becomes `repeat` on it. Every GPU step then runs
# its own logic to its end: tests/gpu/run.sh's queue, the reports' JSON, the frameworks' counts
# (torch and jax on the CPU: GPU_CHECK_FRAMEWORK_DEVICE=cpu), the campaign, its replay and its
# page. Takes minutes:
# not part of `make test` (CI's time); `make gpu-rehearsal` runs it.
# Usage: FPDIV=build/fpdiv tests/gpu/rehearsal.sh [OUT]   (OUT kept for reading; default a temporary one)
set -u
FPDIV=${FPDIV:-build/fpdiv}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$(dirname "$FPDIV")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out_dir=${1:-$tmp/rehearsal}
. "$root/tests/cli/lib.sh"
status_of() { python3 -c 'import json,sys; print(*[s["status"] + ": " + s["detail"] for s in json.load(open(sys.argv[1]))["steps"] if s["name"] == sys.argv[2]])' "$1" "$2"; }

fake=$tmp/bundle
"$root/scripts/gpu/bundle.sh" "$build" "$fake" >/dev/null || { echo "rehearsal: the bundle did not build"; exit 1; }
mkdir -p "$fake/real" "$tmp/bin"
mv "$fake/bin/fpdiv" "$fake/real/fpdiv"
rm -f "$fake/bin/fpdiv-cuda.so"
: >"$fake/bin/fpdiv-cuda.so"  # where tests/gpu/run.sh looks for the plugin; the real binary never sees it
cat >"$fake/bin/fpdiv" <<'SH'
#!/usr/bin/env bash
real=$(dirname "$0")/../real/fpdiv
stand_in() { sed -E 's/\bcublaslt\b/refblas/g; s/\bcublas\b/blis/g; s/\bcuda-seq\b/seq/g; s/\bcuda-tiled\b/seq/g;
                     s/\bcuda-splitk\b/splitk/g; s/\bcuda-wmma\b/blocked/g' <<<"$1"; }
if [ "${1:-}" = list ]; then
    "$real" list | grep -vE '^  (cuda-|cublas)'
    for b in cuda-seq cuda-tiled cuda-splitk cuda-wmma cublas cublaslt; do
        printf '  %-12s gpu available   rehearsal\n                   stand-in: %s\n' $b "$(stand_in $b)"
    done
    exit
fi
# A backend list that names a stand-in twice names it once; `device` (a CPU and a GPU backend)
# becomes `repeat` where one backend is left, `vendor` (two CPU backends) where two are.
args=() backends=2
for a in "$@"; do
    a=$(stand_in "$a")
    if [[ $a =~ ^[a-z0-9@-]+(,[a-z0-9@-]+)+$ ]]; then
        a=$(tr , '\n' <<<"$a" | awk '!seen[$0]++' | paste -sd,)
        [[ $a == *,* ]] || backends=1
    fi
    args+=("$a")
done
for i in "${!args[@]}"; do
    [ "${args[$i]}" = device ] && { [ $backends = 1 ] && args[$i]=repeat || args[$i]=vendor; }
done
exec "$real" "${args[@]}"
SH
chmod +x "$fake/bin/fpdiv"
printf '#!/bin/sh\necho "Stand-in GPU, 9.0, 580.00, 81559 MiB"\n' >"$tmp/bin/nvidia-smi"
chmod +x "$tmp/bin/nvidia-smi"

PATH=$tmp/bin:$PATH GPU_CHECK_FRAMEWORK_DEVICE=cpu "$root/scripts/gpu/check.sh" "$out_dir" --bundle "$fake" --budget 900 >"$tmp/log" 2>&1
echo "rehearsal: $(tail -1 "$tmp/log")"
for s in bundle machine env reports frameworks gpu-tests campaign; do
    got=$(status_of "$out_dir/results.json" $s)
    [[ $got == passed* ]] && pass "$s passed: ${got#passed: }" || fail "$s" "$got"
done
mkdir -p "$tmp/files"
tar -xzf "$out_dir/artifacts.tar.gz" -C "$tmp"
ran=$(grep -c '^PASS device seq,cuda-seq' "$tmp/files/gpu-tests.txt")
[ "$ran" -eq 75 ] && pass "the GPU suite's queue judged every seq,cuda-seq twin check" || fail "queued twins" "$ran of 75"
reports=$(grep -c '"verdict"' "$tmp/files/reports.jsonl")
[ "$reports" -ge 9 ] && pass "$reports report checks, each a verdict" || fail "reports" "$(head -3 "$tmp/files/reports.jsonl")"
[ -s "$tmp/files/report.html" ] && [ -d "$tmp/files/corpus" ] && pass "the campaign's corpus and page" ||
    fail "campaign files" "$(ls "$tmp/files")"

echo "gpu rehearsal: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
