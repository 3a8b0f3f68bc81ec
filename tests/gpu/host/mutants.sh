#!/usr/bin/env bash
# The host shim's power: each planted fault in a copy of kernels/cuda/ must turn the twin tests
# (tests/gpu/host/test_twins.c) red, for the reason it plants. A fault that still passes, or whose
# edit no longer applies to the source, fails this script.
# Usage: BUILD=build tests/gpu/host/mutants.sh   (run by `make cuda-host-test`)
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../../.."
caught=0 missed=0

# mutant NAME FILE OLD NEW EXPECTED: in a copy of kernels/cuda/, FILE's one occurrence of OLD
# becomes NEW; the tests must fail, printing EXPECTED.
mutant() {
    local name=$1 file=$2 old=$3 new=$4 expected=$5 dir=$BUILD/mutants/$1
    rm -rf "$dir" && mkdir -p "$dir" && cp kernels/cuda/*.cu kernels/cuda/*.cuh "$dir"/
    if ! python3 - "$dir/$file" "$old" "$new" <<'PY'
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
if text.count(old) != 1:
    sys.exit(f"{path}: the text to change is there {text.count(old)} times, not once")
open(path, "w").write(text.replace(old, new))
PY
    then
        echo "FAIL mutant $name: it no longer applies"; missed=$((missed + 1)); return
    fi
    if ! make --no-print-directory -s HOST_KERNELS="$dir" HOST_TESTS="$dir/cuda-host-tests" "$dir/cuda-host-tests" \
            >"$dir/build.log" 2>&1; then
        echo "FAIL mutant $name: it does not build"; sed 's/^/    /' "$dir/build.log" | tail -20
        missed=$((missed + 1)); return
    fi
    local out
    if out=$("$dir/cuda-host-tests" --jobs 2 2>&1); then
        echo "FAIL mutant $name: the twin tests passed with it"; missed=$((missed + 1))
    elif grep -qF -- "$expected" <<<"$out"; then
        echo "PASS mutant $name caught: $(grep -F -m1 -- "$expected" <<<"$out" | sed 's/^\[----\] *//' | cut -c1-160)"
        caught=$((caught + 1))
    else
        echo "FAIL mutant $name: the tests failed, but not with '$expected':"; sed 's/^/    /' <<<"$out" | tail -20
        missed=$((missed + 1))
    fi
}

mutant reversed-reduction splitk.cu \
    'T total = partials[i * n + j];
            for (size_t part = 1; part < FPD_SPLITK_PARTS; part++)' \
    'T total = partials[((FPD_SPLITK_PARTS - 1) * m + i) * n + j];
            for (size_t part = FPD_SPLITK_PARTS - 1; part-- > 0;)' \
    'cuda-splitk f32 differs from its CPU twin'
mutant missing-barrier seq.cu \
    '__syncthreads();
                size_t steps' \
    'size_t steps' \
    'cuda-tiled f32 differs from its CPU twin'
mutant missing-second-barrier seq.cu \
    '__syncthreads();
            }' \
    '}' \
    'cuda-tiled f32 differs from its CPU twin'
mutant unfused-multiply-add seq.cu \
    'return __fmaf_rn(a, b, c);' \
    'return a * b + c;' \
    'cuda-seq f32 differs from its CPU twin'
mutant divergent-barrier seq.cu \
    '__syncthreads();
            }' \
    'if (threadIdx.x != 5)
                    __syncthreads();
            }' \
    'divergent barrier: thread'
mutant wmma-drops-the-bias wmma.cu \
    'wmma::load_matrix_sync(acc, tile_c, (unsigned)n, wmma::mem_row_major);' \
    'wmma::fill_fragment(acc, 0.0f);' \
    'differs from its CPU twin'
# The review's findings 5 and 7, put back: a stale error taken for the launch's own, and a grid
# past the GPU's 65535 blocks along y.
mutant stale-error-kept seq.cu \
    '(void)cudaGetLastError(); /* see kernels.cuh */' \
    '' \
    'an_earlier_error_is_not_the_launch_s'
mutant grid-past-the-limit seq.cu \
    'fpd_cuda_grid_extent(g->m, TILE, FPD_CUDA_GRID_YZ_MAX)' \
    'fpd_cuda_grid_extent(g->m, TILE, 0xffffffffu)' \
    'is past a GPU'"'"'s limits'

echo "mutants: $caught caught, $missed missed"
[ "$missed" -eq 0 ]
