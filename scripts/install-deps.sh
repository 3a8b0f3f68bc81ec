#!/usr/bin/env bash
# Install what fpdiv needs to build and test: Debian packages (apt), and the Python packages Debian
# does not have (oneMKL, the frameworks) into a virtual environment of the project's own, .venv
# beside this directory, where fpdiv finds them. Idempotent: packages already present are left
# alone and apt is not even asked. Works as root or via sudo (apt only; the environment is the
# user's).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

packages=(
    build-essential   # gcc, make
    pkg-config        # the Makefile finds every library through it
    libopenblas-dev   # the openblas backend (CBLAS), loaded at run time
    libblas-dev       # the refblas backend: Netlib's reference BLAS and CBLAS
    libblis-dev       # the blis backend
    libxxhash-dev     # XXH3 fingerprints of outputs and cases
    libjansson-dev    # JSON output and corpus files
    libzip-dev        # .npz archives a user brings to `fpdiv judge`
    libcriterion-dev  # unit tests
    libmpfr-dev       # test oracle for the exact reference
    python3           # CLI tests read JSON with it
    python3-venv      # the project's Python environment (oneMKL)
    python3-numpy     # the NumPy side of `make bench`; CLI tests run exported scripts
    groff-base        # CLI tests typeset the man page and check it for warnings
    chromium-headless-shell  # the report suite renders `fpdiv report`'s pages in a real browser
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
    echo "install-deps: every Debian package is installed"
else
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
fi

# oneMKL, the library PyTorch's CPU matmul runs, in the version the torch 2.x wheels link (2024.2:
# their results and MKL's own agree bit for bit), and the OpenBLAS numpy 2.x wheels bundle
# (scipy-openblas64 0.3.31, 64-bit integers): the library upgrade the tests replay the corpus
# against. The frameworks the bridge serves (scripts/bridge): NumPy, JAX on the CPU, and PyTorch
# 2.5.1, the torch whose oneMKL is 2024.2 (PyPI's wheel brings the CUDA libraries it imports: about
# 3 GB, 3 minutes here). xxhash lets tests hash a framework's outputs as fpdiv does. Pinned, so
# that a finding names one version.
python_packages=(mkl==2024.2.0 scipy-openblas64==0.3.31.188.0 numpy==2.4.6 jax==0.10.2 jaxlib==0.10.2
                 torch==2.5.1 xxhash==4.1.0)
venv=$root/.venv
if [ ! -x "$venv/bin/python" ]; then
    echo "install-deps: making the Python environment $venv"
    python3 -m venv "$venv"
fi
installed=$("$venv/bin/python" -m pip freeze 2>/dev/null || true)
wanted=()
for p in "${python_packages[@]}"; do
    grep -qx "$p" <<<"$installed" || wanted+=("$p")
done
if [ ${#wanted[@]} -eq 0 ]; then
    echo "install-deps: ${python_packages[*]} already installed in $venv"
else
    echo "install-deps: installing ${wanted[*]} into $venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "${wanted[@]}"
fi
echo "install-deps: done"
