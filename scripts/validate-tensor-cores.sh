#!/usr/bin/env bash
# The tensor-core models against the GPUs' own measurements: every single-block measurement in
# model_validation/ of a checkout of north-numerical-computing/MATLAB-tensor-core (which fpdiv
# does not carry), fp16 and bf16 inputs, fp32 and fp16 outputs. Exit status 1 when the model gives
# other bits for any block.
# Usage: make build/tc-validate && scripts/validate-tensor-cores.sh PATH/TO/MATLAB-tensor-core
set -u
repo=${1:?usage: scripts/validate-tensor-cores.sh PATH/TO/MATLAB-tensor-core}
validate=${TC_VALIDATE:-build/tc-validate}
status=0 runs=0
for dir in "$repo"/model_validation/*/fp16 "$repo"/model_validation/*/bf16; do
    [ -d "$dir" ] || continue
    gpu=$(basename "$(dirname "$dir")") in=$(basename "$dir")
    for d in "$dir"/d_"$gpu"_fp32.txt "$dir"/d_"$gpu"_fp16.txt; do
        [ -f "$d" ] || continue
        out=${d##*_} out=${out%.txt}
        "$validate" "$gpu" "$in" "$out" "$dir/a_${gpu}_$in.txt" "$dir/b_${gpu}_$in.txt" "$dir/c_${gpu}_fp32.txt" "$d"
        rc=$?
        [ $rc -eq 2 ] && echo "  (no model for $gpu, or its files are malformed: not counted)" && continue
        runs=$((runs + 1))
        [ $rc -eq 0 ] || status=1
    done
done
echo "validate-tensor-cores: $runs sets of measurements; $([ $status -eq 0 ] && echo "the model gives the GPUs' bits for all" || echo "the model differs somewhere")"
exit $status
