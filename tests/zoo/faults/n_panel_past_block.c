/* n_panel_past_block.c — B packed in column panels of 384 (an NC block) with an off-by-one at the
 * panel boundary: where n > 384, column 384 of C is computed from column 383 of op(B). Narrower
 * products fit one panel and are right, so no case within --max-dim 256 shows it. Class: packing
 * errors past a block size in n. */
#include <stdlib.h>

#include "../zoo.h"

enum { PANEL = 384 };

/* C's column PANEL as it was (beta may read it), then recomputed from op(B)'s column PANEL - 1 */
#define SHIFTED_PANEL(name, T, real)                                                                      \
    void name(int order, int ta, int tb, int m, int n, int k, T alpha, const T *a, int lda, const T *b,   \
              int ldb, T beta, T *c, int ldc)                                                             \
    {                                                                                                     \
        T *column = n > PANEL && order == ZOO_ROW_MAJOR ? malloc((size_t)m * sizeof *column + 1) : NULL;  \
        for (int i = 0; column && i < m; i++)                                                             \
            column[i] = c[(size_t)i * ldc + PANEL];                                                       \
        real(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                                \
        if (!column)                                                                                      \
            return;                                                                                       \
        for (int i = 0; i < m; i++)                                                                       \
            c[(size_t)i * ldc + PANEL] = column[i];                                                       \
        const T *previous = b + zoo_at(order, tb, 0, PANEL - 1, ldb);                                     \
        real(order, ta, tb, m, 1, k, alpha, a, lda, previous, ldb, beta, c + PANEL, ldc);                 \
        free(column);                                                                                     \
    }

SHIFTED_PANEL(cblas_sgemm, float, zoo_real.sgemm)
SHIFTED_PANEL(cblas_dgemm, double, zoo_real.dgemm)
