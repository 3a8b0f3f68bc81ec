#!/usr/bin/env bash
# GPU tests: run where a GPU and build/fpdiv-cuda.so are present; elsewhere they skip, saying why.
# Usage: FPDIV=build/fpdiv tests/gpu/run.sh
set -u
FPDIV=${FPDIV:-build/fpdiv}
passed=0 failed=0
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }

plugin="$(dirname "$FPDIV")/fpdiv-cuda.so"
if [ ! -f "$plugin" ]; then
    echo "gpu: SKIP: $plugin was not built (no nvcc found, or CUDA=0)"
    exit 0
fi
listing=$($FPDIV list)
if ! grep -qE '^  cuda-seq +gpu available' <<<"$listing"; then
    why=$(grep -A1 -E '^  cuda-seq ' <<<"$listing" | sed -n 's/.*why: //p')
    failure=$(grep -F "plugin $plugin could not load" <<<"$listing")
    echo "gpu: SKIP: the GPU backends are unavailable here: ${why:-${failure:-not listed}}"
    exit 0
fi
echo "gpu: $(grep -E '^  cublas ' -A1 <<<"$listing" | tail -1)"
# The CPU side of `device openblas,cublas`: Debian's OpenBLAS, else the one NumPy bundles (a GPU
# machine may have numpy but none of fpdiv's Debian packages).
export CPU_BLAS=""
if ! grep -qE '^  openblas +cpu available' <<<"$listing"; then
    if lib=$("$(dirname "$0")/../../scripts/gpu/numpy-openblas.sh" "${FPDIV_PYTHON:-python3}"); then
        CPU_BLAS="openblas=$lib"
        echo "gpu: no system OpenBLAS; NumPy's instead: $lib"
    else
        echo "gpu: no system OpenBLAS, and NumPy bundles none: device openblas,cublas cannot run"
    fi
fi

# verdict RELATION BACKENDS SHAPE DTYPE [extra flags]: the verdict of one check, "error: ..." on failure
verdict() {
    local out
    out=$($FPDIV ${CPU_BLAS:+--blas "$CPU_BLAS"} check --relation "$1" --backend "$2" --shape "$3" --dtype "$4" "${@:5}" --json --fail-on never 2>&1)
    python3 -c 'import json,sys; o=json.loads(sys.argv[1]); print(o["verdict"], o["diff"], o["count"], (o.get("exact") or {}).get("ulp_a"), (o.get("exact") or {}).get("ulp_b"), o.get("error",""))' "$out" 2>/dev/null || echo "error: $out"
}
export -f verdict
export FPDIV

# Most of the suite is checks, each a process with its own CUDA context and cuBLAS handles (a
# fraction of a second to start): they are queued, run GPU_TEST_JOBS at a time (default: the CPUs,
# at most 8), and judged in the order queued.
# expect NAME PASSING NOTING ARGS...: queues `verdict ARGS...`; its result passes when its verdict
# matches the extended regex PASSING, is only noted when it matches NOTING ("" for never), else fails.
queue=$(mktemp -d)
trap 'rm -rf "$queue"' EXIT
queued=0
expect() {
    queued=$((queued + 1))
    printf '%s\n' "$@" >"$queue/$queued"
}
run_queue() {
    local jobs=${GPU_TEST_JOBS:-$(nproc)}
    [ "$jobs" -le 8 ] || jobs=8
    seq 1 $queued | xargs -P "$jobs" -I{} bash -c 'mapfile -t a <"$0/$1"; verdict "${a[@]:3}" >"$0/$1.out"' "$queue" {}
    local i name passing noting got
    for i in $(seq 1 $queued); do
        { read -r name; read -r passing; read -r noting; } <"$queue/$i"
        got=$(cat "$queue/$i.out")
        if [[ $got =~ ^($passing)( |$) ]]; then
            pass "$name${passing:+: $got}"
        elif [ -n "$noting" ] && [[ $got =~ $noting ]]; then
            echo "note: $name: $got"
        else
            fail "$name" "$got"
        fi
    done
    queued=0
    rm -f "$queue"/*
}

# Twins: each own CUDA kernel is bitwise equal to its CPU order, over shapes and dtypes.
for pair in seq,cuda-seq seq,cuda-tiled splitk,cuda-splitk; do
    for dtype in f32 f64 bf16 f16 f16:f16; do
        for shape in 1x1x1 7x13x33 3x64x64x64 17x129x257 2x1000x1000; do
            for flags in "" "--trans-a --bias" "--trans-b --pad 3"; do
                expect "device $pair $shape $dtype $flags" same "" device $pair $shape $dtype $flags
            done
        done
    done
done

# cuda-wmma against its GPU's tensor-core model, the twin its provenance names by compute
# capability: bitwise, where a model of that GPU is published (tests/gpu/host/ checks the kernel
# against every model through the host shim; this is the hardware itself).
twin=$($FPDIV check --relation repeat --backend cuda-wmma --shape 16x16x16 --dtype f16 --json 2>/dev/null |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["environment"]["backends"]["cuda-wmma"].get("twin", "none"))' 2>/dev/null)
case "$twin" in
tc-*)
    for dtype in f16 bf16 f16:f16 bf16:bf16; do
        for shape in 16x16x16 1x1x1 5x20x37 64x48x1000 3x16x32x64; do
            for flags in "" "--bias" "--trans-a --trans-b --bias"; do
                expect "device $twin,cuda-wmma $shape $dtype $flags" same "does not take|take bf16 from" \
                    device $twin,cuda-wmma $shape $dtype $flags
            done
        done
    done ;;
*) echo "gpu: cuda-wmma's twin: ${twin:-unknown} (no published tensor-core model of this GPU): not compared" ;;
esac

# Every GPU relation runs (its verdict is reported; an error fails the test).
for backend in cublas cublaslt cuda-seq cuda-tiled cuda-splitk cuda-wmma; do
    for relation in slice-rows slice-cols slice-batch addmm cast-in cast-out layout repeat; do
        dtype=bf16; [ $relation = cast-out ] || [ $relation = cast-in ] || [ $backend = cuda-wmma ] || dtype=f32
        expect "$relation on $backend" "same|reorder|bound" "" $relation $backend 4x33x65x129 $dtype
    done
done
for j in 1 2 3; do
    expect "algo 0 vs $j on cublaslt" "same|reorder|bound" "." algo cublaslt 64x256x1024 f32 --algo $j
done
expect "openblas vs cublas, measured" "same|reorder" "" device openblas,cublas 64x512x2048 f32
run_queue

# explain: own CUDA kernels reveal their documented orders; the vendor libraries' orders are shown.
order_of() { $FPDIV explain --backend "$1" --shape "$2" --dtype "${3:-f32}" 2>&1 | sed -n 's/^  order: //p'; }
for k in 1 17 1000 4096; do
    # one term is every kernel's order: k = 1 is "a single term", documented for all of them
    want="sequential over k"; splitk_line='documented order of: splitk, cuda-splitk$'
    [ $k = 1 ] && want="a single term" && splitk_line='documented order of: .*cuda-splitk$'
    got=$(order_of cuda-seq 1x64x$k)
    [ "$got" = "$want" ] && pass "explain cuda-seq k=$k" || fail "explain cuda-seq k=$k" "$got"
    got=$($FPDIV explain --backend cuda-splitk --shape 1x64x$k 2>&1)
    grep -qE "$splitk_line" <<<"$got" && pass "explain cuda-splitk k=$k" || fail "explain cuda-splitk k=$k" "$got"
done
for b in cublas cublaslt cuda-wmma; do
    for dtype in f32 bf16 f16; do
        [ $b = cuda-wmma ] && [ $dtype = f32 ] && continue  # tensor cores take 16-bit inputs
        got=$(order_of $b 64x64x1024 $dtype)
        [ -n "$got" ] && echo "gpu: explain $b $dtype 64x64x1024: $got" && pass "explain $b $dtype" ||
            fail "explain $b $dtype" "$($FPDIV explain --backend $b --shape 64x64x1024 --dtype $dtype 2>&1 | tail -1)"
    done
done

# The user-reported cases.
echo "gpu: (x@W)[0] vs x[0]@W, x 2x1000, W 1000x1000, cublas f32: $(verdict slice-rows cublas 2x1000x1000 f32)"
echo "gpu: fused bias vs mm+bias, cublaslt f32 32x512x2048: $(verdict addmm cublaslt 32x512x2048 f32)"
echo "gpu: vmap-like batch slice, cublas f32 8x64x256x256: $(verdict slice-batch cublas 8x64x256x256 f32)"
echo "gpu: cuBLAS vs cuBLASLt... fused bias bf16 64x1024x4096: $(verdict addmm cublaslt 64x1024x4096 bf16)"

echo
echo "gpu: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
