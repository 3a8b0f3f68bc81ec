/* backend_util.c — operand staging for backend adapters. */
#include "backend_util.h"

#include <stdlib.h>

#include "dtype.h"
#include "scratch.h"

const void *fpd_stage_input(struct fpd_staging *s, enum fpd_dtype from, const void *src, size_t rows,
                            size_t cols, size_t ld, enum fpd_dtype to, size_t *ld_out)
{
    if (from == to) {
        *ld_out = ld;
        return src;
    }
    if (fpd_grow(&s->buf, &s->cap, rows * cols * fpd_dtype_info(to)->size) != FPD_OK)
        return NULL;
    fpd_convert_matrix(rows, cols, from, src, ld, to, s->buf, cols);
    *ld_out = cols;
    return s->buf;
}

void *fpd_stage_output(struct fpd_staging *s, const struct fpd_gemm_args *g, size_t b, enum fpd_dtype ct,
                       size_t *ldc_out)
{
    if (ct == g->dt.out) {
        *ldc_out = g->ldc;
        return (char *)g->c + b * g->stride_c * fpd_dtype_info(ct)->size;
    }
    if (fpd_grow(&s->buf, &s->cap, g->m * g->n * fpd_dtype_info(ct)->size) != FPD_OK)
        return NULL;
    *ldc_out = g->n;
    return s->buf;
}

void fpd_finish_output(const struct fpd_gemm_args *g, size_t b, enum fpd_dtype ct, const void *staged,
                       size_t staged_ld)
{
    if (ct == g->dt.out)
        return;
    void *c = (char *)g->c + b * g->stride_c * fpd_dtype_info(g->dt.out)->size;
    fpd_convert_matrix(g->m, g->n, ct, staged, staged_ld, g->dt.out, c, g->ldc);
}

void fpd_staging_free(struct fpd_staging *s)
{
    free(s->buf);
    *s = (struct fpd_staging){0};
}
