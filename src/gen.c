/* gen.c — deterministic input generation. No libm transcendental is used, so generated values do
 * not depend on the C library's version: only on FPD_GEN_VERSION and the recipe. */
#include "gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "scratch.h"

const struct fpd_dist_info fpd_dist_table[FPD_DIST_COUNT] = {
    [FPD_DIST_NORMAL] = {"normal", "approximately standard normal (Irwin-Hall sum of 4 uniforms, |x| < 3.47)"},
    [FPD_DIST_UNIFORM] = {"uniform", "uniform in [-1, 1)"},
    [FPD_DIST_INT] = {"int", "integers in [-4, 4]: partial sums exact while |sum| < 2^p of the acc/out types"},
    [FPD_DIST_WIDE] = {"wide", "random sign and significand over many binades (cancellation-heavy)"},
};

int fpd_dist_parse(const char *name, enum fpd_dist *out)
{
    for (int d = 0; d < FPD_DIST_COUNT; d++) {
        if (strcmp(name, fpd_dist_table[d].name) == 0) {
            *out = (enum fpd_dist)d;
            return FPD_OK;
        }
    }
    return FPD_ERR_INPUT;
}

/* Binades spanned by `wide`, per input type: kept inside each type's normal range, and for f16
 * small enough that a product stays far from overflow. */
static const int wide_binades[FPD_DTYPE_COUNT] = {[FPD_F64] = 30, [FPD_F32] = 20, [FPD_F16] = 5, [FPD_BF16] = 20};

/* 2^e for a normal-range e, built from its bits: an exact scale factor, without libm's ldexp. */
static inline double pow2(int e)
{
    uint64_t bits = (uint64_t)(e + 1023) << 52;
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* Each distribution from one Philox block's four words. */
static inline double normal_value(uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3)
{
    double sum = (double)w0 + (double)w1 + (double)w2 + (double)w3; /* exact: < 2^34 */
    return (sum * 0x1p-32 - 2.0) * 1.7320508075688772;              /* variance 1 */
}

static inline double uniform_value(uint32_t w0, uint32_t w1)
{
    uint64_t u53 = (((uint64_t)w0 << 32) | w1) >> 11;
    return (double)u53 * 0x1p-52 - 1.0;
}

static inline double int_value(uint32_t w0) { return (double)(int)((uint64_t)w0 * 9 >> 32) - 4.0; }

static inline double wide_value(int span, uint32_t w0, uint32_t w1, uint32_t w2)
{
    int exponent = (int)((uint64_t)w1 * (uint64_t)(2 * span + 1) >> 32) - span;
    double significand = 1.0 + (double)(w2 >> 9) * 0x1p-23;
    return ((w0 & 1) ? -significand : significand) * pow2(exponent); /* |exponent| <= 30: exact */
}

double fpd_dist_value(enum fpd_dist d, enum fpd_dtype in, const uint32_t w[4])
{
    switch (d) {
    case FPD_DIST_NORMAL: return normal_value(w[0], w[1], w[2], w[3]);
    case FPD_DIST_UNIFORM: return uniform_value(w[0], w[1]);
    case FPD_DIST_INT: return int_value(w[0]);
    case FPD_DIST_WIDE: return wide_value(wide_binades[in], w[0], w[1], w[2]);
    default: return NAN;
    }
}

/* A run of lanes of one distribution: the choice is made once per run, not per element, so each
 * loop is straight-line code the compiler vectorizes. */
static void dist_values_x16(enum fpd_dist d, enum fpd_dtype in, const uint32_t w[4][16], double out[16])
{
    switch (d) {
    case FPD_DIST_NORMAL:
        for (int l = 0; l < 16; l++)
            out[l] = normal_value(w[0][l], w[1][l], w[2][l], w[3][l]);
        break;
    case FPD_DIST_UNIFORM:
        for (int l = 0; l < 16; l++)
            out[l] = uniform_value(w[0][l], w[1][l]);
        break;
    case FPD_DIST_INT:
        for (int l = 0; l < 16; l++)
            out[l] = int_value(w[0][l]);
        break;
    case FPD_DIST_WIDE:
        for (int l = 0; l < 16; l++)
            out[l] = wide_value(wide_binades[in], w[0][l], w[1][l], w[2][l]);
        break;
    default:
        for (int l = 0; l < 16; l++)
            out[l] = NAN;
    }
}

static double special_value(enum fpd_dtype t, uint32_t pick)
{
    const struct fpd_dtype_info *f = fpd_dtype_info(t);
    double min_sub = f->underflow, max_sub = ldexp(1.0, f->emin) - f->underflow;
    const double values[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, min_sub, -max_sub, f->max_finite};
    return values[pick % (sizeof values / sizeof values[0])];
}

double fpd_gen_element(const struct fpd_recipe *r, enum fpd_dtype in, unsigned stream, uint32_t batch,
                       uint32_t row, uint32_t col)
{
    uint32_t w[4];
    if (r->special_rate > 0) {
        fpd_rng_element(r->seed, r->index, stream | FPD_STREAM_SPECIAL, batch, row, col, w);
        if ((double)w[0] < r->special_rate * 0x1p32)
            return special_value(in, w[1]);
    }
    fpd_rng_element(r->seed, r->index, stream, batch, row, col, w);
    return fpd_round(in, fpd_dist_value(r->dist, in, w));
}

static bool is_prime(uint32_t x)
{
    if (x < 2)
        return false;
    for (uint32_t d = 2; (uint64_t)d * d <= x; d++)
        if (x % d == 0)
            return false;
    return true;
}

static uint32_t clamp_dim(uint64_t x, uint32_t lo, uint32_t hi) { return x < lo ? lo : x > hi ? hi : (uint32_t)x; }

static uint32_t log2_floor(uint32_t x) { return 31u - (uint32_t)__builtin_clz(x); }

uint32_t fpd_gen_dim(struct fpd_stream *s, uint32_t lo, uint32_t hi)
{
    static const uint32_t tiles[] = {8, 16, 32, 64, 128};
    if (lo >= hi)
        return lo;
    uint32_t top_power = log2_floor(hi);
    switch (fpd_stream_below(s, 6)) {
    case 0:
        return lo;
    case 1:
        return clamp_dim(1ull << fpd_stream_below(s, top_power + 1), lo, hi);
    case 2: {
        uint64_t p = 1ull << fpd_stream_below(s, top_power + 1);
        return clamp_dim(fpd_stream_below(s, 2) ? p + 1 : p - 1, lo, hi);
    }
    case 3: {
        uint32_t tile = tiles[fpd_stream_below(s, sizeof tiles / sizeof tiles[0])];
        return clamp_dim((uint64_t)tile * (1 + fpd_stream_below(s, hi / tile + 1)), lo, hi);
    }
    case 4: {
        uint32_t x = lo + fpd_stream_below(s, hi - lo + 1);
        while (x > lo && !is_prime(x))
            x--;
        return x;
    }
    default:
        return lo + fpd_stream_below(s, hi - lo + 1);
    }
}

/* Generated values for `count` <= 16 stored elements from storage (i, j) on, along the storage row
 * (down_column false) or down the storage column: one 16-lane Philox call whose lanes advance the
 * logical coordinate that direction advances. Keys are logical coordinates, so either direction
 * gives every element its one value. */
static void generate_run(const struct fpd_case *c, unsigned stream, uint32_t batch, void *dst, size_t ld, size_t i,
                         size_t j, size_t count, bool transposed, bool down_column)
{
    const struct fpd_recipe *r = &c->recipe;
    uint32_t w[4][16];
    uint32_t row = (uint32_t)(transposed ? j : i), col = (uint32_t)(transposed ? i : j);
    int along_rows = transposed != down_column; /* the logical row advances across the lanes */
    double values[16];
    fpd_rng_element_x16(r->seed, r->index, stream, batch, row, col, along_rows, w);
    dist_values_x16(r->dist, c->dt.in, w, values);
    if (!down_column) {
        fpd_store_run(c->dt.in, dst, i * ld + j, values, count); /* each rounds once, RNE */
        return;
    }
    for (size_t l = 0; l < count; l++)
        fpd_store(c->dt.in, dst, (i + l) * ld + j, values[l]);
}

/* Fill a stored matrix: logical element (r, c) of op(X) lives at storage (c, r) when transposed.
 * Values come from `given` (explicit data, `given_cols` per logical row) or from the generator. */
static void fill_matrix(const struct fpd_case *c, unsigned stream, uint32_t batch, const char *given,
                        size_t given_cols, void *dst, size_t rows, size_t cols, size_t ld, bool transposed)
{
    enum fpd_dtype in = c->dt.in;
    size_t es = fpd_dtype_info(in)->size;
    bool vectorized = !given && !(c->recipe.special_rate > 0); /* specials draw a second stream per element */
    /* 16 lanes per call: run them along whichever storage direction wastes fewer (a k x 1 operand
     * along its rows would compute 16 values per element kept) */
    bool down_columns = vectorized && cols * ((rows + 15) / 16) < rows * ((cols + 15) / 16);
    for (size_t j = 0; down_columns && j < cols; j++)
        for (size_t i = 0; i < rows; i += 16)
            generate_run(c, stream, batch, dst, ld, i, j, rows - i < 16 ? rows - i : 16, transposed, true);
    for (size_t i = 0; i < rows; i++) {
        size_t j = 0;
        if (down_columns)
            j = cols;
        else if (vectorized)
            for (; j < cols; j += 16)
                generate_run(c, stream, batch, dst, ld, i, j, cols - j < 16 ? cols - j : 16, transposed, false);
        for (; j < cols; j++) {
            uint32_t row = (uint32_t)(transposed ? j : i), col = (uint32_t)(transposed ? i : j);
            if (given)
                memcpy((char *)dst + (i * ld + j) * es, given + (row * given_cols + col) * es, es);
            else
                fpd_store(in, dst, i * ld + j, fpd_gen_element(&c->recipe, in, stream, batch, row, col));
        }
        for (j = cols; j < ld; j++)
            fpd_store(in, dst, i * ld + j, NAN);
    }
}

int fpd_gen_materialize(const struct fpd_case *c, struct fpd_tensors *t)
{
    struct fpd_layout l = fpd_case_layout(c);
    const struct fpd_case_data *d = c->data;
    size_t in_size = fpd_dtype_info(c->dt.in)->size, out_size = fpd_dtype_info(c->dt.out)->size;
    if (fpd_grow(&t->a, &t->cap_a, c->batch * l.stride_a * in_size) != FPD_OK ||
        fpd_grow(&t->b, &t->cap_b, c->batch * l.stride_b * in_size) != FPD_OK ||
        fpd_grow(&t->bias, &t->cap_bias, (size_t)c->n * out_size) != FPD_OK)
        return FPD_ERR_NOMEM;
    for (uint32_t b = 0; b < c->batch; b++) {
        /* Keys are logical coordinates, so a transposed layout holds the very same values. */
        const char *given_a = d ? (const char *)d->a + (size_t)b * d->m * d->k * in_size : NULL;
        const char *given_b = d ? (const char *)d->b + (size_t)b * d->k * d->n * in_size : NULL;
        fill_matrix(c, FPD_STREAM_A, b, given_a, d ? d->k : 0, (char *)t->a + b * l.stride_a * in_size, l.a_rows,
                    l.a_cols, l.lda, c->trans_a);
        fill_matrix(c, FPD_STREAM_B, b, given_b, d ? d->n : 0, (char *)t->b + b * l.stride_b * in_size, l.b_rows,
                    l.b_cols, l.ldb, c->trans_b);
    }
    if (d)
        memcpy(t->bias, d->bias, (size_t)c->n * out_size);
    else
        for (uint32_t j = 0; j < c->n; j++)
            fpd_store(c->dt.out, t->bias, j, fpd_gen_element(&c->recipe, c->dt.in, FPD_STREAM_BIAS, 0, 0, j));
    return FPD_OK;
}

void fpd_tensors_free(struct fpd_tensors *t)
{
    free(t->a);
    free(t->b);
    free(t->bias);
    *t = (struct fpd_tensors){0};
}
