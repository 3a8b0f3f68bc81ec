#!/usr/bin/env bash
# The GPU side of fpdiv, checked on the machine this runs on, from the bundle `make gpu-bundle`
# gathers (a GPU machine has none of fpdiv's Debian packages), within a time budget it keeps
# itself: a step that would not fit in what is left is skipped, saying so.
#
#   machine     the GPU, its compute capability and driver; cuBLAS's and the runtime's versions
#   env         `fpdiv env --json` and `fpdiv list`
#   gpu-tests   tests/gpu/run.sh: own CUDA kernels bitwise equal to their CPU twins, cuda-wmma
#               against its GPU's tensor-core model, every GPU relation on every GPU backend
#   reports     the GPU reports fpdiv exists for, as checks on cuBLAS and cuBLASLt: (x@W)[0] vs
#               x[0]@W, a fused bias at 32x512x2048 and at an MLP's layers (4 x 6272->512->256->10),
#               CPU (OpenBLAS) against cuBLAS
#   frameworks  the same on torch and jax on CUDA through the bridge, each count next to the one
#               the framework gives run directly on the same inputs; jax's vmap bisected over the
#               batch size
#   campaign    a GPU campaign into a corpus, replayed on the GPU, drawn by `fpdiv report`
#
# Where there is no GPU (or no CUDA plugin, or no framework on CUDA) each GPU step is skipped with
# the reason, and the rest runs. OUT gets log.txt (everything printed), results.json (each step:
# name, status passed/failed/skipped, seconds, detail) and artifacts.tar.gz (the steps' files: the
# environment, the checks' JSON, the campaign's corpus, its page). Exit status: 0 when no step
# failed, 1 when one did, 2 for bad usage.
#
# Usage: scripts/gpu/check.sh OUT [--budget SECONDS] [--bundle DIR]
#   --budget  seconds for the whole run, default 360
#   --bundle  the bundle, default build/gpu-bundle (made by `make gpu-bundle`)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out= budget=360 bundle=$root/build/gpu-bundle
while [ $# -gt 0 ]; do
    case $1 in
    --budget) budget=${2:-}; shift 2 ;;
    --bundle) bundle=${2:-}; shift 2 ;;
    -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "gpu-check: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) [ -z "$out" ] || { echo "gpu-check: one OUT directory" >&2; exit 2; }; out=$1; shift ;;
    esac
done
[ -n "$out" ] || { echo "usage: scripts/gpu/check.sh OUT [--budget SECONDS] [--bundle DIR]" >&2; exit 2; }
[[ $budget =~ ^[1-9][0-9]{0,4}$ ]] || { echo "gpu-check: --budget '$budget': seconds, from 1 to 99999" >&2; exit 2; }
[ -x "$bundle/fpdiv" ] || { echo "gpu-check: $bundle/fpdiv is missing: run 'make gpu-bundle' first" >&2; exit 2; }
mkdir -p "$out/files" || exit 2
out=$(cd "$out" && pwd) bundle=$(cd "$bundle" && pwd)
files=$out/files
exec > >(tee "$out/log.txt") 2>&1
tee_pid=$!
start=$SECONDS deadline=$((SECONDS + budget))
: >"$out/steps.tsv"

left() { echo $((deadline - SECONDS)); }
# record NAME STATUS SECONDS DETAIL
record() {
    printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$(tr '\t\n' '  ' <<<"$4" | sed 's/ *$//')" >>"$out/steps.tsv"
    echo "== $1: $2 ($3 s)${4:+: $4}"
}
# step NAME NEEDS MAX FUNCTION: runs FUNCTION (which sets `detail` and returns 0 passed, 1 failed,
# 3 skipped) when NEEDS seconds are left, under a limit of MAX seconds or what is left
step() {
    local name=$1 needs=$2 max=$3 fn=$4 t0=$SECONDS rc
    local have=$(left)
    if [ "$have" -lt "$needs" ]; then
        record "$name" skipped 0 "the budget of $budget s had $have s left; this step needs $needs"
        return
    fi
    limit=$((max < have ? max : have))
    echo
    echo "== $name (at most $limit s)"
    detail=""
    $fn
    rc=$?
    case $rc in
    0) record "$name" passed $((SECONDS - t0)) "$detail" ;;
    3) record "$name" skipped $((SECONDS - t0)) "$detail" ;;
    *) record "$name" failed $((SECONDS - t0)) "$detail" ;;
    esac
}

# the bundle's binary, with its libraries and its bridge (what $bundle/fpdiv sets up, here for every
# command the steps run, tests/gpu/run.sh's too)
fpdiv=$bundle/bin/fpdiv
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" FPDIV_BRIDGE_DIR=$bundle/bridge
# the Python of the bridge and of the frameworks' own counts: the project's where there is one
[ -n "${FPDIV_PYTHON:-}" ] || { [ -x "$root/.venv/bin/python" ] && FPDIV_PYTHON=$root/.venv/bin/python || FPDIV_PYTHON=python3; }
export FPDIV_PYTHON
# cuBLAS is the machine's: where its toolkit or its Python's CUDA wheels put it
cublas_dir=""
for d in ${CUDA_HOME:+$CUDA_HOME/lib64} /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
    $($FPDIV_PYTHON -c 'import nvidia, os; [print(os.path.join(p, s, "lib")) for p in nvidia.__path__ for s in sorted(os.listdir(p))]' 2>/dev/null); do
    if ls "$d"/libcublas.so.* >/dev/null 2>&1; then
        cublas_dir=$d
        export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"
        echo "gpu-check: cuBLAS from $d"
        break
    fi
done

gpu_why=""  # why the GPU backends are not here ("" when they are)

check_bundle() {
    local version
    version=$("$fpdiv" --version 2>&1) || { detail="the bundled fpdiv does not run: $version"; return 1; }
    local unresolved
    unresolved=$(ldd "$fpdiv" | grep 'not found')
    [ -z "$unresolved" ] || { detail="libraries not found: $unresolved"; return 1; }
    if [ ! -f "$bundle/bin/fpdiv-cuda.so" ] && command -v nvcc >/dev/null; then
        echo "gpu-check: no CUDA plugin in the bundle; building it with $(command -v nvcc)"
        if timeout $limit make -C "$root" -j"$(nproc)" --no-print-directory BUILD="$bundle/cuda-build" \
            ${cublas_dir:+CUDA_LIBDIR="$cublas_dir"} "$bundle/cuda-build/fpdiv-cuda.so" >"$files/plugin-build.txt" 2>&1; then
            cp "$bundle/cuda-build/fpdiv-cuda.so" "$bundle/bin/"
        else
            echo "gpu-check: the plugin did not build:"; tail -5 "$files/plugin-build.txt"
        fi
    fi
    detail="$version (bundle of $(cat "$bundle/COMMIT" 2>/dev/null)); plugin: $([ -f "$bundle/bin/fpdiv-cuda.so" ] && echo present || echo none)"
}

machine() {
    if ! command -v nvidia-smi >/dev/null; then
        gpu_why="no nvidia-smi here: no NVIDIA driver"
        detail=$gpu_why
        return 3
    fi
    nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader \
        >"$files/machine.txt" 2>&1 || { detail="nvidia-smi failed: $(head -c 300 "$files/machine.txt")"; gpu_why=$detail; return 3; }
    nvcc --version 2>/dev/null | tail -2 >>"$files/machine.txt"
    detail=$(head -1 "$files/machine.txt")
    cat "$files/machine.txt"
}

environment() {
    timeout $limit "$fpdiv" env --json >"$files/env.json" 2>"$files/env.err" || { detail="fpdiv env: $(tail -1 "$files/env.err")"; return 1; }
    timeout $limit "$fpdiv" list >"$files/list.txt" 2>&1 || { detail="fpdiv list failed: $(tail -1 "$files/list.txt")"; return 1; }
    grep -E '^  (cuda-seq|cublas|cublaslt|cuda-wmma|openblas|numpy|torch|jax) ' -A1 "$files/list.txt"
    if ! grep -qE '^  cuda-seq +gpu available' "$files/list.txt"; then
        local why
        why=$(grep -A1 -E '^  cuda-seq ' "$files/list.txt" | sed -n 's/.*why: //p')
        gpu_why=${gpu_why:-"the GPU backends are unavailable: ${why:-no CUDA plugin loaded}"}
    fi
    detail="$(grep -cE '^  [a-z]' "$files/list.txt") rows listed; $(grep -E '^  cublas ' -A1 "$files/list.txt" | tail -1 | sed 's/^ *//')"
}

gpu_tests() {
    [ -z "$gpu_why" ] || { detail=$gpu_why; return 3; }
    FPDIV=$bundle/bin/fpdiv timeout $limit "$root/tests/gpu/run.sh" >"$files/gpu-tests.txt" 2>&1
    local rc=$? passed failed
    passed=$(grep -c '^PASS' "$files/gpu-tests.txt") failed=$(grep -c '^FAIL' "$files/gpu-tests.txt")
    grep -E '^(FAIL|gpu: )' "$files/gpu-tests.txt" | head -40
    detail="$passed passed, $failed failed"
    [ $rc -eq 124 ] && detail="stopped at the step's limit ($limit s): $detail"
    [ $rc -eq 0 ]
}

# a check on the GPU, its JSON line kept: check NAME ARGS...
check() {
    local name=$1
    shift
    local line rc
    line=$(timeout 120 "$fpdiv" "${blas[@]}" check "$@" --json --fail-on never 2>"$files/check.err")
    rc=$?
    [ $rc -eq 0 ] || line=$(python3 -c 'import json, sys; print(json.dumps({"error": sys.argv[1]}))' \
        "exit $rc: $(tail -1 "$files/check.err")")
    python3 -c 'import json, sys; o = json.loads(sys.argv[2]); o["name"] = sys.argv[1]; print(json.dumps(o))' \
        "$name" "$line" >>"$files/reports.jsonl"
    python3 - "$name" "$line" <<'PY'
import json, sys
name, o = sys.argv[1], json.loads(sys.argv[2])
if "error" in o and "verdict" not in o:
    print(f"{name}: ERROR {o['error']}"); sys.exit(1)
ex = o.get("exact") or {}
print(f"{name}: {o['verdict']}, {o['diff']} of {o['count']} differ, max {o['max_ulp']} ulp, ratio {o['ratio']}"
      f"; ulps from exact A {ex.get('ulp_a')} B {ex.get('ulp_b')}")
sys.exit(1 if o["verdict"] == "error" else 0)
PY
}

# An OpenBLAS for the CPU side of `device`: Debian's where it is here, else the one NumPy bundles.
blas=()
find_openblas() {
    grep -qE '^  openblas +cpu available' "$files/list.txt" 2>/dev/null && return
    local lib
    lib=$("$root/scripts/gpu/numpy-openblas.sh" "$FPDIV_PYTHON") && blas=(--blas "openblas=$lib") &&
        echo "gpu-check: OpenBLAS from NumPy: $lib"
}

reports() {
    [ -z "$gpu_why" ] || { detail=$gpu_why; return 3; }
    find_openblas
    local bad=0
    for b in cublas cublaslt; do
        check "(x@W)[0] vs x[0]@W on $b" --relation slice-rows --backend $b --shape 2x1000x1000 --dtype f32 || bad=1
        check "fused bias on $b, 32x512x2048" --relation addmm --backend $b --shape 32x512x2048 --dtype f32 || bad=1
        check "the empty product (k = 0) on $b: C = the bias" --relation addmm --backend $b --shape 4x8x0 --dtype f32 || bad=1
        check "LAPACK's update C := C - A B on $b (alpha -1, beta 1)" --relation alpha-beta --backend $b \
            --shape 32x512x2048 --dtype f32 --bias --alpha 0 --beta 0 --negative-alpha || bad=1
    done
    for shape in 4x512x6272 4x256x512 4x10x256; do  # the MLP's layers, batch 4: 6272 -> 512 -> 256 -> 10
        check "fused bias on cublaslt, layer $shape" --relation addmm --backend cublaslt --shape $shape --dtype f32 || bad=1
    done
    check "CPU vs GPU: openblas vs cublas, 32x512x2048" --relation device --backend openblas,cublas --shape 32x512x2048 \
        --dtype f32 --bias || bad=1
    check "fused bias on cublaslt, bf16 64x1024x4096" --relation addmm --backend cublaslt --shape 64x1024x4096 --dtype bf16 || bad=1
    detail=$(python3 -c 'import collections, json, sys
verdicts = collections.Counter(json.loads(line).get("verdict", "error") for line in open(sys.argv[1]))
print(sum(verdicts.values()), "checks:", ", ".join(f"{v} {n}" for v, n in sorted(verdicts.items())))' "$files/reports.jsonl")
    return $bad
}

# The framework's own count of differing elements on the inputs fpdiv generates, computed on CUDA:
# direct FRAMEWORK RELATION SHAPE (f32, seed 1)
direct() {
    local d=$files/inputs-$3
    if [ ! -d "$d/npy" ]; then
        "$fpdiv" check --relation repeat --backend seq --shape "$3" --dtype f32 --seed 1 --save "$d/corpus" \
            --fail-on never >/dev/null 2>&1 && "$fpdiv" export "$d"/corpus/repeat/*.json --to numpy -o "$d/npy" >/dev/null
    fi
    timeout 120 $FPDIV_PYTHON - "$1" "$2" "$d/npy" "$framework_device" <<'PY'
import sys
import numpy as np
framework, relation, d, dev = sys.argv[1:]
a, b = np.load(f"{d}/A.npy")[0], np.load(f"{d}/B.npy")[0]
bias = np.load(f"{d}/bias.npy")
if framework == "torch":
    import torch
    torch.set_num_threads(1)  # as fpdiv runs it: on a CPU, a library's sums may depend on its threads
    ta, tb, tbias = (torch.from_numpy(x).to(dev) for x in (a, b, bias))
    if relation == "slice-rows":
        p, q = torch.mm(ta, tb)[0], torch.mm(ta[:1], tb)[0]
    elif relation == "alpha-beta":  # mm against addmm with alpha 2 and beta 0 on a NaN input, which it must ignore
        # (fpdiv's alpha is 2 or 1/2 and its poison NaN or an infinity, by the data and the seed: either way
        # the count is of the elements where the input came through, as 0 * Inf is NaN too)
        nan = torch.full((a.shape[0], b.shape[1]), float("nan"), device=dev)
        p, q = torch.mm(ta, tb), torch.addmm(nan, ta, tb, beta=0, alpha=2.0) / 2
    else:  # addmm: mm, then + bias, against torch.addmm
        p, q = torch.mm(ta, tb) + tbias, torch.addmm(tbias, ta, tb)
    p, q = p.cpu().numpy(), q.cpu().numpy()
else:
    import jax
    f = jax.jit(lambda x, y: x @ y)
    if relation == "vmap":
        p = np.asarray(jax.jit(jax.vmap(lambda r, y: r @ y, in_axes=(0, None)))(a, b)[0])
        q = np.asarray(f(a[0], b))
    else:  # slice-rows
        p, q = np.asarray(f(a, b))[0], np.asarray(f(a[:1], b))[0]
print(int(np.sum(p != q)))
PY
}

# The frameworks' device: cuda, or cpu where GPU_CHECK_FRAMEWORK_DEVICE=cpu says so (the rehearsal,
# tests/gpu/rehearsal.sh: the counting itself checked where there is no GPU).
framework_device=${GPU_CHECK_FRAMEWORK_DEVICE:-cuda}
frameworks() {
    local on_cuda
    on_cuda=$(timeout 120 $FPDIV_PYTHON - "$framework_device" 2>/dev/null <<'PY'
import sys
import torch, jax
cpu = sys.argv[1] == "cpu"
print("torch" if cpu or torch.cuda.is_available() else "", "jax" if cpu or jax.devices()[0].platform == "gpu" else "")
PY
)
    [ -n "${on_cuda// /}" ] || { detail="neither torch nor jax sees a GPU from $FPDIV_PYTHON"; return 3; }
    local bad=0 agree=0 cases=0
    compare() { # NAME FRAMEWORK RELATION SHAPE
        local fpdiv_count theirs
        check "$1" --relation "$3" --backend "$2" --shape "$4" --dtype f32 --seed 1 || { bad=1; return; }
        fpdiv_count=$(tail -1 "$files/reports.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["diff"])')
        theirs=$(direct "$2" "$3" "$4")
        cases=$((cases + 1))
        if [ "$fpdiv_count" = "$theirs" ]; then
            agree=$((agree + 1)); echo "  $2 itself: $theirs differ, as fpdiv counts"
        else
            bad=1; echo "  $2 itself: $theirs differ, fpdiv counts $fpdiv_count"
        fi
    }
    if [[ $on_cuda == *torch* ]]; then
        compare "torch on CUDA: (x@W)[0] vs x[0]@W" torch slice-rows 2x1000x1000
        compare "torch on CUDA: mm + bias vs addmm, 32x512x2048" torch addmm 32x512x2048
        for shape in 4x512x6272 4x256x512 4x10x256; do
            compare "torch on CUDA: mm + bias vs addmm, layer $shape" torch addmm $shape
        done
        for shape in 1x16x16 64x64x256; do
            compare "torch on CUDA: addmm's alpha, and beta 0 on a NaN input, $shape" torch alpha-beta $shape
        done
    else
        echo "torch sees no CUDA device: its checks are skipped"
    fi
    if [[ $on_cuda == *jax* ]]; then
        compare "jax on the GPU: vmap over 10 rows, row 0" jax vmap 10x2x10
        compare "jax on the GPU: vmap over 10000 rows, row 0" jax vmap 10000x2x10
        timeout 120 "$fpdiv" bisect --relation vmap --backend jax --good 10x2x10 --bad 10000x2x10 --dtype f32 \
            >"$files/vmap-bisect.txt" 2>&1
        local rc=$?
        tail -2 "$files/vmap-bisect.txt"
        [ $rc -le 1 ] || bad=1  # 1: the two ends give the same outcome, which is a result too
    else
        echo "jax sees no GPU: its checks are skipped"
    fi
    detail="$agree of $cases counts as the framework's own on ${on_cuda// /,} ($framework_device)"
    return $bad
}

campaign() {
    [ -z "$gpu_why" ] || { detail=$gpu_why; return 3; }
    local seconds=$(( limit - 50 < 60 ? limit - 50 : 60 ))
    [ $seconds -ge 10 ] || { detail="too little time left for a campaign"; return 3; }
    timeout $((seconds + 30)) "$fpdiv" fuzz --time $seconds --backends cublas,cublaslt,cuda-seq,cuda-tiled,cuda-splitk,cuda-wmma \
        --corpus "$files/corpus" --json >"$files/campaign.jsonl" 2>"$files/campaign.err"
    local rc=$?
    tail -6 "$files/campaign.err"
    [ $rc -le 1 ] || { detail="fuzz exited $rc: $(tail -1 "$files/campaign.err")"; return 1; }
    timeout 60 "$fpdiv" replay --json "$files/corpus" >"$files/replay.jsonl" 2>"$files/replay.err"
    local replayed=$?
    timeout 30 "$fpdiv" report "$files/corpus" --campaign "$files/campaign.jsonl" --replay "$files/replay.jsonl" \
        -o "$files/report.html" || return 1
    local summary
    summary=$(tail -1 "$files/campaign.jsonl" | python3 -c 'import collections, json, sys
o = json.load(sys.stdin)
verdicts = sum((collections.Counter(r["verdicts"]) for r in o["rows"]), collections.Counter())
print(o["checks"], "checks,", o["signatures"], "signatures,", o["saved"], "saved;", ", ".join(f"{v} {n}" for v, n in verdicts.items() if n))')
    detail="$summary; replay exit $replayed: $(tail -1 "$files/replay.jsonl" | head -c 200)"
    [ $replayed -le 1 ]
}

step bundle 5 300 check_bundle
step machine 2 10 machine
step env 30 90 environment
step reports 20 120 reports
step frameworks 30 150 frameworks
step gpu-tests 30 150 gpu_tests
step campaign 60 120 campaign

python3 - "$out/steps.tsv" "$out/results.json" $((SECONDS - start)) "$budget" <<'PY'
import json, sys
steps = []
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    name, status, seconds, detail = (line.rstrip("\n").split("\t") + [""] * 4)[:4]
    steps.append({"name": name, "status": status, "seconds": int(seconds), "detail": detail})
json.dump({"seconds": int(sys.argv[3]), "budget": int(sys.argv[4]), "steps": steps}, open(sys.argv[2], "w"), indent=1)
PY
rm -f "$out/steps.tsv"
tar -C "$out" -czf "$out/artifacts.tar.gz" files && rm -rf "$files"
failed=$(python3 -c 'import json,sys; print(sum(s["status"] == "failed" for s in json.load(open(sys.argv[1]))["steps"]))' "$out/results.json")
echo
echo "gpu-check: $((SECONDS - start)) s of $budget; $failed failed; $out/results.json, $out/log.txt, $out/artifacts.tar.gz"
exec >&- 2>&-
wait $tee_pid  # log.txt whole before the caller reads it
[ "$failed" -eq 0 ]
