/* npy.h — NumPy's .npy files (format version 1.0), the arrays `fpdiv export` writes for a bug
 * report. Every storage type is little-endian; bf16, which NumPy lacks, is stored as its uint16
 * bits ('<u2'). */
#ifndef FPD_NPY_H
#define FPD_NPY_H

#include <stddef.h>

#include "common/dtype.h"

/* Writes `data` (C order, shape[0] x ... x shape[ndim-1] elements of type t, ndim from 1 to 4) to
 * path: FPD_OK, or FPD_ERR_INPUT with why naming the file. */
int fpd_npy_write(const char *path, enum fpd_dtype t, const size_t *shape, int ndim, const void *data, char *why,
                  size_t why_size);

#endif
