#!/usr/bin/env bash
# What the default campaign's reach costs (issue 54): the shapes past --max-dim (reach.h) and the
# exact reference on a sample of the checks whose paths agree (--exact sampled). The same campaign
# (seed, cases, one worker) run side by side, alternately, REPEAT times each:
#   default        fpdiv fuzz as a user runs it
#   no reach       --max-dim 256: the same draws, without the shapes past it (reach.h draws from a
#                  stream of its own, so every other case is the same)
#   no sample      --exact diverging: the reference only where the paths differ
#   neither        both
#   base           $BASE (an older fpdiv binary, when given): the same campaign before these
# The reach's share of the default campaign's time is (default - no reach) / default, the sample's
# likewise; the common case's cost is neither's against the base's (the poisoned C, and whatever
# else changed since).
# Usage: FPDIV=build/fpdiv [BASE=old/fpdiv] scripts/bench/bench_reach.sh [CASES, default 1500] [REPEAT, default 3]
set -eu
FPDIV=${FPDIV:-build/fpdiv}
CASES=${1:-1500} REPEAT=${2:-3}
common=(fuzz --seed 11 --cases "$CASES" --jobs 1 --no-corpus --fail-on never)
variants=("default" "no reach" "no sample" "neither")
args=("" "--max-dim 256" "--exact diverging" "--max-dim 256 --exact diverging")
binaries=("$FPDIV" "$FPDIV" "$FPDIV" "$FPDIV")
if [ -n "${BASE:-}" ]; then
    variants+=("base") args+=("--max-dim 256 --exact diverging") binaries+=("$BASE")
fi
declare -A times
for r in $(seq 1 "$REPEAT"); do
    for i in "${!variants[@]}"; do
        # shellcheck disable=SC2086
        line=$("${binaries[$i]}" "${common[@]}" ${args[$i]} 2>&1 | grep -E '^[0-9]+ checks in ')
        times[$i]+="$(sed -E 's/^[0-9]+ checks in ([0-9.]+) s.*/\1/' <<<"$line") "
    done
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
echo "the default campaign's reach: fpdiv ${common[*]}, $REPEAT runs each, alternating (median seconds)"
for i in "${!variants[@]}"; do
    printf '  %-10s %8s s   %s %s\n' "${variants[$i]}" "$(median "${times[$i]}")" "$(basename "$(dirname "${binaries[$i]}")")/$(basename "${binaries[$i]}")" "${args[$i]}"
done
d=$(median "${times[0]}") n=$(median "${times[1]}") s=$(median "${times[2]}")
awk -v d="$d" -v n="$n" -v s="$s" 'BEGIN {
    printf "  the shapes past --max-dim: %.1f%% of the default campaign'"'"'s time\n", 100 * (d - n) / d
    printf "  the sampled reference: %.1f%% of it\n", 100 * (d - s) / d }'
if [ -n "${BASE:-}" ]; then
    e=$(median "${times[3]}") b=$(median "${times[4]}")
    awk -v e="$e" -v b="$b" -v d="$d" 'BEGIN { printf "  the common case against the base: %.2fx its time; the default campaign: %.2fx\n", e / b, d / b }'
fi
