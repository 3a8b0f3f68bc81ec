/* square_operands.h — the kernel benchmarks' n x n operands: A, B and C in f32 and in f64,
 * small integers (every kernel's result is exact, so no order is favoured by its data). */
#ifndef FPD_BENCH_SQUARE_OPERANDS_H
#define FPD_BENCH_SQUARE_OPERANDS_H

#include <stdbool.h>
#include <stdlib.h>

struct square_operands {
    size_t n;
    float *a, *b, *c;
    double *ad, *bd, *cd;
};

static void square_operands_free(struct square_operands *o)
{
    free(o->a), free(o->b), free(o->c), free(o->ad), free(o->bd), free(o->cd);
}

static bool square_operands_init(struct square_operands *o, size_t n)
{
    *o = (struct square_operands){.n = n};
    o->a = malloc(n * n * sizeof *o->a), o->b = malloc(n * n * sizeof *o->b), o->c = malloc(n * n * sizeof *o->c);
    o->ad = malloc(n * n * sizeof *o->ad), o->bd = malloc(n * n * sizeof *o->bd), o->cd = malloc(n * n * sizeof *o->cd);
    if (!o->a || !o->b || !o->c || !o->ad || !o->bd || !o->cd) {
        square_operands_free(o);
        return false;
    }
    for (size_t i = 0; i < n * n; i++) {
        o->a[i] = (float)(i % 7) - 3, o->b[i] = (float)(i % 5) - 2;
        o->ad[i] = o->a[i], o->bd[i] = o->b[i];
    }
    return true;
}

#endif
