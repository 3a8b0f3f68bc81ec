/* backend_exact.h — the correctly rounded GEMM as a backend. */
#ifndef FPD_BACKEND_EXACT_H
#define FPD_BACKEND_EXACT_H

#include "fpdiv_backend.h"

extern const struct fpd_backend fpd_backend_exact;

#endif
