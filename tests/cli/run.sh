#!/usr/bin/env bash
# CLI tests: run the built binary as a user would and check exit codes and output.
# Usage: FPDIV=build/fpdiv tests/cli/run.sh
set -u
FPDIV=${FPDIV:-build/fpdiv}
# The frameworks are frameworks.sh's to test: here a Python that is none lists them unavailable at
# once, where starting their servers (torch's takes seconds) would slow every `list`.
export FPDIV_PYTHON=/bin/false
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
# The starter cases as committed: a user's campaigns add to corpus/, and no test may depend on that.
committed=$("$(dirname "$0")/../committed-corpus.sh" "$tmp/committed") || exit 2

# --- acceptance: the reported cases on OpenBLAS ---
# A divergence of OpenBLAS's is pinned to a kernel set every x86-64 CPU runs (its Prescott core),
# so that it is the same on any machine; the kernel set the library picks here is for tests that
# hold on any.
PIN="--core Prescott"
if run "slice-rows openblas" 0 $FPDIV check --relation slice-rows --backend openblas $PIN --shape 2x1000x1000 --dtype f32 --json; then
    v=$(json_field verdict <<<"$out"); d=$(json_field diff <<<"$out")
    if [ "$v" = reorder ] && [ "$d" -ge 100 ]; then pass "slice-rows openblas: reorder, $d differ"; else fail "slice-rows openblas" "verdict $v, $d differ"; fi
fi
for b in seq blocked pairwise; do
    run "slice-rows $b" 0 $FPDIV check --relation slice-rows --backend $b --shape 2x1000x1000 --dtype f32 --json &&
        expect "slice-rows $b is same" "$out" '"verdict":"same"'
done
run "addmm openblas" 0 $FPDIV check --relation addmm --backend openblas --shape 32x512x2048 --dtype f32 --bias --json &&
    expect "addmm openblas is reorder" "$out" '"verdict":"reorder"'
run "cast-out bf16 fails the default policy" 1 $FPDIV check --relation cast-out --backend openblas --shape 16x64x256 --dtype bf16 --json &&
    expect "cast-out bf16 is bound" "$out" '"verdict":"bound"'
run "cast-out report" 1 $FPDIV check --relation cast-out --backend openblas --shape 16x64x256 --dtype bf16 &&
    expect "cast-out: the bf16-output path is named the inaccurate side" "$out" '^  exact +path A is .* ulp from the correctly rounded result, path B .*: path B is the farther'
# issue 38: at k = 4096 rounding to bf16 is inside the worst-case bound, and improbable: beyond what
# any reordering gives but with odds below 1e-13 (seq: the same bits on every CPU)
# issue 51: improbable is reported, and fails only where --fail-on improbable asks (default bound)
run "cast-out bf16 at k = 4096 passes the default policy" 0 $FPDIV check --relation cast-out --backend seq \
    --shape 16x64x4096 --dtype bf16 --seed 11 &&
    expect "cast-out at k = 4096: improbable" "$out" '^  verdict  improbable \(within the worst-case bound' &&
    expect "cast-out at k = 4096: within the worst-case bound" "$out" '^  ratio    0\.[0-9]+ of the rounding bound' &&
    expect "cast-out at k = 4096: how far past the threshold" "$out" '^  likely   [0-9.]+ of the probabilistic threshold \(> 1: no reordering gives it'
run "--fail-on improbable fails it" 1 $FPDIV check --relation cast-out --backend seq --shape 16x64x4096 --dtype bf16 \
    --seed 11 --fail-on improbable --json &&
    expect "improbable in JSON, with its ratio" "$out" '"verdict":"improbable",.*"probable_ratio":[0-9.]+,"probable_order_free":false'
run "a legitimate reordering at k = 4096" 0 $FPDIV check --relation vendor --backend seq,pairwise \
    --shape 16x64x4096 --dtype bf16 --seed 11 --json &&
    expect "seq against pairwise: reorder, no probable ratio" "$out" '"verdict":"reorder",.*"probable_ratio":null'
# A campaign of legitimate reorderings raises no improbable (a false alarm has odds below 5e-14 per
# differing element); scripts/bench/false_alarms.sh runs larger ones (BENCHMARKS.md). Fewer checks
# under the sanitizers (make exports ASAN_OPTIONS there only), which run about five times slower.
checks=$([ -n "${ASAN_OPTIONS:-}" ] && echo 600 || echo 2500)
# Its special values (one case in 8) find what the libraries do with them, which is no reordering:
# the reference BLAS's syrk loses a NaN or an Inf of A times a zero (doc/fuzz.md); nothing else.
run "$checks checks of legitimate reorderings" 0 $FPDIV fuzz --no-corpus --seed 38 --cases $checks --fail-on never &&
    expect "reorderings, none improbable" "$out" "^$checks checks in .*: same [0-9]+, reorder [0-9]{3,}, improbable 0, bound 0, nonfinite [0-9]+, error 0" &&
    expect "nonfinite only where the reference BLAS's syrk loses a NaN" \
        "$(awk '/^finding nonfinite/ && !($3 == "self" && $4 == "refblas") { print "other:", $0 } END { print "done" }' <<<"$out")" "^done$"
# An improbable finding through fuzz, JUnit, the page, the corpus, replay and show: case 18 of seed 3 (the
# shard picks it alone) is an f16 cast-out at k = 409 that its worst-case bound holds
run "fuzz finds an improbable cast-out" 1 $FPDIV fuzz --fail-on improbable --relations cast-out --backends seq --dtypes f16,bf16 \
    --max-dim 2048 --seed 3 --cases 19 --shard 18/19 --corpus $tmp/improbable --junit $tmp/improbable.xml \
    --html $tmp/improbable.html &&
    expect "the finding says how far past the threshold" "$out" '^finding improbable cast-out +seq +f16 +seed 3 index 18: .*, ratio 0\.[0-9]+, [0-9.]+ times the probabilistic threshold$' &&
    expect "the summary counts it" "$out" '^1 checks in .*: same 0, reorder 0, improbable 1, bound 0' &&
    expect "JUnit fails it as improbable" "$(cat $tmp/improbable.xml)" '<failure type="improbable" message="improbable: cast-out on seq, f16, seed 3 index 18: .* times the probabilistic threshold"' &&
    expect "the page marks the improbable count" "$(cat $tmp/improbable.html)" "<td class='num alarm' data-verdict='improbable'>1</td>" &&
    expect "the page gives the case's ratio to the threshold" "$(cat $tmp/improbable.html)" "ratio to the probabilistic threshold</th><td class='num alarm'>[0-9.]+<"
run "fuzz under the default policy reports it, and passes" 0 $FPDIV fuzz --relations cast-out --backends seq \
    --dtypes f16,bf16 --max-dim 2048 --seed 3 --cases 19 --shard 18/19 --no-corpus &&
    expect "improbable counted, not failed" "$out" '^1 checks in .*: same 0, reorder 0, improbable 1, bound 0' &&
    expect "the policy is bound" "$out" '^policy: fail on bound or worse; 0 checks failed'
run "the improbable case replays" 0 $FPDIV replay $tmp/improbable &&
    expect "reproduced" "$out" '^1 cases: reproduced 1, changed 0, fixed 0, worse 0'
saved=$(ls $tmp/improbable/cast-out/*.json 2>/dev/null | head -1)
run "show the improbable case" 0 $FPDIV show "$saved" &&
    expect "recorded as improbable, with its ratio" "$out" '^recorded improbable: .*' &&
    expect "show: how far past the threshold" "$out" '^  likely   [0-9.]+ times the probabilistic threshold$'
# A little lost on every element (partial sums 3 bits short: tests/plugins/lossy.c), which no element
# alone shows: the aggregate test's, through check, fuzz, the corpus, replay and show (issue 54)
LOSSY="--plugin $(dirname "$FPDIV")/plugins/lossy.so"
run "a narrow accumulator, aggregated" 0 $FPDIV $LOSSY check --relation vendor --backend seq,narrow3 \
    --shape 32x32x256 --dtype f32 --dist uniform &&
    expect "narrow3: improbable" "$out" '^  verdict  improbable ' &&
    expect "narrow3: no element alone" "$out" '^  ratio    0\.[0-9]+ of the rounding bound' &&
    expect "narrow3: the aggregate says so" "$out" '^  aggregate path B is farther from the exact sums than rounding makes, over its 1024 elements:$'
run "the aggregate in JSON" 0 $FPDIV $LOSSY check --relation vendor --backend seq,narrow3 --shape 32x32x256 \
    --dtype f32 --dist uniform --json &&
    expect "aggregate_b over 1, no probable ratio" "$out" '"probable_ratio":null,.*"aggregate_a":0\.[0-9e-]+,"aggregate_b":([2-9]|[1-9][0-9])\.[0-9]+'
run "fuzz finds it by its aggregate" 1 $FPDIV $LOSSY fuzz --fail-on improbable --relations vendor --backends seq,narrow3 \
    --dtypes f32 --seed 5 --cases 40 --corpus $tmp/aggregate &&
    expect "the finding names the aggregate" "$out" "^finding improbable vendor +seq,narrow3 +f32 .*, path B's aggregate [0-9.]+ times its alarm level$"
run "the aggregate's case replays" 0 $FPDIV $LOSSY replay $tmp/aggregate &&
    expect "reproduced, every one" "$out" '^[0-9]+ cases: reproduced [0-9]+, changed 0, fixed 0, worse 0, elsewhere 0, skipped 0$'
saved=$(grep -l '"aggregate_b": [1-9]' $tmp/aggregate/vendor/*.json 2>/dev/null | head -1)
run "show the aggregate's case" 0 $FPDIV $LOSSY show "$saved" &&
    expect "show: the aggregate" "$out" '^  aggregate path B [0-9.]+ times its alarm level'
run "check --json carries the exact comparison" 0 $FPDIV check --relation slice-rows --backend openblas $PIN --shape 2x1000x1000 --json &&
    expect "exact in JSON" "$out" '"exact":\{"ulp_a":[0-9.e+-]+,"ulp_b":[0-9.e+-]+,"own_ratio_a":'
# max-finite specials overflow f32 partial sums in both paths alike: the report says so, rather
# than "lost precision"
run "overflowing sums against the exact result" 1 $FPDIV check --relation addmm --backend seq --shape 3x200x300 \
    --trans-b --dist wide --specials 0.001 --seed 77 --index 5 --generator 1 &&
    expect "overflow: bound, and why" "$out" '^ +path A is Inf or NaN where the correctly rounded result is not, at [0-9]+ elements?:$' &&
    expect "an order that overflows" "$out" '^ +its terms. magnitudes sum past f32.s range there, so a partial sum of some order$'
# an f32 accumulator's rounding carries 65520 - 2^-8 (whose nearest f16 is 65504) across f16's
# overflow threshold on pairwise, not on seq: no partial sum comes near f32's range, so it is an
# order's rounding (reorder), said so, and pairwise is within its own bound of the exact result
threshold_case() { # RELATION BACKENDS...
    local relation=$1
    shift
    python3 -c 'import json, sys
a = ["-0x1p-10"] * 3 + ["0x1.ffcp+15", "-0x1p-10", "0x1p+4"]
print(json.dumps({"schema": 2, "check": {"relation": sys.argv[1], "backends": sys.argv[2:], "params": {},
    "case": {"batch": 1, "m": 1, "n": 1, "k": 6, "trans_a": False, "trans_b": False, "bias": False, "pad": 0,
             "dtype": "f16:f16", "data": {"a": a, "b": ["0x1p+0"] * 6, "bias": ["0x0p+0"]}}},
    "outcome": {"verdict": "nonfinite", "diff": 1, "count": 1, "max_ulp": 0, "hash_a": "0" * 16,
                "hash_b": "0" * 16, "ratio": None},
    "origin": {"seed": 0, "index": 0, "generator": 4}, "count": 1,
    "environment": {"fpdiv": "0.1.0", "generator": 4, "cpu": {}, "backends": {}}}))' "$relation" "$@"
}
threshold_case vendor seq pairwise >$tmp/threshold.json
run "a rounding across f16's overflow threshold" 0 $FPDIV show $tmp/threshold.json &&
    expect "across the threshold: reorder" "$out" '^check vendor on seq,pairwise: reorder$' &&
    expect "across the threshold: counted as such" "$out" '^  differ   1 of 1 elements \(1 ±Inf on one path, finite on the other: within the bound of the overflow threshold' &&
    expect "across the threshold: the exact report says why" "$out" "^           f16's overflow threshold \(its largest value, 65504, and half an ulp\), and its$"
threshold_case repeat pairwise >$tmp/threshold-repeat.json
run "pairwise against itself across the threshold" 0 $FPDIV show $tmp/threshold-repeat.json &&
    expect "pairwise against itself: same, not bound" "$out" '^check repeat on pairwise: same$'
if run "the exact backend across a fuzz run" 0 $FPDIV fuzz --no-corpus --seed 4 --cases 600 --max-dim 40 --backends exact --dtypes f64,f32,f16,bf16,f16:f16,bf16:bf16:bf16 --specials 0.001; then
    expect "exact is same on every relation it runs" "$out" '^[0-9]+ checks in .*: same [0-9]+, reorder [0-9]+, improbable 0, bound 0, nonfinite 0, error 0'
    # every check run or passed over (scale where no power of two keeps the specials' data exact)
    expect "and all 600 counted" "$(checks_and_passed_over "$out")" '^600$'
    # but split-k, whose parts are each rounded: correctly, so within the bound, and not the sum's rounding
    expect "every row but split-k's all same" "$(awk '$2 == "exact" && $1 != "split-k" && $4 != $3 { print "not all same:", $0 }
                                                     $2 == "exact" { rows++ } END { print rows, "rows" }' <<<"$out")" '^[0-9]+ rows$'
fi
for b in seq pairwise blocked openblas; do
    run "cast-in $b" 0 $FPDIV check --relation cast-in --backend $b --shape 16x64x256 --dtype bf16 --json &&
        expect "cast-in $b is same or reorder" "$out" '"verdict":"(same|reorder)"'
done

# --- --dist int: every relation but cast-out is `same` on every backend ---
for r in slice-rows slice-cols slice-batch addmm cast-in layout threads repeat vendor split-k scale; do
    for b in seq pairwise blocked openblas; do
        backend=$b
        [ $r = vendor ] && { [ $b = openblas ] && continue; backend=$b,openblas; }
        [ $r = threads ] && [ $b != openblas ] && continue
        run "int $r $backend" 0 $FPDIV check --relation $r --backend $backend --shape 3x33x65x257 --dtype bf16 --trans-b \
            --dist int --slice 1:2 --json && expect "int data: $r on $backend is same" "$out" '"verdict":"same"'
    done
done

# --- output formats ---
if run "check report" 0 $FPDIV check --relation slice-rows --backend openblas $PIN --shape 2x1000x1000 --seed 3; then
    expect "report gives the verdict" "$out" '^  verdict +reorder'
    expect "report gives the worst element in hex and decimal" "$out" '^  worst +\[0, 0, [0-9]+\]: A = -?0x[0-9a-f.]+p[-+][0-9]+ \(-?[0-9.e+-]+\), B = '
    expect "report gives the rerun command, pinned" "$out" '^  rerun +fpdiv check --relation slice-rows --backend openblas@Prescott --shape 2x1000x1000 .* --threads 1 '
    expect "report gives the CPU" "$out" '^  cpu +.+'
    expect "report gives the environment" "$out" '^  openblas@Prescott +OpenBLAS [0-9.]+, kernel set Prescott, 1 thread; config=OpenBLAS'
fi
run "check json keys" 0 $FPDIV check --relation repeat --backend seq --shape 4x4x4 --json &&
    python3 -c 'import json,sys; o=json.loads(sys.argv[1]); missing=[k for k in "relation backends verdict diff max_ulp max_abs max_rel ratio hash_a hash_b seed index".split() if k not in o]; sys.exit(1 if missing else 0)' "$out" &&
    pass "check --json has every documented key" || fail "check --json keys" "$out"

# --- fuzz ---
if run "fuzz" 0 $FPDIV fuzz --no-corpus --seed 5 --cases 60 --max-dim 32; then
    expect "fuzz prints the seed first" "$(head -1 <<<"$out")" '^seed 5 '
    expect "fuzz prints a summary table" "$out" 'relation +backends +checks +same +reorder'
    expect "fuzz counts its checks" "$out" '^60 checks in'
fi
# The GEMM share: products timed in CPU ticks, turned into seconds by the campaign's own clock.
# Large products on one worker spend most of its time in GEMM, never more than all of it.
if run "fuzz GEMM share" 0 $FPDIV fuzz --no-corpus --seed 5 --cases 10 --jobs 1 --relations slice-rows --backends blocked \
    --dtypes f64 --exact never --max-dim 800 --json; then
    share=$(tail -1 <<<"$out" | python3 -c 'import json,sys; o=json.loads(sys.stdin.readline()); print(round(100 * o["gemm_seconds"] / o["seconds"]))')
    [ "$share" -ge 20 ] && [ "$share" -le 100 ] && pass "GEMM share of large products: $share%" ||
        fail "GEMM share" "$share% of the time (from: $(tail -1 <<<"$out"))"
fi
run "fuzz json" 0 $FPDIV fuzz --no-corpus --seed 5 --cases 60 --max-dim 32 --json && cp "$tmp/out" "$tmp/fuzz1.jsonl"
run "fuzz json again" 0 $FPDIV fuzz --no-corpus --seed 5 --cases 60 --max-dim 32 --json && cp "$tmp/out" "$tmp/fuzz2.jsonl"
n=$(grep -c '"type":"check"' "$tmp/fuzz1.jsonl")
[ "$n" = 60 ] && pass "fuzz --json: one line per check" || fail "fuzz --json lines" "$n check lines"
# workers finish in any order: compare the sets of check lines
grep '"type":"check"' "$tmp/fuzz1.jsonl" | sort >"$tmp/a"
grep '"type":"check"' "$tmp/fuzz2.jsonl" | sort >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" && pass "same seed, same checks" || fail "fuzz reproducibility" "two runs with --seed 5 differ"
run "fuzz, one worker" 0 $FPDIV fuzz --no-corpus --seed 5 --cases 60 --max-dim 32 --json --jobs 1 &&
    grep '"type":"check"' "$tmp/out" | sort >"$tmp/c"
cmp -s "$tmp/a" "$tmp/c" && pass "two workers run exactly the checks of one" || fail "workers" "--jobs 2 and --jobs 1 differ"
# A memory budget too small for some cases even at their smallest shapes: those checks are skipped,
# the first named on stderr, all counted; with --json, a `skipped` line each, with its rerun command.
if run "fuzz under a tiny --max-mem" 0 $FPDIV fuzz --no-corpus --seed 1 --cases 200 --max-dim 64 --max-mem 1K \
    --jobs 1; then
    expect "the first skipped check is named" "$err" \
        '^fpdiv fuzz: skipped seed 1 index [0-9]+: case needs about [0-9.]+ (bytes|KiB), over the --max-mem budget of 1 KiB;'
    expect "skipped checks are counted" "$out" '^skipped [0-9]+ checks? over the --max-mem budget'
fi
run "fuzz under a budget no case fits" 2 $FPDIV fuzz --no-corpus --seed 1 --cases 20 --max-mem 100 &&
    expect "a campaign that tested nothing says so" "$err" 'every check was over the --max-mem budget: nothing was tested'
if run "fuzz --json under a tiny --max-mem" 0 $FPDIV fuzz --no-corpus --seed 1 --cases 200 --max-dim 64 --max-mem 2K \
    --jobs 2 --json; then
    if rerun=$(python3 - "$tmp/out" <<'PY'
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1])]
skipped = [o for o in lines if o["type"] == "skipped"]
checks = {o["index"] for o in lines if o["type"] == "check"}
summary = lines[-1]
assert summary["type"] == "summary" and summary["skipped"] == len(skipped) > 0, summary
assert summary["checks"] == len(checks) and len(checks) + len(skipped) == 200, (len(checks), len(skipped))
assert checks.isdisjoint(o["index"] for o in skipped)
for o in skipped:
    assert "over the --max-mem budget of 1 KiB (each of the 2 workers' share)" in o["reason"], o
print(skipped[0]["reproduce"].removeprefix("fpdiv "))
PY
    ); then
        pass "a skipped line per skipped check, none run, all counted"
        run "a skipped check alone, within the default budget" 0 $FPDIV $rerun --fail-on never &&
            pass "a skipped check runs alone within the default budget"
        run "a skipped check alone, within the same budget" 2 $FPDIV $rerun --max-mem 1K &&
            expect "a skipped check is refused alone for the same reason" "$err" 'over the --max-mem budget of 1 KiB'
    else
        fail "skipped lines" "$(tail -c 400 "$tmp/out")"
    fi
fi
# Without --json a campaign leaves a same check's identical outputs unhashed; with it, each is
# hashed, as `check` hashes it on its own.
same_line=$(grep -m1 '"verdict":"same"' "$tmp/fuzz1.jsonl")
same_hash=$(python3 -c 'import json,sys; o=json.loads(sys.argv[1]); print(o["hash_a"] if o["hash_a"] == o["hash_b"] else "differ")' "$same_line")
rerun=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["reproduce"])' "$same_line")
out=$(${rerun/fpdiv/$FPDIV} 2>&1)
expect "a same check's hashes in fuzz --json are those check prints" "$out" "hashes +A $same_hash +B $same_hash"
# case i alone: its reproduce command gives the same output hashes
line=$(grep '"type":"check"' "$tmp/fuzz1.jsonl" | sed -n 37p)
cmd=$(json_field reproduce <<<"$line")
if run "rerun case 36 alone" 0 ${cmd/fpdiv/$FPDIV} --json --fail-on never; then
    [ "$(json_field hash_a <<<"$line")$(json_field hash_b <<<"$line")" = "$(json_field hash_a <<<"$out")$(json_field hash_b <<<"$out")" ] &&
        pass "a campaign's case reruns alone bit for bit" || fail "rerun alone" "hashes differ: $line vs $out"
fi
run "fuzz fail-on reorder" 1 $FPDIV fuzz --no-corpus --seed 5 --cases 200 --max-dim 64 --relations vendor --fail-on reorder &&
    expect "fuzz reports failed checks" "$out" 'policy: fail on reorder or worse; [1-9][0-9]* checks? failed'
# --time: no check starts after the time is up; those under way finish, each within 10 s more.
# fpdiv's own kernels take microseconds a check, so the campaign ends within the second; a
# library's check may take longer (BLIS's threads spin at its barriers: a check of 3 callers of 2
# threads each on a 2-CPU machine takes up to seconds), so the default backends are held to the
# documented bound only.
run "fuzz time box" 0 $FPDIV fuzz --no-corpus --seed 9 --time 1 --max-dim 16 --backends seq,pairwise,blocked &&
    expect "fuzz --time stops" "$out" 'checks in 1\.'
if run "fuzz time box, default backends" 0 $FPDIV fuzz --no-corpus --seed 9 --time 1 --max-dim 16; then
    took=$(grep -oE '[0-9]+ checks in [0-9.]+ s' <<<"$out" | awk '{print $4}')
    awk -v s="${took:-99}" 'BEGIN { exit !(s < 12) }' && pass "fuzz --time stops with the default backends: ${took} s" ||
        fail "fuzz --time stops with the default backends" "took ${took:-?} s (no check starts after 1 s, none runs 10 s more): ${out:0:400}"
fi
run "fuzz cast-out opt-in" 1 $FPDIV fuzz --no-corpus --seed 2 --cases 20 --relations cast-out --dtypes bf16 &&
    expect "cast-out is bound in fuzz too" "$out" 'finding bound +cast-out'


# --- list, help, version ---
run "list" 0 $FPDIV list && expect "list shows openblas available" "$out" 'openblas +cpu available'
expect "list shows relations with docs" "$out" 'slice-rows .*slice after vs before'
run "version" 0 $FPDIV --version && expect "version" "$out" '^fpdiv [0-9]+\.[0-9]+\.[0-9]+'
for c in check fuzz list env replay show minimize bisect sweep explain merge export judge; do run "$c --help" 0 $FPDIV $c --help && expect "$c --help" "$out" "usage: fpdiv $c"; done

# --- the environment: kernel sets and threads pinned, recorded, compared on replay ---
KS="--plugin $(dirname "$FPDIV")/plugins/kernelsets.so"
run "env" 0 $FPDIV env && expect "env names the CPU and its x86-64 level" "$out" '^cpu +.+, x86-64'
expect "env lists the kernel sets this CPU runs" "$out" '^  kernel sets this CPU runs \(--core SET, or openblas@SET\):.* Prescott'
if run "env --json" 0 $FPDIV env --json; then
    native=$(python3 -c '
import json, sys
e = json.loads(sys.argv[1])
o = e["backends"]["openblas"]
assert e["cpu"]["model"] and "isa" in e["cpu"], e["cpu"]
assert "Prescott" in o["kernel_sets"]["runs"] and o["kernel_set"] in o["kernel_sets"]["runs"], o
assert o["kernel_sets"]["native"] == o["kernel_set"]
print(o["kernel_set"])' "$out") && pass "env --json: the CPU, the kernel set picked here, the ones this CPU runs" ||
        fail "env --json" "${out:0:300}"
fi
run "list shows the kernel sets" 0 $FPDIV list && expect "list shows the kernel sets this CPU runs" "$out" 'kernel sets this CPU runs .*Prescott'
# The sets a probe showed to run are remembered (FPDIV_CACHE_DIR): a run that reads them finds what
# one that probes every set finds, and none is kept where FPDIV_CACHE_DIR is empty.
for pass_ in probed remembered uncached; do
    dir=$tmp/kernel-set-cache
    [ $pass_ = uncached ] && dir=
    run "env, kernel sets $pass_" 0 env FPDIV_CACHE_DIR="$dir" $FPDIV env --json && echo "$out" >"$tmp/env-$pass_.json"
done
python3 -c '
import json, os, sys
runs = {}
for p in ("probed", "remembered", "uncached"):
    sets = {b: o["kernel_sets"] for b, o in json.load(open(sys.argv[1] + "/env-" + p + ".json"))["backends"].items() if "kernel_sets" in o}
    runs[p] = {b: (s["runs"], sorted(s["cannot"])) for b, s in sets.items()}
    kept = {b: s["remembered_in"] for b, s in sets.items()}
    if p == "uncached":
        assert all(k is None for k in kept.values()), kept
    else:
        for b, k in kept.items():
            assert k.startswith(sys.argv[1] + "/kernel-set-cache/") and os.path.isfile(k), (b, k)
            kept_sets, ran = set(json.load(open(k))["sets"]), set(runs[p][b][0])
            # all that ran, but the one the library runs here unasked (no probe, in fpdiv itself)
            assert ran - {sets[b]["native"]} <= kept_sets <= ran, (b, k, kept_sets, ran)
assert runs["probed"] == runs["remembered"] == runs["uncached"], runs
' "$tmp" && pass "the kernel sets remembered are those a probe finds; none kept with FPDIV_CACHE_DIR empty" ||
    fail "kernel sets remembered" "$(ls "$tmp"/kernel-set-cache 2>&1 | head -3)"
run "a plain name is the kernel set picked here" 0 $FPDIV check --relation repeat --backend openblas --shape 2x3x4 --json &&
    expect "it is named in the result" "$out" "\"backends\":\\[\"openblas@${native:-?}\"\\]"
run "--core pins" 0 $FPDIV check --relation slice-rows --core Prescott --shape 2x100x300 --json && a=$out
run "@ pins" 0 $FPDIV check --relation slice-rows --backend openblas@prescott --shape 2x100x300 --json && b=$out
[ -n "${a:-}" ] && [ "$(json_field hash_a <<<"$a") $(json_field backends <<<"$a")" = "$(json_field hash_a <<<"$b") $(json_field backends <<<"$b")" ] &&
    pass "--core SET and B@SET are one pin, spelled as OpenBLAS spells it" || fail "--core and @" "${a:0:200} / ${b:0:200}"
bad "an unknown kernel set" "openblas@bogus is unavailable: openblas cannot pin bogus here: OPENBLAS_CORETYPE=bogus selects [A-Za-z0-9_]+ \(not a kernel set fpdiv knows" \
    check --relation repeat --shape 2x3x4 --core bogus
bad "a kernel set this CPU cannot run" "ksets@crashes is unavailable: this CPU cannot run ksets's kernel set crashes: a probe GEMM there was killed by signal 4" \
    $KS check --relation repeat --backend ksets --core crashes --shape 2x3x4 --dtype f64
bad "a kernel set whose library gives up" "ksets@complains is unavailable: this CPU cannot run ksets's kernel set complains: a probe GEMM there was killed by signal 6 \(Aborted\), saying: ksets: kernel workspace exhausted" \
    $KS check --relation repeat --backend ksets --core complains --shape 2x3x4 --dtype f64
[ "$(wc -l <<<"$err")" = 1 ] && pass "what the host wrote is in the reason, not on fpdiv's stderr besides" ||
    fail "host stderr" "$err"
bad "a kernel set the library cannot pin" "ksets cannot pin liar here: FPDIV_TEST_KERNEL_SET=liar selects forward" \
    $KS check --relation repeat --backend ksets@liar --shape 2x3x4 --dtype f64
bad "--core on a backend without kernel sets" "'seq' has none to pin" check --relation repeat --backend seq --core Prescott --shape 2x3x4
bad "a kernel set of a backend without them" "'seq@Prescott' has no kernel sets to pin" check --relation repeat --backend seq@Prescott --shape 2x3x4
bad "two kernel sets outside the core relation" "one kernel set \(two only for the core relation\)" check --relation repeat --core Prescott,Nehalem --shape 2x3x4
bad "core without kernel sets" "core compares two kernel sets of openblas: give --core A,B" check --relation core --shape 2x3x4
bad "core on one kernel set" "'openblas@prescott' is 'openblas@Prescott' again" check --relation core --backend openblas@Prescott,openblas@prescott --shape 2x3x4
bad "--threads 0" "--threads must be at least 1" check --relation repeat --shape 2x3x4 --threads 0
# the core relation both ways: two orders on int data agree; a planted one-ulp change is found
run "core: two kernel sets that agree" 0 $FPDIV $KS check --relation core --backend ksets --core forward,reverse --shape 3x7x9x300 --dtype f64 --dist int --json &&
    expect "core: same" "$out" '"verdict":"same"'
run "core: a planted divergence" 0 $FPDIV $KS check --relation core --backend ksets --core forward,nudged --shape 5x6x7 --json &&
    expect "core: one element, reorder" "$out" '"backends":\["ksets@forward","ksets@nudged"\],"verdict":"reorder","diff":1,'
run "core on OpenBLAS" 0 $FPDIV check --relation core --core Prescott,Nehalem --shape 16x100x300 --json &&
    expect "Prescott against Nehalem reorders" "$out" '"backends":\["openblas@Prescott","openblas@Nehalem"\],"verdict":"reorder"'
# threads: one unless told, named in the rerun line and recorded
if run "threads are pinned" 0 $FPDIV check --relation slice-rows --core Prescott --shape 2x1000x1000 --threads 2 --json; then
    expect "the rerun names them" "$out" '"reproduce":"fpdiv check .*--threads 2 '
    expect "the environment records them" "$out" '"openblas@Prescott":\{[^}]*"threads":2\}'
fi
run "the plugin of ABI 1 loads" 0 $FPDIV --plugin $(dirname "$FPDIV")/plugins/old_abi.so check --relation vendor \
    --backend seq,old-abi --shape 3x4x50 --dtype f64 --json && expect "and computes seq's order" "$out" '"verdict":"same"'
run "the plugin of ABI 2 loads" 0 $FPDIV --plugin $(dirname "$FPDIV")/plugins/old_abi2.so check --relation vendor \
    --backend seq,old-abi2 --shape 3x4x50 --dtype f64 --json && expect "and computes seq's order" "$out" '"verdict":"same"'
bad "a plugin of ABI 2 takes no routes, whatever bits it sets" "dot needs a backend with routes to gemv and dot .*; old-abi2 has none" \
    --plugin $(dirname "$FPDIV")/plugins/old_abi2.so check --relation dot --backend old-abi2 --shape 3x4x50 --dtype f64
# ABI 4's gemm_many survives the upgrade: a campaign runs the small checks together through it (only
# it fails k = 13, with its own reason), and the GEMMs it fails are those checks' alone
if run "the plugin of ABI 4 loads, its gemm_many with it" 0 $FPDIV --plugin $(dirname "$FPDIV")/plugins/old_abi4.so \
    fuzz --backends old-abi4 --relations repeat,slice-rows --dtypes f64 --max-dim 16 --cases 200 --seed 3 --no-corpus \
    --fail-on never --json; then
    expect "errors exactly at k = 13, with gemm_many's reason; same elsewhere" "$(python3 -c '
import collections, json, sys
seen = collections.Counter((l["verdict"], l["shape"].endswith("x13"), "gemm_many fails k = 13" in l.get("error", ""))
                           for l in map(json.loads, sys.stdin) if l.get("type") == "check")
print(sorted(seen))' <<<"$out")" "^\[\('error', True, True\), \('same', False, False\)\]$"
fi

# Every finding's rerun line reproduces both output hashes, whatever kernel set the library picks
# here: a campaign up to max-dim 512, the findings on OpenBLAS rerun alone.
if run "a campaign up to 512" 0 $FPDIV fuzz --no-corpus --seed 21 --cases 150 --max-dim 512 --relations slice-rows,slice-cols,addmm,layout,vendor,core \
    --core Prescott,Nehalem --json; then
    grep '"type":"check"' <<<"$out" | python3 -c '
import json, sys
found = [o for o in map(json.loads, sys.stdin) if o["diff"] > 0 and any(b.startswith("openblas@") for b in o["backends"])]
step = max(1, len(found) // 12)
for o in found[::step][:12]:
    print(o["hash_a"], o["hash_b"], o["reproduce"])' >$tmp/reruns
    bad_reruns="" n_reruns=0
    while read -r ha hb cmd; do
        n_reruns=$((n_reruns + 1))
        again=$(${cmd/fpdiv/$FPDIV} --json --fail-on never 2>$tmp/rerun.err)
        got=$(python3 -c 'import json,sys; o=json.loads(sys.argv[1]); print(o["hash_a"], o["hash_b"])' "$again" 2>&1)
        [ "$got" = "$ha $hb" ] || bad_reruns+=" [$cmd: got ${got:0:200}; stderr: $(head -c 300 $tmp/rerun.err)]"
    done <$tmp/reruns
    [ "$n_reruns" -ge 8 ] && [ -z "$bad_reruns" ] && pass "$n_reruns findings' rerun lines give their hashes bit for bit" ||
        fail "rerun lines" "$n_reruns reruns; differing:$bad_reruns"
fi
# a core campaign saves minimized cases that replay as reproduced; the summary names the pair
if run "a core campaign" 0 $FPDIV fuzz --seed 7 --cases 120 --relations core --core Prescott,Nehalem --max-dim 48 --corpus $tmp/core; then
    expect "the summary names the kernel sets" "$out" '^core +openblas@Prescott,openblas@Nehalem +[0-9]+'
    n=$(find $tmp/core -name '*.json' | wc -l)
    run "the core cases replay" 0 $FPDIV replay $tmp/core &&
        expect "every one reproduces" "$out" "^$n cases: reproduced $n, changed 0, fixed 0, worse 0, elsewhere 0, skipped 0" &&
        [ "$n" -ge 1 ] && pass "$n core cases saved and replayed" || fail "core cases" "$n saved"
    core_case=$(find $tmp/core -name '*.json' | sort | head -1)
    if run "explain a core case" 0 $FPDIV explain "$core_case"; then
        expect "path A on Prescott's kernels" "$out" '^path A: openblas@Prescott .*1 thread, element'
        expect "path B on Nehalem's" "$out" '^path B: openblas@Nehalem .*1 thread, element'
        expect "and how their orders differ" "$out" '^the orders differ: path A: .+; path B: '
    fi
fi
run "bisect the core relation" 0 $FPDIV bisect --good 16x100x1 --bad 16x100x300 --relation core --core Prescott,Nehalem &&
    expect "where Prescott's and Nehalem's sums part" "$out" '^boundary: k=128 gives same; k=129 gives reorder'
# a kernel set a library cannot pin here leaves that library out of a campaign over every backend,
# said once; named in --backends, it is refused (probed: a set `fpdiv env` says OpenBLAS cannot run)
unpinnable=$($FPDIV env --json | python3 -c '
import json, sys
print(next(iter(json.load(sys.stdin)["backends"]["openblas"]["kernel_sets"].get("cannot", {})), ""))')
if [ -n "$unpinnable" ]; then
    run "fuzz --core $unpinnable over every backend" 0 $FPDIV fuzz --no-corpus --seed 3 --cases 20 --max-dim 16 \
        --relations repeat --core "$unpinnable" &&
        expect "leaves openblas out, saying why" "$err" "^fpdiv: note: openblas@$unpinnable is left out: openblas cannot " &&
        expect "once" "$(grep -c 'is left out' <<<"$err")" "^1$"
    run "fuzz --backends openblas --core $unpinnable" 2 $FPDIV fuzz --no-corpus --seed 3 --cases 20 --backends openblas \
        --core "$unpinnable"
else
    echo "SKIP fuzz --core on a set OpenBLAS cannot run: this CPU runs every one (fpdiv env)"
fi
run "fuzz --core pins every library backend" 0 $FPDIV fuzz --no-corpus --seed 3 --cases 200 --max-dim 32 --core Prescott &&
    expect "on Prescott alone" "$out" '^[a-z-]+ +openblas@Prescott ' &&
    { grep -E '^[a-z-]+ +[^ ]*openblas' <<<"$out" | grep -oE 'openblas(@[A-Za-z0-9_]+)?' | grep -qvx 'openblas@Prescott' &&
        fail "fuzz --core" "another kernel set, or an unpinned library, ran" || pass "no other kernel set ran"; }

# replay across machines: a case recorded on a kernel set this CPU cannot run is `elsewhere`
$FPDIV $KS check --relation vendor --backend seq,ksets --shape 3x4x50 --dtype f64 --save $tmp/ks >/dev/null 2>&1
ks=$(find $tmp/ks -name '*.json' | head -1)
sed 's/ksets@forward/ksets@crashes/; s/"kernel_set": "forward"/"kernel_set": "crashes"/' "$ks" >$tmp/elsewhere.json
run "replay a case from elsewhere" 125 $FPDIV $KS replay $tmp/elsewhere.json &&
    expect "it is elsewhere, and says why" "$out" '^elsewhere .*recorded on ksets@crashes: this CPU cannot run .*killed by signal 4.*; it runs forward, reverse, nudged'
run "elsewhere does not fail a corpus" 0 $FPDIV $KS replay $tmp/elsewhere.json "$ks" &&
    expect "and is counted" "$out" 'reproduced 1, changed 0, fixed 0, worse 0, elsewhere 1, skipped 0'
run "--strict-env fails it" 1 $FPDIV $KS replay --strict-env $tmp/elsewhere.json "$ks"
run "replay --json: elsewhere" 0 $FPDIV $KS replay --json --junit $tmp/else.xml $tmp/elsewhere.json "$ks" &&
    expect "a line of class elsewhere" "$out" '"class":"elsewhere".*"reason":"recorded on ksets@crashes'
python3 - $tmp/else.xml <<'PY' && pass "JUnit: elsewhere is a skipped test case" || fail "junit elsewhere" "$(cat $tmp/else.xml)"
import sys, xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot().find("testsuite")
skipped = [c for c in suite.findall("testcase") if c.find("skipped") is not None]
assert len(skipped) == 1 and skipped[0].find("skipped").get("message").startswith("elsewhere: recorded on ksets@crashes")
assert suite.get("skipped") == "1" and suite.get("failures") == "0"
PY
legacy=$(dirname "$0")/data/schema1-openblas-cooperlake.json
# which of the two depends on this CPU: whether it runs Cooperlake's kernels, as `fpdiv env` probes
cooperlake_runs=$($FPDIV env --json | python3 -c 'import json, sys; print("Cooperlake" in json.load(sys.stdin)["backends"]["openblas"]["kernel_sets"]["runs"])')
$FPDIV replay "$legacy" >$tmp/legacy.out 2>&1; rc=$?
if [ "$cooperlake_runs" = True ]; then
    [ $rc = 0 ] && grep -q '^reproduced .*on openblas@Cooperlake' $tmp/legacy.out &&
        pass "a schema-1 case recorded on Cooperlake is reproduced here, where that core runs" ||
        fail "schema 1" "exit $rc: $(head -c 300 $tmp/legacy.out)"
else
    [ $rc = 125 ] && grep -q '^elsewhere .*recorded on openblas@Cooperlake' $tmp/legacy.out &&
        pass "a schema-1 case recorded on Cooperlake is elsewhere here, where that core does not run" ||
        fail "schema 1" "exit $rc (Cooperlake runs: $cooperlake_runs): $(head -c 300 $tmp/legacy.out)"
fi
$FPDIV check --relation slice-rows --core Prescott --shape 2x3x40 --save $tmp/env >/dev/null 2>&1
envcase=$(find $tmp/env -name '*.json' | head -1)
sed 's/"kernel_set": "Prescott"/"kernel_set": "Haswell"/' "$envcase" >$tmp/corrupt-env.json
bad "a corrupt environment record" "corrupt-env.json: environment.backends.openblas@Prescott.kernel_set: 'Haswell', where the check names kernel set Prescott" \
    replay $tmp/corrupt-env.json
run "show names the recorded environment" 0 $FPDIV show "$envcase" &&
    expect "the kernel set and threads" "$out" '^  openblas@Prescott OpenBLAS [0-9.]+, kernel set Prescott, 1 thread$'

# --- fpdiv's own vector paths: FPDIV_VECTOR_WIDTH narrows them, and every width gives the same bits ---
widest=$(env -u FPDIV_VECTOR_WIDTH $FPDIV env --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["vector_width"])')
run "env says which vector paths fpdiv's own loops take" 0 env FPDIV_VECTOR_WIDTH=baseline $FPDIV env &&
    expect "env: the width in use and the CPU's" "$out" "^vectors +baseline \(fpdiv's own loops; the CPU's widest: $widest\)"
run "FPDIV_VECTOR_WIDTH is recorded in the environment" 0 env FPDIV_VECTOR_WIDTH=baseline $FPDIV check --relation repeat --shape 2x3x4 --json &&
    expect "check --json's environment" "$out" '"vector_width":"baseline"'
run "FPDIV_VECTOR_WIDTH names no width" 2 env FPDIV_VECTOR_WIDTH=sse9 $FPDIV env &&
    expect "FPDIV_VECTOR_WIDTH names no width: message" "$err" '^fpdiv: FPDIV_VECTOR_WIDTH=sse9: expected avx512, avx2 or baseline$'
case $widest in
avx512) widths="avx512 avx2 baseline" ;;
avx2) widths="avx2 baseline"; wider=avx512 ;;
*) widths=baseline; wider=avx2 ;;
esac
if [ -n "${wider:-}" ]; then
    run "FPDIV_VECTOR_WIDTH wider than the CPU's" 2 env FPDIV_VECTOR_WIDTH=$wider $FPDIV env &&
        expect "wider than the CPU's: message" "$err" "^fpdiv: FPDIV_VECTOR_WIDTH=$wider: this CPU's widest vector path is $widest: it cannot run $wider\$"
fi
# generation, kernels, the bound, comparison and the exact report at each width: the checks' lines
# (verdicts, counts, ulps, ratios, hashes, the exact attribution) are the same bytes
for w in $widths; do
    FPDIV_VECTOR_WIDTH=$w $FPDIV fuzz --no-corpus --seed 5 --cases 150 --json --jobs 1 --exact always \
        --backends seq,pairwise,splitk,blocked,openblas@Prescott --dtypes f32,f64,bf16,f16 2>/dev/null |
        grep '"type":"check"' >"$tmp/width-$w.jsonl"
done
[ "$(wc -l <"$tmp/width-baseline.jsonl")" -eq 150 ] && identical=1 || identical=0
for w in $widths; do cmp -s "$tmp/width-$w.jsonl" "$tmp/width-baseline.jsonl" || identical=0; done
[ $identical = 1 ] && pass "150 checks' results are the same bytes at every vector width ($widths)" ||
    fail "vector widths agree" "$(for w in $widths; do echo "$w: $(wc -l <"$tmp/width-$w.jsonl") lines"; done; diff "$tmp/width-baseline.jsonl" "$tmp/width-$widest.jsonl" | head -c 600)"

# --- errors: one line naming what is wrong, exit 2 ---
bad "unknown command" "unknown command 'frobnicate'" frobnicate
bad "no command" "usage" 
bad "unknown relation" "unknown relation 'slice-diag'" check --relation slice-diag --shape 2x3x4
bad "unknown backend" "unknown backend 'nosuchblas'" check --relation repeat --backend nosuchblas --shape 2x3x4
bad "unknown dtype" "unknown dtype 'f8'" check --relation repeat --shape 2x3x4 --dtype f8
bad "zero dimension" "n is zero" check --relation repeat --shape 2x0x4
bad "negative dimension" "expected a positive integer at column 3" check --relation repeat --shape 2x-3x4
bad "malformed shape" "unexpected 'y' at column 2" check --relation repeat --shape 2y3x4
bad "too few dimensions" "needs three dimensions" check --relation repeat --shape 2x3
bad "absurd dimensions" "over the --max-mem budget" check --relation repeat --shape 100000x100000x100000
bad "an empty corpus name" "--corpus needs a directory name" fuzz --corpus "" --cases 5
echo x >$tmp/not-a-dir
bad "a corpus that is a file" "--corpus $tmp/not-a-dir is not a directory" fuzz --corpus $tmp/not-a-dir --cases 5
bad "an empty output directory" "an empty directory name" export "$(find $committed/slice-rows -name "*.json" | sort | head -1)" --to numpy -o ""
bad "an empty merge target" "give OUT \(a directory name\)" merge "" corpus
bad "a size that overflows" "--max-mem .1e308T.: expected a size such as 512M or 4G" check --relation repeat --shape 2x3x4 --max-mem 1e308T
bad "huge dimension" "larger than" check --relation repeat --shape 2x3x99999999999
bad "slice outside" "slice 5:1 is outside m = 2" check --relation slice-rows --backend seq --shape 2x3x4 --slice 5
bad "missing shape" "--relation and --shape \(or --inputs\) are required" check --relation repeat
bad "pair needs two" "takes 2 backends" check --relation vendor --backend seq --shape 2x3x4
bad "cast-in on f32" "needs f16 or bf16 inputs" check --relation cast-in --backend seq --shape 2x3x4
bad "threads on seq" "needs a backend with a thread count" check --relation threads --backend seq --shape 2x3x4
bad "concurrent on seq" "needs a backend with concurrent calls" check --relation concurrent --backend seq --shape 2x3x4
bad "one caller" "--callers must be at least 2" check --relation concurrent --shape 2x3x4 --callers 1
bad "too many callers" "--callers '9': at most 8" check --relation concurrent --shape 2x3x4 --callers 9
bad "bad fail-on" "--fail-on 'sometimes'" check --relation repeat --shape 2x3x4 --fail-on sometimes
bad "bad option" "see 'fpdiv check --help'" check --relation repeat --shape 2x3x4 --frob
bad "fuzz unknown relation" "unknown relation 'nope'" fuzz --no-corpus --relations slice-rows,nope
bad "fuzz empty list item" "empty item" fuzz --dtypes f32,,bf16 --cases 1
bad "fuzz bad dtype list" "unknown dtype 'f8'" fuzz --dtypes f32,f8 --cases 1
bad "fuzz bad max-dim" "--max-dim must be at least 1" fuzz --max-dim 0
bad "fuzz nothing runs" "no relation can run" fuzz --relations cast-in --dtypes f32 --cases 1
bad "fuzz bad time" "--time 'soon'" fuzz --time soon
run "seeds: decimal or hex, never octal" 0 $FPDIV check --relation repeat --backend seq --shape 2x2x2 --seed 010 --json && expect "seed 010 is ten" "$out" '"seed":10,'
run "hex seed" 0 $FPDIV check --relation repeat --backend seq --shape 2x2x2 --seed 0x10 --json && expect "seed 0x10 is sixteen" "$out" '"seed":16,'
run "largest seed" 0 $FPDIV check --relation repeat --backend seq --shape 2x2x2 --seed 18446744073709551615 --json && expect "seeds above INT64_MAX are JSON strings" "$out" '"seed":"18446744073709551615"'

# --- corpus: fuzz saves minimized findings, replay re-runs them, show and minimize read them ---
C=$tmp/corpus
if run "fuzz saves into a corpus" 0 $FPDIV fuzz --seed 42 --cases 300 --max-dim 64 --corpus $C; then
    expect "fuzz reports what it saved" "$out" "^corpus $C: [1-9][0-9]* new cases? saved"
    expect "saved cases are minimized" "$out" '^  saved .* -> .* minimizing checks'
fi
nfiles=$(find $C -name '*.json' | wc -l)
[ "$nfiles" -ge 5 ] && pass "one file per signature ($nfiles)" || fail "corpus files" "$nfiles files"
run "fuzz again: nothing new" 0 $FPDIV fuzz --seed 42 --cases 300 --max-dim 64 --corpus $C &&
    expect "a signature already saved is only counted" "$out" "^corpus $C: 0 new cases saved; [1-9][0-9]* findings"
run "replay the corpus" 0 $FPDIV replay $C && expect "every case reproduces" "$out" "^$nfiles cases: reproduced $nfiles, "
run "replay --json" 0 $FPDIV replay --json $C &&
    expect "replay --json ends with a summary" "$(tail -1 <<<"$out")" '"type":"summary".*"reproduced":'"$nfiles"
one=$(find $C -name '*.json' | sort | head -1)
run "replay one file: good" 0 $FPDIV replay "$one"
# A campaign into a checkout's corpus/ (where `fpdiv fuzz` saves by default) leaves the suites
# passing: it only adds files, the cases the suites take (tests/committed-corpus.sh) are still the
# committed ones, byte for byte, and `fpdiv replay corpus` replays the user's findings with them.
if command -v git >/dev/null; then
    repo=$tmp/checkout n_committed=$(find $committed -name '*.json' | wc -l)
    mkdir -p $repo && cp -r $committed $repo/corpus && git -C $repo init -q && git -C $repo add corpus &&
        git -C $repo -c user.name=fpdiv -c user.email=fpdiv@localhost commit -qm "starter cases"
    run "a campaign into a checkout's corpus" 0 $FPDIV fuzz --seed 42 --cases 300 --max-dim 64 --corpus $repo/corpus \
        --fail-on never
    n_all=$(find $repo/corpus -name '*.json' | wc -l)
    [ "$n_all" -gt "$n_committed" ] && pass "it saved cases beside the committed ones ($n_all, $n_committed committed)" ||
        fail "a campaign into a checkout" "$n_all cases, $n_committed committed"
    changed=$(git -C $repo status --porcelain --untracked-files=all | grep -vE '^\?\? corpus/[a-z0-9-]+/[0-9a-f]{16}\.json$')
    [ -z "$changed" ] && pass "it only added case files: nothing committed changed, its claims are ignored" ||
        fail "a campaign into a checkout" "git status: $changed"
    taken=$("$(dirname "$0")/../committed-corpus.sh" $tmp/taken $repo)
    [ "$(cd $committed && find . -type f | sort | xargs sha1sum)" = "$(cd $taken && find . -type f | sort | xargs sha1sum)" ] &&
        pass "the suites take the committed cases, byte for byte" || fail "committed cases" "$(diff -r $committed $taken | head -5)"
    if run "replay the committed cases after the campaign" 0 $FPDIV replay $taken; then
        expect "all of them" "$out" "^$n_committed cases: "
        differ=$(grep -E '^(changed|fixed|worse) ' <<<"$out")
        [ -z "$differ" ] && pass "each reproduces, or runs elsewhere" || fail "replay the committed cases" "${differ:0:300}"
    fi
    run "replay corpus: the user's findings too" 0 $FPDIV replay $repo/corpus && expect "every case" "$out" "^$n_all cases: "
else
    echo "SKIP a campaign into a checkout: no git here"
fi
mkdir -p $tmp/unpacked && cp -r $committed $tmp/unpacked/corpus
if run "the committed cases of an unpacked archive" 0 "$(dirname "$0")/../committed-corpus.sh" $tmp/unpacked-taken $tmp/unpacked; then
    expect "are every case, said so" "$err" "is no git checkout: every case under corpus/ is taken"
    n=$(find $tmp/unpacked-taken -name '*.json' | wc -l)
    [ "$n" -eq "$(find $committed -name '*.json' | wc -l)" ] && pass "every case copied" || fail "an unpacked archive" "$n cases copied"
fi
run "committed cases into a directory that exists" 2 "$(dirname "$0")/../committed-corpus.sh" $tmp/unpacked $tmp/unpacked &&
    expect "are refused" "$err" "exists; give a new directory"
# saved as found, the check's own outputs are hashed (a campaign's other checks are not)
run "fuzz saves raw findings" 0 $FPDIV fuzz --seed 42 --cases 100 --max-dim 64 --corpus $tmp/raw --no-minimize
nraw=$(find $tmp/raw -name '*.json' | wc -l)
[ "$nraw" -ge 3 ] && pass "raw findings saved ($nraw)" || fail "raw findings saved" "$nraw files"
run "replay raw findings" 0 $FPDIV replay --strict $tmp/raw &&
    expect "every raw finding reproduces, hashes and all" "$out" "^$nraw cases: reproduced $nraw, "
run "show" 0 $FPDIV show "$one" && expect "show gives recorded, current and the command" "$out" "^reproduce: fpdiv replay $one"
expect "show re-runs the case" "$out" '^now: reproduced'
sed 's/"hash_b": "[0-9a-f]*"/"hash_b": "0000000000000000"/' "$one" >$tmp/changed.json
run "changed is not a failure" 0 $FPDIV replay $tmp/changed.json && expect "changed" "$out" '^changed '
run "changed fails with --strict" 1 $FPDIV replay --strict $tmp/changed.json
# recorded as same (bitwise equal: no element differs, one hash), so that reorder now is worse
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); o = d["outcome"]
o.update(verdict="same", diff=0, max_ulp=0, hash_b=o["hash_a"]); print(json.dumps(d))' "$one" >$tmp/worse.json
run "worse fails: git bisect bad" 1 $FPDIV replay $tmp/worse.json && expect "worse" "$out" '^worse '
printf '{\n "schema": 1,\n "check": {\n' >$tmp/truncated.json
bad "truncated case file" "truncated.json:4:0: " replay $tmp/truncated.json
sed 's/"schema": 2/"schema": 7/' "$one" >$tmp/schema.json
bad "wrong schema version" "schema.json: schema: version 7, this fpdiv reads versions 1 to 2" replay $tmp/schema.json
sed '0,/"m": [0-9]*/s//"m": -3/' "$one" >$tmp/negative.json
bad "negative dimension in a file" "negative.json: check.case.m: expected an integer" replay $tmp/negative.json
bad "show a missing file" "nope.json" show $tmp/nope.json
$FPDIV check --relation slice-rows --backend openblas --shape 2x100x100 --save $tmp/recipe >/dev/null 2>&1
recipe=$(find $tmp/recipe -name '*.json' | head -1)
sed 's/"m": 2,/"m": 1073741824,/; s/"k": 100,/"k": 1073741824,/' "$recipe" >$tmp/huge.json
bad "a case file too large for memory" "huge.json: check.case: case needs about .* over the --max-mem budget" show $tmp/huge.json
# Cases an older fpdiv saved as recipes (tests/cli/data) replay with their generator, rerun with
# --generator G to the recorded output bits, and show a rerun line naming it. Each is addmm on seq,
# 3x200x300, B transposed, seed 77, index 5: old_recipe G DIST "HASH_A HASH_B".
old_recipe() {
    local file
    file=$(dirname "$0")/data/generator$1-addmm.json
    run "a generator-$1 recipe replays" 0 $FPDIV replay --strict "$file" &&
        expect "generator $1: same data, same bits" "$out" '^reproduced '
    run "--generator $1 reruns it" 0 $FPDIV check --relation addmm --backend seq --shape 3x200x300 --trans-b \
        --dist "$2" --seed 77 --index 5 --generator "$1" --json &&
        [ "$(json_field hash_a <<<"$out") $(json_field hash_b <<<"$out")" = "$3" ] &&
        pass "--generator $1: the recorded output bits" || fail "--generator $1" "other bits: ${out:0:300}"
    expect "its rerun command names generator $1" "$($FPDIV show "$file" | sed -n 's/^  rerun *//p')" "--generator $1\$"
}
old_recipe 1 wide "3dda23e455f3bad3 3eb94b3b1e35953e"
old_recipe 2 uniform "86181541131318b8 ed032e2064e19c41" # f32 inputs, whose values generator 3 changed
old_recipe 3 normal "b43bc6c980633a67 7084aa40caa773e4" # generator 4 changed every input type's values
run "the newest generator: other data" 0 $FPDIV check --relation addmm --backend seq --shape 3x200x300 --trans-b \
    --dist wide --seed 77 --index 5 --json && [ "$(json_field hash_a <<<"$out")" != 3dda23e455f3bad3 ] &&
    pass "the newest generator is a different stream" || fail "the newest generator" "same bits as generator 1"
g1=$(dirname "$0")/data/generator1-addmm.json
sed 's/"generator": 1,/"generator": 6,/' "$g1" >$tmp/g6.json
bad "a generator this fpdiv lacks" "g6.json: check.case.data.generator: made by generator 6, this fpdiv has generators 1 to 5" replay $tmp/g6.json
bad "--generator out of range" "--generator '6': this fpdiv has generators 1 to 5" check --relation repeat --shape 2x3x4 --generator 6
bad "fuzz --generator 0" "--generator '0': this fpdiv has generators 1 to 5" fuzz --generator 0
run "fuzz --generator 1 says how to rerun" 0 $FPDIV fuzz --generator 1 --seed 3 --cases 20 --no-corpus --max-dim 8 &&
    expect "fuzz --generator 1: the rerun line" "$out" '^seed 3  \(rerun this campaign with --seed 3 --generator 1;'
# special values in one case in 8 of a campaign not given --specials, from generator 5 on; each
# check's line says so, and the summary counts them
specials_drawn() { python3 -c '
import json, sys
lines = [json.loads(l) for l in sys.stdin]
checks = [l for l in lines if l.get("type") == "check"]
summary = [l for l in lines if l.get("type") == "summary"][0]
drawn = sum(l.get("specials") == 0.01 for l in checks)
print(len(checks), "checks,", "%s drawn" % ("some" if 20 <= drawn <= 80 else drawn), summary["with_specials"] == drawn)' <<<"$out"; }
run "specials in a default campaign" 0 $FPDIV fuzz --seed 3 --cases 400 --max-dim 16 --backends seq --no-corpus --json &&
    expect "one case in 8" "$(specials_drawn)" '^400 checks, some drawn True$'
run "--specials 0: none" 0 $FPDIV fuzz --seed 3 --cases 400 --max-dim 16 --backends seq --no-corpus --json --specials 0 &&
    expect "none" "$(specials_drawn)" '^400 checks, 0 drawn True$'
run "generator 4 draws none" 0 $FPDIV fuzz --seed 3 --cases 400 --max-dim 16 --backends seq --no-corpus --json \
    --generator 4 && expect "none" "$(specials_drawn)" '^400 checks, 0 drawn True$'
# inline cases keep the generator that made them, in their origin and provenance
$FPDIV fuzz --generator 1 --seed 3 --cases 300 --max-dim 8 --corpus $tmp/g1corpus >/dev/null 2>&1
python3 - "$tmp/g1corpus" <<'PY' && pass "saved inline cases name generator 1" || fail "inline generator" "origin or provenance lost it"
import json, pathlib, sys
files = list(pathlib.Path(sys.argv[1]).rglob("*.json"))
cases = [json.load(open(f)) for f in files]
sys.exit(0 if files and all(c["origin"]["generator"] == 1 and c["environment"]["generator"] == 1 for c in cases) else 1)
PY
run "check --json names the generator" 0 $FPDIV check --relation repeat --backend seq --shape 2x3x4 --generator 1 --json &&
    [ "$(json_field generator <<<"$out")" = 1 ] && pass "check --json: generator 1" || fail "check --json generator" "${out:0:200}"
bad "a backend listed twice" "--backends 'openblas,seq,openblas': 'openblas' is listed twice" fuzz --backends openblas,seq,openblas
bad "a dtype given twice, spelled two ways" "--dtypes 'f32,f32:f32': 'f32:f32' is 'f32' again" fuzz --dtypes f32,f32:f32
sed '/"backends": \[/{n;s/"[^"]*"/"nosuchblas"/}' "$one" >$tmp/unknown.json
bad "unknown backend in a file" "unknown.json: check.backends: unknown backend 'nosuchblas'" replay $tmp/unknown.json
# two fuzzers sharing one corpus at once: nothing lost, nothing corrupted
$FPDIV fuzz --seed 11 --cases 400 --max-dim 48 --corpus $tmp/shared --json >$tmp/f1 2>&1 &
$FPDIV fuzz --seed 12 --cases 400 --max-dim 48 --corpus $tmp/shared --json >$tmp/f2 2>&1 &
wait
saved=$(cat $tmp/f1 $tmp/f2 | grep -c '"type":"saved"')
nfiles=$(find $tmp/shared -name '*.json' | wc -l)
[ "$saved" -eq "$nfiles" ] && [ "$nfiles" -gt 0 ] && pass "concurrent fuzzers: $nfiles cases saved, all there" ||
    fail "concurrent fuzzers" "$saved saved lines, $nfiles files"
[ -z "$(find $tmp/shared -name '.tmp-*')" ] && pass "no temporary files left" || fail "concurrent fuzzers" "temporary files left"
run "concurrent corpus replays" 0 $FPDIV replay $tmp/shared && expect "every shared case reproduces" "$out" "^$nfiles cases: reproduced $nfiles,"
run "minimize a saved case" 0 $FPDIV minimize "$one" -o $tmp/min && expect "minimize reports before and after" "$out" '^minimized .* -> .* in [0-9]+ checks'
expect "minimize saves" "$out" "^(saved|already saved:) $tmp/min/"
run "slice-rows check saved" 0 $FPDIV check --relation slice-rows --backend openblas $PIN --shape 2x1000x1000 --save $tmp/big
big=$(find $tmp/big -name '*.json')
if run "minimize 2x1000x1000" 0 $FPDIV minimize "$big" -o $tmp/big-min --minimize-time 20; then
    expect "the minimized slice-rows case keeps its verdict" "$out" '^check slice-rows on openblas@Prescott: reorder'
fi

# --- bisect and sweep ---
if run "bisect good/bad" 0 $FPDIV bisect --good 2x1000x4 --bad 2x1000x1000 --relation slice-rows --backend openblas $PIN; then
    expect "bisect prints each probe" "$out" '^  probe k=[0-9]+: (same|reorder), '
    expect "bisect finds the boundary" "$out" '^boundary: k=7 gives same; k=8 gives reorder'
    expect "bisect counts its probes" "$out" '^[0-9]+ probes$'
fi
run "bisect --scan" 0 $FPDIV bisect --good 2x1000x1 --bad 2x1000x2048 --relation slice-rows --backend openblas $PIN --scan &&
    expect "scan maps transitions" "$out" '^[1-9][0-9]* transitions? in [0-9]+ probes'
run "bisect by hash" 0 $FPDIV bisect --good 1x1000x1000 --bad 64x1000x1000 --relation slice-rows --backend openblas $PIN --by hash --scan &&
    expect "by hash names path A's bits" "$out" '^boundary: m=[0-9]+ gives path A bits [0-9a-f]{16}'
hash_boundary=$(grep '^boundary' <<<"$out")
run "bisect by hash, isolated" 0 $FPDIV bisect --good 1x1000x1000 --bad 64x1000x1000 --relation slice-rows --backend openblas $PIN --by hash --scan --isolate &&
    [ "$(grep '^boundary' <<<"$out")" = "$hash_boundary" ] && pass "with --isolate, the same bits: hashed in the child" ||
    fail "bisect by hash isolated" "$(grep '^boundary' <<<"$out") against $hash_boundary"
$FPDIV check --relation slice-rows --backend openblas $PIN --shape 2x1000x1000 --save $tmp/bis >/dev/null 2>&1
bisfile=$(find $tmp/bis -name '*.json' | head -1)
run "bisect a case file" 0 $FPDIV bisect "$bisfile" --dim k --lo 4 &&
    expect "bisect a case file finds the boundary" "$out" '^boundary: k=[0-9]+ gives same; k=[0-9]+ gives reorder'
run "bisect, no change" 1 $FPDIV bisect --good 2x10x10 --bad 2x10x40 --relation slice-rows --backend seq &&
    expect "no change is said" "$out" '^no change: k=10 and k=40 both give same'
run "bisect --scan, no change" 1 $FPDIV bisect --good 2x10x10 --bad 2x10x40 --relation slice-rows --backend seq --scan &&
    expect "a scan without transitions says so" "$out" '^0 transitions in'
bad "bisect file without --dim" "--dim is required" bisect "$bisfile"
bad "bisect shapes differing twice" "differ in exactly one dimension" bisect --good 2x3x4 --bad 3x4x4 --relation repeat
bad "bisect by hash along k" "use --by verdict for k" bisect --good 2x3x4 --bad 2x3x9 --relation repeat --by hash
if run "sweep" 0 $FPDIV sweep --relation addmm --backend openblas --shape 8x64x1 --vary k --range 1:600:7 --csv $tmp/s.csv --svg $tmp/s.svg; then
    expect "sweep prints a table" "$out" '^ +k verdict +differ +of +max abs +max ulp +ratio'
    rows=$(($(wc -l <$tmp/s.csv) - 1))
    [ "$rows" = 86 ] && pass "sweep CSV has a row per point" || fail "sweep csv" "$rows rows"
    expect "sweep CSV header" "$(head -1 $tmp/s.csv)" '^k,verdict,diff,count,max_abs,max_ulp,max_rel,ratio$'
    expect "sweep SVG is an SVG" "$(head -1 $tmp/s.svg)" "^<svg xmlns='http://www.w3.org/2000/svg'"
    expect "sweep SVG has a title" "$(cat $tmp/s.svg)" "addmm on openblas@[A-Za-z0-9_]+, f32, shape 8x64x1, k varied"
    expect "sweep SVG labels the x axis" "$(cat $tmp/s.svg)" ">k \(log scale\)</text>"
    grep -q 'ratio to bound' $tmp/s.svg && grep -q 'rounding bound' $tmp/s.svg && pass "SVG has both panels" || fail "svg" "panels missing"
fi
bad "sweep bad range" "--range '5:2': need LO <= HI" sweep --relation repeat --shape 2x2x2 --vary k --range 5:2
bad "sweep unknown dimension" "--vary 'q'" sweep --relation repeat --shape 2x2x2 --vary q --range 1:2
bad "sweep without range" "--vary and --range are required" sweep --relation repeat --shape 2x2x2

# --- explain: the summation order behind an element ---
run "explain seq" 0 $FPDIV explain --backend seq --shape 1x16x300 --element 0,5 &&
    expect "seq is sequential" "$out" '^  order: sequential over k$' &&
    expect "and recognised" "$out" '^  the documented order of: seq, blocked'
run "explain splitk" 0 $FPDIV explain --backend splitk --shape 3x8x1000 --dtype bf16 &&
    expect "splitk in words" "$out" '^  order: 4 blocks of 250, each sequential; then the 4 blocks: sequential$'
if run "explain openblas with drawings" 0 $FPDIV explain --backend openblas --shape 1x1x1024 --dot $tmp/e.dot --svg $tmp/e.svg; then
    expect "openblas order in words" "$out" '^  order: .+'
    expect "DOT written" "$(head -1 $tmp/e.dot)" '^digraph sum \{$'
    [ "$(grep -c -- ' -> ' $tmp/e.dot)" -ge 1023 ] && pass "DOT has every edge" || fail "DOT edges" "$(grep -c -- ' -> ' $tmp/e.dot)"
    expect "SVG written" "$(head -1 $tmp/e.svg)" '^<svg xmlns="http://www.w3.org/2000/svg"'
fi
# OpenBLAS's Haswell sgemm sums a 16x64 output's elements in two orders (2 interleaved lanes in
# 4-row blocks and the edges of 12-row ones, sequential elsewhere): batched in every column the
# answers disagree; asked again where each column has an element summed as (0, 0), they agree, in
# about 100 calls instead of one per query (454). Haswell's kernels run on every x86-64 CI machine.
if run "explain where elements are summed in two orders" 0 $FPDIV explain --backend openblas@Haswell --threads 1 \
        --shape 16x64x256; then
    expect "the element's own order" "$out" '^  order: 2 interleaved lanes \(term p in lane p mod 2\), each sequential'
    expect "batched again where elements are summed alike" "$out" \
        '446 queries in [0-9]+ GEMM calls.*asked again in the 64 of 64 columns that have an element summed as this one'
    calls=$(sed -n 's/.* queries in \([0-9]*\) GEMM calls.*/\1/p' <<<"$out")
    [ "${calls:-999}" -le 150 ] && pass "in at most 150 calls ($calls)" || fail "explain's calls at 16x64x256" "$calls"
fi
run "explain a plugin" 0 $FPDIV --plugin $(dirname "$FPDIV")/plugins/reverse.so explain --backend reverse --shape 1x4x50 &&
    expect "reverse order is seen" "$out" '^  order: sequential over k, from the last term down$'
run "check a crashing backend" 1 $FPDIV --plugin $(dirname "$FPDIV")/plugins/crashy.so check --relation slice-rows --backend crashy --shape 2x4x13 --save $tmp/crash &&
    expect "the crash is the check's error verdict" "$out" '^  error    killed by signal 11 \(Segmentation fault\)$'
run "show a crashing case" 0 $FPDIV --plugin $(dirname "$FPDIV")/plugins/crashy.so show "$(find $tmp/crash -name '*.json' | head -1)" &&
    expect "show says the re-run crashed" "$out" '^now: error: killed by signal 11'
run "check a backend that exits" 1 $FPDIV --plugin $(dirname "$FPDIV")/plugins/crashy.so check --relation slice-rows --backend crashy --shape 2x4x19 &&
    expect "leaving with status 0 is no answer: an error verdict" "$out" '^  error    exited with status 0 before it finished$'
run "explain a backend that exits" 1 $FPDIV --plugin $(dirname "$FPDIV")/plugins/crashy.so explain --backend crashy --shape 1x4x19 &&
    expect "the early exit is named" "$err" 'cannot explain: exited with status 0 before it finished'
if run "check a hanging backend" 1 $FPDIV --plugin $(dirname "$FPDIV")/plugins/crashy.so check --relation slice-rows --backend crashy --shape 2x4x17 --timeout 1 --json --save $tmp/hang; then
    expect "the hang is the check's error verdict" "$(json_field error <<<"$out")" '^timed out after 1 s'
    [ "$(find $tmp/hang -name '*.json' | wc -l)" = 1 ] && pass "the hanging case is saved" || fail "hanging case saved" "$(ls -R $tmp/hang)"
fi
run "sweep over a crashing shape" 0 $FPDIV --plugin $(dirname "$FPDIV")/plugins/crashy.so sweep --relation slice-rows --backend crashy --shape 2x4x1 --vary k --range 11:15 --isolate &&
    expect "the crash is one error point, the sweep goes on" "$out" '^ +13 error +killed by signal 11' &&
    expect "and the points after it run" "$out" '^ +15 same'
run "sweep over a crashing shape, in fpdiv's process" 139 $FPDIV --plugin $(dirname "$FPDIV")/plugins/crashy.so sweep \
    --relation slice-rows --backend crashy --shape 2x4x1 --vary k --range 11:15 &&
    expect "the points before it are kept" "$out" "^ +12 same" &&
    expect "the crash names the shape and --isolate" "$err" \
        "^fpdiv sweep: the check at k=13 crashed fpdiv, in whose process it ran: --isolate runs each check"
run "sweep over a hanging shape" 0 $FPDIV --plugin $(dirname "$FPDIV")/plugins/crashy.so sweep --relation slice-rows --backend crashy --shape 2x4x1 --vary k --range 16:18 --timeout 1 &&
    expect "the hang is one error point" "$out" '^ +17 error +timed out after 1 s'
if run "minimize a crashing case" 0 $FPDIV --plugin $(dirname "$FPDIV")/plugins/crashy.so minimize "$(find $tmp/crash -name '*.json' | head -1)" -o $tmp/crashmin; then
    expect "it shrinks to a smaller case that still crashes" "$out" '^minimized .*: 2x4x13 -> 2x1x13 in'
    expect "with the crash as its error" "$out" '^  error    killed by signal 11'
fi
run "explain a crashing backend" 1 $FPDIV --plugin $(dirname "$FPDIV")/plugins/crashy.so explain --backend crashy --shape 1x4x13 &&
    expect "the crash is named" "$err" 'cannot explain: killed by signal 11 \(Segmentation fault\), while crashy answered the queries'
run "explain a hanging backend" 1 $FPDIV --plugin $(dirname "$FPDIV")/plugins/crashy.so explain --backend crashy --shape 1x4x17 --timeout 1 &&
    expect "the hang is named" "$err" 'cannot explain: timed out after 1 s'
bad "explain without a shape" "give --shape, or a case file" explain --backend seq
bad "explain bad element" "--element '3': expected ROW,COL" explain --shape 2x2x2 --element 3
bad "explain element outside" "--element 0,9 is outside the 2x4 output" explain --shape 2x4x8 --element 0,9
bad "explain f16 output too narrow" "holds counts of ones exactly only up to 2048 terms" explain --backend seq --shape 1x1x3000 --dtype f16:f16
bad "explain no fused bias" "exact has no fused bias to explain" explain --backend exact --shape 1x1x8 --bias
bad "explain case and flags" "a case file fixes the backends" explain $tmp/none.json --shape 1x1x2
bad "explain missing case" "none.json" explain $tmp/none.json
run "save a slice-rows divergence" 0 $FPDIV check --relation slice-rows --backend openblas $PIN --shape 2x1000x1000 --save $tmp/ex --fail-on never
if run "explain the case" 0 $FPDIV explain "$(find $tmp/ex -name '*.json' | head -1)" --dot $tmp/ex/t.dot; then
    expect "both paths revealed" "$out" '^path B: openblas@Prescott f32 1x1000x1000, 1 thread, element'
    expect "the orders differ" "$out" '^the orders differ: path A: .+; path B: '
    expect "first difference named" "$out" '^first difference: terms [0-9]+ and [0-9]+ are summed together'
    [ -s $tmp/ex/t-a.dot ] && [ -s $tmp/ex/t-b.dot ] && pass "a DOT per path" || fail "DOT per path" "$(ls $tmp/ex)"
fi

# --- concurrent callers: a library called from several threads at once gives each its own bits ---
# (on integers, whose exact cancellations are +0 on path B and on its mirror alike)
for args in "--dtype f64 --bias --trans-a" "--dtype f32 --pad 3 --callers 8" "--dtype bf16 --trans-b --callers 3" \
            "--dtype bf16 --trans-b --dist int" "--dtype f32 --callers 5 $PIN"; do
    run "concurrent on openblas $args" 0 $FPDIV check --relation concurrent --backend openblas --shape 2x40x30x200 \
        $args && expect "each caller gives the bits alone ($args)" "$out" \
        '^  callers  [2-8] at once, [0-9]+ rounds?: [0-9] computing this GEMM or its mirror .*; each gave path A.s bits$'
done
expect "a pinned kernel set's host takes the calls at once" "$out" '^check concurrent on openblas@Prescott: same'
if run "save a concurrent case" 0 $FPDIV check --relation concurrent --backend openblas --shape 30x20x100 --callers 3 \
        --threads 2 --save $tmp/conc --fail-on never; then
    conc=$(find $tmp/conc -name '*.json' | head -1)
    expect "its callers and threads are in the case file" "$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["check"]["params"]; print(p)' "$conc")" \
        "^\{'threads': 2, 'callers': 3\}$"
    run "and replays" 0 $FPDIV replay "$conc" && expect "as it was" "$out" '^reproduced .*concurrent on openblas'
fi

run "split-k" 0 $FPDIV check --relation split-k --backend openblas --shape 4x5x1000 --dtype f32 --trans-b &&
    expect "says where it splits" "$out" '^  path B   openblas@[A-Za-z0-9_]+: gemm 4x5x1000, f32 in, f32 out, as two gemms of the first [0-9]+ terms and the other [0-9]+, added$'
# --- self: A·Aᵀ by syrk, as numpy computes A @ A.T, against gemm on a copy of Aᵀ ---
for b in openblas blis refblas; do
    run "self on $b" 0 $FPDIV check --relation self --backend $b --shape 2x33x40x300 --dtype f64 --trans-a --pad 2 &&
        expect "self on $b agrees within the bound" "$out" '^check self on [a-z]+(@[A-Za-z0-9_]+)?: (same|reorder)'
done
expect "C is m x m, B unused" "$out" '^  path B   refblas: syrk \(A times its own transpose\) for 2x33x33x300, f64 in, f64 out$'
bad "self on f16" "self runs BLAS's syrk, which takes f32 or f64 throughout" check --relation self --backend openblas --shape 4x4x4 --dtype f16
run "self on a syrk that writes the other triangle" 1 $FPDIV --blas zoo="$(dirname "$FPDIV")/zoo/libsyrk_triangle.so" \
    check --relation self --backend zoo --shape 20x20x30 --dtype f64 --trans-a &&
    expect "leaves C's poison in the mirrored half: nonfinite" "$out" '^check self on zoo: nonfinite'
# --- gemmt: C's upper and lower triangles by the library's gemmt, each call into a C of its own ---
for b in blis mkl; do
    run "gemmt on $b" 0 $FPDIV check --relation gemmt --backend $b --shape 2x33x40x300 --dtype f32 --trans-b --pad 2 &&
        expect "gemmt on $b agrees within the bound" "$out" '^check gemmt on [a-z]+@[A-Za-z0-9_]+: (same|reorder)'
done
expect "C is m x m" "$out" '^  path B   mkl@[A-Za-z0-9_]+: gemmt, upper then lower triangle, for 2x33x33x300, f32 in, f32 out$'
bad "gemmt where the library has none" "does not apply: reference BLAS \(Netlib\) exports no cblas_dgemmt" \
    check --relation gemmt --backend refblas --shape 4x4x4 --dtype f64
run "gemmt that fills the other triangle" 1 $FPDIV --blas zoo="$(dirname "$FPDIV")/zoo/libgemmt_row_major.so" \
    check --relation gemmt --backend zoo --shape 20x20x30 --dtype f64 --trans-a &&
    expect "the triangle it was not asked for changed: an error naming it" "$out" \
        "^  error    path B: zoo's gemmt wrote below the diagonal of C when asked for its upper triangle$"
# --- scale: a power of two changes no significand, so the paths agree bit for bit ---
for args in "--dtype f64 --bias --trans-a --dist wide" "--dtype bf16:bf16 --pad 3 --exact never" \
            "--dtype f16 --backend blis --scale 5"; do
    run "scale $args" 0 $FPDIV check --relation scale --backend openblas --shape 2x40x30x200 $args &&
        expect "same ($args)" "$out" '^check scale on [a-z]+@[A-Za-z0-9_]+: same'
done
expect "and says by what" "$out" '^  path B   blis@[a-z0-9]+: gemm 2x40x30x200, f16 in, f32 out, A times 2\^-?5, C times 2\^-?5$'
# generator 4's specials put the largest finite values among the inputs, whose sums may overflow:
# scaled down, path B's would not where path A's do, so no power of two keeps the paths alike, and
# the check does not apply
bad "scale on specials" "does not apply: scale: no power of two keeps these data finite and exact, so path B would be path A" \
    check --relation scale --backend openblas --shape 2x40x30x200 --dtype bf16:bf16 --pad 3 --specials 0.01 --exact never \
    --generator 4
run "scale on a library that rounds its inputs to 11 bits" 0 $FPDIV --blas zoo="$(dirname "$FPDIV")/zoo/libreduced_precision.so" \
    check --relation scale --backend zoo --shape 8x8x64 --dtype f32 --exact never &&
    expect "is same: a power of two moves no significand's rounding" "$out" '^check scale on zoo: same'
run "scale on a library that drops inputs below 2^-8" 1 $FPDIV --blas zoo="$(dirname "$FPDIV")/zoo/libsmall_dropped.so" \
    check --relation scale --backend zoo --shape 8x8x64 --dtype f32 --exact never &&
    expect "finds what depends on magnitudes" "$out" '^check scale on zoo: bound'
# --- alpha-beta: BLAS's own alpha and beta, powers of two, against alpha 1 and beta 1 ---
for args in "--backend openblas --dtype f64 --bias --trans-a --dist wide" "--backend blis --dtype f32 --bias --pad 3 --beta -3" \
            "--backend refblas --dtype bf16 --bias --alpha 0 --beta 2" "--backend mkl --dtype f32 --alpha 4"; do
    run "alpha-beta $args" 0 $FPDIV check --relation alpha-beta --shape 2x40x30x200 $args --fail-on bound &&
        expect "same or a reordering ($args)" "$out" '^check alpha-beta on [a-z]+(@[A-Za-z0-9_]+)?: (same|reorder)$'
done
expect "without a bias: beta 0, alpha alone" "$out" '^  path B   mkl@[A-Za-z0-9_]+: gemm 2x40x30x200, f32 in, f32 out, alpha 2\^-?4, beta 0, then times 2\^-?4$'
bad "alpha 1 without a bias is the plain product" "alpha-beta with alpha 2\^0 and no bias \(beta 0\) asks for the plain product: path B would be path A" \
    check --relation alpha-beta --backend openblas --shape 2x3x4 --alpha 0
bad "alpha 1 and beta 1 too" "alpha-beta with alpha 2\^0 and beta 2\^0 asks for the plain product" \
    check --relation alpha-beta --backend openblas --shape 2x3x4 --alpha 0 --beta 0 --bias
run "alpha-beta on a kernel that takes beta for a flag" 1 $FPDIV --blas zoo="$(dirname "$FPDIV")/zoo/libbeta_flag.so" \
    check --relation alpha-beta --backend zoo --shape 8x8x64 --dtype f32 --bias --beta 2 &&
    expect "finds it" "$out" '^check alpha-beta on zoo: bound$' &&
    expect "and says what path B asked for" "$out" '^  path B   zoo: gemm 8x8x64, f32 in, f32 out, fused bias, alpha 2\^-?1, beta 2\^2 on C holding the bias times 2\^-?[0-9]+, then times 2\^-?1$' &&
    expect "with the command that reruns it" "$out" \
        '^  rerun    fpdiv --blas zoo=[^ ]+ check --relation alpha-beta --backend zoo .*--alpha 1 --beta 2 '
if run "saved" 1 $FPDIV --blas zoo="$(dirname "$FPDIV")/zoo/libbeta_flag.so" check --relation alpha-beta --backend zoo \
    --shape 8x8x64 --bias --alpha 3 --beta -2 --save $tmp/scalars; then
    saved=$(find $tmp/scalars -name '*.json' | head -1)
    python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["check"]["params"] != {"alpha": 3, "beta": -2})' \
        "$saved" && pass "the case file keeps alpha and beta" || fail "alpha and beta saved" "$(head -c 400 "$saved")"
    run "explained" 0 $FPDIV --blas zoo="$(dirname "$FPDIV")/zoo/libbeta_flag.so" explain "$saved" &&
        expect "one order: the scalars, which the probes leave alone, are named" "$out" \
            "^same order: .*, BLAS's alpha and beta, which the probes leave at 1 and 0\)$"
    run "replayed on the library itself, where it is fixed" 0 $FPDIV --blas zoo="$(dirname "$FPDIV")/zoo/libnone.so" replay $tmp/scalars &&
        expect "as fixed" "$out" '^fixed '
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["check"]["params"]["beta"] = 9; json.dump(d, open(sys.argv[2], "w"))' \
        "$saved" $tmp/beta9.json
    bad "a case file's beta out of range" "beta9.json: check.params.beta: expected an integer from -8 to 8" \
        --blas zoo="$(dirname "$FPDIV")/zoo/libnone.so" replay $tmp/beta9.json
fi
if run "LAPACK's update, C := C - A B, saved" 1 $FPDIV --blas zoo="$(dirname "$FPDIV")/zoo/libalpha_sign_twice.so" check \
    --relation alpha-beta --backend zoo --shape 8x8x64 --bias --alpha 0 --beta 0 --negative-alpha --save $tmp/update; then
    expect "a kernel taking alpha's sign twice there: bound" "$out" '^check alpha-beta on zoo: bound$'
    expect "path B names the sign" "$out" '^  path B   zoo: gemm 8x8x64, f32 in, f32 out, fused bias, alpha -2\^0, beta 2\^0 on C holding the bias times -2\^0, then times -2\^0$'
    expect "and its rerun" "$out" '^  rerun    .* --alpha 0 --beta 0 --negative-alpha '
    saved=$(find $tmp/update -name '*.json' | head -1)
    python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["check"]["params"] != {"alpha": 0, "beta": 0, "alpha_negative": True})' \
        "$saved" && pass "the case file keeps the sign" || fail "alpha's sign saved" "$(head -c 400 "$saved")"
    run "replayed on the library itself, where it is fixed" 0 $FPDIV --blas zoo="$(dirname "$FPDIV")/zoo/libnone.so" replay $tmp/update &&
        expect "as fixed" "$out" '^fixed '
fi
run "alpha-beta's JSON: the scalars as asked and as run" 0 $FPDIV check --relation alpha-beta --backend openblas --shape 6x7x8 \
    --bias --alpha 2 --beta -3 --json &&
    expect "both" "$out" '"alpha":2,"beta":-3,"alpha_negative":false,"scalars":\{"alpha_exp":-?2,"beta_exp":-?[0-9]+,"alpha_negative":false\}'
bad "scale where no power of two keeps the data exact: path B would be path A" \
    "does not apply: scale: no power of two keeps these data finite and exact, so path B would be path A" \
    check --relation scale --backend seq --shape 1x163x130 --dtype bf16 --trans-a --pad 5 --dist int --specials 0.01 \
    --seed 9 --index 529 --generator 4
bad "--beta out of range" "--beta '9': expected an integer from -8 to 8" check --relation alpha-beta --beta 9
bad "--beta with a plus" "--beta '\+2': expected an integer from -8 to 8" check --relation alpha-beta --beta +2
bad "--alpha negative" "--alpha '-1': expected a non-negative integer" check --relation alpha-beta --alpha -1
bad "alpha-beta on an own kernel" "alpha-beta needs a backend with BLAS's alpha and beta \(a BLAS library's, or torch's addmm and baddbmm\); seq has none" \
    check --relation alpha-beta --backend seq --shape 4x4x4

run "save a threads case" 0 $FPDIV check --relation threads --backend openblas --shape 64x64x1000 --save $tmp/ext --fail-on never
run "explain the threads case" 0 $FPDIV explain "$(find $tmp/ext -name '*.json' | head -1)" &&
    expect "each path's thread count is shown" "$out" '^path A: openblas@[A-Za-z0-9_]+ f32 64x64x1000, 1 thread, element'
run "save an addmm divergence" 0 $FPDIV check --relation addmm --backend openblas --shape 32x64x1000 --save $tmp/exa --fail-on never
if run "explain the addmm case" 0 $FPDIV explain "$(find $tmp/exa -name '*.json' | head -1)"; then
    expect "mm + bias: the bias last" "$out" '^  plus the bias, which fpdiv adds after the GEMM: .*the bias added last$'
    expect "fused: the bias is a term of the tree" "$out" '^  order: .*; the bias (added to a partial sum of [0-9]+ terms|the sum starts from the bias)$'
fi

# --- plugins: a user's own kernel, loaded like any backend ---
P=$(dirname "$FPDIV")/plugins
run "plugin listed" 0 $FPDIV --plugin $P/reverse.so list && expect "the plugin's backend is listed" "$out" '^  reverse +cpu available +example plugin'
run "plugin: slice-rows same" 0 $FPDIV --plugin $P/reverse.so check --relation slice-rows --backend reverse --shape 4x50x300 &&
    expect "its order does not depend on m" "$out" '^check slice-rows on reverse: same'
run "plugin: vendor" 0 $FPDIV --plugin $P/reverse.so check --relation vendor --backend reverse,openblas --shape 4x50x300 &&
    expect "against OpenBLAS it reorders" "$out" '^check vendor on reverse,openblas@[A-Za-z0-9_]+: reorder'
run "plugin refuses bf16" 2 $FPDIV --plugin $P/reverse.so check --relation repeat --backend reverse --shape 2x2x2 --dtype bf16 &&
    expect "and says why" "$err" 'reverse kernel computes f32 or f64 only'
FPDIV_PLUGIN_PATH=$P/reverse.so run "FPDIV_PLUGIN_PATH" 0 $FPDIV fuzz --no-corpus --seed 3 --cases 200 --backends reverse,openblas --dtypes f32,f64 &&
    expect "a campaign fuzzes the plugin" "$out" '^reverse +(openblas|reverse) |^vendor +reverse,openblas@'
# A library that prints to stdout (OpenBLAS's xerbla for a call it rejects): its words go to stderr,
# never among the results a --json reader parses line by line.
all_json() { python3 -c 'import json, sys; [json.loads(l) for l in sys.stdin]; print("all JSON")' <<<"$1"; }
run "a library that prints: check --json" 0 $FPDIV --plugin $P/chatty.so check --relation repeat --backend chatty \
        --shape 2x3x4x5 --dtype f64 --json &&
    expect "one JSON line on stdout" "$(all_json "$out")" '^all JSON$' && expect "its words on stderr" "$err" 'CHATTY parameter'
run "a library that prints: fuzz --json" 0 $FPDIV --plugin $P/chatty.so fuzz --backends chatty --cases 40 --no-corpus --json &&
    expect "only JSON lines on stdout" "$(all_json "$out")" '^all JSON$' && expect "its words on stderr" "$err" 'CHATTY parameter'
# A backend's provenance can be state of the process that ran its GEMMs (cuBLASLt's algorithm): an
# isolated check's environment is the one its child saw, in --json, the report, a saved case and a
# minimized one (the review of the CUDA backends, finding 3).
ST="--plugin $P/stateful.so --plugin $P/reverse.so"
run "environment where the check ran: --json" 0 $FPDIV $ST check --relation repeat --backend stateful --shape 2x3x4x5 \
        --dtype f64 --json &&
    expect "the child's GEMMs are in it" "$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["environment"]["backends"]["stateful"])' "$out")" \
        "'gemms_in_this_process': '2', 'last_shape': '2x3x4x5'"
run "environment where the check ran: report" 0 $FPDIV $ST check --relation repeat --backend stateful --shape 3x4x5 --dtype f64 &&
    expect "the report's too" "$out" '^  stateful +gemms_in_this_process=2; last_shape=1x3x4x5$'
env_dir=$(mktemp -d)
run "environment where the check ran: saved" 0 $FPDIV $ST check --relation vendor --backend stateful,reverse --shape 9x17x300 \
        --dtype f64 --save "$env_dir" &&
    expect "the saved case's" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["environment"]["backends"]["stateful"])' \
        "$env_dir"/vendor/*.json)" "'gemms_in_this_process': '1', 'last_shape': '1x9x17x300'"
run "environment where the check ran: minimized" 0 $FPDIV $ST minimize "$env_dir"/vendor/*.json --out "$env_dir/min" &&
    expect "the minimized case's is its final check's" "$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
c = j["check"]["case"]
print(j["environment"]["backends"]["stateful"]["last_shape"] == "%dx%dx%dx%d" % (c["batch"], c["m"], c["n"], c["k"]))' \
        "$env_dir"/min/vendor/*.json)" '^True$'
rm -rf "$env_dir"
bad "plugin with another ABI" "was built for backend ABI 10; this fpdiv speaks ABI 9 \(and loads plugins of ABI 1 and later\)" --plugin $P/wrong_abi.so list
# A GEMM a backend cannot compute, though it takes the dtypes (an algorithm a library does not
# offer for the problem): the check does not apply. `check` refuses it; a campaign passes it over
# and counts it, and it is never a finding (tests/plugins/few_algos.c offers 1 + k % 4 algorithms).
FA="--plugin $P/few_algos.so"
bad "a check that does not apply" "does not apply: few-algos offers 1 algorithm for k = 4; algorithm 1 was asked for" \
    $FA check --relation algo --backend few-algos --algo 1 --shape 2x3x4 --dtype f64
run "one that does" 0 $FPDIV $FA check --relation algo --backend few-algos --algo 3 --shape 2x3x7 --dtype f64 &&
    expect "runs" "$out" '^check algo on few-algos: reorder'
fa_dir=$(mktemp -d)
run "a campaign passes over the checks that do not apply" 0 $FPDIV $FA fuzz --corpus "$fa_dir" --relations algo \
        --backends few-algos --dtypes f64 --cases 300 --seed 2 --max-dim 32 --fail-on never --json &&
    expect "counted apart, none an error; the one finding saved, minimized without shrinking into a check that does not apply" "$(python3 -c '
import collections, json, sys
lines = [json.loads(l) for l in sys.stdin]
kinds = collections.Counter(l["type"] for l in lines)
summary = [l for l in lines if l["type"] == "summary"][0]
checks = [l for l in lines if l["type"] == "check"]
na = [l for l in lines if l["type"] == "not_applicable"]
print(kinds["not_applicable"] == summary["not_applicable"] > 0, summary["checks"] == len(checks) > 0,
      all(l["verdict"] != "error" for l in checks), all("algorithm" in l["reason"] and "--algo" in l["reproduce"] for l in na),
      [json.load(open(l["path"]))["outcome"]["verdict"] for l in lines if l["type"] == "saved"] == ["reorder"])' \
        <<<"$out")" '^True True True True True$'
rm -rf "$fa_dir"
run "the summary says how many did not apply" 0 $FPDIV $FA fuzz --no-corpus --relations algo --backends few-algos --dtypes f64 \
        --cases 300 --seed 2 --max-dim 32 &&
    expect "in words" "$out" '^did not apply: [0-9]+ checks, whose backend cannot compute a GEMM of them' &&
    expect "and names the first" "$err" 'did not apply, seed 2 index [0-9]+: few-algos offers'
fa_dir=$(mktemp -d)
run "a case that applied" 0 $FPDIV $FA check --relation algo --backend few-algos --algo 3 --shape 2x3x7 --dtype f64 \
    --save "$fa_dir" --fail-on never
python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); j["check"]["params"]["algo"] = 5; json.dump(j, open(sys.argv[1], "w"))' \
    "$fa_dir"/algo/*.json # as a library that now offers fewer algorithms for it would see it
run "replays as skipped where it does not apply" 125 $FPDIV $FA replay "$fa_dir" &&
    expect "saying why" "$out" '^skipped .* does not apply here: few-algos offers 4 algorithms for k = 7; algorithm 5 was asked for$'
rm -rf "$fa_dir"
run "the plugin of ABI 5 loads" 0 $FPDIV --plugin $P/old_abi5.so check --relation vendor --backend seq,old-abi5 \
        --shape 3x4x50 --dtype f64 --json && expect "and computes seq's order" "$out" '"verdict":"same"'
run "the plugin of ABI 6 loads" 0 $FPDIV --plugin $P/old_abi6.so check --relation vendor --backend seq,old-abi6 \
        --shape 3x4x50 --dtype f64 --json && expect "and computes seq's order" "$out" '"verdict":"same"'
bad "an ABI 6 plugin takes no concurrent calls" "concurrent needs a backend with concurrent calls" \
    --plugin $P/old_abi6.so check --relation concurrent --backend old-abi6 --shape 3x4x50 --dtype f64
run "the plugin of ABI 7 loads" 0 $FPDIV --plugin $P/old_abi7.so check --relation vendor --backend seq,old-abi7 \
        --shape 3x4x50 --dtype f64 --json && expect "and computes seq's order" "$out" '"verdict":"same"'
bad "an ABI 7 plugin is handed no alpha and beta, whatever bit 12 of its features says" \
    "alpha-beta needs a backend with BLAS's alpha and beta \(a BLAS library's, or torch's addmm and baddbmm\); old-abi7 has none" \
    --plugin $P/old_abi7.so check --relation alpha-beta --backend old-abi7 --shape 3x4x50 --dtype f64
run "the plugin of ABI 8 loads" 0 $FPDIV --plugin $P/old_abi8.so check --relation vendor --backend seq,old-abi8 \
        --shape 3x4x50 --dtype f64 --json && expect "and computes seq's order" "$out" '"verdict":"same"'
bad "an ABI 8 plugin is handed no column-major route, whatever bit 13 of its features says" \
    "col-major needs a backend with a column-major gemm \(a BLAS library's\); old-abi8 has none" \
    --plugin $P/old_abi8.so check --relation col-major --backend old-abi8 --shape 3x4x50 --dtype f64
bad "an ABI 8 plugin is handed no alpha and beta (their sign is ABI 9's), whatever bit 12 says" \
    "alpha-beta needs a backend with BLAS's alpha and beta \(a BLAS library's, or torch's addmm and baddbmm\); old-abi8 has none" \
    --plugin $P/old_abi8.so check --relation alpha-beta --backend old-abi8 --shape 3x4x50 --dtype f64
bad "not a plugin" "does not export fpdiv_plugin_init" --plugin $P/no_entry.so list
bad "missing plugin" "cannot load plugin /nonexistent.so" --plugin /nonexistent.so list

# --- the CUDA plugin, where it was built: listed; where there is no GPU, unavailable with the reason ---
if [ -f "$(dirname "$FPDIV")/fpdiv-cuda.so" ]; then
    run "list with the CUDA plugin" 0 $FPDIV list
    for b in cuda-seq cuda-tiled cuda-splitk cuda-wmma cublas cublaslt; do
        expect "$b is listed" "$out" "^  $b +gpu (available|unavailable)"
    done
    if grep -qE '^  cublas +gpu unavailable' <<<"$out"; then
        expect "the reason is given" "$out" 'why: no (usable )?CUDA device'
        bad "a check on an unavailable GPU backend" "cublas is unavailable: no" check --relation repeat --backend cublas --shape 2x3x4
        # the check's backend and its record, both cublas's (a record of another backend is refused)
        python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["check"]["backends"] = ["cublas"]
d["environment"]["backends"] = {"cublas": {}}; print(json.dumps(d))' "$one" >$tmp/gpu-case.json
        run "replaying a GPU case without a GPU: git bisect's skip" 125 $FPDIV replay $tmp/gpu-case.json &&
            expect "skipped, with the reason" "$out" '^skipped .*no (usable )?CUDA device'
    fi
    # a driver that crashes or hangs in the device probe makes the GPU backends unavailable, and
    # fpdiv goes on (the CPU backends still run)
    driver=$(dirname "$FPDIV")/drivers${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    if [ -f "$(dirname "$FPDIV")/drivers/libcuda.so.1" ]; then
        FAKE_CUDA_DRIVER=crash LD_LIBRARY_PATH=$driver run "a driver crashing in the probe" 0 $FPDIV list &&
            expect "the GPU backends are unavailable, naming the signal" "$out" \
                'why: the CUDA device probe failed: killed by signal 11' &&
            expect "the CPU backends are not" "$out" '^  openblas +cpu available'
        FAKE_CUDA_DRIVER=hang FPDIV_CUDA_PROBE_TIMEOUT=1 LD_LIBRARY_PATH=$driver \
            run "a driver hanging in the probe" 0 timeout 60 $FPDIV list &&
            expect "the probe's deadline ends it" "$out" 'why: the CUDA device probe failed: timed out after 1 s'
        FAKE_CUDA_DRIVER=hang FPDIV_CUDA_PROBE_TIMEOUT=1 LD_LIBRARY_PATH=$driver \
            run "a campaign over a hanging driver" 0 timeout 60 $FPDIV fuzz --no-corpus --seed 2 --cases 50 --max-dim 16 &&
            expect "checks on the CPU backends" "$out" '^50 checks in'
        FAKE_CUDA_DRIVER=hang FPDIV_CUDA_PROBE_TIMEOUT=1 LD_LIBRARY_PATH=$driver \
            run "naming a GPU backend over a hanging driver" 2 timeout 60 $FPDIV fuzz --no-corpus --cases 5 \
            --backends openblas,cublas &&
            expect "is refused, with the reason" "$err" "backend cublas is unavailable: the CUDA device probe failed"
        # a probe that would outlast the test's own deadline: a campaign naming only CPU backends never starts it
        FAKE_CUDA_DRIVER=hang FPDIV_CUDA_PROBE_TIMEOUT=100000 LD_LIBRARY_PATH=$driver \
            run "a campaign naming only CPU backends over a hanging driver" 0 timeout 60 $FPDIV fuzz --no-corpus \
            --seed 2 --cases 20 --max-dim 16 --backends openblas,blocked &&
            expect "runs without probing the GPU" "$out" '^20 checks in'
        run "a probe deadline that is not a number" 2 env FPDIV_CUDA_PROBE_TIMEOUT=soon $FPDIV list &&
            expect "is refused before anything runs, saying so" "$err" \
                "^fpdiv: FPDIV_CUDA_PROBE_TIMEOUT='soon': expected seconds, a number from 0 to 1e\+06 \(0: no limit\)"
    fi
fi

# --- the floating-point environment: a plugin that switches on flush-to-zero when loaded (as a
# -ffast-math library does) or a kernel that leaves a rounding mode set changes none of fpdiv's results ---
if [ "$(uname -m)" = x86_64 ]; then # elsewhere fpdiv checks the rounding mode only (fpenv.h)
run "a plugin switching flush-to-zero on at load" 0 $FPDIV --plugin $P/fastmath.so list &&
    expect "is named, with what it changed" "$err" \
        'loading plugin .*fastmath.so changed the floating-point environment \(flush-to-zero on, denormals-are-zero on'
fenv_args=(fuzz --no-corpus --seed 11 --max-dim 12 --specials 0.05 --backends seq,pairwise,blocked,openblas,exact
           --dtypes f32,f64,bf16 --cases 1500 --json --jobs 1)
fenv_results() { grep -E '"type":"(check|not_applicable)"' | python3 -c '
import json, sys
for line in sys.stdin:
    o = json.loads(line)
    print(o["index"], o.get("verdict", "does not apply"), o.get("hash_a"), o.get("hash_b"), o.get("max_ulp"))'; }
$FPDIV "${fenv_args[@]}" 2>/dev/null | fenv_results >$tmp/fenv-plain
$FPDIV --plugin $P/fastmath.so "${fenv_args[@]}" 2>/dev/null | fenv_results >$tmp/fenv-loaded
if [ "$(wc -l <$tmp/fenv-plain)" = 1500 ] && cmp -s $tmp/fenv-plain $tmp/fenv-loaded; then
    pass "with it loaded, 1500 checks with subnormals give the same bits and verdicts"
else
    fail "fast-math plugin loaded" "$(diff $tmp/fenv-plain $tmp/fenv-loaded | head -4)"
fi
run "a kernel leaving the rounding mode set" 1 $FPDIV --plugin $P/fastmath.so check --relation repeat --backend fenvleak \
    --shape 2x3x7 --dtype f32 &&
    expect "is an error naming the mode" "$out" \
        'error +path A: fenvleak returned with the floating-point environment changed \(rounding toward \+Inf'
run "a kernel leaving flush-to-zero on, in a campaign" 1 $FPDIV --plugin $P/fastmath.so fuzz --no-corpus --seed 4 \
    --backends fenvleak --relations repeat --dtypes f32 --max-dim 12 --cases 300 --json &&
    expect "an error finding" "$out" '"verdict":"error".*"error":"fenvleak returned with the floating-point environment changed \(flush-to-zero on\)' &&
    expect "and one naming the rounding mode" "$out" '"error":"fenvleak returned [^"]*\(rounding toward \+Inf' &&
    if [ -z "$(grep '"verdict":"error"' $tmp/out | grep -vE '"shape":"([0-9]+x)?[0-9]+x[0-9]+x(7|11)"')" ]; then
        pass "only its checks with k = 7 and k = 11 are errors"
    else
        fail "fenvleak campaign" "errors on other shapes: $(grep '"verdict":"error"' $tmp/out | head -2)"
    fi
fi

# --- isolation: a backend that crashes or hangs costs one check, not the campaign ---
if run "a crashing, hanging backend" 1 $FPDIV --plugin $P/crashy.so fuzz --seed 5 --corpus $tmp/crash --backends crashy \
    --relations repeat --dtypes f32 --max-dim 40 --cases 300 --timeout 1 --jobs 2 --json; then
    n=$(grep -c '"type":"check"' "$tmp/out")
    [ "$n" = 300 ] && pass "every check is reported ($n)" || fail "crash campaign" "$n check lines"
    expect "a crash is an error finding naming the signal" "$out" '"verdict":"error".*"error":"killed by signal 11 \(Segmentation fault\)"'
    expect "a hang is an error finding naming the timeout" "$out" '"verdict":"error".*"error":"timed out after 1 s'
    expect "the crashing case is saved" "$out" '"type":"saved","path":"[^"]*/repeat/'
fi
# small checks on a backend with gemm_many run many at once: one that crashes, hangs or exits takes
# the lot down, and is then found alone; no other is blamed
if run "checks run together on a crashing, hanging backend" 1 $FPDIV --plugin $P/crashy.so fuzz --seed 5 --no-corpus \
    --backends crashy-many --relations repeat --dtypes f32 --max-dim 40 --cases 300 --timeout 1 --jobs 2 --json; then
    expect "every check reported; errors exactly at k = 13, 17 and 19" "$(python3 -c '
import collections, json, sys
seen = collections.Counter((l["verdict"], l["shape"].split("x")[-1] in ("13", "17", "19"))
                           for l in map(json.loads, sys.stdin) if l.get("type") == "check")
print(sum(seen.values()), "at k = 13, 17, 19:", sorted({v for v, bad in seen if bad}),
      "elsewhere:", sorted({v for v, bad in seen if not bad}))' <"$tmp/out")" \
        "^300 at k = 13, 17, 19: \['error'\] elsewhere: \['same'\]$"
fi
crashfile=$(grep -l '"k": 13,' $(find $tmp/crash -name '*.json') | head -1) # the segfault (k = 13), of the ways crashy fails
run "replay survives a crashing case" 0 $FPDIV --plugin $P/crashy.so replay "$crashfile" $C &&
    expect "the crash is the case's error, and the replay goes on" "$out" '^reproduced .*error \(recorded error\); killed by signal 11'
count=$(($(find $C -name '*.json' | wc -l) + 1))
expect "the other cases replay after it" "$out" "^$count cases: reproduced $count,"
# Ctrl-C: the checks under way finish, the summary prints; a second Ctrl-C stops at once
$FPDIV fuzz --no-corpus --seed 8 --time 60 --max-dim 64 >$tmp/int.out 2>$tmp/int.err &
pid=$!
sleep 1.5
kill -INT $pid
start=$(date +%s)
wait $pid
rc=$?
took=$(($(date +%s) - start))
{ [ $rc -le 1 ] && [ $took -lt 20 ] && grep -q '^stopped early by an interrupt' $tmp/int.out && grep -q 'checks in' $tmp/int.out; } &&
    pass "Ctrl-C: a clean stop with a summary (exit $rc, ${took}s)" || fail "Ctrl-C" "exit $rc after ${took}s: $(tail -2 $tmp/int.out)"
$FPDIV --plugin $P/crashy.so fuzz --no-corpus --seed 5 --backends crashy --relations repeat --dtypes f32 --max-dim 40 \
    --time 60 --timeout 0 >$tmp/int2.out 2>$tmp/int2.err &
pid=$!
sleep 1.5
kill -INT $pid; sleep 0.3; kill -INT $pid
wait $pid
rc=$?
[ $rc = 130 ] && pass "a second Ctrl-C stops at once (exit 130)" || fail "second Ctrl-C" "exit $rc"

# --- shards: together exactly the cases of one run; the scheduler's variables pick the shard ---
for i in 0 1 2; do $FPDIV fuzz --no-corpus --seed 5 --cases 90 --max-dim 32 --json --shard $i/3 2>/dev/null; done |
    grep '"type":"check"' | sort >$tmp/shards
$FPDIV fuzz --no-corpus --seed 5 --cases 90 --max-dim 32 --json 2>/dev/null | grep '"type":"check"' | sort >$tmp/whole
[ "$(wc -l <$tmp/shards)" = 90 ] && cmp -s $tmp/shards $tmp/whole && pass "three shards run exactly the cases of one run" ||
    fail "shards" "$(wc -l <$tmp/shards) lines, or different checks"
SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=3 SLURM_ARRAY_TASK_MIN=1 run "Slurm array" 0 $FPDIV fuzz --no-corpus --seed 5 --cases 9 --max-dim 16 &&
    expect "Slurm's variables pick the shard and it says so" "$err" 'shard 2 of 3 \(0-based, from SLURM_ARRAY_TASK_ID/_COUNT/_MIN/_STEP\)'
CI_NODE_INDEX=1 CI_NODE_TOTAL=4 run "GitLab parallel" 0 $FPDIV fuzz --no-corpus --seed 5 --cases 9 --max-dim 16 &&
    expect "GitLab's 1-based index" "$err" 'shard 0 of 4 \(0-based, from CI_NODE_INDEX/CI_NODE_TOTAL\)'
JOB_COMPLETION_INDEX=2 run "Kubernetes indexed job" 0 $FPDIV fuzz --no-corpus --seed 5 --cases 9 --max-dim 16 --shard-count 5 &&
    expect "Kubernetes' index with --shard-count" "$err" 'shard 2 of 5 \(0-based, from JOB_COMPLETION_INDEX and --shard-count\)'
JOB_COMPLETION_INDEX=2 bad "Kubernetes without a count" "give the number of indexes with --shard-count" fuzz --no-corpus --cases 1
bad "a shard that does not exist" "--shard '3/3': expected I/N with 0 <= I < N" fuzz --no-corpus --shard 3/3

# --- merge: shard corpora into one, the smallest case per signature, counts summed, idempotent ---
for i in 0 1; do $FPDIV fuzz --seed 9 --cases 300 --max-dim 48 --shard $i/2 --corpus $tmp/s$i >/dev/null 2>&1; done
cp -r $tmp/s0/. $tmp/s1/ 2>/dev/null # a case in both: it must count once
if run "merge" 0 $FPDIV merge $tmp/merged $tmp/s0 $tmp/s1; then
    sigs=$(sed -n 's/^\([0-9]*\) signatures from .*/\1/p' <<<"$out")
    files=$(find $tmp/merged -name '*.json' | wc -l)
    [ -n "$sigs" ] && [ "$files" = "$sigs" ] && pass "one file per signature ($files)" || fail "merge" "$sigs signatures, $files files"
fi
run "merge again" 0 $FPDIV merge $tmp/merged $tmp/s0 $tmp/s1 && expect "merging again changes nothing" "$out" ' 0 written, 0 superseded'
run "merged corpus replays" 0 $FPDIV replay $tmp/merged && expect "the merged cases reproduce" "$out" "^$files cases: reproduced $files,"
printf '{"schema": 1,' >$tmp/s0/bad.json
bad "merge reads everything first" "bad.json.*nothing was written" merge $tmp/merged2 $tmp/s0
[ ! -e $tmp/merged2 ] && pass "a failed merge writes nothing" || fail "merge" "$tmp/merged2 was created"

# --- CI output: JUnit XML, GitHub Actions annotations and step summary ---
run "fuzz --junit" 1 $FPDIV fuzz --no-corpus --seed 2 --cases 40 --relations cast-out,repeat --dtypes bf16 --junit $tmp/j.xml
python3 - $tmp/j.xml <<'PY' && pass "JUnit: a test case per relation x backends, a failure per failing check" || fail "junit" "$(head -c 300 $tmp/j.xml)"
import sys, xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot().find("testsuite")
cases = suite.findall("testcase")
names = {(c.get("classname"), c.get("name")) for c in cases}
assert len(names) == len(cases) > 1
failed = [c for c in cases if c.find("failure") is not None]
assert all(c.get("classname") == "fpdiv.cast-out" for c in failed) and failed
assert all(f.text.startswith("fpdiv check --relation cast-out") for c in failed for f in c.findall("failure"))
assert int(suite.get("failures")) == len(failed)
PY
GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY=$tmp/summary.md run "fuzz on GitHub Actions" 1 $FPDIV fuzz --no-corpus --seed 2 --cases 10 --relations cast-out --dtypes bf16
expect "an ::error annotation per failing check" "$out" '^::error title=fpdiv bound::bound: cast-out on .*%0Areproduce: fpdiv check --relation cast-out'
expect "a step summary table" "$(cat $tmp/summary.md)" '^\| `fpdiv.cast-out` [a-z]+ \| [0-9]+ \| [0-9]+ \| `fpdiv check'
run "replay --junit" 1 $FPDIV replay --junit $tmp/r.xml $tmp/worse.json $one
python3 - $tmp/r.xml <<'PY' && pass "replay JUnit: the worse case fails, the reproduced one passes" || fail "replay junit" "$(cat $tmp/r.xml)"
import sys, xml.etree.ElementTree as ET
cases = ET.parse(sys.argv[1]).getroot().find("testsuite").findall("testcase")
assert len(cases) == 2
assert sum(c.find("failure") is not None for c in cases) == 1
PY

# --- export: a finding as NumPy/PyTorch/JAX inputs and script ---
# Every starter case with explicit inputs: the .npy files, loaded as the script loads them, hold
# exactly the case file's values, in logical (row-major, untransposed) order.
# NumPy comes from python3-numpy (scripts/install-deps.sh): the first python3 on PATH may lack it.
numpy_python=$(for p in python3 /usr/bin/python3; do $p -c 'import numpy' 2>/dev/null && echo $p && break; done)
[ -n "$numpy_python" ] || fail "export" "no python3 with NumPy; run scripts/install-deps.sh"
exported=0 mismatched="" failed_scripts=""
# (addmm has no counterpart in NumPy, which has no fused bias: its export is refused below)
for f in $(grep -l '"a": \[' -r $committed --exclude-dir=vendor --exclude-dir=core --exclude-dir=addmm | sort); do
    d=$tmp/export/$(basename $f .json)
    $FPDIV export $f --to numpy -o $d >/dev/null 2>&1 || { mismatched+=" $f(exit $?)"; continue; }
    $numpy_python - $f $d <<'PY' || mismatched+=" $f"
import json, sys, numpy as np
case = json.load(open(sys.argv[1]))["check"]["case"]
bf16 = lambda x: (x.astype(np.uint32) << 16).view(np.float32)
dt_in, *rest = case["dtype"].split(":")  # IN[:OUT[:ACC]]; OUT defaults to f32 for 16-bit IN
dt_out = rest[0] if rest else "f32" if dt_in in ("f16", "bf16") else dt_in
for name, key, shape, dt in (("A", "a", (case["batch"], case["m"], case["k"]), dt_in),
                             ("B", "b", (case["batch"], case["k"], case["n"]), dt_in),
                             ("bias", "bias", (case["n"],), dt_out)):
    x = np.load(f"{sys.argv[2]}/{name}.npy")
    assert x.shape == shape, (name, x.shape, shape)
    got = bf16(x) if dt == "bf16" else x
    want = np.array([float.fromhex(v) for v in case["data"][key]]).reshape(shape)
    assert np.array_equal(got.astype(np.float64), want, equal_nan=True), name
PY
    # NumPy has no bfloat16 matmul: such a script says so
    $numpy_python $d/repro_numpy.py 2>&1 | grep -qE '^[0-9]+ of [0-9]+ elements differ|^numpy cannot run this case here: ValueError: NumPy has no bf16 matmul$' ||
        failed_scripts+=" $f"
    exported=$((exported + 1))
done
[ -z "$mismatched" ] && [ "$exported" -gt 10 ] && pass "export: the inputs of $exported cases match their case files" ||
    fail "export inputs" "mismatched:$mismatched ($exported checked)"
[ -z "$failed_scripts" ] && pass "export: the NumPy script of every one runs, or says NumPy has no bf16 (with and without bias)" ||
    fail "export scripts" "failed:$failed_scripts"
run "export slice-rows to numpy" 0 $FPDIV export $big --to numpy -o $tmp/np &&
    expect "export says what it wrote and how to run it, with the bridge's Python" "$out" \
        "^wrote $tmp/np/A.npy, B.npy, bias.npy and repro_numpy.py; run: [^ ]+ $tmp/np/repro_numpy.py$"
run "export with a Python that lacks the framework" 0 env FPDIV_PYTHON=/bin/false $FPDIV export $big --to numpy -o $tmp/np-none &&
    expect "export says that Python has no NumPy, and what to do" "$out" \
        "^\(/bin/false has no numpy: scripts/install-deps.sh installs it into the project's .venv, or set FPDIV_PYTHON"
run "the numpy script runs" 0 $numpy_python $tmp/np/repro_numpy.py &&
    expect "the script counts the differing elements of the slice" "$out" '^[0-9]+ of 1000 elements differ; largest difference' &&
    expect "the script quotes what fpdiv saw" "$out" '^fpdiv saw [0-9]+ of 1000 differ \(reorder\) on openblas@Prescott$' &&
    expect "NumPy shows a divergence, and does not call it fpdiv's: another backend" "$out" \
        '^diverges in numpy too; openblas@Prescott is another backend, so the counts need not agree$'
addmm=$(find $committed/addmm -name '*.json' | sort | head -1)
bad "export addmm to numpy" "addmm has no counterpart in numpy: addmm needs a backend with a fused bias; numpy has none" \
    export $addmm --to numpy -o $tmp/np-addmm
$FPDIV check --relation slice-cols --backend openblas --shape 3x4x40x64 --slice 5:7 --bias --dtype f16 --save $tmp/biased >/dev/null 2>&1
run "export a slice-cols case with a bias" 0 $FPDIV export $(find $tmp/biased -name '*.json') --to numpy -o $tmp/np-bias &&
    grep -q '"bias":"fused"' $tmp/np-bias/repro_numpy.py && run "its script adds the sliced bias" 0 $numpy_python $tmp/np-bias/repro_numpy.py &&
    expect "and compares the slice" "$out" '^[0-9]+ of 84 elements differ'
for fw in torch jax; do
    run "export to $fw" 0 $FPDIV export $big --to $fw -o $tmp/$fw &&
        python3 -c 'import ast,sys; ast.parse(open(sys.argv[1]).read())' $tmp/$fw/repro_$fw.py &&
        pass "the $fw script is valid Python" || fail "export $fw" "$(head -c 300 $tmp/$fw/repro_$fw.py)"
done
# PyTorch is not a dependency (Debian's python3-torch pulls in 170 packages): its scripts run where it is installed.
torch_python=$(for p in python3 /usr/bin/python3; do $p -c 'import torch' 2>/dev/null && echo $p && break; done)
if [ -n "$torch_python" ]; then
    failed_scripts=""
    for f in $big $(grep -l '"a": \[' -r $committed --exclude-dir=vendor --exclude-dir=core | sort); do
        d=$tmp/torch-run/$(basename $f .json)
        $FPDIV export $f --to torch -o $d >/dev/null 2>&1 || { failed_scripts+=" $f(export)"; continue; }
        # Older PyTorch has no 16-bit bmm on the CPU: the script must say so, not raise.
        $torch_python $d/repro_torch.py >$tmp/torch.out 2>&1
        grep -qE '^(diverges|does not diverge) in torch too|^torch cannot run this case here: ' $tmp/torch.out ||
            failed_scripts+=" $f($(tail -1 $tmp/torch.out))"
    done
    [ -z "$failed_scripts" ] && pass "export: the PyTorch script of every case runs, or says why it cannot" ||
        fail "torch scripts" "failed:$failed_scripts"
    run "PyTorch on the same OpenBLAS" 0 $torch_python $tmp/torch-run/$(basename $big .json)/repro_torch.py &&
        expect "shows the slice-rows divergence" "$out" '^diverges in torch too; openblas@Prescott is another backend'
else
    echo "SKIP the PyTorch scripts are not run: no python3 with torch here"
fi
vendor=$(find $committed/vendor -name '*.json' | sort | head -1)
bad "a relation with no counterpart" "vendor has no counterpart in numpy: vendor compares two backends" export $vendor --to numpy -o $tmp/np-vendor
[ ! -e $tmp/np-vendor ] && pass "a refused export writes nothing" || fail "export" "$tmp/np-vendor was created"
# a case on a plugin's backend exports without the plugin (nothing runs it); its rerun line, with
# the plugin from FPDIV_PLUGIN_PATH, names the variable
FPDIV_PLUGIN_PATH=$(dirname $FPDIV)/plugins/reverse.so run "a check on a plugin from FPDIV_PLUGIN_PATH" 0 \
    $FPDIV check --relation slice-rows --backend reverse --shape 4x50x300 --save $tmp/plugin-case &&
    expect "its rerun line sets the variable" "$out" "^  rerun    FPDIV_PLUGIN_PATH=[^ ]*/plugins/reverse.so fpdiv check "
run "export a plugin's case without the plugin" 0 $FPDIV export $tmp/plugin-case/slice-rows/*.json --to numpy \
    -o $tmp/plugin-np && run "its script" 0 $numpy_python $tmp/plugin-np/repro_numpy.py &&
    expect "runs NumPy's operations, and names the backend fpdiv ran" "$out" "; reverse is another backend, so the counts need not agree$" &&
    expect "and what NumPy ran" "$out" "^numpy ran it: library NumPy, version "
bad "an unknown framework" "--to must be numpy, torch or jax" export $big --to matlab
bad "a bad case file" "bad.json" export $tmp/s0/bad.json --to numpy

# --- the man page: generated from the --help texts (make builds it beside the binary) ---
man_page=$(dirname $FPDIV)/fpdiv.1
if [ -f "$man_page" ]; then
    warnings=$(groff -man -ww -z "$man_page" 2>&1) && [ -z "$warnings" ] && pass "the man page typesets without warnings" ||
        fail "man page" "groff: ${warnings:0:300}"
    man_text=$(sed 's/\\-/-/g; s/\\f[BIR]//g' "$man_page")
    missing=""
    for c in "" check fuzz list env replay show minimize bisect sweep merge export; do
        for o in $($FPDIV $c --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
            grep -qF -- "$o" <<<"$man_text" || missing+=" ${c:-fpdiv}:$o"
        done
        [ -z "$c" ] || grep -q "^\.SS $c$" "$man_page" || missing+=" section:$c"
    done
    [ -z "$missing" ] && pass "the man page has every command and every option" || fail "man page" "missing:$missing"
    missing="" environment=$(sed -n '/^\.SH ENVIRONMENT/,/^\.SH [^E]/p' "$man_page")
    for v in $(grep -ohE '(getenv|env_u64)\("[A-Z_]+"' src/*/*.c src/backends/cuda/*.c | grep -oE '[A-Z_]{3,}' | sort -u); do
        grep -qF "\\fB$v\\fR" <<<"$environment" || missing+=" $v"
    done
    [ -z "$missing" ] && pass "ENVIRONMENT names every variable fpdiv reads" || fail "man page ENVIRONMENT" "missing:$missing"
else
    fail "man page" "$man_page not built (make builds it with the tests)"
fi

# --- the Slurm array script of doc/ci.md, run as three array tasks, then merged ---
# The shards' merged signatures must be those of one unsharded campaign with the same seed.
awk '/^<!-- tests\/cli\/run.sh runs this script/{f=1; next} f && /^```bash/{g=1; next} g && /^```/{exit} g' doc/ci.md >$tmp/campaign.sbatch
mkdir -p $tmp/bin && ln -sf "$(cd "$(dirname $FPDIV)" && pwd)/$(basename $FPDIV)" $tmp/bin/fpdiv
if grep -q '^fpdiv fuzz' $tmp/campaign.sbatch; then
    slurm_ok=1
    for task in 0 1 2; do
        PATH=$tmp/bin:$PATH SLURM_ARRAY_TASK_ID=$task SLURM_ARRAY_TASK_COUNT=3 SLURM_ARRAY_TASK_MIN=0 SLURM_CPUS_PER_TASK=1 \
            bash $tmp/campaign.sbatch 11 240 $tmp/campaign --max-dim 24 --relations slice-rows,addmm,vendor \
            >$tmp/slurm-$task.out 2>&1 || { slurm_ok=0; fail "slurm task $task" "$(tail -3 $tmp/slurm-$task.out)"; }
    done
    [ $slurm_ok = 1 ] && expect "each task says which shard it took" "$(cat $tmp/slurm-2.out)" 'shard 2 of 3 \(0-based, from SLURM_ARRAY_TASK_ID'
    $FPDIV fuzz --seed 11 --cases 240 --max-dim 24 --relations slice-rows,addmm,vendor --corpus $tmp/unsharded >/dev/null 2>&1
    run "merge the array's shards" 0 $FPDIV merge $tmp/campaign/corpus $tmp/campaign/shard-0 $tmp/campaign/shard-1 $tmp/campaign/shard-2
    signatures() { python3 - "$1" <<'PY'
import json, pathlib, sys
for p in sorted(pathlib.Path(sys.argv[1]).rglob("*.json")):
    f = json.loads(p.read_text())
    print(f["check"]["relation"], ",".join(f["check"]["backends"]), f["check"]["case"]["dtype"], f["outcome"]["verdict"])
PY
    }
    a=$(signatures $tmp/campaign/corpus | sort) b=$(signatures $tmp/unsharded | sort)
    [ -n "$a" ] && [ "$a" = "$b" ] && pass "the merged shards have the signatures of one campaign ($(wc -l <<<"$a"))" ||
        fail "slurm merge" "shards: $(tr '\n' ';' <<<"$a") whole: $(tr '\n' ';' <<<"$b")"
    [ -f $tmp/campaign/junit-1.xml ] && pass "each task writes its JUnit file" || fail "slurm junit" "no $tmp/campaign/junit-1.xml"
else
    fail "the Slurm script" "not found after its marker in doc/ci.md"
fi

# --- tensor cores' arithmetic on the CPU: the models are backends like any other, and the bound
# knows their rounding, so their correct results are never `bound` ---
run "fpdiv list shows the tensor-core models" 0 $FPDIV list &&
    expect "tc-v100, tc-a100, tc-ada, tc-h100, tc-b200 and tc-b200rn, available" \
        "$(grep -cE '^  tc-(v100|a100|ada|h100|b200|b200rn) +cpu +available' <<<"$out")" "^6$"
run "2000 checks on the tensor-core models" 0 $FPDIV fuzz --no-corpus --seed 1 --cases 2000 --max-dim 64 \
    --backends tc-v100,tc-a100,tc-ada,tc-h100,tc-b200,tc-b200rn --dtypes f16,f16:f16:f32,bf16,f16:f16:f16 --fail-on bound &&
    expect "none of them beyond the bound" "$out" "^[0-9]+ checks in .*bound 0, nonfinite 0, error 0" &&
    expect "all 2000 run or passed over (scale on sums an f16 accumulator may not hold)" "$(checks_and_passed_over "$out")" '^2000$'

# --- the shapes past --max-dim (reach.h): drawn apart, so every other case is as with --max-dim ---
reach_args=(fuzz --seed 3 --cases 400 --no-corpus --backends seq --relations slice-rows,addmm,dot --json)
run "a campaign that reaches past --max-dim" 0 $FPDIV "${reach_args[@]}" && cp "$tmp/out" "$tmp/reached.jsonl"
run "the same, bounded by --max-dim 256" 0 $FPDIV "${reach_args[@]}" --max-dim 256 && cp "$tmp/out" "$tmp/bounded.jsonl"
python3 - "$tmp/reached.jsonl" "$tmp/bounded.jsonl" <<'PYTHON' && pass "reach: only the reach cases differ, every check past --max-dim one of them, and the summary counts them" || fail "reach" "see above"
import json, sys
def checks(path):
    lines = [json.loads(l) for l in open(path)]
    return {o["index"]: o for o in lines if o["type"] == "check"}, lines[-1]
reached, r_summary = checks(sys.argv[1])
bounded, b_summary = checks(sys.argv[2])
past = lambda o: any(int(d) > 256 for d in o["shape"].split("x"))
moved = [i for i in reached if reached[i]["shape"] != bounded[i]["shape"]]
same = [i for i in reached if reached[i]["shape"] == bounded[i]["shape"]]
assert moved and all(i in moved for i in reached if past(reached[i])), moved  # some reach shapes stay within it
assert all((reached[i]["hash_a"], reached[i]["hash_b"]) == (bounded[i]["hash_a"], bounded[i]["hash_b"]) for i in same)
assert r_summary["shapes"]["past_max_dim"] == sum(past(o) for o in reached.values()) > 0 and r_summary["shapes"]["reach"]
assert b_summary["shapes"]["past_max_dim"] == 0 and not b_summary["shapes"]["reach"]
assert r_summary["shapes"]["longest_k"] > 256 or r_summary["shapes"]["most_rows"] > 256
PYTHON
run "reach in the summary" 0 $FPDIV fuzz --seed 3 --cases 200 --no-corpus --backends seq --relations addmm
expect "says how far it reached" "$out" "^shapes: k in [0-9]+ of the 23 octaves below 2\^23, .*past --max-dim 256 \(one case in 64 is drawn there\)"
run "a memory budget the long shapes do not fit" 0 $FPDIV fuzz --seed 3 --cases 400 --no-corpus --backends seq \
    --relations slice-rows,addmm,dot --max-mem 2M --json
python3 -c 'import json, sys; s = json.loads(sys.argv[1])["shapes"]; sys.exit(not (s["longest_k"] < 1 << 20 and s["most_rows"] < 1 << 20))' \
    "$(tail -1 <<<"$out")" && pass "keeps the common shapes instead" || fail "the budget and the long shapes" "$(tail -1 <<<"$out" | head -c 300)"

# --- the empty product, k = 0 (C = beta C: the bias, or zeros): a shape of its own ---
run "the empty product with a bias" 0 $FPDIV check --relation addmm --backend openblas --shape 3x5x0 --dtype f32
expect "is the bias on both paths, and the exact reference says so" "$out" "^check addmm on openblas@[A-Za-z0-9]+: same"
expect "the exact reference is computed for it" "$out" "^  exact    path A is 0 ulp from the correctly rounded result"
run "the empty product, transposed, padded, 16-bit" 0 $FPDIV check --relation layout --backend openblas --shape 2x3x4x0 \
    --dtype bf16:bf16 --trans-a --pad 3
expect "runs: BLAS is handed leading dimensions of at least 1" "$out" "^check layout on openblas@[A-Za-z0-9]+: same"
bad "m = 0" "shape '0x5x1': m is zero; every dimension but k must be at least 1" check --relation slice-rows \
    --shape 0x5x1
bad "gemv of an empty x" "gemv-rows takes k of at least 1: BLAS's gemv of an empty x returns at once" \
    check --relation gemv-rows --backend openblas --shape 3x5x0
run "a campaign draws the empty product" 0 $FPDIV fuzz --seed 4 --cases 640 --no-corpus --backends seq,openblas --json
python3 - "$tmp/out" <<'PYTHON' && pass "one case in 64, only where the relation takes one, each the same on both paths" ||
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
empty = [o for o in lines if o["type"] == "check" and o["shape"].split("x")[-1] == "0"]
assert 4 <= len(empty) <= 25, len(empty)
assert all(o["verdict"] == "same" and o["relation"] not in ("gemv-rows", "gemv-cols") for o in empty), empty
assert lines[-1]["shapes"]["empty_products"] == len(empty), lines[-1]["shapes"]
PYTHON
    fail "the empty product in a campaign" "$(tail -1 <<<"$out" | head -c 300)"
run "the summary counts them" 0 $FPDIV fuzz --seed 4 --cases 640 --no-corpus --backends seq
expect "on its shapes line" "$out" "^shapes: .*; [1-9][0-9]* of the empty product \(k = 0\)$"
run "bisect from k = 0" 1 $FPDIV bisect --good 3x5x4 --bad 3x5x0 --relation addmm --backend openblas
expect "probes it" "$out" "probe k=0: same"
bad "bisect's m starts at 1" "shape '0x5x4': m is zero; every dimension but k must be at least 1" bisect \
    --good 0x5x4 --bad 4x5x4 --relation addmm
run "sweep from k = 0" 0 $FPDIV sweep --relation addmm --backend openblas --shape 3x5x1 --vary k --range 0:2
expect "its first point" "$out" "^ +0 same"
bad "sweep's m starts at 1" "--range: m starts at 1, not 0" sweep --relation addmm --shape 3x5x1 --vary m --range 0:2
bad "bisect's --lo beside two shapes" "--lo and --hi bound a case file's dimension; --good 3x5x1 and --bad 3x5x9 are the" \
    bisect --good 3x5x1 --bad 3x5x9 --lo 2 --relation addmm
expect "bisect gemmt along m: its n follows" "$($FPDIV bisect --good 4x4x8 --bad 9x4x8 --relation gemmt --backend mkl)" \
    "^  probe m=9: [a-z]+, [0-9]+ of 81 elements"
bad "nor along n" "gemmt's C is square, its n following m: vary m instead of n" bisect --good 4x4x8 --bad 4x9x8 \
    --relation gemmt --backend mkl
run "bisect to a shape whose check dies" 0 $FPDIV --plugin $(dirname "$FPDIV")/plugins/crashy.so bisect \
    --good 2x4x18 --bad 2x4x19 --relation slice-rows --backend crashy --isolate &&
    expect "its death is an outcome, and the boundary" "$out" \
        "^boundary: k=18 gives same; k=19 gives error \(exited with status 0 before it finished\)$"
run "bisect to an end that cannot be tested" 2 $FPDIV bisect --good 6x4x8 --bad 1x4x8 --relation slice-rows --backend seq \
    --slice 5:1 && expect "names that end, and why" "$err" "m=1 cannot be tested \(slice 5:1 is outside m = 1\): m=6 is the only"
bad "explain of the empty product" "k is 0: the empty product adds no terms, so there is no order to reveal" explain \
    --backend openblas --shape 2x2x0
"$numpy_python" - "$tmp" <<'PYTHON'
import sys
import numpy as np
d = sys.argv[1]
bias = np.arange(1, 6, dtype=np.float32)
np.save(f"{d}/empty_a.npy", np.zeros((3, 0), np.float32)), np.save(f"{d}/empty_b.npy", np.zeros((0, 5), np.float32))
np.save(f"{d}/empty_bias.npy", bias), np.save(f"{d}/kept.npy", np.tile(bias, (3, 1)))
np.save(f"{d}/lost.npy", np.zeros((3, 5), np.float32))
PYTHON
empty_operands=(--a "$tmp/empty_a.npy" --b "$tmp/empty_b.npy" --bias "$tmp/empty_bias.npy")
run "judge: two empty products that kept the bias" 0 $FPDIV judge "${empty_operands[@]}" --outputs "$tmp/kept.npy,$tmp/kept.npy"
expect "the same, and exact" "$out" "^  exact    .*kept.npy is 0 ulp from the correctly rounded result"
run "judge: one that lost it" 1 $FPDIV judge "${empty_operands[@]}" --outputs "$tmp/kept.npy,$tmp/lost.npy"
expect "is beyond the bound, and the farther from the exact product" "$out" "lost.npy is the farther, .*kept.npy the closer"

echo
echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
