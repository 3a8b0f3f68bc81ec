"""fpenv.py — the bridge's guard on the calling thread's floating-point environment.

fpdiv computes every path in IEEE's default environment: round to nearest, subnormals kept. Code a
framework loads on the way can change it for good: torch.compile's CPU kernels are built with
-ffast-math, and loading one sets flush-to-zero and denormals-are-zero for the thread that loaded
it (pytorch/pytorch#126848, #135758), so that every product after it, eager ones too, flushes
subnormals. The call that loaded it computed what the framework computes, and stands; the calls
after it must not inherit it, or checks of other relations (threads, vendor) find the flush where
they ran after a compiled one and not alone. So the server puts IEEE's default back after every
call, as fpdiv's own process does after every library call (src/backends/backend.c). Its state is
read through arithmetic whose result it decides, as Python cannot read the control register.
"""
import ctypes

import numpy as np

SMALLEST_NORMAL = np.finfo(np.float64).tiny
SMALLEST_SUBNORMAL = np.finfo(np.float64).smallest_subnormal
ULP_OF_ONE = np.finfo(np.float64).eps
# Two vector operations whose results IEEE's default decides, lane by lane: what a lane means when
# it comes out otherwise (run in numpy, on this thread: every call pays them).
FLUSHES = (np.array([SMALLEST_NORMAL, SMALLEST_SUBNORMAL]), np.array([0.5, 1.0]))
ROUNDS = (np.array([1.0, 1.0]), np.array([ULP_OF_ONE / 2, ULP_OF_ONE * 0.75]))  # a tie (to even: 1), then above it


def changes():
    """What differs from IEEE's default environment on this thread, as a list of phrases."""
    flushed, rounded = np.multiply(*FLUSHES), np.add(*ROUNDS)
    return [what for what, wrong in (("subnormal results flushed to zero (FTZ)", flushed[0] == 0),
                                     ("subnormal inputs read as zero (DAZ)", flushed[1] == 0),
                                     ("rounding toward +Inf", rounded[0] != 1.0),
                                     ("rounding toward zero or -Inf", rounded[1] == 1.0)) if wrong]


def restore_default():
    """Puts IEEE's default back on this thread where it is not; what had changed (empty: nothing)."""
    changed = changes()
    if changed:
        # glibc's FE_DFL_ENV is ((const fenv_t *) -1): the default control words, MXCSR's included
        ctypes.CDLL(None).fesetenv(ctypes.c_void_p(-1))
    return changed
