/* callers.c — path B among concurrent callers: probes, mirrors and load set up, run at once, compared. */
#include "engine/callers.h"

#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/dtype.h"
#include "common/scratch.h"
#include "gen/rng.h"

const char *const fpd_caller_kind_words[FPD_CALLER_FEWER_ROWS + 1] = {
    [FPD_CALLER_PROBE] = "the same GEMM",
    [FPD_CALLER_MIRROR] = "the same GEMM of -A",
    [FPD_CALLER_TRANSPOSED] = "-A times B, stored the other way",
    [FPD_CALLER_OTHER_TYPE] = "-A times B in the other BLAS type",
    [FPD_CALLER_FEWER_ROWS] = "-A times B on the first half of the rows",
};

/* Written where a load caller's C of another type starts: what it leaves outside its block is checked. */
#define FILL_BYTE 0xA5

static size_t esize(enum fpd_dtype t) { return fpd_dtype_info(t)->size; }

static bool blas_type(const struct fpd_dtypes *dt)
{
    return dt->in == dt->out && dt->out == dt->acc && (dt->in == FPD_F32 || dt->in == FPD_F64);
}

/* Caller 0 is path B, caller 1 its mirror; the others' kinds are drawn. */
static enum fpd_caller_kind caller_kind(uint64_t key, unsigned i, const struct fpd_gemm_args *g)
{
    if (i < 2)
        return i == 0 ? FPD_CALLER_PROBE : FPD_CALLER_MIRROR;
    enum fpd_caller_kind kind = (enum fpd_caller_kind)(fpd_rng_mix64(key + i * FPD_RNG_GAMMA) % (FPD_CALLER_FEWER_ROWS + 1));
    if ((kind == FPD_CALLER_OTHER_TYPE && !blas_type(&g->dt)) || (kind == FPD_CALLER_FEWER_ROWS && g->m < 2))
        kind = FPD_CALLER_TRANSPOSED;
    return kind;
}

static bool compared(enum fpd_caller_kind kind) { return kind == FPD_CALLER_PROBE || kind == FPD_CALLER_MIRROR; }

/* Every element's sign flipped: exact in every type, so a mirror's product is path B's negated,
 * and yet nothing a probe reads from a mirror's operands can pass for its own. */
static void negate(void *x, size_t count, enum fpd_dtype t)
{
    size_t es = esize(t);
    unsigned char *p = x;
    for (size_t i = 0; i < count; i++)
        p[i * es + es - 1] ^= 0x80; /* little-endian: the sign is the last byte's top bit */
}

/* One operand's batch entries (rows x cols each, leading dimension ld, `stride` apart) into packed
 * storage, transposed or converted to type `to`, and negated where asked. Returns the copy, or
 * NULL out of memory. */
static const void *copy_operand(struct fpd_staging *s, const void *src, enum fpd_dtype from, size_t batch,
                                size_t stride, size_t rows, size_t cols, size_t ld, bool transpose, enum fpd_dtype to,
                                bool negated)
{
    size_t es = esize(from), out_es = esize(to);
    if (fpd_grow(&s->buf, &s->cap, (batch ? batch : 1) * rows * cols * out_es) != FPD_OK)
        return NULL;
    for (size_t b = 0; b < batch; b++) {
        const unsigned char *x = (const unsigned char *)src + b * stride * es;
        unsigned char *y = (unsigned char *)s->buf + b * rows * cols * out_es;
        if (!transpose) {
            fpd_convert_matrix(rows, cols, from, x, ld, to, y, cols);
            continue;
        }
        for (size_t i = 0; i < rows; i++)
            for (size_t j = 0; j < cols; j++)
                memcpy(y + (j * rows + i) * es, x + (i * ld + j) * es, es);
    }
    if (negated)
        negate(s->buf, batch * rows * cols, to);
    return s->buf;
}

/* A copy of `count` elements negated, stored as they were (padding and all). */
static const void *negated_copy(struct fpd_staging *s, const void *src, size_t count, enum fpd_dtype t)
{
    if (fpd_grow(&s->buf, &s->cap, count * esize(t)) != FPD_OK)
        return NULL;
    memcpy(s->buf, src, count * esize(t));
    negate(s->buf, count, t);
    return s->buf;
}

/* A mirror's operands: -A and -bias where path B has A and bias, B itself. */
static int mirror_operands(struct fpd_callers *cs, unsigned i, const struct fpd_gemm_args *g)
{
    struct fpd_gemm_args *c = &cs->args[i];
    c->a = negated_copy(&cs->a[i], g->a,
                        fpd_operand_span(g->batch, g->stride_a, g->trans_a ? g->k : g->m, g->lda,
                                         g->trans_a ? g->m : g->k),
                        g->dt.in);
    if (g->bias)
        c->bias = negated_copy(&cs->bias[i], g->bias, g->n, g->dt.out);
    return c->a && (!g->bias || c->bias) ? FPD_OK : FPD_ERR_NOMEM;
}

/* A load caller's operands, from the path's (op(A) m x k, op(B) k x n): -A, and B, stored as its
 * kind says; its A has c->m rows. No bias: C is written over (beta = 0). */
static int load_operands(struct fpd_callers *cs, unsigned i, const struct fpd_gemm_args *g)
{
    struct fpd_gemm_args *c = &cs->args[i];
    bool transpose = cs->kind[i] == FPD_CALLER_TRANSPOSED, converted = cs->kind[i] == FPD_CALLER_OTHER_TYPE;
    enum fpd_dtype to = converted ? (g->dt.in == FPD_F64 ? FPD_F32 : FPD_F64) : g->dt.in;
    if (cs->kind[i] == FPD_CALLER_FEWER_ROWS)
        c->m = (g->m + 1) / 2;
    c->bias = NULL;
    size_t a_rows = g->trans_a ? g->k : c->m, a_cols = g->trans_a ? c->m : g->k;
    size_t b_rows = g->trans_b ? g->n : g->k, b_cols = g->trans_b ? g->k : g->n;
    c->a = copy_operand(&cs->a[i], g->a, g->dt.in, g->batch, g->stride_a, a_rows, a_cols, g->lda, transpose, to, true);
    if (transpose || converted)
        c->b = copy_operand(&cs->b[i], g->b, g->dt.in, g->batch, g->stride_b, b_rows, b_cols, g->ldb, transpose, to,
                            false);
    if (!c->a || !c->b)
        return FPD_ERR_NOMEM;
    c->trans_a = g->trans_a ^ transpose, c->lda = fpd_leading_dimension(transpose ? a_rows : a_cols, 0), c->stride_a = a_rows * a_cols;
    if (transpose || converted) {
        c->trans_b = g->trans_b ^ transpose, c->ldb = fpd_leading_dimension(transpose ? b_rows : b_cols, 0), c->stride_b = b_rows * b_cols;
        c->dt = (struct fpd_dtypes){to, converted ? to : g->dt.out, converted ? to : g->dt.acc};
    }
    return FPD_OK;
}

int fpd_callers_prepare(struct fpd_callers *cs, unsigned count, const struct fpd_gemm_args *path_b, size_t c_bytes,
                        uint64_t key)
{
    cs->count = count > FPD_MAX_CALLERS ? FPD_MAX_CALLERS : count;
    for (unsigned i = 0; i < cs->count; i++) {
        struct fpd_gemm_args *c = &cs->args[i];
        *c = *path_b;
        cs->kind[i] = caller_kind(key, i, path_b);
        int rc = cs->kind[i] == FPD_CALLER_PROBE  ? FPD_OK
                 : cs->kind[i] == FPD_CALLER_MIRROR ? mirror_operands(cs, i, path_b)
                                                    : load_operands(cs, i, path_b);
        if (rc != FPD_OK)
            return rc;
        /* C: path B's as it was prepared (its poison, padding and guard), or, in another type,
         * packed and filled; kept as handed over, to find writes outside the block */
        bool other_type = cs->kind[i] == FPD_CALLER_OTHER_TYPE;
        cs->c_bytes[i] = other_type ? (path_b->batch * path_b->m + 1) * path_b->n * esize(c->dt.out) : c_bytes;
        if (fpd_grow(&cs->pristine[i].buf, &cs->pristine[i].cap, cs->c_bytes[i]) != FPD_OK ||
            (i > 0 && fpd_grow(&cs->c[i].buf, &cs->c[i].cap, cs->c_bytes[i]) != FPD_OK))
            return FPD_ERR_NOMEM;
        if (other_type) {
            memset(cs->pristine[i].buf, FILL_BYTE, cs->c_bytes[i]);
            c->ldc = path_b->n, c->stride_c = path_b->m * path_b->n;
        } else {
            memcpy(cs->pristine[i].buf, path_b->c, c_bytes);
        }
        if (i > 0) {
            memcpy(cs->c[i].buf, cs->pristine[i].buf, cs->c_bytes[i]);
            c->c = cs->c[i].buf;
        }
    }
    return FPD_OK;
}

/* Whether every byte of C outside the GEMM's m x n blocks is as it was handed over. */
static bool outside_intact(const struct fpd_gemm_args *g, const unsigned char *c, const unsigned char *pristine,
                           size_t bytes)
{
    size_t es = esize(g->dt.out), at = 0;
    for (size_t b = 0; b < g->batch; b++)
        for (size_t r = 0; r < g->m; r++) {
            size_t start = (b * g->stride_c + r * g->ldc) * es;
            if (start > at && memcmp(c + at, pristine + at, start - at) != 0)
                return false;
            at = start + g->n * es;
        }
    return at >= bytes || memcmp(c + at, pristine + at, bytes - at) == 0;
}

/* Whether bits x and y (type t) differ as results: two NaNs do not (their payloads and signs are
 * no rounding's), nor two zeros (an exact cancellation is +0 in either sign of the inputs, so a
 * mirror's negated is -0 where path B's is +0). */
static bool results_differ(enum fpd_dtype t, uint64_t x, uint64_t y)
{
    uint64_t magnitude = ((uint64_t)1 << (fpd_bits_width(t) - 1)) - 1;
    return x != y && !(fpd_classify_bits(t, x) == FPD_CLASS_NAN && fpd_classify_bits(t, y) == FPD_CLASS_NAN) &&
           !((x & magnitude) == 0 && (y & magnitude) == 0);
}

/* Elements of a probe's C (a mirror's, negated) that differ from path A's (results_differ). */
static size_t differing_elements(const struct fpd_gemm_args *g, bool mirror, const struct fpd_gemm_args *alone)
{
    enum fpd_dtype t = g->dt.out;
    uint64_t sign = (uint64_t)1 << (fpd_bits_width(t) - 1), flip = mirror ? sign : 0;
    size_t count = 0;
    for (size_t b = 0; b < g->batch; b++)
        for (size_t r = 0; r < g->m; r++) {
            size_t x0 = b * g->stride_c + r * g->ldc, y0 = b * alone->stride_c + r * alone->ldc;
            for (size_t j = 0; j < g->n; j++) {
                uint64_t x = fpd_bits(t, g->c, x0 + j) ^ flip, y = fpd_bits(t, alone->c, y0 + j);
                count += results_differ(t, x, y);
            }
        }
    return count;
}

/* Path B's C becomes caller i's: its m x n blocks, negated for a mirror, whose zeros and NaNs that
 * do not differ from path A's (results_differ) are taken as path A's. */
static void stand_for_path_b(struct fpd_callers *cs, unsigned i, const struct fpd_gemm_args *alone)
{
    const struct fpd_gemm_args *g = &cs->args[i];
    enum fpd_dtype t = g->dt.out;
    uint64_t sign = (uint64_t)1 << (fpd_bits_width(t) - 1);
    memcpy(cs->args[0].c, g->c, cs->c_bytes[0]);
    if (cs->kind[i] != FPD_CALLER_MIRROR)
        return;
    for (size_t b = 0; b < g->batch; b++)
        for (size_t r = 0; r < g->m; r++)
            for (size_t j = 0; j < g->n; j++) {
                size_t at = b * g->stride_c + r * g->ldc + j, there = b * alone->stride_c + r * alone->ldc + j;
                uint64_t x = fpd_bits(t, g->c, at) ^ sign, y = fpd_bits(t, alone->c, there);
                fpd_store_bits(t, cs->args[0].c, at, results_differ(t, x, y) ? x : y);
            }
}

/* One round: the callers at once, from C as handed over. FPD_OK, or the first failure with why. */
static int run_round(struct fpd_callers *cs, const struct fpd_backend_slot *slot, char *why, size_t why_size)
{
    enum { WHY = 256 };
    const struct fpd_gemm_args *each[FPD_MAX_CALLERS];
    int status[FPD_MAX_CALLERS];
    char whys[FPD_MAX_CALLERS][WHY];
    for (unsigned i = 0; i < cs->count; i++) {
        memcpy(cs->args[i].c, cs->pristine[i].buf, cs->c_bytes[i]);
        each[i] = &cs->args[i];
    }
    fpd_backend_gemm_concurrent(slot, cs->count, each, status, whys[0], WHY);
    for (unsigned i = 0; i < cs->count; i++) {
        if (status[i] == FPD_OK && !outside_intact(&cs->args[i], cs->args[i].c, cs->pristine[i].buf, cs->c_bytes[i])) {
            snprintf(whys[i], WHY, "%s wrote outside the m x n block of C (into its row padding or past its end)",
                     slot->impl->name);
            status[i] = FPD_ERR_BACKEND;
        }
        if (status[i] == FPD_OK)
            continue;
        if (i == 0)
            snprintf(why, why_size, "%s", whys[0]);
        else
            snprintf(why, why_size, "caller %u of %u at once (%s): %s", i, cs->count, fpd_caller_kind_words[cs->kind[i]],
                     whys[i]);
        return status[i] == FPD_ERR_NOT_APPLICABLE || status[i] == FPD_ERR_NOMEM ? status[i] : FPD_ERR_BACKEND;
    }
    return FPD_OK;
}

int fpd_callers_run(struct fpd_callers *cs, const struct fpd_backend_slot *slot, const struct fpd_gemm_args *alone,
                    bool alone_ok, struct fpd_concurrency *out, char *why, size_t why_size)
{
    /* A race shows only where calls overlap, which the scheduler decides: small GEMMs get more
     * rounds, until a probe differs, FPD_CALLER_ROUNDS have run, or they took FPD_CALLER_SECONDS. */
    double deadline = fpd_now() + FPD_CALLER_SECONDS;
    for (unsigned round = 0;; round++) {
        int rc = run_round(cs, slot, why, why_size);
        if (rc != FPD_OK)
            return rc;
        *out = (struct fpd_concurrency){.callers = (uint8_t)cs->count, .rounds = (uint8_t)(round + 1)};
        size_t most = 0;
        for (unsigned i = 0; i < cs->count; i++) {
            if (!compared(cs->kind[i]))
                continue;
            out->probes++;
            size_t differ = alone_ok ? differing_elements(&cs->args[i], cs->kind[i] == FPD_CALLER_MIRROR, alone) : 0;
            out->differing += differ > 0;
            if (differ > most)
                most = differ, out->shown = (uint8_t)i;
        }
        if (out->differing || round + 1 == FPD_CALLER_ROUNDS || fpd_now() > deadline)
            break;
    }
    out->shown_mirror = cs->kind[out->shown] == FPD_CALLER_MIRROR;
    if (out->shown > 0)
        stand_for_path_b(cs, out->shown, alone);
    return FPD_OK;
}

void fpd_callers_free(struct fpd_callers *cs)
{
    for (unsigned i = 0; i < FPD_MAX_CALLERS; i++) {
        fpd_release(&cs->a[i].buf, &cs->a[i].cap);
        fpd_release(&cs->b[i].buf, &cs->b[i].cap);
        fpd_release(&cs->bias[i].buf, &cs->bias[i].cap);
        fpd_release(&cs->c[i].buf, &cs->c[i].cap);
        fpd_release(&cs->pristine[i].buf, &cs->pristine[i].cap);
    }
}
