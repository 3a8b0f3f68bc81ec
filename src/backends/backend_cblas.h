/* backend_cblas.h — BLAS libraries through CBLAS, and any other given by path. */
#ifndef FPD_BACKEND_CBLAS_H
#define FPD_BACKEND_CBLAS_H

#include "fpdiv_backend.h"

extern const struct fpd_backend fpd_backend_openblas, fpd_backend_refblas, fpd_backend_blis, fpd_backend_mkl;

/* --blas NAME=PATH: the CBLAS library in PATH, as backend NAME (a new one, or a library fpdiv knows
 * by that name, loaded from PATH instead). FPD_ERR_INPUT with why for a malformed spec, a name
 * given twice or another backend's. */
int fpd_cblas_give(const char *spec, char *why, size_t why_size);

#endif
