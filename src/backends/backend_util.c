/* backend_util.c — operand staging for backend adapters. */
#include "backends/backend_util.h"

#include <stdlib.h>

#include "common/dtype.h"
#include "common/scratch.h"

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
    *ld_out = fpd_leading_dimension(cols, 0);
    return s->buf;
}

int fpd_stage_batch_entry(struct fpd_batch_staging *s, const struct fpd_gemm_args *g, size_t index,
                          enum fpd_dtype operand_t, enum fpd_dtype compute_t, struct fpd_batch_entry *e)
{
    size_t in_size = fpd_dtype_info(g->dt.in)->size;
    size_t a_rows = g->trans_a ? g->k : g->m, a_cols = g->trans_a ? g->m : g->k;
    size_t b_rows = g->trans_b ? g->n : g->k, b_cols = g->trans_b ? g->k : g->n;
    e->a = fpd_stage_input(&s->a, g->dt.in, (const char *)g->a + index * g->stride_a * in_size, a_rows, a_cols,
                           g->lda, operand_t, &e->lda);
    e->b = fpd_stage_input(&s->b, g->dt.in, (const char *)g->b + index * g->stride_b * in_size, b_rows, b_cols,
                           g->ldb, operand_t, &e->ldb);
    if (compute_t == g->dt.out) {
        e->c = (char *)g->c + index * g->stride_c * fpd_dtype_info(compute_t)->size;
        e->ldc = g->ldc;
    } else {
        e->c = fpd_grow(&s->c.buf, &s->c.cap, g->m * g->n * fpd_dtype_info(compute_t)->size) == FPD_OK ? s->c.buf
                                                                                                       : NULL;
        e->ldc = g->n;
        /* what the caller's C holds, converted, as the library is to see it: its poison where beta = 0
         * (a kernel that reads C then, or leaves it unwritten, shows), not the last call's results */
        if (e->c)
            fpd_convert_matrix(g->m, g->n, g->dt.out, (const char *)g->c + index * g->stride_c *
                               fpd_dtype_info(g->dt.out)->size, g->ldc, compute_t, e->c, e->ldc);
    }
    return e->a && e->b && e->c ? FPD_OK : FPD_ERR_NOMEM;
}

void fpd_finish_batch_entry(const struct fpd_gemm_args *g, size_t index, enum fpd_dtype compute_t,
                            const struct fpd_batch_entry *e)
{
    if (compute_t == g->dt.out)
        return;
    void *c = (char *)g->c + index * g->stride_c * fpd_dtype_info(g->dt.out)->size;
    fpd_convert_matrix(g->m, g->n, compute_t, e->c, e->ldc, g->dt.out, c, g->ldc);
}

void fpd_batch_staging_free(struct fpd_batch_staging *s)
{
    fpd_staging_free(&s->a);
    fpd_staging_free(&s->b);
    fpd_staging_free(&s->c);
}

void fpd_staging_free(struct fpd_staging *s)
{
    fpd_release(&s->buf, &s->cap);
}

#ifndef FPD_VENV
#define FPD_VENV ""
#endif

const char *fpd_python_environment(void)
{
    const char *v = getenv("VIRTUAL_ENV");
    return v && *v ? v : FPD_VENV;
}

size_t fpd_operand_span(size_t batch, size_t stride, size_t rows, size_t ld, size_t cols)
{
    return batch && rows && cols ? (batch - 1) * stride + (rows - 1) * ld + cols : 0;
}

struct fpd_gemm_extent fpd_gemm_extent(const struct fpd_gemm_args *g)
{
    size_t in = fpd_dtype_info(g->dt.in)->size, out = fpd_dtype_info(g->dt.out)->size;
    return (struct fpd_gemm_extent){
        .a = fpd_operand_span(g->batch, g->stride_a, g->trans_a ? g->k : g->m, g->lda, g->trans_a ? g->m : g->k) * in,
        .b = fpd_operand_span(g->batch, g->stride_b, g->trans_b ? g->n : g->k, g->ldb, g->trans_b ? g->k : g->n) * in,
        .c = fpd_operand_span(g->batch, g->stride_c, g->m, g->ldc, g->n) * out,
    };
}
