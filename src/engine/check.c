/* check.c — execute two paths, compare, classify. */
#include "engine/check.h"
#include "engine/aggregate.h"
#include "engine/poison.h"
#include "engine/probable.h"
#include "engine/scale.h"
#include "engine/screen.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/clock.h"
#include "common/dtype.h"
#include "common/isolate.h"
#include "common/scratch.h"
#include "cpu/clones.h"

const char *const fpd_exact_mode_names[FPD_EXACT_MODE_COUNT] = {
    [FPD_EXACT_NEVER] = "never", [FPD_EXACT_DIVERGING] = "diverging", [FPD_EXACT_SAMPLED] = "sampled",
    [FPD_EXACT_ALWAYS] = "always"};

/* Written into C's padding before the call; a backend that writes outside its matrix changes it. */
#define CANARY_BYTE 0xA5

/* An operand as the paths see it: storage pointer, layout and type. */
struct operand {
    const void *p;
    enum fpd_dtype t;
    bool transposed;
    size_t ld, stride;
};

static size_t dsize(enum fpd_dtype t) { return fpd_dtype_info(t)->size; }

/* The stored block of op(X) rows [r0, r0+rows) x cols [c0, c0+cols) of every batch entry from b0. */
static struct operand operand_view(const struct operand *x, uint32_t b0, size_t r0, size_t c0)
{
    struct operand v = *x;
    size_t offset = b0 * x->stride + (x->transposed ? c0 * x->ld + r0 : r0 * x->ld + c0);
    v.p = (const char *)x->p + offset * dsize(x->t);
    return v;
}

/* Re-materialize op(X) (rows x cols per batch entry) with another storage order and/or type. */
static int restage(struct fpd_staging *s, struct operand src_copy, size_t batch, size_t rows, size_t cols,
                   bool transposed, enum fpd_dtype t, uint32_t pad, struct operand *dst)
{
    const struct operand *src = &src_copy; /* by value: dst may be the very operand being restaged */
    size_t srows = transposed ? cols : rows, scols = transposed ? rows : cols;
    *dst = (struct operand){.t = t, .transposed = transposed, .ld = fpd_leading_dimension(scols, pad)};
    dst->stride = srows * dst->ld;
    if (fpd_grow(&s->buf, &s->cap, batch * dst->stride * dsize(t)) != FPD_OK)
        return FPD_ERR_NOMEM;
    memset(s->buf, 0xff, batch * dst->stride * dsize(t)); /* all-ones bits are NaN in every type */
    for (size_t b = 0; b < batch; b++) {
        const char *from = (const char *)src->p + b * src->stride * dsize(src->t);
        char *to = (char *)s->buf + b * dst->stride * dsize(t);
        if (transposed == src->transposed) {
            fpd_convert_matrix(srows, scols, src->t, from, src->ld, t, to, dst->ld);
            continue;
        }
        for (size_t i = 0; i < rows; i++)
            for (size_t j = 0; j < cols; j++) {
                size_t si = src->transposed ? j * src->ld + i : i * src->ld + j;
                size_t di = transposed ? j * dst->ld + i : i * dst->ld + j;
                fpd_store(t, to, di, fpd_load(src->t, from, si));
            }
    }
    dst->p = s->buf;
    return FPD_OK;
}

/* Whether `len` bytes all hold the canary: memcmp against a block of it, which the C library
 * vectorizes (a byte loop with an early exit is a tenth of a small check's time). */
static bool all_canary(const unsigned char *p, size_t len)
{
    static const unsigned char canary[512] = {[0 ... 511] = CANARY_BYTE};
    for (size_t at = 0; at < len; at += sizeof canary)
        if (memcmp(p + at, canary, len - at < sizeof canary ? len - at : sizeof canary) != 0)
            return false;
    return true;
}

/* The canary into C's row padding and one guard row after its end: what canary_intact reads. */
static void write_canary(unsigned char *c, size_t batch, size_t rows, size_t n, size_t ldc, size_t es)
{
    for (size_t i = 0; ldc > n && i < batch * rows; i++)
        memset(c + (i * ldc + n) * es, CANARY_BYTE, (ldc - n) * es);
    memset(c + batch * rows * ldc * es, CANARY_BYTE, ldc * es);
}

/* C's row padding and one guard row after its end must still hold the canary. */
static bool canary_intact(const unsigned char *c, size_t batch, size_t rows, size_t n, size_t ldc, size_t es)
{
    for (size_t i = 0; ldc > n && i < batch * rows; i++)
        if (!all_canary(c + (i * ldc + n) * es, (ldc - n) * es))
            return false;
    return all_canary(c + batch * rows * ldc * es, ldc * es);
}

/* c += bias over each of `rows` rows, keeping c's NaN when both are NaN, as a scalar x86 addition
 * does: which NaN comes out of NaN + NaN depends on the operands' order, which vectorized code may
 * swap, and outputs are hashed bit for bit. The choice is made on the bits, as a mask (c is a NaN
 * when its magnitude bits exceed Inf's; kept quieted, like the addition would), so the loop still
 * vectorizes, in the widest vectors the CPU has. A row goes in blocks of 64 bytes; its last 64
 * bytes, computed from their values before the blocks change them, end it, where the compiler's
 * own ending would take the rest one element at a time (a third of the time at max-dim 64). */
#define ADD_ROWS(name, T, U, MAGNITUDE, INF, QUIET)                                                 \
    static inline __attribute__((always_inline)) T name##_one(T own_value, T bias)                 \
    {                                                                                              \
        T sum = own_value + bias;                                                                  \
        U own, out;                                                                                \
        memcpy(&own, &own_value, sizeof own);                                                      \
        memcpy(&out, &sum, sizeof out);                                                            \
        U keep = -(U)((own & (MAGNITUDE)) > (INF));                                                \
        out = (keep & (own | (QUIET))) | (~keep & out);                                            \
        memcpy(&sum, &out, sizeof out);                                                            \
        return sum;                                                                                \
    }                                                                                              \
    FPD_VECTOR_WIDTH_FUNCTION(void, name, (T * c, const T *restrict bias, size_t rows, size_t n,    \
                                           size_t ldc),                                             \
                              (c, bias, rows, n, ldc))                                              \
    {                                                                                              \
        enum { W = 64 / sizeof(T) };                                                               \
        for (size_t i = 0; i < rows; i++) {                                                        \
            T *restrict row = c + i * ldc;                                                         \
            if (n < W) {                                                                           \
                for (size_t j = 0; j < n; j++)                                                     \
                    row[j] = name##_one(row[j], bias[j]);                                          \
                continue;                                                                          \
            }                                                                                      \
            T last[W];                                                                             \
            for (size_t j = 0; j < W; j++)                                                         \
                last[j] = name##_one(row[n - W + j], bias[n - W + j]);                             \
            for (size_t block = 0; block + W <= n; block += W)                                     \
                for (size_t j = 0; j < W; j++)                                                     \
                    row[block + j] = name##_one(row[block + j], bias[block + j]);                  \
            memcpy(row + n - W, last, sizeof last);                                                \
        }                                                                                          \
    }
ADD_ROWS(add_rows_f32, float, uint32_t, 0x7fffffffu, 0x7f800000u, 0x00400000u)
ADD_ROWS(add_rows_f64, double, uint64_t, 0x7fffffffffffffffu, 0x7ff0000000000000u, 0x0008000000000000u)
#undef ADD_ROWS

static void add_bias_after(void *c, enum fpd_dtype t, size_t batch, size_t rows, size_t n, size_t ldc,
                           const void *bias)
{
    /* c + bias rounded to binary64 and then to t is the correctly rounded sum in t: binary64 has
     * at least 2p+2 bits for every narrower t (Figueroa), and for f64 it is the one rounding. The
     * native types add in their own arithmetic, which is that same correctly rounded sum. */
    switch (t) {
    case FPD_F64: add_rows_f64(c, bias, batch * rows, n, ldc); break;
    case FPD_F32: add_rows_f32(c, bias, batch * rows, n, ldc); break;
    default:
        for (size_t i = 0; i < batch * rows; i++)
            for (size_t j = 0; j < n; j++)
                fpd_store(t, c, i * ldc + j, fpd_load(t, c, i * ldc + j) + fpd_load(t, bias, j));
    }
}

/* A split path's two GEMMs (split-k): ck->args[which] becomes the first k1 terms, with the bias;
 * ck->second[which] the rest, A and B from their k1-th term on, into a C of its own prepared as the
 * first's (its poison, padding and guard). */
static int prepare_second_part(struct fpd_checker *ck, int which, size_t k1, size_t out_bytes)
{
    struct fpd_gemm_args *first = &ck->args[which], *second = &ck->second[which];
    size_t in = dsize(first->dt.in);
    *second = *first;
    second->k = first->k - k1, first->k = k1;
    second->a = (const char *)first->a + (first->trans_a ? k1 * first->lda : k1) * in;
    second->b = (const char *)first->b + (first->trans_b ? k1 : k1 * first->ldb) * in;
    second->bias = NULL;
    if (fpd_grow(&ck->second_out[which].buf, &ck->second_out[which].cap, out_bytes) != FPD_OK)
        return FPD_ERR_NOMEM;
    memcpy(ck->second_out[which].buf, first->c, out_bytes);
    second->c = ck->second_out[which].buf;
    return FPD_OK;
}

/* A path in triangles (gemmt): ck->args[which] computes C's upper triangle, ck->second[which] its
 * lower, into a C of its own prepared as the first's (its poison, padding and guard). */
static int prepare_lower_triangle(struct fpd_checker *ck, int which, size_t out_bytes)
{
    struct fpd_gemm_args *upper = &ck->args[which], *lower = &ck->second[which];
    *lower = *upper;
    lower->route = FPD_ROUTE_GEMMT_LOWER;
    if (fpd_grow(&ck->second_out[which].buf, &ck->second_out[which].cap, out_bytes) != FPD_OK)
        return FPD_ERR_NOMEM;
    memcpy(ck->second_out[which].buf, upper->c, out_bytes);
    lower->c = ck->second_out[which].buf;
    return FPD_OK;
}

/* Whether a triangle's GEMM left the other triangle (strictly below the diagonal of each square
 * batch entry when it computed the upper, else strictly above) holding the poison it was given. */
static bool other_triangle_untouched(const unsigned char *c, enum fpd_dtype t, enum fpd_poison poison, size_t batch,
                                     size_t m, size_t ldc, bool computed_upper)
{
    size_t es = dsize(t);
    uint64_t want = fpd_poison_bits(poison, t);
    for (size_t b = 0; b < batch; b++)
        for (size_t i = 0; i < m; i++)
            for (size_t j = computed_upper ? 0 : i + 1; j < (computed_upper ? i : m); j++) {
                uint64_t bits = 0;
                memcpy(&bits, c + ((b * m + i) * ldc + j) * es, es); /* little-endian: the low bytes */
                if (bits != want)
                    return false;
            }
    return true;
}

/* The lower triangle's strictly lower part from `lower` into c: C whole. */
static void join_triangles(unsigned char *c, const unsigned char *lower, size_t es, size_t batch, size_t m, size_t ldc)
{
    for (size_t b = 0; b < batch; b++)
        for (size_t i = 1; i < m; i++)
            memcpy(c + (b * m + i) * ldc * es, lower + (b * m + i) * ldc * es, i * es);
}

/* c += d over the m x n blocks of each batch entry, rounded to type t. */
static void add_blocks(void *c, const void *d, enum fpd_dtype t, size_t batch, size_t rows, size_t n, size_t ldc)
{
    for (size_t b = 0; b < batch; b++)
        for (size_t i = 0; i < rows; i++)
            for (size_t j = 0; j < n; j++) {
                size_t at = (b * rows + i) * ldc + j;
                fpd_store(t, c, at, fpd_load(t, c, at) + fpd_load(t, d, at));
            }
}

/* A path up to its GEMM: its operands staged as it takes them, C's padding and guard row filled
 * with the canary and its m x n block with the case's poison (poison.h), and the GEMM's arguments
 * in ck->args[which]. */
static int prepare_path(struct fpd_checker *ck, const struct fpd_check *chk, const struct fpd_paths *paths, int which,
                        char *why, size_t why_size)
{
    const struct fpd_case *c = &chk->c;
    const struct fpd_path *p = which == 0 ? &paths->a : &paths->b;
    struct fpd_layout l = fpd_case_layout(c);
    const struct fpd_region *g = &p->gemm;
    size_t m = g->rows.len, n = g->cols.len, batch = g->batch.len;

    struct operand a_all = {ck->tensors.a, c->dt.in, c->trans_a, l.lda, l.stride_a};
    struct operand b_all = {ck->tensors.b, c->dt.in, c->trans_b, l.ldb, l.stride_b};
    struct operand a = operand_view(&a_all, g->batch.start, g->rows.start, 0);
    struct operand b = operand_view(&b_all, g->batch.start, 0, g->cols.start);
    if (p->flip_layout || p->in != c->dt.in) {
        int rc = restage(&ck->operand_a[which], a, batch, m, c->k, a.transposed ^ p->flip_layout, p->in, c->pad, &a);
        if (rc == FPD_OK)
            rc = restage(&ck->operand_b[which], b, batch, c->k, n, b.transposed ^ p->flip_layout, p->in, c->pad, &b);
        if (rc != FPD_OK)
            return rc;
    }
    int bias_exp = p->scale_exp + p->alpha_exp - p->beta_exp; /* the bias handed over times 2^bias_exp */
    if (p->scale_exp) { /* A times 2^e, in a copy stored as it was */
        int rc = a.p == ck->operand_a[which].buf ? FPD_OK
                                                 : restage(&ck->operand_a[which], a, batch, m, c->k, a.transposed, p->in, c->pad, &a);
        if (rc != FPD_OK)
            return rc;
        fpd_scale_block(p->in, ck->operand_a[which].buf, batch, a.stride, a.transposed ? c->k : m, a.transposed ? m : c->k,
                        a.ld, p->scale_exp, false);
    }

    const void *bias = NULL;
    if (p->bias != FPD_BIAS_NONE) {
        size_t ignored;
        const char *row = (const char *)ck->tensors.bias + g->cols.start * dsize(c->dt.out);
        if (bias_exp || p->alpha_negative) { /* a copy of its own, times ±2^bias_exp: never the case's */
            if (fpd_grow(&ck->bias[which].buf, &ck->bias[which].cap, n * dsize(p->out)) != FPD_OK)
                return FPD_ERR_NOMEM;
            fpd_convert_matrix(1, n, c->dt.out, row, n, p->out, ck->bias[which].buf, n);
            fpd_scale_block(p->out, ck->bias[which].buf, 1, n, 1, n, n, bias_exp, p->alpha_negative);
            bias = ck->bias[which].buf;
        } else {
            bias = fpd_stage_input(&ck->bias[which], c->dt.out, row, 1, n, n, p->out, &ignored);
        }
        if (!bias)
            return FPD_ERR_NOMEM;
    }

    size_t ldc = n + c->pad, es = dsize(p->out);
    size_t out_bytes = (batch * m + 1) * ldc * es; /* plus a guard row */
    if (fpd_grow(&ck->out[which].buf, &ck->out[which].cap, out_bytes) != FPD_OK)
        return FPD_ERR_NOMEM;
    unsigned char *out = ck->out[which].buf;
    fpd_poison_fill(fpd_poison_of(c->recipe.seed, c->recipe.index), p->out, out, batch * m, n, ldc);
    /* around the poison, not under it: a pass over all of C before the poison was 1.4% at max-dim 1024 */
    write_canary(out, batch, m, n, ldc, es);

    ck->args[which] = (struct fpd_gemm_args){
        .dt = {p->in, p->out, c->dt.acc},
        .batch = batch, .m = m, .n = n, .k = c->k,
        .trans_a = a.transposed, .trans_b = b.transposed,
        .a = a.p, .lda = a.ld, .stride_a = a.stride,
        .b = b.p, .ldb = b.ld, .stride_b = b.stride,
        .c = out, .ldc = ldc, .stride_c = m * ldc,
        .bias = p->bias == FPD_BIAS_FUSED ? bias : NULL,
        .threads = p->threads ? p->threads : chk->default_threads,
        .algo = p->algo, .route = p->route, .execution = p->execution,
        .alpha_exp = p->alpha_exp, .beta_exp = p->beta_exp, .alpha_negative = p->alpha_negative,
    };
    ck->bias_after[which] = bias;
    if (p->split_k && prepare_second_part(ck, which, p->split_k, out_bytes) != FPD_OK)
        return FPD_ERR_NOMEM;
    if (p->triangles && prepare_lower_triangle(ck, which, out_bytes) != FPD_OK)
        return FPD_ERR_NOMEM;
    struct fpd_backend_slot *slot = chk->backends[p->backend];
    if (fpd_backend_acquire(slot) != FPD_OK) {
        snprintf(why, why_size, "%s is unavailable: %.200s", slot->impl->name, slot->why);
        return FPD_ERR_UNAVAILABLE;
    }
    return FPD_OK;
}

/* A path after its GEMM: C checked for writes outside it, the bias added where the path adds it
 * after, and the compared block found (or converted into the case's output type). */
static int finish_path(struct fpd_checker *ck, const struct fpd_check *chk, const struct fpd_paths *paths, int which,
                       char *why, size_t why_size)
{
    const struct fpd_case *c = &chk->c;
    const struct fpd_path *p = which == 0 ? &paths->a : &paths->b;
    const struct fpd_region *g = &p->gemm;
    const struct fpd_gemm_args *args = &ck->args[which];
    size_t m = args->m, n = args->n, batch = args->batch, ldc = args->ldc, es = dsize(p->out);
    unsigned char *out = args->c;
    const struct fpd_backend_slot *slot = chk->backends[p->backend];
    if (!canary_intact(out, batch, m, n, ldc, es)) {
        snprintf(why, why_size, "%s wrote outside the m x n block of C (into its row padding or past its end)", slot->impl->name);
        return FPD_ERR_BACKEND;
    }
    if (p->split_k) { /* the second part's C checked alike, then added to the first's */
        const unsigned char *second = ck->second_out[which].buf;
        if (!canary_intact(second, batch, m, n, ldc, es)) {
            snprintf(why, why_size, "%s wrote outside the m x n block of C (into its row padding or past its end)",
                     slot->impl->name);
            return FPD_ERR_BACKEND;
        }
        add_blocks(out, second, p->out, batch, m, n, ldc);
    }
    if (p->triangles) { /* each GEMM wrote its triangle, and only it: then C is the two together */
        const unsigned char *lower = ck->second_out[which].buf;
        enum fpd_poison poison = fpd_poison_of(c->recipe.seed, c->recipe.index);
        const char *wrong = !canary_intact(lower, batch, m, n, ldc, es)
                                ? "outside the m x n block of C (into its row padding or past its end)"
                            : !other_triangle_untouched(out, p->out, poison, batch, m, ldc, true)
                                ? "below the diagonal of C when asked for its upper triangle"
                            : !other_triangle_untouched(lower, p->out, poison, batch, m, ldc, false)
                                ? "above the diagonal of C when asked for its lower triangle"
                                : NULL;
        if (wrong) {
            snprintf(why, why_size, "%s's gemmt wrote %s", slot->impl->name, wrong);
            return FPD_ERR_BACKEND;
        }
        join_triangles(out, lower, es, batch, m, ldc);
    }
    if (p->bias == FPD_BIAS_AFTER)
        add_bias_after(out, p->out, batch, m, n, ldc, ck->bias_after[which]);
    int out_exp = p->scale_exp + p->alpha_exp; /* back by ±2^-out_exp, after the bias a path adds after (scaled too) */
    if (out_exp || p->alpha_negative)
        fpd_scale_block(p->out, out, batch, m * ldc, m, n, ldc, -out_exp, p->alpha_negative);

    /* The compared block in the case's output type: where it is already that, in place, else
     * converted into a packed copy. */
    const struct fpd_region *cmp = &paths->compare;
    size_t rows = cmp->rows.len, cols = cmp->cols.len, out_es = dsize(c->dt.out);
    size_t first = ((cmp->batch.start - g->batch.start) * m + (cmp->rows.start - g->rows.start)) * ldc +
                   (cmp->cols.start - g->cols.start);
    if (p->out == c->dt.out) {
        ck->compared[which] = (struct fpd_block){out + first * es, ldc, m * ldc};
        return FPD_OK;
    }
    struct fpd_staging *res = &ck->result[which];
    if (fpd_grow(&res->buf, &res->cap, (size_t)cmp->batch.len * rows * cols * out_es) != FPD_OK)
        return FPD_ERR_NOMEM;
    for (size_t bi = 0; bi < cmp->batch.len; bi++)
        fpd_convert_matrix(rows, cols, p->out, out + (first + bi * m * ldc) * es, ldc, c->dt.out,
                           (char *)res->buf + bi * rows * cols * out_es, cols);
    ck->compared[which] = (struct fpd_block){res->buf, cols, rows * cols};
    return FPD_OK;
}

/* op(X) of one batch entry in binary64, packed: rows x cols, or cols x rows when `by_columns`
 * (each column contiguous). */
static int pack_f64(struct fpd_staging *s, const struct operand *x, size_t b, size_t rows, size_t cols, bool by_columns)
{
    if (fpd_grow(&s->buf, &s->cap, rows * cols * sizeof(double)) != FPD_OK)
        return FPD_ERR_NOMEM;
    double *d = s->buf;
    const char *base = (const char *)x->p + b * x->stride * dsize(x->t);
    if (by_columns == x->transposed) { /* the output's lines are the storage's: a conversion of runs */
        if (by_columns)
            fpd_convert_matrix(cols, rows, x->t, base, x->ld, FPD_F64, d, rows);
        else
            fpd_convert_matrix(rows, cols, x->t, base, x->ld, FPD_F64, d, cols);
        return FPD_OK;
    }
    /* the transpose: AT_ONCE stored lines at a time, each converted a piece at a time, then spread
     * across the output a cache line per position (a line at a time, every store was a line of
     * its own: 5% of a check at max-dim 1024) */
    enum { PIECE = 256, AT_ONCE = 8 };
    size_t lines = by_columns ? rows : cols, len = by_columns ? cols : rows;
    double piece[AT_ONCE][PIECE];
    for (size_t l0 = 0; l0 < lines; l0 += AT_ONCE) {
        size_t together = lines - l0 < AT_ONCE ? lines - l0 : AT_ONCE;
        for (size_t q0 = 0; q0 < len; q0 += PIECE) {
            size_t count = len - q0 < PIECE ? len - q0 : PIECE;
            for (size_t l = 0; l < together; l++)
                fpd_convert_matrix(1, count, x->t, base + ((l0 + l) * x->ld + q0) * dsize(x->t), count, FPD_F64,
                                   piece[l], count);
            for (size_t q = 0; q < count; q++)
                for (size_t l = 0; l < together; l++)
                    d[(q0 + q) * lines + l0 + l] = piece[l][q];
        }
    }
    return FPD_OK;
}

/* The case's A rows and B columns that make the compared block. */
static void compared_operands(const struct fpd_checker *ck, const struct fpd_case *c, const struct fpd_region *cmp,
                              struct operand *a, struct operand *b)
{
    struct fpd_layout l = fpd_case_layout(c);
    struct operand a_all = {ck->tensors.a, c->dt.in, c->trans_a, l.lda, l.stride_a};
    struct operand b_all = {ck->tensors.b, c->dt.in, c->trans_b, l.ldb, l.stride_b};
    *a = operand_view(&a_all, cmp->batch.start, cmp->rows.start, 0);
    *b = operand_view(&b_all, cmp->batch.start, 0, cmp->cols.start);
}

/* g = |A||B| (+ |bias|) over the compared block, in binary64: one batch entry at a time, in
 * ck->magnitude, the source of fpd_compare's bound and of the exact report; for the bound, the
 * entry's binary32 sums where it has them (ck->abs), which it raises itself. Where both run, the
 * report computes again every entry but the last: one product beside its ~2 ns per term. */
struct magnitudes {
    struct fpd_checker *ck;
    const struct fpd_check *chk;
    const struct fpd_region *cmp;
    size_t entry; /* whose g (or sums) ck holds; SIZE_MAX: none yet */
    bool sums;    /* the entry's binary32 sums, not its g */
};

/* Entry e's operands and |bias| for fpd_magnitudes and its kin. */
static int entry_operands(struct magnitudes *g, size_t e, struct fpd_matrix_view *va, struct fpd_matrix_view *vb,
                          const double **abs_bias)
{
    struct fpd_checker *ck = g->ck;
    const struct fpd_case *c = &g->chk->c;
    size_t n = g->cmp->cols.len;
    struct operand a, b;
    compared_operands(ck, c, g->cmp, &a, &b);
    if (fpd_grow(&ck->abs_bias.buf, &ck->abs_bias.cap, n * sizeof(double)) != FPD_OK)
        return FPD_ERR_NOMEM;
    double *bias = c->has_bias ? ck->abs_bias.buf : NULL; /* without one, the bias is not generated */
    for (size_t j = 0; bias && j < n; j++)
        bias[j] = fabs(fpd_load(c->dt.out, ck->tensors.bias, g->cmp->cols.start + j));
    size_t es = dsize(c->dt.in);
    *va = (struct fpd_matrix_view){(const char *)a.p + e * a.stride * es, a.t, a.transposed, a.ld};
    *vb = (struct fpd_matrix_view){(const char *)b.p + e * b.stride * es, b.t, b.transposed, b.ld};
    *abs_bias = bias;
    return FPD_OK;
}

static const double *magnitudes_of_entry(void *ctx, size_t e)
{
    struct magnitudes *g = ctx;
    struct fpd_checker *ck = g->ck;
    if (g->entry == e && !g->sums)
        return ck->magnitude.buf;
    size_t m = g->cmp->rows.len, n = g->cmp->cols.len, k = g->chk->c.k;
    struct fpd_matrix_view va, vb;
    const double *abs_bias;
    if (entry_operands(g, e, &va, &vb, &abs_bias) != FPD_OK ||
        fpd_grow(&ck->magnitude.buf, &ck->magnitude.cap, m * n * sizeof(double)) != FPD_OK)
        return NULL;
    bool have_sums = g->entry == e; /* and so g->sums */
    g->entry = SIZE_MAX; /* until the new entry's are all there */
    double *out = ck->magnitude.buf;
    int rc = have_sums ? fpd_magnitudes_of_sums(&ck->abs, &va, &vb, m, n, k, abs_bias, out, &ck->gemm_ticks)
                       : fpd_magnitudes(&ck->abs, &va, &vb, m, n, k, abs_bias, out, &ck->gemm_ticks);
    if (rc != FPD_OK)
        return NULL;
    g->entry = e;
    g->sums = false;
    return out;
}

static int sums_of_entry(void *ctx, size_t e, struct fpd_magnitude_sums *out)
{
    struct magnitudes *g = ctx;
    struct fpd_checker *ck = g->ck;
    struct fpd_matrix_view va, vb;
    const double *abs_bias;
    *out = (struct fpd_magnitude_sums){.sum = NULL};
    int rc = entry_operands(g, e, &va, &vb, &abs_bias);
    g->entry = SIZE_MAX;
    if (rc == FPD_OK)
        rc = fpd_magnitude_sums(&ck->abs, &va, &vb, g->cmp->rows.len, g->cmp->cols.len, g->chk->c.k, abs_bias, out,
                                &ck->gemm_ticks);
    if (rc == FPD_OK && out->sum) {
        g->entry = e;
        g->sums = true;
    }
    return rc;
}

/* One unit in the last place of x in type t (subnormal spacing below the normal range). */
static double ulp_of(double x, enum fpd_dtype t)
{
    const struct fpd_dtype_info *f = fpd_dtype_info(t);
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    /* the leading bit's exponent, from the bits (no frexp and ldexp per element: they were libm
     * calls); a binary64 subnormal's is below every type's emin, as is zero's */
    int lead = (int)(bits >> 52 & 0x7ff) - 1023;
    lead = fabs(x) > 0 && lead > f->emin ? lead : f->emin;
    int e = lead - f->precision + 1;
    return e >= -1022 ? fpd_pow2(e) : ldexp(1, e); /* binary64's own below 2^-1022 */
}

/* Finite, +Inf, -Inf or NaN alike. */
static bool same_class(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    if (isinf(a) || isinf(b))
        return isinf(a) && isinf(b) && signbit(a) == signbit(b);
    return true;
}

/* fpd_bound_model_widen's subnormal_reach for the compared block's operands taken as type `in`:
 * 0 when none of them is a subnormal of it. */
static double subnormal_reach(const struct fpd_checker *ck, const struct fpd_check *chk, const struct fpd_region *cmp,
                              enum fpd_dtype in)
{
    const struct fpd_case *c = &chk->c;
    double smallest_normal = ldexp(1, fpd_dtype_info(in)->emin), largest = smallest_normal, smallest = INFINITY;
    struct operand ops[2];
    compared_operands(ck, c, cmp, &ops[0], &ops[1]);
    size_t rows[2] = {cmp->rows.len, c->k}, cols[2] = {c->k, cmp->cols.len};
    for (int w = 0; w < 2; w++) /* op(X)'s rows x cols as stored: its columns where transposed */
        for (size_t bi = 0; bi < cmp->batch.len; bi++) {
            const char *base = (const char *)ops[w].p + bi * ops[w].stride * dsize(ops[w].t);
            size_t lines = ops[w].transposed ? cols[w] : rows[w], along = ops[w].transposed ? rows[w] : cols[w];
            for (size_t l = 0; l < lines; l++)
                fpd_magnitude_extremes(ops[w].t, base + l * ops[w].ld * dsize(ops[w].t), along, &smallest, &largest);
        }
    return smallest < smallest_normal ? smallest_normal * largest : 0;
}

/* The bound widened for the rounding of the backend that computed path p (a tensor core's block
 * FMA), where it is not round-to-nearest. */
static void widen_for_backend(struct fpd_bound_model *bm, struct fpd_checker *ck, const struct fpd_check *chk,
                              const struct fpd_region *cmp, const struct fpd_path *p, const struct fpd_dtypes *dt)
{
    struct fpd_rounding r;
    fpd_backend_rounding(chk->backends[p->backend], dt, &r);
    if (r.kind == FPD_ROUNDING_NEAREST)
        return;
    if (!ck->reach_known[dt->in]) { /* a pass over the operands: once per check and type */
        ck->reach[dt->in] = subnormal_reach(ck, chk, cmp, dt->in);
        ck->reach_known[dt->in] = true;
    }
    fpd_bound_model_widen(bm, &r, dt, chk->c.k, ck->reach[dt->in]);
}

/* A path scaled down by 2^e (scale, or alpha-beta's alpha) underflows where the case would not, and
 * its output is taken times 2^-e: each underflowing rounding's error counts 2^-e times in the case's
 * units. */
static void widen_for_scale(struct fpd_bound_model *bm, const struct fpd_path *p)
{
    int e = p->scale_exp + p->alpha_exp;
    if (e < 0) {
        bm->eta_acc = ldexp(bm->eta_acc, -e);
        bm->eta_out = ldexp(bm->eta_out, -e);
        fpd_bound_model_settle(bm);
    }
}

/* Whether path p's rounding errors may be taken as random and mean zero (probable.h): its backend
 * rounds to nearest on a CPU. A GPU backend may run on tensor cores, which truncate (cuBLAS picks
 * them for 16-bit inputs), whatever it declares. */
static bool rounds_at_random(const struct fpd_check *chk, const struct fpd_path *p, const struct fpd_dtypes *dt)
{
    const struct fpd_backend_slot *slot = chk->backends[p->backend];
    struct fpd_rounding r;
    fpd_backend_rounding(slot, dt, &r);
    return r.kind == FPD_ROUNDING_NEAREST && slot->impl->device == FPD_DEVICE_CPU;
}

/* A path's value v against the exact sum hi + lo (rounded once to t: exact_out): its error and its
 * own bound. False for a class change that rounding does not explain: v Inf or NaN where the
 * correctly rounded result is finite, or the other way round, except across the overflow
 * threshold within the bound where no partial sum can overflow (the sum so near the threshold that
 * the path's rounding carried it over, or kept it under: then the error is its distance to the
 * threshold, or to the path's finite value). */
static bool path_error(enum fpd_dtype t, double v, double hi, double lo, double exact_out,
                       const struct fpd_bound_model *own, double g, double *err, double *bound)
{
    if (same_class(v, exact_out) ||
        (fpd_crosses_overflow(v, exact_out) && isfinite(v) && !fpd_partial_sums_may_overflow(own, g))) {
        *err = fabs((v - hi) - lo);
        *bound = fpd_bound_element(own, g, fabs(v));
    } else if (fpd_crosses_overflow(v, exact_out) && isfinite(hi) && !fpd_partial_sums_may_overflow(own, g)) {
        /* v is ±Inf, |hi + lo| below the threshold */
        *err = fpd_below_overflow(t, fabs(hi)) - (signbit(hi) ? -lo : lo);
        *bound = fpd_bound_element(own, g, fpd_dtype_info(t)->max_finite);
    } else {
        return false;
    }
    return same_class(v, exact_out) || *err <= *bound;
}

/* sum |a_l b_l| + |bias| over the terms of an element whose factors are finite (Inf where binary64
 * overflows: so may the accumulator). */
static double finite_magnitude(const double *a, const double *b, size_t k, double bias)
{
    double sum = isfinite(bias) ? fabs(bias) : 0;
    for (size_t l = 0; l < k; l++)
        if (isfinite(a[l]) && isfinite(b[l]))
            sum += fabs(a[l]) * fabs(b[l]);
    return sum;
}

/* The smallest magnitude a nonzero product of dt.in values may have for the sign of an exactly
 * cancelling sum in dt.acc to be IEEE's in every order: its grid (at least |ab| 2^-2p_in) no finer
 * than the accumulator's subnormal one, so that no partial sum or fused multiply-add of such
 * products rounds a nonzero value to a signed zero; with 2^16 to spare for the scalings relations
 * apply (scale.h: at most 2^±8 each). */
static double smallest_exact_product(const struct fpd_dtypes *dt)
{
    const struct fpd_dtype_info *acc = fpd_dtype_info(dt->acc), *in = fpd_dtype_info(dt->in);
    return ldexp(1, acc->emin - acc->precision + 1 + 2 * in->precision + 16);
}

/* Whether an exact sum of zero is +0 in every order round-to-nearest arithmetic takes: some term
 * (a product, or the bias) is nonzero, and each nonzero product is at least `smallest` (above). A
 * sum of nonzero terms that cancels exactly is +0 in that arithmetic, in any order, fused or not;
 * only a sum of -0s alone is -0 (and an accumulator started at +0 makes even that +0). */
static bool cancels_to_positive_zero(const double *a, const double *b, size_t k, double bias, double smallest)
{
    bool nonzero = fpclassify(bias) != FP_ZERO;
    for (size_t l = 0; l < k; l++) {
        if (fpclassify(a[l]) == FP_ZERO || fpclassify(b[l]) == FP_ZERO)
            continue;
        if (!(fabs(a[l] * b[l]) >= smallest))
            return false;
        nonzero = true;
    }
    return nonzero;
}

/*
 * Whether a path's value v of an element (terms a[l] b[l], the bias) is what arithmetic that
 * flushes subnormals to zero gives it, where rounding does not explain v: inputs below the
 * accumulator's smallest normal value read as zero (denormals-are-zero), products below it written
 * as zero (flush-to-zero), the sum exact, within the path's own bound and one smallest normal value
 * per partial sum, each of which may be flushed too. It is how a library built with -ffast-math,
 * or XLA on the CPU, computes: an Inf times a subnormal is NaN there, and a sum of subnormal
 * products 0. Not for a mean (its quotient is rounded apart). False out of memory.
 */
static bool flushing_explains(struct fpd_checker *ck, const struct fpd_check *chk, double v, const double *a,
                              const double *b, double bias, const struct fpd_bound_model *own, double g)
{
    const struct fpd_case *c = &chk->c;
    size_t k = c->k;
    if (chk->mean || fpd_grow(&ck->flushed.buf, &ck->flushed.cap, 2 * (k + 1) * sizeof(double)) != FPD_OK)
        return false;
    double *fa = ck->flushed.buf, *fb = fa + k, smallest = ldexp(1, fpd_dtype_info(c->dt.acc)->emin);
    for (size_t l = 0; l < k; l++) {
        fa[l] = fabs(a[l]) < smallest ? copysign(0, a[l]) : a[l];
        fb[l] = fabs(b[l]) < smallest ? copysign(0, b[l]) : b[l];
        if (fabs(fa[l] * fb[l]) < smallest)
            fa[l] = copysign(0, fa[l]);
    }
    double hi, lo, out;
    fpd_exact_dot_split(ck->acc, fa, fb, k, c->has_bias, fabs(bias) < smallest ? 0 : bias, c->dt.in, c->dt.out, &hi,
                        &lo, &out);
    if (!same_class(v, out))
        return false;
    return !isfinite(v) || fabs((v - hi) - lo) <= fpd_bound_element(own, g, fabs(v)) + (double)(k + 1) * smallest;
}

/* The largest |bias| over the compared columns (fpd_bound_model_bias_added). */
static double compared_bias_max(const struct fpd_checker *ck, const struct fpd_check *chk, const struct fpd_region *cmp)
{
    double max = 0;
    for (size_t j = 0; chk->c.has_bias && j < cmp->cols.len; j++)
        max = fmax(max, fabs(fpd_load(chk->c.dt.out, ck->tensors.bias, cmp->cols.start + j)));
    return max;
}

/* Whether the path's backend adds its fused bias to the product once rounded (BIAS_ADDED). */
static bool bias_added(const struct fpd_check *chk, const struct fpd_path *p)
{
    return p->bias == FPD_BIAS_FUSED && (chk->backends[p->backend]->impl->features & FPD_FEAT_BIAS_ADDED);
}

/* Batch entry bi's compared op(A) rows and op(B) columns in binary64, k values each (ck->values_a
 * row-major, ck->values_b column-major): what every per-element report reads, converted once per
 * check and entry, whichever report reads them first. The exact report reads every line and packs
 * them together (entry_values); the others read the few elements past their screens, whose lines
 * are a fraction of the entry's (at max-dim 1024 a sixth of A's rows, a twentieth of B's columns),
 * and convert each line when it is first read (a_row, b_column): packing all of them was 2.4% of a
 * campaign there. ck->values_lines marks the lines done: A's rows, then B's columns. */
static int entry_values_open(struct fpd_checker *ck, const struct fpd_case *c, size_t bi, size_t m, size_t n)
{
    if (ck->values_entry == bi)
        return FPD_OK;
    ck->values_entry = SIZE_MAX;
    if (fpd_grow(&ck->values_a.buf, &ck->values_a.cap, m * c->k * sizeof(double)) != FPD_OK ||
        fpd_grow(&ck->values_b.buf, &ck->values_b.cap, n * c->k * sizeof(double)) != FPD_OK ||
        fpd_grow(&ck->values_lines.buf, &ck->values_lines.cap, m + n) != FPD_OK)
        return FPD_ERR_NOMEM;
    memset(ck->values_lines.buf, 0, m + n);
    ck->values_whole = false;
    ck->values_entry = bi;
    return FPD_OK;
}

/* Line `line` of op(X) in batch entry b as k binary64 values: a stored row, or read down the
 * stored rows. */
static void convert_line(const struct operand *x, size_t b, size_t line, size_t k, bool stored_row, double *dst)
{
    size_t es = dsize(x->t);
    const char *base = (const char *)x->p + b * x->stride * es;
    if (stored_row)
        fpd_convert_matrix(1, k, x->t, base + line * x->ld * es, k, FPD_F64, dst, k);
    else
        fpd_convert_matrix(k, 1, x->t, base + line * es, x->ld, FPD_F64, dst, 1);
}

/* Row i of op(A) in the entry entry_values_open made ready, converted if not yet. */
static const double *a_row(struct fpd_checker *ck, const struct operand *a, size_t k, size_t i)
{
    unsigned char *done = ck->values_lines.buf;
    double *row = (double *)ck->values_a.buf + i * k;
    if (!done[i])
        convert_line(a, ck->values_entry, i, k, !a->transposed, row), done[i] = 1;
    return row;
}

/* Column j of op(B), as a_row; m: the rows of A, whose marks come first. */
static const double *b_column(struct fpd_checker *ck, const struct operand *b, size_t k, size_t m, size_t j)
{
    unsigned char *done = ck->values_lines.buf;
    double *column = (double *)ck->values_b.buf + j * k;
    if (!done[m + j])
        convert_line(b, ck->values_entry, j, k, b->transposed, column), done[m + j] = 1;
    return column;
}

/* Every line of batch entry bi at once (rows and cols: ck->values_a and values_b), and its
 * magnitudes g (m x n). */
static int entry_values(struct fpd_checker *ck, const struct fpd_case *c, const struct operand *a,
                        const struct operand *b, size_t bi, size_t m, size_t n, struct magnitudes *magnitudes,
                        const double **rows, const double **cols, const double **g)
{
    if (entry_values_open(ck, c, bi, m, n) != FPD_OK)
        return FPD_ERR_NOMEM;
    if (!ck->values_whole) {
        if (pack_f64(&ck->values_a, a, bi, m, c->k, false) != FPD_OK ||
            pack_f64(&ck->values_b, b, bi, c->k, n, true) != FPD_OK)
            return FPD_ERR_NOMEM;
        memset(ck->values_lines.buf, 1, m + n);
        ck->values_whole = true;
    }
    if (!(*g = magnitudes_of_entry(magnitudes, bi)))
        return FPD_ERR_NOMEM;
    *rows = ck->values_a.buf, *cols = ck->values_b.buf;
    return FPD_OK;
}

/* lambda: a path's error exceeds tau with probability at most 2 exp(-lambda^2 / 2) = 2.5e-14 */
#define PROBABLE_LAMBDA 8.0

/* Room in ck->terms for one element's terms. */
static int grow_terms(struct fpd_checker *ck, const struct fpd_case *c)
{
    return fpd_grow(&ck->terms.buf, &ck->terms.cap, (c->k + 1) * sizeof(double));
}

/* Element (i, j)'s terms into ck->terms, from op(A)'s row i and op(B)'s column j in binary64: its
 * k products (exact, but for binary64 inputs'), and its bias. Their count. */
static size_t element_terms(struct fpd_checker *ck, const struct fpd_case *c, const struct fpd_region *cmp,
                            const double *row, const double *column, size_t j)
{
    double *x = ck->terms.buf;
    for (size_t p = 0; p < c->k; p++)
        x[p] = row[p] * column[p];
    if (c->has_bias)
        x[c->k] = fpd_load(c->dt.out, ck->tensors.bias, cmp->cols.start + j);
    return c->k + (c->has_bias ? 1 : 0);
}

/* What of a path's error at an element is not random, for the aggregate test (aggregate.h): all
 * its bound allows but the additions' (the output's rounding, the inputs' casts, underflow). */
static double aggregate_allowance(const struct fpd_bound_model *own, double g, double v)
{
    return fmax(fpd_bound_element(own, g, fabs(v)) - own->gamma * g * own->g_scale, 0);
}

/* The aggregate test takes three passes, each only where the one before leaves an alarm possible:
 * first every element's error over u sqrt(V), the model's energy (one pass over its terms: at most
 * its scale, so the sum is at least the test's); then, from half the threshold, the elements again
 * with their scales (probable.h: the data's own energies, the order-free one, the terms lost
 * whole); then, past it, with the legitimate orders' errors. An element's excess over its
 * allowance, per path, is kept from the first (ck->excess; NAN where the path's was not summed). */
enum aggregate_pass { AGGREGATE_SCALES, AGGREGATE_ORDERS };

/* u sqrt(V) of element (i, j), from its terms' sum and squares as fpd_probable_element sums them
 * (the same bits), the terms not written out. */
static double model_scale(struct fpd_checker *ck, const struct fpd_case *c, const struct fpd_region *cmp,
                          const double *row, const double *column, size_t j, double u)
{
    double bias = c->has_bias ? fpd_load(c->dt.out, ck->tensors.bias, cmp->cols.start + j) : 0, sum, squares;
    fpd_probable_product_sums(row, column, c->k, c->has_bias ? &bias : NULL, &sum, &squares);
    return u * sqrt(fpd_probable_model_energy(sum, squares, c->k + (c->has_bias ? 1 : 0)));
}

/* A later pass over the elements summed for the paths in `wanted`: their sums again with the
 * elements' own scales, or the legitimate orders' sums (aggregate.h). */
static int aggregate_pass(struct fpd_checker *ck, const struct fpd_check *chk, const struct fpd_comparison *outputs,
                          const struct fpd_region *cmp, struct magnitudes *magnitudes,
                          const struct fpd_bound_model own[2], unsigned wanted, enum aggregate_pass pass,
                          struct fpd_aggregate agg[2])
{
    const struct fpd_case *c = &chk->c;
    size_t m = cmp->rows.len, n = cmp->cols.len;
    struct operand a, b;
    compared_operands(ck, c, cmp, &a, &b);
    const struct fpd_block *sides[2] = {&outputs->a, &outputs->b};
    const double *excess = ck->excess.buf;
    for (int w = 0; w < 2; w++)
        if (wanted & (1u << w)) {
            if (pass == AGGREGATE_SCALES)
                agg[w].sum = 0;
            else
                agg[w].orders_measured = true;
        }
    for (size_t bi = 0; wanted && bi < cmp->batch.len; bi++) {
        const double *g = magnitudes_of_entry(magnitudes, bi);
        if (!g)
            return FPD_ERR_NOMEM;
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++) {
                size_t flat = (bi * m + i) * n + j;
                /* the paths' errors add nothing where none is past its allowance; the orders' may */
                bool any = false;
                for (int w = 0; w < 2; w++)
                    any |= (wanted & (1u << w)) && (pass == AGGREGATE_ORDERS ? !isnan(excess[2 * flat + w])
                                                                              : excess[2 * flat + w] > 0);
                if (!any)
                    continue;
                if (entry_values_open(ck, c, bi, m, n) != FPD_OK)
                    return FPD_ERR_NOMEM;
                size_t T = element_terms(ck, c, cmp, a_row(ck, &a, c->k, i), b_column(ck, &b, c->k, m, j), j);
                const double *x = ck->terms.buf;
                struct fpd_probable_element e;
                fpd_probable_element(x, T, g[i * n + j], own[0].u_acc, PROBABLE_LAMBDA, &e);
                /* the orders' largest error: z grows with the error */
                e.stagnation *= own[0].g_scale; /* a mean's: the sum's, divided */
                double worst = pass == AGGREGATE_ORDERS ? fpd_probable_orders(x, T, c->dt.acc) * own[0].g_scale : 0;
                for (int w = 0; w < 2; w++) {
                    if (!(wanted & (1u << w)) || isnan(excess[2 * flat + w]))
                        continue;
                    double scale = own[w].u_acc * e.scale * own[w].g_scale, z;
                    if (!(scale > 0) || !isfinite(scale))
                        continue; /* its energy out of binary64's range, as the first pass may not have seen */
                    if (pass == AGGREGATE_SCALES) {
                        z = fpd_aggregate_z(excess[2 * flat + w], e.stagnation, scale);
                        agg[w].sum += z * z;
                    } else { /* the order's error, with the path's allowance at the element */
                        double v = fpd_load(c->dt.out, fpd_comparison_at(outputs, sides[w], bi, i, j), 0);
                        z = fpd_aggregate_z(worst, aggregate_allowance(&own[w], g[i * n + j], v) + e.stagnation, scale);
                        agg[w].orders += z * z;
                    }
                }
            }
    }
    return FPD_OK;
}

/* The paths whose sum is past `share` of the threshold: for them, the next pass. The scales are taken
 * from half of it, so that a ratio reported from half of the alarm up is the test's own, not the
 * first pass's bound on it. */
static unsigned past_threshold(const struct fpd_aggregate agg[2], double share)
{
    unsigned past = 0;
    for (int w = 0; w < 2; w++)
        if (agg[w].elements && agg[w].sum > share * fpd_aggregate_threshold(agg[w].elements))
            past |= 1u << w;
    return past;
}

/* Each path against the correctly rounded result: error in ulps, and against its own bound; and
 * the aggregate test of the paths whose rounding is random (aggregate.h). */
static int exact_report(struct fpd_checker *ck, const struct fpd_check *chk, const struct fpd_comparison *outputs,
                        struct magnitudes *magnitudes, const bool random[2], double bias_max,
                        struct fpd_check_result *res)
{
    const struct fpd_case *c = &chk->c;
    const struct fpd_region *cmp = &res->paths.compare;
    size_t m = cmp->rows.len, n = cmp->cols.len;
    if (!ck->acc && !(ck->acc = calloc(1, sizeof *ck->acc)))
        return FPD_ERR_NOMEM;
    struct operand a, b;
    compared_operands(ck, c, cmp, &a, &b);
    const struct fpd_path *paths[2] = {&res->paths.a, &res->paths.b};
    struct fpd_bound_model own[2];
    for (int w = 0; w < 2; w++) {
        /* the path's result is rounded to its own output type and to the case's: the narrower counts */
        bool narrower = fpd_dtype_info(paths[w]->out)->precision < fpd_dtype_info(c->dt.out)->precision;
        struct fpd_dtypes dt = {paths[w]->in, narrower ? paths[w]->out : c->dt.out, c->dt.acc};
        /* its own intermediate roundings to the output type: a bias added after, a split's parts; and
         * a backend's product rounded before it adds the bias */
        unsigned intermediate = (paths[w]->bias == FPD_BIAS_AFTER) + (paths[w]->split_k ? 2 : 0);
        fpd_bound_model_init(&own[w], &dt, c->k, c->has_bias, intermediate);
        if (bias_added(chk, paths[w]))
            fpd_bound_model_bias_added(&own[w], bias_max);
        if (chk->mean)
            fpd_bound_model_mean(&own[w]);
        widen_for_scale(&own[w], paths[w]);
        widen_for_backend(&own[w], ck, chk, cmp, paths[w], &dt);
    }
    struct fpd_exact_report *x = &res->exact;
    *x = (struct fpd_exact_report){.computed = true};
    /* where a path's -0 is judged against the +0 an exactly cancelling sum gives: round-to-nearest
     * arithmetic on the CPU (a tensor core's truncation has its own rules), a result in the
     * accumulator's type (one rounded to a narrower output underflows to a zero of its error's sign),
     * and a positive alpha (with a negative one the library's zero, negated back, has either sign:
     * -(A B)'s terms may be negated before the sum or after) */
    bool zero_sign_judged[2];
    for (int w = 0; w < 2; w++)
        zero_sign_judged[w] = random[w] && c->dt.out == c->dt.acc && paths[w]->out == c->dt.acc &&
                              !paths[w]->alpha_negative;
    const double smallest_product = smallest_exact_product(&c->dt);
    size_t wrong[2] = {0, 0}, flush_explained[2] = {0, 0}; /* elements where a path is wrong; of them, as flushed */
    const struct fpd_block *sides[2] = {&outputs->a, &outputs->b};
    struct fpd_aggregate agg[2] = {{0}};
    /* the paths the aggregate test is for: random rounding, in a check nothing stronger has already
     * found improbable or worse (its later passes cost most where a library is plainly wrong) */
    unsigned aggregated = 0;
    for (int w = 0; w < 2; w++)
        if (random[w] && res->verdict < FPD_IMPROBABLE)
            aggregated |= 1u << w;
    if (grow_terms(ck, c) != FPD_OK ||
        fpd_grow(&ck->excess.buf, &ck->excess.cap, 2 * cmp->batch.len * m * n * sizeof(double)) != FPD_OK)
        return FPD_ERR_NOMEM;
    double *excess = ck->excess.buf;
    for (size_t bi = 0; bi < cmp->batch.len; bi++) {
        const double *rows, *cols, *g;
        if (entry_values(ck, c, &a, &b, bi, m, n, magnitudes, &rows, &cols, &g) != FPD_OK)
            return FPD_ERR_NOMEM;
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++) {
                double bias = c->has_bias ? fpd_load(c->dt.out, ck->tensors.bias, cmp->cols.start + j) : 0;
                double hi, lo, exact_out; /* the exact sum hi + lo, and rounded once to the output type */
                if (chk->mean) /* the exact mean, rounded once */
                    fpd_exact_dot_quotient(ck->acc, &rows[i * c->k], &cols[j * c->k], c->k, (double)c->k, c->dt.in,
                                           c->dt.out, &hi, &lo, &exact_out);
                else
                    fpd_exact_dot_split(ck->acc, &rows[i * c->k], &cols[j * c->k], c->k, c->has_bias, bias, c->dt.in,
                                        c->dt.out, &hi, &lo, &exact_out);
                size_t flat = (bi * m + i) * n + j;
                double scale = 0; /* u sqrt(V), once a path's error needs it */
                bool scaled = false;
                for (int w = 0; w < 2; w++) {
                    excess[2 * flat + w] = NAN;
                    double v = fpd_load(c->dt.out, fpd_comparison_at(outputs, sides[w], bi, i, j), 0);
                    if (same_class(v, exact_out) && !isfinite(v))
                        continue; /* the same Inf or NaN as the exact result */
                    if (zero_sign_judged[w] && fpclassify(v) == FP_ZERO && signbit(v) && fpclassify(hi) == FP_ZERO &&
                        fpclassify(lo) == FP_ZERO &&
                        cancels_to_positive_zero(&rows[i * c->k], &cols[j * c->k], c->k, bias, smallest_product)) {
                        x->zero_sign[w]++; /* a wrong result, however near */
                        continue;
                    }
                    double err, bound;
                    if (!path_error(c->dt.out, v, hi, lo, exact_out, &own[w], g[i * n + j], &err, &bound)) {
                        /* Inf, NaN or finite where the correctly rounded result is not, beyond
                         * what rounding explains: as wrong as a path can be */
                        x->wrong_class[w]++;
                        wrong[w]++;
                        flush_explained[w] += flushing_explains(ck, chk, v, &rows[i * c->k], &cols[j * c->k], bias,
                                                                &own[w], g[i * n + j]);
                        /* of which an order whose partial sum overflows can give (Inf, or Inf - Inf's NaN):
                         * outside any rounding bound still, but not necessarily a wrong result. The
                         * finite terms' magnitudes say: an Inf among the terms makes g infinite, yet
                         * the exact result is then what every order gives unless the others overflow */
                        x->overflowed[w] +=
                            !isfinite(v) &&
                            fpd_partial_sums_may_overflow(&own[w], finite_magnitude(&rows[i * c->k], &cols[j * c->k],
                                                                                    c->k, bias));
                        x->err_ulp[w] = x->own_ratio[w] = INFINITY;
                        continue;
                    }
                    if (!same_class(v, exact_out)) {
                        x->threshold[w]++;
                        x->err_ulp[w] = fmax(x->err_ulp[w], (double)fpd_ulp_distance(c->dt.out,
                                                                                  fpd_bits_of_value(c->dt.out, v),
                                                                                  fpd_bits_of_value(c->dt.out, exact_out)));
                    } else { /* ulps from the correctly rounded result: 0 for a path that gives it */
                        x->err_ulp[w] = fmax(x->err_ulp[w], fabs(v - exact_out) / ulp_of(exact_out, c->dt.out));
                    }
                    if (isfinite(bound)) /* the error from the exact sum itself, against the path's own bound */
                        x->own_ratio[w] = fmax(x->own_ratio[w], bound > 0 ? err / bound : err > 0 ? INFINITY : 0);
                    if (isfinite(bound) && err > bound) {
                        wrong[w]++;
                        flush_explained[w] += flushing_explains(ck, chk, v, &rows[i * c->k], &cols[j * c->k], bias,
                                                                &own[w], g[i * n + j]);
                    }
                    if (!(aggregated & (1u << w)) || !same_class(v, exact_out) || !(g[i * n + j] > 0))
                        continue;
                    double over = fmax(err - aggregate_allowance(&own[w], g[i * n + j], v), 0);
                    if (over > 0 && !scaled) {
                        scale = model_scale(ck, c, cmp, &rows[i * c->k], &cols[j * c->k], j, own[w].u_acc) * own[w].g_scale;
                        scaled = true;
                    }
                    if (over > 0 && (!(scale > 0) || !isfinite(scale)))
                        continue; /* energy out of binary64's range: not summed */
                    double z = fpd_aggregate_z(over, 0, scale);
                    agg[w].sum += z * z;
                    agg[w].elements++;
                    excess[2 * flat + w] = over;
                }
            }
    }
    for (int w = 0; w < 2; w++)
        if (x->own_ratio[w] > 1 || x->wrong_class[w] || x->zero_sign[w]) /* wrong already: no test tells more */
            agg[w] = (struct fpd_aggregate){0};
    int rc = FPD_OK;
    unsigned wanted = past_threshold(agg, 0.5);
    if (wanted && (rc = aggregate_pass(ck, chk, outputs, cmp, magnitudes, own, wanted, AGGREGATE_SCALES, agg)) == FPD_OK &&
        (wanted = past_threshold(agg, 1)) != 0)
        rc = aggregate_pass(ck, chk, outputs, cmp, magnitudes, own, wanted, AGGREGATE_ORDERS, agg);
    if (rc != FPD_OK)
        return rc;
    for (int w = 0; w < 2; w++) {
        if (x->own_ratio[w] > 1 || x->zero_sign[w])
            x->beyond |= 1u << w;
        if (wrong[w] && flush_explained[w] == wrong[w])
            x->flushed |= (uint8_t)(1u << w);
        x->aggregate[w] = fpd_aggregate_ratio(&agg[w]);
        x->aggregate_elements[w] = agg[w].elements;
        x->aggregate_by_orders[w] = agg[w].orders_measured && agg[w].sum / fpd_aggregate_threshold(agg[w].elements) >
                                                                   x->aggregate[w];
    }
    return FPD_OK;
}

/* Each differing element's difference against the probabilistic threshold (probable.h) of both
 * paths: 2 tau + the roundings besides the additions' that the bound allows (the output's, the
 * inputs' casts), which are not random. res->probable_ratio: the largest where over 1, else 0;
 * elements that cannot exceed 1, or the largest so far, are passed over unmeasured: the screen
 * (screen.h) finds them a piece of a row at a time, in vectors (element by element it was 5.6% of
 * a campaign at max-dim 1024). */
static int probable_report(struct fpd_checker *ck, const struct fpd_check *chk, const struct fpd_comparison *outputs,
                           struct magnitudes *magnitudes, const struct fpd_bound_model *bm, struct fpd_check_result *res)
{
    const struct fpd_case *c = &chk->c;
    const struct fpd_region *cmp = &res->paths.compare;
    size_t m = cmp->rows.len, n = cmp->cols.len, T = c->k + (c->has_bias ? 1 : 0);
    struct operand a, b;
    compared_operands(ck, c, cmp, &a, &b);
    if (grow_terms(ck, c) != FPD_OK)
        return FPD_ERR_NOMEM;
    const double *x = ck->terms.buf;
    double largest = 1;
    const struct fpd_screen screen = {*bm, PROBABLE_LAMBDA * bm->u_acc, sqrt((double)T / 3)};
    enum { SCREENED = 256 }; /* elements of a row screened at once */
    bool maybe[SCREENED];
    for (size_t bi = 0; bi < cmp->batch.len; bi++) {
        const double *g = magnitudes_of_entry(magnitudes, bi);
        if (!g)
            return FPD_ERR_NOMEM;
        for (size_t i = 0; i < m; i++)
            for (size_t j0 = 0; j0 < n; j0 += SCREENED) {
                size_t count = n - j0 < SCREENED ? n - j0 : SCREENED;
                /* with the largest ratio at the piece's start: it only grows, and the elements that
                 * may pass are screened again against it as it is */
                fpd_screen_row(&screen, c->dt.out, fpd_comparison_at(outputs, &outputs->a, bi, i, j0),
                               fpd_comparison_at(outputs, &outputs->b, bi, i, j0), &g[i * n + j0], count, largest,
                               maybe);
                for (size_t j = j0; j < j0 + count; j++) {
                    if (!maybe[j - j0]) /* most: nothing more to read of them */
                        continue;
                    double va = fpd_load(c->dt.out, fpd_comparison_at(outputs, &outputs->a, bi, i, j), 0);
                    double vb = fpd_load(c->dt.out, fpd_comparison_at(outputs, &outputs->b, bi, i, j), 0);
                    double gij = g[i * n + j], rest, delta = fabs(va - vb);
                    if (!fpd_screen_element(&screen, va, vb, gij, largest, &rest))
                        continue;
                    if (entry_values_open(ck, c, bi, m, n) != FPD_OK)
                        return FPD_ERR_NOMEM;
                    element_terms(ck, c, cmp, a_row(ck, &a, c->k, i), b_column(ck, &b, c->k, m, j), j);
                    struct fpd_probable_element e;
                    fpd_probable_element(x, T, gij, bm->u_acc, PROBABLE_LAMBDA, &e);
                    e.tau *= bm->g_scale; /* a mean's: the sum's, divided */
                    double ratio = delta / (2 * (e.tau + fmax(rest, 0)));
                    if (ratio > largest) { /* flagged: no lower than what legitimate orders give these terms */
                        double orders = fpd_probable_orders(x, T, bm->acc) * bm->g_scale;
                        double tau = fmax(e.tau, FPD_PROBABLE_ORDER_MARGIN * orders);
                        ratio = delta / (2 * (tau + fmax(rest, 0)));
                    }
                    if (ratio > largest) {
                        largest = ratio;
                        res->probable_ratio = ratio;
                        res->probable_order_free = e.structured;
                    }
                }
            }
    }
    return FPD_OK;
}

/* The case's B made op(A)ᵀ, element for element in B's own storage (a self product's: n = m). Its
 * magnitudes, its exact reference and path A's gemm then read A·Aᵀ from the same data as syrk. */
static void b_is_a_transposed(const struct fpd_case *c, struct fpd_tensors *t)
{
    struct fpd_layout l = fpd_case_layout(c);
    for (size_t bi = 0; bi < c->batch; bi++)
        for (size_t p = 0; p < c->k; p++)
            for (size_t j = 0; j < c->n; j++) { /* op(B)[p][j] = op(A)[j][p] */
                size_t from = bi * l.stride_a + (c->trans_a ? p * l.lda + j : j * l.lda + p);
                size_t to = bi * l.stride_b + (c->trans_b ? j * l.ldb + p : p * l.ldb + j);
                memcpy((char *)t->b + to * dsize(c->dt.in), (const char *)t->a + from * dsize(c->dt.in), dsize(c->dt.in));
            }
}

/* A check up to its GEMMs: both paths prepared (ck->args), or the `error` verdict of one that
 * cannot be (ck->prepared false). FPD_ERR_NOMEM, or FPD_OK. */
static int prepare_check(struct fpd_checker *ck, const struct fpd_check *chk, struct fpd_check_result *res)
{
    const struct fpd_case *c = &chk->c;
    *res = (struct fpd_check_result){.failed_path = -1};
    ck->prepared = false;
    fpd_relation_build(chk->relation, c, &chk->params, &res->paths);
    int rc = fpd_gen_materialize(c, &ck->tensors);
    if (rc != FPD_OK)
        return rc;
    if (chk->relation->self_product)
        b_is_a_transposed(c, &ck->tensors);
    if (!fpd_scale_settle(c, &ck->tensors, &res->paths.b)) { /* signs from the data: what keeps everything finite and exact */
        res->verdict = FPD_ERROR;
        res->failed_path = 1;
        res->not_applicable = true;
        snprintf(res->error, sizeof res->error, "%s: no power of two keeps these data finite and exact, so path B "
                 "would be path A", chk->relation->name);
        return FPD_OK;
    }
    for (int which = 0; which < 2; which++) {
        rc = prepare_path(ck, chk, &res->paths, which, res->error, sizeof res->error);
        if (rc == FPD_ERR_NOMEM)
            return rc;
        if (rc != FPD_OK) {
            res->verdict = FPD_ERROR;
            res->failed_path = which;
            return FPD_OK;
        }
    }
    if (res->paths.b.callers > 1) {
        const struct fpd_gemm_args *b = &ck->args[1];
        size_t c_bytes = (b->batch * b->m + 1) * b->ldc * dsize(b->dt.out);
        uint64_t key = fpd_rng_mix64(c->recipe.seed ^ 0x6c8e9cf570932bd5u) + c->recipe.index;
        if ((rc = fpd_callers_prepare(&ck->callers, res->paths.b.callers, b, c_bytes, key)) != FPD_OK)
            return rc;
    }
    ck->prepared = true;
    return FPD_OK;
}

/* Whether the check's mode asks for the exact reference, given whether its paths differ. */
static bool exact_wanted(const struct fpd_check *chk, bool diverging)
{
    const struct fpd_recipe *r = &chk->c.recipe;
    if (chk->c.k == 0 && chk->exact != FPD_EXACT_NEVER) /* free, and the only witness where both paths return
                                                           alike at once, without writing C */
        return true;
    switch (chk->exact) {
    case FPD_EXACT_ALWAYS: return true;
    case FPD_EXACT_SAMPLED: /* a draw of the case's own: its seed mixed with a salt, so not the poison's */
        return diverging || fpd_rng_one_in(r->seed, 0x5a3b1e2d4c6f7081u, r->index, FPD_EXACT_SAMPLE_EVERY);
    case FPD_EXACT_DIVERGING: return diverging;
    default: return false;
    }
}

/* A prepared check after its GEMMs (their outcomes in ck->status, reasons in ck->why): its
 * outputs compared and classified. */
static int conclude_check(struct fpd_checker *ck, const struct fpd_check *chk, struct fpd_check_result *res)
{
    const struct fpd_case *c = &chk->c;
    if (!ck->prepared)
        return FPD_OK;
    ck->values_entry = SIZE_MAX; /* the last check's */
    memset(ck->reach_known, 0, sizeof ck->reach_known);
    for (int which = 0; which < 2; which++) {
        int rc = ck->status[which];
        if (rc == FPD_OK)
            rc = finish_path(ck, chk, &res->paths, which, ck->why[which], sizeof ck->why[which]);
        if (rc == FPD_ERR_NOMEM)
            return rc;
        if (rc != FPD_OK) {
            res->verdict = FPD_ERROR;
            res->failed_path = which;
            res->not_applicable = rc == FPD_ERR_NOT_APPLICABLE;
            snprintf(res->error, sizeof res->error, "%s", ck->why[which]);
            return FPD_OK;
        }
    }
    int rc;
    const struct fpd_region *cmp = &res->paths.compare;
    struct fpd_comparison outputs = {c->dt.out, cmp->batch.len, cmp->rows.len, cmp->cols.len, ck->compared[0],
                                     ck->compared[1]};
    struct magnitudes magnitudes = {ck, chk, cmp, SIZE_MAX, false};
    struct fpd_bound_model bm;
    fpd_bound_model_init(&bm, &c->dt, c->k, c->has_bias, res->paths.extra_out_roundings);
    /* a backend that adds the bias to its rounded product (a framework's x @ W + b) rounds once more
     * than a fused form, which the bound counts unless the relation's own intermediate rounding does;
     * a path's own bound counts it always (exact_report) */
    bool any_bias_added = bias_added(chk, &res->paths.a) || bias_added(chk, &res->paths.b);
    double bias_max = any_bias_added ? compared_bias_max(ck, chk, cmp) : 0;
    if (any_bias_added && res->paths.extra_out_roundings < 1)
        fpd_bound_model_bias_added(&bm, bias_max);
    if (chk->mean)
        fpd_bound_model_mean(&bm);
    widen_for_scale(&bm, &res->paths.b);
    const struct fpd_path *both[] = {&res->paths.a, &res->paths.b};
    bool random[2]; /* each path's rounding errors random and mean zero */
    for (int w = 0; w < 2; w++) {
        struct fpd_dtypes dt = {both[w]->in, both[w]->out, c->dt.acc};
        widen_for_backend(&bm, ck, chk, cmp, both[w], &dt);
        random[w] = rounds_at_random(chk, both[w], &dt);
    }
    struct fpd_magnitude_source g = {magnitudes_of_entry, &magnitudes, sums_of_entry};
    if ((rc = fpd_compare(&outputs, &g, &bm, &res->metrics)) != FPD_OK)
        return rc;
    res->verdict = fpd_classify(&res->metrics);
    /* within the worst-case bound: is it within what reordering gives, but for negligible odds? */
    if (res->verdict == FPD_REORDER && random[0] && random[1]) {
        if ((rc = probable_report(ck, chk, &outputs, &magnitudes, &bm, res)) != FPD_OK)
            return rc;
        if (res->probable_ratio > 1)
            res->verdict = FPD_IMPROBABLE;
    }
    if (chk->relation->strict && res->metrics.diff > 0 && res->verdict < FPD_IMPROBABLE) {
        res->strict_excess = res->metrics.max_abs / fpd_scale_tolerance(&c->dt, c->k, res->paths.b.scale_exp);
        if (res->strict_excess > 1)
            res->verdict = FPD_IMPROBABLE;
    }
    if (exact_wanted(chk, res->metrics.diff > 0)) {
        if ((rc = exact_report(ck, chk, &outputs, &magnitudes, random, bias_max, res)) != FPD_OK)
            return rc;
        /* a path beyond its own bound, or farther from the exact sum than rounding makes on many
         * elements, lost precision, even when the other path shares it */
        if ((res->exact.aggregate[0] > 1 || res->exact.aggregate[1] > 1) && res->verdict < FPD_IMPROBABLE)
            res->verdict = FPD_IMPROBABLE;
        if (res->exact.beyond && res->verdict < FPD_BOUND)
            res->verdict = FPD_BOUND;
        /* Inf or NaN where the exact result is finite, or finite where it is not, and no order that
         * overflows gives it: the paths' class is wrong, as it is between paths that differ in it,
         * though both may be wrong alike */
        for (int w = 0; w < 2; w++)
            if (res->exact.wrong_class[w] > res->exact.overflowed[w] && res->verdict < FPD_NONFINITE)
                res->verdict = FPD_NONFINITE;
    }
    if (!chk->unhashed && (rc = fpd_compare_hashes(&outputs, &res->metrics)) != FPD_OK)
        return rc;
    size_t w = res->metrics.worst, per_batch = (size_t)cmp->rows.len * cmp->cols.len;
    res->worst_batch = cmp->batch.start + (uint32_t)(w / per_batch);
    res->worst_row = cmp->rows.start + (uint32_t)(w % per_batch / cmp->cols.len);
    res->worst_col = cmp->cols.start + (uint32_t)(w % cmp->cols.len);
    if (ck->digest)
        res->digest = ck->digest(ck->digest_ctx, ck, res);
    return FPD_OK;
}

/* One GEMM of a prepared check, as the backends are handed them. */
struct gemm_job {
    struct fpd_checker *ck;
    int which;
    struct fpd_backend_slot *slot;
    double work; /* multiply-adds, for its share of the time */
};

/* What handing out the GEMMs of `count` checks needs, for 2 * count of them. Up to
 * JOBS_ON_STACK it is on the stack: a check run alone, the commonest, allocates nothing. */
enum { JOBS_ON_STACK = 64, WHY_SIZE = sizeof ((struct fpd_checker *)0)->why[0] };
struct gemm_scratch {
    struct gemm_job *jobs;
    const struct fpd_gemm_args **args;
    int *status;
    char *why;
    size_t *group; /* the jobs of one backend */
    bool *taken;
};

static int scratch_get(struct gemm_scratch *s, size_t jobs, void *stack)
{
    size_t bytes = jobs * (sizeof *s->jobs + sizeof *s->args + sizeof *s->status + WHY_SIZE + sizeof *s->group +
                           sizeof *s->taken);
    char *p = jobs <= JOBS_ON_STACK ? stack : malloc(bytes);
    if (!p)
        return FPD_ERR_NOMEM;
    /* the members in order of alignment, widest first */
    s->jobs = (struct gemm_job *)p, p += jobs * sizeof *s->jobs;
    s->args = (const struct fpd_gemm_args **)p, p += jobs * sizeof *s->args;
    s->group = (size_t *)p, p += jobs * sizeof *s->group;
    s->status = (int *)p, p += jobs * sizeof *s->status;
    s->why = p, p += jobs * WHY_SIZE;
    s->taken = (bool *)p;
    memset(s->taken, 0, jobs * sizeof *s->taken);
    return FPD_OK;
}

/* Path B among its callers, after path A (concurrent). */
static void run_callers(struct fpd_checker *ck, const struct fpd_check *chk, struct fpd_check_result *res)
{
    uint64_t t0 = fpd_ticks();
    ck->status[1] = fpd_callers_run(&ck->callers, chk->backends[res->paths.b.backend], &ck->args[0],
                                    ck->status[0] == FPD_OK, &res->concurrency, ck->why[1], sizeof ck->why[1]);
    ck->gemm_ticks += fpd_ticks() - t0;
}

/* The prepared checks' GEMMs, each backend's together (fpd_backend_gemm_many: one request where
 * the backend is another process), in the order the checks and paths came. */
static int run_gemms(struct fpd_checker *const *cks, const struct fpd_check *chks, struct fpd_check_result *res,
                     size_t count)
{
    _Alignas(max_align_t) char stack[JOBS_ON_STACK * (sizeof(struct gemm_job) + sizeof(void *) + sizeof(size_t) +
                                                      sizeof(int) + WHY_SIZE + sizeof(bool))];
    struct gemm_scratch s;
    if (scratch_get(&s, 2 * count, stack) != FPD_OK)
        return FPD_ERR_NOMEM;
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        for (int w = 0; cks[i]->prepared && w < 2; w++) {
            const struct fpd_path *p = w == 0 ? &res[i].paths.a : &res[i].paths.b;
            const struct fpd_gemm_args *g = &cks[i]->args[w];
            s.jobs[n] = (struct gemm_job){cks[i], w, chks[i].backends[p->backend], (double)g->batch * g->m * g->n * g->k};
            s.taken[n++] = p->callers > 1; /* run after path A, which it is compared with */
        }
    for (size_t first = 0; first < n; first++) {
        if (s.taken[first])
            continue;
        size_t size = 0;
        double work = 0;
        for (size_t j = first; j < n; j++)
            if (!s.taken[j] && s.jobs[j].slot == s.jobs[first].slot) {
                s.taken[j] = true;
                s.args[size] = &s.jobs[j].ck->args[s.jobs[j].which];
                work += s.jobs[j].work + 1;
                s.group[size++] = j;
            }
        uint64_t t0 = fpd_ticks();
        fpd_backend_gemm_many(s.jobs[first].slot, size, s.args, s.status, s.why, WHY_SIZE);
        double ticks = (double)(fpd_ticks() - t0);
        for (size_t g = 0; g < size; g++) {
            struct gemm_job *job = &s.jobs[s.group[g]];
            job->ck->status[job->which] = s.status[g];
            memcpy(job->ck->why[job->which], s.why + g * WHY_SIZE, WHY_SIZE);
            job->ck->gemm_ticks += (uint64_t)(ticks * (job->work + 1) / work);
        }
    }
    for (size_t i = 0; i < count; i++)
        if (cks[i]->prepared && res[i].paths.b.callers > 1)
            run_callers(cks[i], &chks[i], &res[i]);
    for (size_t i = 0; i < count; i++)
        for (int w = 0; cks[i]->prepared && w < 2; w++) {
            const struct fpd_path *p = w == 0 ? &res[i].paths.a : &res[i].paths.b;
            struct fpd_checker *ck = cks[i];
            if (!(p->split_k || p->triangles) || ck->status[w] != FPD_OK)
                continue;
            uint64_t t0 = fpd_ticks();
            ck->status[w] = fpd_backend_gemm(chks[i].backends[p->backend], &ck->second[w], ck->why[w], sizeof ck->why[w]);
            ck->gemm_ticks += fpd_ticks() - t0;
        }
    if (2 * count > JOBS_ON_STACK)
        free(s.jobs);
    return FPD_OK;
}

int fpd_check_run_many(struct fpd_checker *const *cks, const struct fpd_check *chks, struct fpd_check_result *res,
                       size_t count)
{
    int rc = FPD_OK;
    for (size_t i = 0; rc == FPD_OK && i < count; i++)
        rc = prepare_check(cks[i], &chks[i], &res[i]);
    if (rc == FPD_OK)
        rc = run_gemms(cks, chks, res, count);
    for (size_t i = 0; rc == FPD_OK && i < count; i++)
        rc = conclude_check(cks[i], &chks[i], &res[i]);
    return rc;
}

static int check_here(struct fpd_checker *ck, const struct fpd_check *chk, struct fpd_check_result *res)
{
    return fpd_check_run_many(&ck, chk, res, 1);
}

int fpd_check_threads(const struct fpd_check *chk)
{
    if (fpd_relation_takes_threads(chk->relation))
        return 0;
    for (int i = 0; i < chk->relation->backends; i++)
        if (chk->backends[i]->impl->features & FPD_FEAT_THREADS)
            return chk->default_threads;
    return 0;
}

struct child_answer {
    int status;
    struct fpd_check_result res;
    char environment[FPD_CHECK_ENVIRONMENT_MAX]; /* "" for none */
};

/* The checker's environment text of the check just run, made here (checker.environment). */
static char *environment_here(const struct fpd_checker *ck, const struct fpd_check *chk)
{
    char *text = ck->environment ? ck->environment(chk) : NULL;
    if (text && strlen(text) >= FPD_CHECK_ENVIRONMENT_MAX) {
        free(text);
        text = NULL;
    }
    return text;
}

struct isolated_check {
    struct fpd_checker *ck;
    const struct fpd_check *chk;
};

static int check_in_child(void *ctx)
{
    struct isolated_check *j = ctx;
    fpd_stdout_to_stderr(); /* the parent reports; a library's own words go to stderr */
    struct child_answer *out = j->ck->shared;
    out->status = check_here(j->ck, j->chk, &out->res);
    char *environment = environment_here(j->ck, j->chk);
    snprintf(out->environment, sizeof out->environment, "%s", environment ? environment : "");
    free(environment);
    return 0;
}

int fpd_check_run(struct fpd_checker *ck, const struct fpd_check *chk, struct fpd_check_result *res)
{
    free(ck->environment_text);
    ck->environment_text = NULL;
    if (!ck->isolate) {
        int rc = check_here(ck, chk, res);
        ck->environment_text = environment_here(ck, chk);
        return rc;
    }
    if (!ck->shared) {
        void *map = mmap(NULL, sizeof(struct child_answer), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (map == MAP_FAILED)
            return FPD_ERR_NOMEM;
        ck->shared = map;
    }
    struct isolated_check job = {ck, chk};
    char why[256];
    struct child_answer *answer = ck->shared;
    answer->environment[0] = '\0';
    if (fpd_run_isolated(check_in_child, &job, ck->isolate_timeout, why, sizeof why) < 0) {
        fpd_check_result_died(chk, why, res);
        return FPD_OK;
    }
    *res = answer->res;
    if (answer->environment[0])
        ck->environment_text = strdup(answer->environment);
    return answer->status;
}

void fpd_check_result_died(const struct fpd_check *chk, const char *why, struct fpd_check_result *res)
{
    *res = (struct fpd_check_result){.verdict = FPD_ERROR, .failed_path = -1};
    fpd_relation_build(chk->relation, &chk->c, &chk->params, &res->paths);
    snprintf(res->error, sizeof res->error, "%s", why);
}

void fpd_checker_free(struct fpd_checker *ck)
{
    if (ck->shared)
        munmap(ck->shared, sizeof(struct child_answer));
    ck->shared = NULL;
    free(ck->environment_text);
    ck->environment_text = NULL;
    fpd_tensors_free(&ck->tensors);
    fpd_callers_free(&ck->callers);
    for (int w = 0; w < 2; w++)
        fpd_release(&ck->second_out[w].buf, &ck->second_out[w].cap);
    struct fpd_staging *all[] = {&ck->operand_a[0], &ck->operand_a[1], &ck->operand_b[0], &ck->operand_b[1],
                                 &ck->bias[0],      &ck->bias[1],      &ck->out[0],       &ck->out[1],
                                 &ck->result[0],    &ck->result[1],    &ck->magnitude,    &ck->abs_bias,
                                 &ck->values_a,     &ck->values_b,     &ck->values_lines, &ck->terms,
                                 &ck->excess,       &ck->flushed};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        fpd_staging_free(all[i]);
    fpd_magnitude_work_free(&ck->abs);
    free(ck->acc);
    ck->acc = NULL;
}
