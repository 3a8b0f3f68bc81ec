#!/usr/bin/env bash
# The probabilistic tier's false alarms: campaigns of legitimate reorderings only (fuzz's default
# relations, which leave out cast-out; every library backend, each on the kernel sets the core
# relation pairs), counted by verdict. Every `improbable` here is a false alarm, or a library's
# real loss of precision: each is listed with the command that reruns it. The stated rate is at most
# 4 exp(-lambda^2 / 2) = 5e-14 per differing element (two paths, lambda = 8): zero is expected.
# Every check takes the exact reference (--exact always), so each path whose rounding is random
# also gets the aggregate test (aggregate.h: e^-32 per path and check): "aggregate" counts the
# paths it was taken on, and the largest ratio to its alarm level (an alarm is over 1).
# Then cast-out, the precision loss the tier is for, at k = 64 ... 16384.
#
# Usage: FPDIV=build/fpdiv scripts/bench/false_alarms.sh [CHECKS, default 20000: the first campaign's;
# the larger shapes' campaigns run a fraction of it]
set -eu
FPDIV=${FPDIV:-build/fpdiv}
CHECKS=${1:-20000}
PYTHON=$(command -v /usr/bin/python3 || command -v python3)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# campaign NAME ARGS...: one campaign's tallies, and its improbable checks
tally='
import json, sys
name, args = sys.argv[1], sys.argv[2]
checks = [o for o in map(json.loads, sys.stdin) if o.get("type") == "check"]
count = {v: sum(c["verdict"] == v for c in checks) for v in ("reorder", "improbable", "bound")}
elements = sum(c["diff"] for c in checks if c["verdict"] in ("reorder", "improbable"))
aggregates = [c["exact"][key] or 0 for c in checks if "exact" in c for key in ("aggregate_a", "aggregate_b")]
taken = [a for a in aggregates if a > 0]
print("  %-30s %7d %8d %10d %6d %10d %9d %7.3g   fuzz %s" % (name, len(checks), count["reorder"], count["improbable"],
      count["bound"], elements, len(taken), max(taken, default=0), args))
for c in checks:
    if c["verdict"] == "improbable":
        x = c.get("exact", {})
        print("    improbable: %s %s %s %s, %s of the threshold, aggregate %s, %s: %s" % (c["relation"],
              ",".join(c["backends"]), c["dtype"], c["shape"], c["probable_ratio"], x.get("aggregate_a"),
              x.get("aggregate_b"), c["reproduce"]))
'
campaign() {
    local name=$1
    shift
    local start=$SECONDS
    "$FPDIV" fuzz --no-corpus --fail-on never --exact always --json "$@" 2>/dev/null | "$PYTHON" -c "$tally" "$name" "$*"
    echo "    ($((SECONDS - start)) s)"
}

echo "false alarms of the probabilistic tier: $(uname -m), $(nproc) cores, $("$FPDIV" env --json | "$PYTHON" -c '
import json, sys; e = json.load(sys.stdin); print(e["cpu"]["model"], "| openblas", e["backends"]["openblas"]["kernel_set"])')"
printf '  %-30s %7s %8s %10s %6s %10s %9s %7s\n' campaign checks reorder improbable bound elements aggregate largest
echo "  (elements: those that differ in the checks within the worst-case bound, each held to the threshold;"
echo "   aggregate: the paths the aggregate test was taken on, and the largest ratio to its alarm level)"
campaign "default, max-dim 256" --seed 101 --cases "$CHECKS"
campaign "default, max-dim 1024" --seed 102 --cases $((CHECKS / 4)) --max-dim 1024
campaign "16-bit only, max-dim 2048" --seed 103 --cases $((CHECKS / 100)) --max-dim 2048 --dtypes f16,bf16,f16:f16,bf16:bf16
campaign "frameworks, max-dim 128" --seed 104 --cases $((CHECKS / 10)) --max-dim 128 --backends numpy,torch,jax

echo
echo "cast-out on seq (what the tier is for), seed 11:"
printf '  %-6s %6s %-8s %-10s %8s %12s\n' dtype k dist verdict ratio "probable"
for dtype in bf16 f16; do
    for k in 64 1024 4096 16384; do
        for dist in normal uniform; do
            "$FPDIV" check --relation cast-out --backend seq --shape "16x64x$k" --dtype $dtype --dist $dist --seed 11 \
                --fail-on never --json | "$PYTHON" -c '
import json, sys
o = json.load(sys.stdin)
p = o["probable_ratio"]
print("  %-6s %6s %-8s %-10s %8.3g %12s" % (sys.argv[1], sys.argv[2], sys.argv[3], o["verdict"], o["ratio"],
      "-" if p is None else "%.3g" % p))' $dtype $k $dist
        done
    done
done
