#!/bin/sh
# The OpenBLAS that NumPy's wheel bundles (numpy.libs/libscipy_openblas*.so), for `fpdiv --blas
# openblas=PATH` where the system has none: a GPU machine has numpy but none of fpdiv's Debian
# packages. Prints its path, or nothing (exit 1) when that Python has no such NumPy.
# Usage: scripts/gpu/numpy-openblas.sh [PYTHON]
"${1:-python3}" - <<'PY' 2>/dev/null
import glob, os, sys
import numpy
libs = os.path.join(os.path.dirname(numpy.__file__), os.pardir, "numpy.libs")
found = sorted(glob.glob(os.path.join(libs, "libscipy_openblas*.so")))
print(os.path.realpath(found[0])) if found else sys.exit(1)
PY
