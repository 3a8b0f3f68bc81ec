#!/usr/bin/env bash
# The bug zoo, found: a short campaign on each planted-fault library (tests/zoo/faults/) finds its
# fault, and one on the control (none.c: the same wrapper, no fault) finds nothing. A finding is a
# check `improbable` or worse; the seed is fixed, so a fault found here is found on every machine
# that runs the same checks (the wrapped OpenBLAS's kernel set changes the bits, not the faults).
# `make bench` measures the time each takes to be found (scripts/bench/bench_zoo.sh).
# Usage: FPDIV=build/fpdiv tests/zoo/run.sh
set -u
FPDIV=${FPDIV:-build/fpdiv}
zoo=$(dirname "$FPDIV")/zoo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../cli/lib.sh"
export FPDIV_PYTHON=/bin/false  # no frameworks here: a `list` need not start them
[ -f "$zoo/libnone.so" ] || { echo "zoo: $zoo/libnone.so is missing (make test builds the zoo)"; exit 1; }
if ! $FPDIV --blas zoo="$zoo/libnone.so" list | grep -qE '^  zoo +cpu available'; then
    echo "zoo: SKIP: the zoo wraps Debian's OpenBLAS (libopenblas.so.0), which is not here: $($FPDIV --blas zoo="$zoo/libnone.so" list 2>&1 | grep -A1 '^  zoo' | tail -1)"
    exit 0
fi
# campaign LIB CASES WANT_EXIT: a campaign of CASES checks on LIB alone, failing on `improbable` or
# worse; its JSON lines in $out
campaign() {
    run "campaign on $(basename "$1")" "$3" $FPDIV --blas zoo="$1" fuzz --backends zoo --seed 1 --cases "$2" \
        --no-corpus --fail-on improbable --json
}
first_finding() {
    python3 -c '
import json, sys
for line in sys.stdin:
    o = json.loads(line)
    if o.get("type") == "check" and o["verdict"] in ("improbable", "bound", "nonfinite", "error"):
        print(o["verdict"], "in", o["relation"], o["dtype"], o["shape"]); break' <<<"$out"
}

for lib in "$zoo"/lib*.so; do
    name=$(basename "$lib" .so)
    name=${name#lib}
    [ "$name" = none ] && continue
    campaign "$lib" 2000 1 && pass "$name found: $(first_finding)"
done
# the control: the real library through the same wrapper; nothing found in more checks
campaign "$zoo/libnone.so" 6000 0 && pass "the control: nothing found in 6000 checks"
# the poison finds what a C of finite values hides: beta = 0 scaling C is non-finite, and every
# finding says so (where the paths agree, both NaN, the exact reference finds them both of the wrong
# class: nonfinite too)
campaign "$zoo/libbeta_scaled.so" 2000 1 && expect "a kernel reading C at beta = 0: nonfinite" "$(python3 -c '
import json, sys
found = [l["verdict"] for l in map(json.loads, sys.stdin) if l.get("type") == "check" and l["verdict"] not in ("same", "reorder")]
print(found.count("nonfinite"), "nonfinite of", len(found), "findings")' <<<"$out")" "^([1-9][0-9]*) nonfinite of \1 findings$"
# a fault past 2^20 terms: out of the common shapes' reach, found by the shapes past --max-dim
run "a long-reduction fault, shapes bounded by --max-dim" 0 $FPDIV --blas zoo="$zoo/liblong_reduction.so" fuzz \
    --backends zoo --seed 1 --cases 2000 --no-corpus --fail-on improbable --max-dim 256 && pass "is out of reach"
# a race on a shared packing buffer: a call alone is right, so only callers at once find it
alone="slice-rows,slice-cols,gemv-rows,gemv-cols,dot,slice-batch,addmm,cast-in,layout,threads,repeat"
run "a shared packing buffer, every relation but concurrent" 0 $FPDIV --blas zoo="$zoo/libshared_pack.so" fuzz \
    --backends zoo --relations $alone --seed 1 --cases 2000 --no-corpus --fail-on improbable && pass "is out of reach"
# BLAS's scalars: a kernel that mishandles an alpha other than 1 or a beta other than 0 and 1 is right
# for every call the other relations make; only alpha-beta asks for others
blind=$($FPDIV list | awk '/^relations/ { on = 1; next } /^$/ { on = 0 } on && $2 == "*" && $1 != "alpha-beta" { print $1 }' |
    paste -sd, -)
for lib in beta_flag alpha_late alpha_small alpha_sign_twice; do
    run "$lib, every default relation but alpha-beta" 0 $FPDIV --blas zoo="$zoo/lib$lib.so" fuzz --backends zoo \
        --relations "$blind" --seed 1 --cases 2000 --no-corpus --fail-on improbable && pass "is out of their reach"
done
# the empty product (k = 0): a quick return that leaves C unwritten, or zeroes it whatever beta is, is
# right for every k of at least 1
for lib in empty_unwritten empty_zeroed; do
    run "$lib at k = 4" 0 $FPDIV --blas zoo="$zoo/lib$lib.so" check --relation addmm --backend zoo --shape 3x5x4 &&
        expect "$lib is right there" "$out" "^check addmm on zoo: (same|reorder)"
    run "$lib at k = 0" 1 $FPDIV --blas zoo="$zoo/lib$lib.so" check --relation addmm --backend zoo --shape 3x5x0 &&
        expect "$lib is found there" "$out" "^check addmm on zoo: (bound|nonfinite)"
done
# one storage order's argument handling: only the column-major entry is wrong, which col-major calls
run "col_major_stride, every default relation but col-major" 0 $FPDIV --blas zoo="$zoo/libcol_major_stride.so" fuzz \
    --backends zoo --relations "$($FPDIV list | awk '/^relations/ { on = 1; next } /^$/ { on = 0 }
                                                    on && $2 == "*" && $1 != "col-major" { print $1 }' | paste -sd, -)" \
    --seed 1 --cases 2000 --no-corpus --fail-on improbable && pass "is out of their reach"
# NaN and Inf lost, subnormals flushed: right on every finite normal input, so only the special values
# find them, which a campaign not given --specials draws for one case in 8
for lib in zero_skipped flush_to_zero; do
    run "$lib without special values" 0 $FPDIV --blas zoo="$zoo/lib$lib.so" fuzz --backends zoo --seed 1 --cases 2000 \
        --no-corpus --fail-on improbable --specials 0 && pass "is out of reach"
done
# faults past a block size: column 384 of a panel of 384 and sums past 256 terms, out of reach of
# shapes within --max-dim 256 (the default's, but for the one case in 64 past it)
for lib in n_panel_past_block k_tail_past_block; do
    run "$lib, shapes bounded by --max-dim 256" 0 $FPDIV --blas zoo="$zoo/lib$lib.so" fuzz --backends zoo --seed 1 \
        --cases 2000 --no-corpus --fail-on improbable --max-dim 256 && pass "is out of reach"
done
# an off-by-one in the rows' split between threads: a library on one thread, as fpdiv's workers run
# it, is right; only threads and concurrent (its callers' calls on 1 to cores threads) run it on more
run "threads_split, every default relation but threads and concurrent" 0 $FPDIV --blas zoo="$zoo/libthreads_split.so" \
    fuzz --backends zoo --relations "$($FPDIV list | awk '/^relations/ { on = 1; next } /^$/ { on = 0 }
        on && $2 == "*" && $1 != "threads" && $1 != "concurrent" { print $1 }' | paste -sd, -)" \
    --seed 1 --cases 2000 --no-corpus --fail-on improbable && pass "is out of their reach"
# the exact report tells a flush from other wrong results: every finding on flush_to_zero is what
# flushing gives, none on zero_skipped (a NaN lost)
flushed_findings() {
    python3 -c '
import json, sys
found = [l for l in map(json.loads, sys.stdin) if l.get("type") == "check" and l["verdict"] in ("bound", "nonfinite")]
print(len(found), "findings,", sum(bool(l.get("exact", {}).get("as_flushed")) for l in found), "as flushed")' <<<"$out"
}
campaign "$zoo/libflush_to_zero.so" 600 1 && expect "flush_to_zero: each finding a flush" "$(flushed_findings)" '^([1-9][0-9]*) findings, \1 as flushed$'
campaign "$zoo/libzero_skipped.so" 600 1 && expect "zero_skipped: none a flush" "$(flushed_findings)" '^[1-9][0-9]* findings, 0 as flushed$'
# the sign of zero: terms that cancel exactly sum to +0, and only the exact reference sees a -0 both
# paths share (a kernel negating its sum of negated products)
run "zero_negated, the paths alike" 1 $FPDIV --blas zoo="$zoo/libzero_negated.so" check --relation repeat --backend zoo \
    --shape 8x8x8 --dist int --dtype f64 &&
    expect "is bound, and says why" "$out" '^ +path A is -0 where the exact sum is 0, at [0-9]+ elements?: nonzero terms that cancel$'
run "the same on the control" 0 $FPDIV --blas zoo="$zoo/libnone.so" check --relation repeat --backend zoo \
    --shape 8x8x8 --dist int --dtype f64 && expect "is same" "$out" '^check repeat on zoo: same$'
# saved, then replayed: C holds the poison of the campaign's check (its seed and index, which a case
# of explicit data keeps as its origin), so a C left unwritten reproduces bit for bit
run "empty_unwritten's findings, saved" 1 $FPDIV --blas zoo="$zoo/libempty_unwritten.so" fuzz --backends zoo --seed 1 \
    --cases 300 --corpus "$tmp/empty"
run "and replayed" 0 $FPDIV --blas zoo="$zoo/libempty_unwritten.so" replay "$tmp/empty" &&
    expect "every one reproduced, the empty products among them" "$out" "^[0-9]+ cases: reproduced [0-9]+, changed 0, fixed 0"
grep -lqr '"k": 0' "$tmp/empty" && pass "the corpus holds empty products" || fail "the corpus holds empty products" "none saved"
# a race shows only where the calls overlap, which the scheduler decides: up to eight tries
for try in 1 2 3 4 5 6 7 8; do
    $FPDIV --blas zoo="$zoo/libshared_pack.so" check --relation concurrent --backend zoo --shape 384x256x384 \
        --dtype f64 --callers 4 >$tmp/race.out 2>&1 && continue
    break
done
expect "the same, concurrent at a large shape, lost the race (try $try)" "$(cat $tmp/race.out)" \
    '^  callers  4 at once, [0-9]+ rounds?: [2-4] computing this GEMM or its mirror \(of -A\).*; [1-4] of them gave bits other than path A.s'
# two paths that agree, both wrong alike: only the exact reference tells, which fuzz computes for one
# case in eight of those whose paths agree (--exact sampled, its default)
lossy="--blas zoo=$zoo/libreduced_precision.so"
run "repeat on a library that rounds its inputs, no reference" 0 $FPDIV $lossy check --relation repeat --backend zoo \
    --shape 8x8x64 --dtype f32 --exact diverging && expect "the paths agree" "$out" "^check repeat on zoo: same"
run "the same against the reference" 1 $FPDIV $lossy check --relation repeat --backend zoo --shape 8x8x64 --dtype f32 &&
    expect "both beyond their bound" "$out" "^check repeat on zoo: bound"
run "a campaign of agreeing paths, reference on diverging ones only" 0 $FPDIV $lossy fuzz --relations repeat --backends zoo \
    --seed 1 --cases 200 --no-corpus --exact diverging
run "the same campaign, sampled (the default)" 1 $FPDIV $lossy fuzz --relations repeat --backends zoo --seed 1 --cases 200 \
    --no-corpus && expect "finds them" "$out" "bound [1-9]"
expect "and says how" "$out" "one case in 8 of the rest \(--exact sampled\)"
# bisect over two changes (same, then reorder, then improbable from 32 terms on): the first, and a note
run "bisect over two changes" 0 $FPDIV $lossy bisect --good 4x64x1 --bad 4x64x3000 --relation vendor --backend seq,zoo &&
    expect "finds the first" "$out" "^boundary: k=[0-9]+ gives same; k=[0-9]+ gives reorder$" &&
    expect "and says another follows" "$out" "^and more: k=[0-9]+'s reorder is not k=3000's (improbable|bound), so the outcome changes again"

# bisect's probes run without the exact reference; a boundary's sides are checked again with it, as
# check runs them, and said where that differs (improbable between paths, bound against the reference)
run "bisect --scan on a library that rounds its inputs" 0 $FPDIV $lossy bisect --good 2x3x1 --bad 2x3x2048 \
    --relation vendor --backend openblas,zoo --scan &&
    expect "a boundary check would not report is said to be none" "$out" \
        '^  with the exact reference, as check runs them: k=[0-9]+ gives bound; k=[0-9]+ gives bound \(no change there\)$'

echo "zoo: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
