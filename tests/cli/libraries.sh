#!/usr/bin/env bash
# The BLAS libraries suite (issue 33): libraries loaded at run time, each answering for itself;
# --blas NAME=PATH; libraries that fail to load, are no CBLAS, or crash; the reference BLAS's
# order against fpdiv's own; oneMKL from the project's Python environment.
# Usage: FPDIV=build/fpdiv tests/cli/libraries.sh   (after scripts/install-deps.sh: nothing skips)
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
build=$(dirname "$FPDIV")
fwd=$build/blas/libclash_forward.so bwd=$build/blas/libclash_backward.so glob=$build/blas/libclash_global.so
for f in $fwd $bwd $glob $build/plugins/reverse.so; do [ -f $f ] || { echo "libraries.sh: $f is missing (make test builds it)"; exit 1; }; done
verdict() { grep -m1 -oE '^  verdict  [a-z]+' <<<"$1" | awk '{print $2}'; }
# vendor NAME WANT BACKENDS [OPTIONS...]: the vendor relation between two backends gives WANT
vendor() {
    local name=$1 want=$2 backends=$3
    shift 3
    run "$name" 0 $FPDIV --plugin $build/plugins/reverse.so --blas fwd=$fwd --blas bwd=$bwd --blas glob=$glob \
        check --relation vendor --backend $backends --shape 3x5x40 --dtype f32 --bias "$@" &&
        { [ "$(verdict "$out")" = "$want" ] && pass "$name" || fail "$name" "verdict $(verdict "$out"), want $want"; }
}

# --- two libraries exporting the same names, side by side: each gives its own answers ---
vendor "the forward library sums in seq's order" same seq,fwd
vendor "the backward library in the reverse plugin's" same reverse,bwd
vendor "side by side, each answers for itself" reorder fwd,bwd
vendor "in the other order too" reorder bwd,fwd
# a library that made the forward names global (as oneMKL does with its parts): a library loaded
# after it runs in a host process of its own, and still answers for itself
vendor "beside a library that made its names global, the backward one answers for itself" reorder glob,bwd
expect "and runs in a host process of its own" "$out" "process=a host process of its own: sgemm_ \(.*libclash_forward.so\) is global"
# a campaign that opens them in that order: pairs within one order are always same (the hosted
# backward library is the reverse plugin, bit for bit), pairs across them differ
run "a campaign over both orders" 0 $FPDIV --plugin $build/plugins/reverse.so --blas glob=$glob --blas bwd=$bwd fuzz \
    --backends glob,bwd,seq,reverse --relations vendor --dtypes f32,f64 --max-dim 24 --cases 300 --seed 5 --no-corpus \
    --json &&
    expect "the hosted backward library gives the reverse plugin's answers, and no other's" \
        "$(python3 -c '
import collections, json, sys
order = {"glob": "forward", "seq": "forward", "bwd": "backward", "reverse": "backward"}
seen = collections.defaultdict(collections.Counter)
for l in map(json.loads, sys.stdin):
    if l.get("type") == "check":
        seen[len({order[b] for b in l["backends"]}) == 1][l["verdict"]] += 1
print("within an order: %s; across: %s" % (sorted(seen[True]), "differ" if seen[False]["reorder"] else "never differ"))
' <<<"$out")" "^within an order: \['same'\]; across: differ$"

# --- the rerun line names the libraries it needs, quoted for the shell, and reruns the check ---
odd="$tmp/it's a dir"
mkdir -p "$odd" && cp $fwd "$odd/libclash_forward.so"
run "a check on a --blas library" 0 $FPDIV --blas "fwd=$odd/libclash_forward.so" check --relation vendor --backend seq,fwd \
    --shape 4x3x33 --dtype f32 --bias --seed 9
rerun=$(sed -n 's/^  rerun    //p' <<<"$out") hashes=$(grep '^  hashes' <<<"$out")
expect "the rerun line carries --blas, quoted for the shell" "$rerun" "^fpdiv --blas 'fwd=/[^ ]*/it'.''s a dir/libclash_forward.so' check "
run "which reruns it" 0 bash -c "${rerun/fpdiv/$FPDIV}" &&
    { [[ "$out" == *"$hashes"* ]] && pass "to the same hashes" || fail "rerun hashes" "want $hashes in: ${out:0:300}"; }

# --- what --blas refuses, and libraries that cannot serve ---
bad "--blas without a path" "--blas 'x': expected NAME=PATH" --blas x list
bad "--blas with a name of another backend" "a backend named 'seq' is already registered" --blas seq=$fwd list
bad "--blas twice for one name" "--blas: fwd given twice" --blas fwd=$fwd --blas fwd=$bwd list
printf 'void cblas_sgemm(void) { *(volatile int *)0 = 1; }\nvoid cblas_dgemm(void) {}\n' >$tmp/crash.c
printf 'int answer(void) { return 42; }\n' >$tmp/other.c
printf 'void cblas_sgemm(void) {}\nvoid cblas_dgemm(void) {}\n' >$tmp/idle.c
cc -shared -fPIC -o $tmp/libcrash.so $tmp/crash.c && cc -shared -fPIC -o $tmp/libother.so $tmp/other.c &&
    cc -shared -fPIC -o $tmp/libidle.so $tmp/idle.c
mkfifo $tmp/fifo.so
run "libraries that cannot serve are listed" 0 timeout -k 5 60 $FPDIV --blas crash=$tmp/libcrash.so \
    --blas other=$tmp/libother.so --blas gone=$tmp/nothere.so --blas idle=$tmp/libidle.so --blas fifo=$tmp/fifo.so list &&
    expect "a FIFO is refused, not waited on" "$out" "cannot load .*fifo.so: not a regular file" &&
    expect "one that answers wrongly is checked as any, saying so" "$out" "probe=wrong answers to a 2x2x3 sgemm or dgemm" &&
    expect "one that crashes is unavailable, with the signal" "$out" "why: loading and running the library: killed by signal 11" &&
    expect "one that is no CBLAS, with the symbol it lacks" "$out" "libother.so exports no cblas_sgemm" &&
    expect "a file that is not there, with the loader's message" "$out" "cannot load .*nothere.so: .*No such file"
run "a check on a library whose gemm does nothing is a finding" 1 $FPDIV --blas idle=$tmp/libidle.so check \
    --relation repeat --backend idle --shape 2x2x2 &&
    expect "its C, poison untouched, is of the wrong class: nonfinite" "$out" "^check repeat on idle: nonfinite$" &&
    expect "where no order can overflow" "$out" "where no partial sum of any order can overflow: it lost or made an Inf"
run "a check on a library that crashes exits 2, naming it" 2 $FPDIV --blas crash=$tmp/libcrash.so check \
    --relation repeat --backend crash --shape 2x2x2 && expect "check names the crash" "$err" "crash is unavailable: .*signal 11"

# --- the reference BLAS: the textbook loop, sequential over k from C, a multiply and an add per
# term. Products of 16-bit inputs are exact in f32, so there its sums are seq's FMA sums exactly;
# with a bias, transposed layouts start from 0 and add the bias last, so only without one.
for dt in bf16 f16; do
    for layout in "" "--trans-a" "--trans-b" "--trans-a --trans-b"; do
        run "refblas $dt $layout" 0 $FPDIV check --relation vendor --backend seq,refblas --shape 7x9x300 --dtype $dt $layout &&
            { [ "$(verdict "$out")" = same ] && pass "refblas is seq, $dt ${layout:-untransposed}" ||
                fail "refblas $dt $layout" "$(verdict "$out")"; }
    done
done
run "refblas f32" 0 $FPDIV check --relation vendor --backend seq,refblas --shape 7x9x300 --dtype f32 &&
    expect "in f32 the two roundings of a product and an add differ from one FMA" "$out" "^  verdict  reorder"
expect "refblas names its library and version" "$out" "refblas +reference BLAS \(Netlib\) [0-9]+\.[0-9]+"

# --- the libraries the install step gives: each available, with a version ---
run "fpdiv list" 0 $FPDIV list
for b in openblas refblas blis mkl; do
    expect "$b is available" "$out" "^  $b +cpu available"
done
expect "mkl is oneMKL 2024.2, from the project's environment" "$out" "oneMKL 2024\.2.*path=.*/\.venv/lib/libmkl_rt\.so\.2"
expect "mkl's bf16 and f16 GEMMs are its own" "$out" "bf16=cblas_gemm_bf16bf16f32; f16=cblas_gemm_f16f16f32"
expect "blis names its version and configuration" "$out" "BLIS [0-9.]+, kernel set [a-z0-9]+"

# --- vendor between every two of the libraries and an own kernel: each pair diverges somewhere ---
# (without special values: BLIS 0.9 loses a NaN in its products of one row or column, doc/fuzz.md)
run "a vendor campaign over openblas, mkl, blis, refblas and seq" 0 $FPDIV fuzz --relations vendor \
    --backends openblas,mkl,blis,refblas,seq --cases 1500 --max-dim 64 --no-corpus --seed 3 --json --specials 0 &&
    expect "every one of the 10 pairs has checks that differ, and none is an error" "$(python3 -c '
import collections, json, sys
rows = [r for l in map(json.loads, sys.stdin) if l.get("type") == "summary" for r in l["rows"]]
print("pairs %d, diverging %d, errors %d" % (len(rows), sum(r["verdicts"]["reorder"] + r["verdicts"]["improbable"] + r["verdicts"]["bound"] > 0 for r in rows),
      sum(r["verdicts"]["error"] for r in rows)))' <<<"$out")" "^pairs 10, diverging 10, errors 0$"

# --- oneMKL's code paths as kernel sets (MKL_CBWR): COMPATIBLE gives the same bits on every CPU,
# AUTO is the CPU's own path; the core relation compares them ---
run "mkl's kernel sets" 0 $FPDIV list
expect "OFF (MKL's default, torch's), AUTO and COMPATIBLE run on every CPU" "$out" \
    "kernel sets this CPU runs \(--core SET, or mkl@SET\): OFF \(native\) AUTO COMPATIBLE"
run "core between two of mkl's code paths" 0 $FPDIV check --relation core --backend mkl --core AUTO,COMPATIBLE \
    --shape 4x256x300 --dtype f32 && expect "names both" "$out" "^check core on mkl@AUTO,mkl@COMPATIBLE: (same|reorder)"
run "bisect mkl's addmm over k on its COMPATIBLE path" 0 $FPDIV bisect --relation addmm --backend mkl@COMPATIBLE \
    --good 4x256x1 --bad 4x256x400 --dim k --dtype f32 &&
    expect "the fused and unfused forms part at once there" "$out" "^boundary: k=1 gives same; k=2 gives reorder$"
run "check on mkl@COMPATIBLE" 0 $FPDIV check --relation addmm --backend mkl@COMPATIBLE --shape 4x256x3 --dtype f32 &&
    expect "names the code path it ran" "$out" "kernel set COMPATIBLE, .*code_path=MKL_CBWR=COMPATIBLE"
# On AMD CPUs (every machine here) MKL's default path (OFF, torch's) blocks k by 192: addmm first
# differs at k = 193 (m = 4, n = 256), as in torch. On Intel CPUs it is another path, unmeasured.
if grep -q AuthenticAMD /proc/cpuinfo; then
    run "bisect mkl's addmm over k on its default path" 0 $FPDIV bisect --relation addmm --backend mkl@OFF \
        --good 4x256x1 --bad 4x256x400 --dim k --dtype f32 &&
        expect "the boundary is k = 192/193, as in torch" "$out" "^boundary: k=192 gives same; k=193 gives reorder$"
    run "explain mkl's order at k = 400" 0 $FPDIV explain --backend mkl@OFF --shape 4x256x400 --dtype f32 &&
        expect "k in blocks of 192, the blocks then summed in order" "$out" \
            "order: 3 blocks of 192 \(the last 16\), each sequential; then the 3 blocks: sequential"
else
    echo "SKIP mkl's k = 192/193 boundary and its blocks of 192: measured on AMD CPUs only, and this one is $(grep -m1 vendor_id /proc/cpuinfo)"
fi

# --- mkl is PyTorch's CPU matmul: its outputs hash as torch.mm / torch.addmm / F.linear's did,
# recorded by tests/cli/torch_mkl.py with a real torch. COMPATIBLE rows hold on every CPU; AUTO and
# OFF rows (the CPU's own paths) on the CPU class they were recorded on ---
torch_table=$(dirname "$0")/data/torch_mkl.tsv cpu_class=$(python3 $(dirname "$0")/torch_mkl.py cpu)
compared=0
while IFS=$'\t' read -r -u 3 op dtype shape trans_b code_path cpu hash; do
    [[ $op == \#* ]] && continue
    [ "$cpu" = any ] || [ "$cpu" = "$cpu_class" ] || continue
    flags=()
    [ "$op" = mm ] || flags+=(--bias)
    [ "$trans_b" = 1 ] && flags+=(--trans-b)
    name="mkl@$code_path gives torch's $op at $dtype $shape${flags[*]:+ (${flags[*]})}"
    run "$name" 0 $FPDIV check --relation repeat --backend mkl@$code_path --shape $shape --dtype $dtype --seed 1 \
        --generator 3 "${flags[@]}" --json &&
        expect "$name" "$out" "\"hash_a\": ?\"$hash\""
    compared=$((compared + 1))
done 3<"$torch_table"
[ $compared -ge 10 ] && pass "compared $compared torch hashes ($cpu_class)" || fail "torch hashes" "only $compared rows compared"
missing=$(for m in torch xxhash; do .venv/bin/python -c "import $m" 2>/dev/null || echo -n "$m "; done)
if [ -z "$missing" ]; then
    run "torch here, live, against the table" 0 .venv/bin/python $(dirname "$0")/torch_mkl.py compare \
        "$(realpath $FPDIV)" "$torch_table" && pass "torch here, live, gives the table's hashes"
else
    echo "NOTE torch was not run live (not in .venv: ${missing% }); fpdiv's mkl was compared with the recorded table"
fi

numpy_openblas=$(ls .venv/lib/python3*/site-packages/scipy_openblas64/lib/libscipy_openblas64_.so 2>/dev/null | head -1)

# --- the routes frameworks take: a library's gemv (a row, a column) and dot (an element), called
# as numpy calls them. On integer data every order gives the same sums, so anything but `same`
# between the gemm and a route is a wrong argument: a stride, a storage order, the bias ---
routes_wrong=""
for lib in openblas mkl blis refblas numpy-openblas; do
    for r in gemv-rows gemv-cols dot; do
        for layout in "" "--trans-a" "--trans-b" "--trans-a --trans-b"; do
            for dt in f32 f64; do
                $FPDIV --blas numpy-openblas=$numpy_openblas check --relation $r --backend $lib --shape 2x6x9x70 \
                    --slice 1:4 --dtype $dt --dist int --bias --pad 3 $layout --json >"$tmp/route" 2>&1 ||
                    routes_wrong+=" $lib/$r/$dt/${layout:-plain}(exit $?)"
                grep -q '"verdict":"same"' "$tmp/route" || routes_wrong+=" $lib/$r/$dt/${layout:-plain}"
            done
        done
    done
done
[ -z "$routes_wrong" ] && pass "gemv and dot on 5 libraries, 4 layouts, f32 and f64: the gemm's sums on integers" ||
    fail "routes on integer data" "not same:$routes_wrong"
run "a gemv route is named in its path" 0 $FPDIV check --relation gemv-rows --backend openblas@Haswell --shape 4x300x300 \
    --dtype f32 &&
    expect "path B is a gemv for each row" "$out" "^  path B   openblas@Haswell: a gemv for each row of 1x300x300, f32 in" &&
    expect "and on OpenBLAS it differs from the gemm's row" "$out" "^check gemv-rows on openblas@Haswell: reorder"
bad "a route on a kernel of fpdiv's own" "gemv-cols needs a backend with routes to gemv and dot .*; seq has none" \
    check --relation gemv-cols --backend seq --shape 4x5x6
bad "a route in bf16" "dot runs BLAS's dot, which takes f32 or f64 throughout" \
    check --relation dot --backend openblas --shape 4x5x6 --dtype bf16
# OpenBLAS's orders, pinned to its Haswell kernels (every machine here runs them): sdot adds 32
# interleaved lanes (4 registers of 8), then combines them pairwise; sgemv with numpy's arguments
# for (1,k)@(k,n) adds blocks of 8 consecutive terms to y in turn, each block in 2 lanes
run "explain OpenBLAS's sdot" 0 $FPDIV explain --backend openblas --core Haswell --route dot --trans-b --shape 1x8x256 &&
    expect "32 interleaved lanes, combined pairwise" "$out" \
        "order: 32 interleaved lanes \(term p in lane p mod 32\), each sequential; then the 32 lanes: pairwise$"
run "explain OpenBLAS's sgemv" 0 $FPDIV explain --backend openblas --core Haswell --route gemv-rows --shape 1x8x256 &&
    expect "blocks of 8 consecutive terms, added in turn" "$out" \
        "order: 2 interleaved lanes in each of 32 blocks of 8 consecutive terms, each sequential; then the 64 lanes: 32 blocks of 2, each sequential; then the 32 blocks: sequential$"
bad "explain a route on seq" "seq has no gemv or dot of its own" explain --backend seq --route dot --shape 1x2x3
bad "explain an unknown route" "--route 'gemvv': expected gemm, gemv-rows, gemv-cols or dot" \
    explain --route gemvv --shape 1x2x3
# exported, each route is what numpy does with one row, one column, one element: on integers its
# two paths agree everywhere, so the script's slicing, concatenation and bias are the case's
numpy_python=$(for p in python3 /usr/bin/python3; do $p -c 'import numpy' 2>/dev/null && echo $p && break; done)
for r in gemv-rows gemv-cols dot; do
    run "a $r case" 0 $FPDIV check --relation $r --backend openblas --shape 2x5x6x30 --slice 1:3 --dtype f64 \
        --dist int --bias --save $tmp/routes-$r && $FPDIV export $tmp/routes-$r/$r/*.json --to numpy -o $tmp/np-$r >/dev/null &&
        run "its NumPy script" 0 $numpy_python $tmp/np-$r/repro_numpy.py &&
        expect "$r in NumPy: one element each for the 3 rows or columns, all equal" "$out" "^0 of (36|30) elements differ"
done
run "a campaign on a library runs the routes" 0 $FPDIV fuzz --backends openblas,mkl --dtypes f32,f64 --cases 400 \
    --max-dim 48 --no-corpus --seed 4 --json &&
    expect "gemv-rows, gemv-cols and dot, each with checks that differ" "$(python3 -c '
import json, sys
rows = [r for l in map(json.loads, sys.stdin) if l.get("type") == "summary" for r in l["rows"]]
seen = {r["relation"] for r in rows if r["relation"] in ("gemv-rows", "gemv-cols", "dot") and r["verdicts"]["reorder"] > 0}
print("routes diverging:", " ".join(sorted(seen)), "errors:", sum(r["verdicts"]["error"] for r in rows))' <<<"$out")" \
        "^routes diverging: dot gemv-cols gemv-rows errors: 0$"

# --- BLIS's configuration is pinned as OpenBLAS's core is (BLIS_ARCH_TYPE, by name): a case names
# it (blis@haswell); other bits on the recorded configuration are changed, a configuration this CPU
# cannot run is elsewhere, and a file that named blis alone is read as the configuration it recorded ---
run "a case on blis" 0 $FPDIV check --relation gemv-rows --backend blis --shape 3x40x200 --dtype f32 --save $tmp/blis &&
    expect "names its configuration" "$out" "^check gemv-rows on blis@[a-z0-9]+: "
blis_case=$(ls $tmp/blis/gemv-rows/*.json)
mkdir -p $tmp/moved/gemv-rows
python3 - "$blis_case" "$tmp/moved/gemv-rows" <<'EOF'
import json, sys
case = json.load(open(sys.argv[1]))
case["outcome"]["hash_b"] = "0000000000000001"  # other bits than these
json.dump(case, open(sys.argv[2] + "/here.json", "w"))
name, record = next(iter(case["environment"]["backends"].items()))
case["check"]["backends"] = ["blis"]  # as fpdiv wrote it before it pinned BLIS: the record says where
case["environment"]["backends"] = {"blis": dict(record, kernel_set="bulldozer")}  # FMA4: no CPU of today's
json.dump(case, open(sys.argv[2] + "/moved.json", "w"))
EOF
run "replay them" 0 $FPDIV replay $tmp/moved &&
    expect "other bits on the configuration recorded: changed" "$out" "^changed .*here.json  gemv-rows on blis@" &&
    expect "a configuration this CPU cannot run: elsewhere, saying which" "$out" \
        "^elsewhere .*moved.json .*recorded on blis@bulldozer: .*; it runs [a-z0-9, ]+"

# --- a library upgrade: the corpus replayed against numpy's OpenBLAS (0.3.31, ILP64 names) ---
if [ -n "$numpy_openblas" ]; then
    run "numpy's OpenBLAS as a backend of its own" 0 $FPDIV --blas numpy-openblas=$numpy_openblas list &&
        expect "with its version and 64-bit integers" "$out" "OpenBLAS 0\.3\.31.*integers=64-bit"
    run "vendor between two OpenBLAS versions" 0 $FPDIV --blas numpy-openblas=$numpy_openblas check --relation vendor \
        --backend openblas,numpy-openblas --core Haswell --shape 5x40x300 --dtype f64 &&
        expect "runs, each named with its kernel set" "$out" "^check vendor on openblas@Haswell,numpy-openblas@Haswell: "
    run "replay the corpus against the new OpenBLAS" 0 $FPDIV --blas openblas=$numpy_openblas replay $committed &&
        expect "every case is classified" "$out" "^$(find $committed -name '*.json' | wc -l) cases: reproduced [0-9]+, changed [0-9]+, fixed [0-9]+, worse [0-9]+, elsewhere [0-9]+, skipped 0$" &&
        expect "a reproduced case names both versions" "$out" "OpenBLAS 0\.3\.31\.188\.0 here, 0\.3\.21 recorded" &&
        expect "a kernel set the new build lacks is elsewhere, with the reason" "$out" \
            "^elsewhere .*openblas cannot pin Prescott here: OPENBLAS_CORETYPE=Prescott selects "
else
    fail "numpy's OpenBLAS" "not in .venv: run scripts/install-deps.sh"
fi

echo "libraries: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
