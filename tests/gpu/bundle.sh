#!/usr/bin/env bash
# The GPU bundle and check (scripts/gpu/bundle.sh, scripts/gpu/check.sh), tested where there is no
# GPU, which is where they are prepared: a GPU machine's time is too scarce to find their faults.
#   - the bundle: built, within 30 MiB, its binary running on the libraries it carries;
#   - the check on this machine: the CPU-side steps pass, each GPU step is skipped with its
#     reason, exit 0, results.json and the log written; a budget too small skips steps, saying so;
# The GPU steps' own logic is rehearsed on a stand-in GPU machine by tests/gpu/rehearsal.sh (minutes:
# `make gpu-rehearsal`, before a session spends GPU time).
# Usage: FPDIV=build/fpdiv tests/gpu/bundle.sh
set -u
FPDIV=${FPDIV:-build/fpdiv}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$(dirname "$FPDIV")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/cli/lib.sh"
# results.json's status of step NAME
status_of() { python3 -c 'import json,sys; print(*[s["status"] + ": " + s["detail"] for s in json.load(open(sys.argv[1]))["steps"] if s["name"] == sys.argv[2]])' "$1" "$2"; }

# --- the bundle ---
bundle=$tmp/bundle
run "bundle built" 0 "$root/scripts/gpu/bundle.sh" "$build" "$bundle"
size=$(du -sb "$bundle" | cut -f1)
[ "$size" -le $((30 << 20)) ] && pass "bundle within 30 MiB ($((size >> 10)) KiB)" || fail "bundle size" "$size bytes"
[ -x "$bundle/bin/fpdiv" ] && [ -f "$bundle/bridge/fpdiv_bridge.py" ] && [ -s "$bundle/COMMIT" ] &&
    pass "bundle holds the binary, the bridge and its commit" || fail "bundle contents" "$(cd "$bundle" && find . | head -20)"
# every library the binary links that is not the C runtime's resolves into the bundle
linked=$(LD_LIBRARY_PATH=$bundle/lib ldd "$bundle/bin/fpdiv" | awk '$2 == "=>" { print $1, $3 }' |
    grep -vE '^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libgcc_s|libstdc\+\+)\.so')
outside=$(grep -v " $bundle/lib/" <<<"$linked")
[ -n "$linked" ] && [ -z "$outside" ] && pass "its libraries resolve into the bundle: $(awk '{printf "%s ", $1}' <<<"$linked")" ||
    fail "bundle libraries" "outside the bundle: ${outside:-none linked}"
run "the bundle's fpdiv runs" 0 "$bundle/fpdiv" --version
run "bundle: no build directory" 2 "$root/scripts/gpu/bundle.sh" "$tmp/nothing" "$tmp/b2"
expect "names what is missing" "$err" "nothing/fpdiv is not built"

# --- the check, here: CPU-side steps, GPU steps skipped with their reasons ---
run "check on a machine without a GPU" 0 env -u FPDIV_PYTHON PATH=/usr/bin:/bin "$root/scripts/gpu/check.sh" "$tmp/here" --bundle "$bundle"
for f in log.txt results.json artifacts.tar.gz; do
    [ -s "$tmp/here/$f" ] && pass "check writes $f" || fail "check writes $f" "missing or empty"
done
for s in bundle env; do
    got=$(status_of "$tmp/here/results.json" $s)
    [[ $got == passed* ]] && pass "step $s passed" || fail "step $s" "$got"
done
for s in machine reports gpu-tests campaign; do
    got=$(status_of "$tmp/here/results.json" $s)
    [[ $got == "skipped: no nvidia-smi here"* ]] && pass "step $s skipped with the reason" || fail "step $s" "$got"
done
got=$(status_of "$tmp/here/results.json" frameworks)
[[ $got == "skipped: "*GPU* ]] && pass "frameworks skipped with the reason" || fail "step frameworks" "$got"
tar -tzf "$tmp/here/artifacts.tar.gz" | grep -q 'files/env.json' && pass "artifacts hold the environment" ||
    fail "artifacts" "$(tar -tzf "$tmp/here/artifacts.tar.gz")"
grep -q '^gpu-check: .* 0 failed' "$tmp/here/log.txt" && pass "the log ends with the summary" || fail "log" "$(tail -3 "$tmp/here/log.txt")"
# a budget too small for the environment step: it and every later step skipped, saying so
run "check within a 3-second budget" 0 "$root/scripts/gpu/check.sh" "$tmp/small" --bundle "$bundle" --budget 3
got=$(status_of "$tmp/small/results.json" env)
[[ $got == "skipped: the budget of 3 s had "*" s left; this step needs 30" ]] && pass "over the budget: skipped, saying so" ||
    fail "budget skip" "$got"
run "check: bad budget" 2 "$root/scripts/gpu/check.sh" "$tmp/bad" --budget 0
expect "names it" "$err" "--budget '0': seconds"
run "check: no bundle" 2 "$root/scripts/gpu/check.sh" "$tmp/bad" --bundle "$tmp/none"
expect "says how to make one" "$err" "make gpu-bundle"

echo "gpu bundle: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
