#!/usr/bin/env bash
# Install the Debian packages fpdiv needs to build and test. Idempotent: packages
# already present are left alone and apt is not even asked. Works as root or via sudo.
set -euo pipefail

packages=(
    build-essential   # gcc, make
    pkg-config        # the Makefile finds every library through it
    libopenblas-dev   # the openblas backend (CBLAS)
    libxxhash-dev     # XXH3 fingerprints of outputs and cases
    libjansson-dev    # JSON output and corpus files
    libcriterion-dev  # unit tests
    libmpfr-dev       # test oracle for the exact reference
    python3           # CLI tests read JSON with it
    python3-numpy     # the NumPy side of `make bench`; CLI tests run exported scripts
    groff-base        # CLI tests typeset the man page and check it for warnings
    clang             # `make fuzz-parsers`: libFuzzer harnesses
    libclang-rt-dev   # the libFuzzer and sanitizer runtimes for clang
)

missing=()
for p in "${packages[@]}"; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        echo "install-deps: $p already installed"
    else
        missing+=("$p")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: nothing to install"
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
else
    echo "install-deps: need root or sudo to install: ${missing[*]}" >&2
    exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -q
"${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "install-deps: done"
