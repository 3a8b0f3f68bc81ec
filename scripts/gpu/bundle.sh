#!/usr/bin/env bash
# What fpdiv needs on a machine with a CUDA driver but none of fpdiv's Debian packages, gathered
# into one folder (`make gpu-bundle`): the binary and the CUDA plugin beside it (when nvcc built
# one), the shared libraries they link that are not the C runtime's (libjansson, libxxhash), the
# bridge's Python, and `fpdiv`, a script that runs the binary with them. cuBLAS and the CUDA
# runtime are the GPU machine's own (the plugin links the runtime statically and finds cuBLAS
# where the driver's toolkit has it: scripts/gpu/check.sh looks). At most 30 MiB.
# Usage: scripts/gpu/bundle.sh BUILD_DIR BUNDLE_DIR
set -eu
build=${1:?usage: scripts/gpu/bundle.sh BUILD_DIR BUNDLE_DIR} bundle=${2:?usage: scripts/gpu/bundle.sh BUILD_DIR BUNDLE_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
limit=$((30 << 20))
[ -x "$build/fpdiv" ] || { echo "gpu-bundle: $build/fpdiv is not built" >&2; exit 2; }
rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/lib"
cp "$build/fpdiv" "$bundle/bin/"
binaries=("$bundle/bin/fpdiv")
if [ -f "$build/fpdiv-cuda.so" ]; then
    cp "$build/fpdiv-cuda.so" "$bundle/bin/"
    binaries+=("$bundle/bin/fpdiv-cuda.so")
else
    echo "gpu-bundle: no CUDA plugin was built here (no nvcc): scripts/gpu/check.sh builds it where nvcc is"
fi
# The libraries they link, but those every Linux machine has (the C and C++ runtimes, the loader)
# and CUDA's, which must be the GPU machine's own, matching its driver.
system='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libgcc_s|libstdc\+\+|libresolv|libutil)\.so'
cuda='^(libcublas|libcublasLt|libcudart|libcuda)\.so'
for b in "${binaries[@]}"; do
    ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | while read -r name path; do
        if grep -qE "$system" <<<"$name" || grep -qE "$cuda" <<<"$name"; then
            continue
        fi
        cp -L "$path" "$bundle/lib/$name"
    done
done
cp -r "$root/scripts/bridge" "$bundle/bridge"
find "$bundle/bridge" -name __pycache__ -prune -exec rm -rf {} +
cat >"$bundle/fpdiv" <<'SH'
#!/bin/sh
# fpdiv from this bundle: its own libraries, its bridge, the CUDA plugin beside the binary.
here=$(cd "$(dirname "$0")" && pwd)
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" FPDIV_BRIDGE_DIR="$here/bridge" exec "$here/bin/fpdiv" "$@"
SH
chmod +x "$bundle/fpdiv"
git -C "$root" rev-parse HEAD >"$bundle/COMMIT" 2>/dev/null || echo unknown >"$bundle/COMMIT"
size=$(du -sb "$bundle" | cut -f1)
if [ "$size" -gt $limit ]; then
    echo "gpu-bundle: $bundle is $((size >> 20)) MiB, over the 30 MiB a GPU machine's call may carry" >&2
    exit 1
fi
echo "gpu-bundle: $bundle ($(( (size + 1048575) >> 20 )) MiB): $(cd "$bundle" && ls bin lib | grep -v ':$' | tr '\n' ' ')"
