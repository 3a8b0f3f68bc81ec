/* backend_framework.h — frameworks as backends, each served by a Python process of its own. */
#ifndef FPD_BACKEND_FRAMEWORK_H
#define FPD_BACKEND_FRAMEWORK_H

#include "fpdiv_backend.h"

extern const struct fpd_backend fpd_backend_numpy, fpd_backend_torch, fpd_backend_torch_compile, fpd_backend_jax;

/* --framework NAME=FILE.py: the framework module in FILE (scripts/bridge/fpdiv_bridge.py says what
 * it holds), served by the bridge as backend NAME. FPD_ERR_INPUT with why for a malformed spec, a
 * file that is not there, or another backend's name. */
int fpd_framework_give(const char *spec, char *why, size_t why_size);
/* A file of the bridge's (scripts/bridge/NAME): in $FPDIV_BRIDGE_DIR, the source tree, or where
 * `make install` put it; false when none has it. */
bool fpd_bridge_file(const char *name, char *buf, size_t size);
/* The Python the bridge runs: $FPDIV_PYTHON (a path, or a program on PATH), else the project's
 * environment's (.venv), else python3 on PATH. FPD_OK with its path in buf, or FPD_ERR_UNAVAILABLE
 * with why (FPDIV_PYTHON names nothing that runs). */
int fpd_bridge_python(char *buf, size_t size, char *why, size_t why_size);

#endif
