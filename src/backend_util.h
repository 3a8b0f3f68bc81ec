/* backend_util.h — what every backend adapter needs: operands in its compute type, outputs rounded
 * into C. Used by the built-in adapters; plugins may have their own. */
#ifndef FPD_BACKEND_UTIL_H
#define FPD_BACKEND_UTIL_H

#include "fpdiv_backend.h"

struct fpd_staging {
    void *buf;
    size_t cap;
};

/* The rows x cols matrix at src (leading dimension ld, type from) as type `to`: src itself when
 * the types agree, else a converted copy in s with *ld_out = cols. NULL when out of memory. */
const void *fpd_stage_input(struct fpd_staging *s, enum fpd_dtype from, const void *src, size_t rows,
                            size_t cols, size_t ld, enum fpd_dtype to, size_t *ld_out);

/* Where batch entry b of the output should be computed in type ct: C itself when ct is the
 * output type, else a staging buffer (m x n, ld n). NULL when out of memory. */
void *fpd_stage_output(struct fpd_staging *s, const struct fpd_gemm_args *g, size_t b, enum fpd_dtype ct,
                       size_t *ldc_out);
/* Rounds a staged output into C (nothing to do when it was C itself). */
void fpd_finish_output(const struct fpd_gemm_args *g, size_t b, enum fpd_dtype ct, const void *staged,
                       size_t staged_ld);

void fpd_staging_free(struct fpd_staging *s);


#endif
