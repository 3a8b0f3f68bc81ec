/* gen.c — deterministic input generation: distributions, shapes, and a case's inputs materialized
 * by its recipe's generator (each version's values are in gen_vN.c). No libm transcendental is
 * used, so generated values do not depend on the C library's version: only on the recipe, its
 * generator version included. */
#include "gen/gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "common/dtype.h"
#include "common/scratch.h"
#include "common/table.h"
#include "gen/values.h"

const struct fpd_dist_info fpd_dist_table[FPD_DIST_COUNT] = {
    [FPD_DIST_NORMAL] = {"normal", "approximately standard normal (Irwin-Hall sum of 4 uniforms, |x| < 3.47)"},
    [FPD_DIST_UNIFORM] = {"uniform", "uniform in [-1, 1)"},
    [FPD_DIST_INT] = {"int", "integers in [-4, 4]: partial sums exact while |sum| < 2^p of the acc/out types"},
    [FPD_DIST_WIDE] = {"wide", "random sign and significand over many binades (cancellation-heavy)"},
};

int fpd_dist_parse(const char *name, enum fpd_dist *out)
{
    long d = FPD_TABLE_FIND(fpd_dist_table, FPD_DIST_COUNT, name);
    if (d < 0)
        return FPD_ERR_INPUT;
    *out = (enum fpd_dist)d;
    return FPD_OK;
}

/* Where one tensor's values come from: its recipe, and from generator 2 on its two keys, derived
 * once per tensor rather than per element. */
struct tensor_source {
    const struct fpd_recipe *recipe;
    enum fpd_dtype in;
    unsigned stream;
    uint32_t batch;
    uint64_t key, special_key;
};

static struct tensor_source tensor_source(const struct fpd_recipe *r, enum fpd_dtype in, unsigned stream,
                                          uint32_t batch)
{
    struct tensor_source s = {.recipe = r, .in = in, .stream = stream, .batch = batch};
    if (r->generator == 1)
        return s;
    if (r->special_rate <= 0) {
        s.key = fpd_rng_tensor_key(r->seed, r->index, stream, batch);
        return s;
    }
    uint64_t keys[2];
    fpd_rng_tensor_keys2(r->seed, r->index, (const unsigned[]){stream, stream | FPD_STREAM_SPECIAL},
                         (const uint32_t[]){batch, batch}, keys);
    s.key = keys[0], s.special_key = keys[1];
    return s;
}

/* The sources of batch entry `batch` of A and B, their keys side by side (a small check needs
 * three to six, each a dependent chain of about 20 ns alone). */
static void operand_sources(const struct fpd_recipe *r, enum fpd_dtype in, uint32_t batch, struct tensor_source *a,
                            struct tensor_source *b)
{
    *a = (struct tensor_source){.recipe = r, .in = in, .stream = FPD_STREAM_A, .batch = batch};
    *b = (struct tensor_source){.recipe = r, .in = in, .stream = FPD_STREAM_B, .batch = batch};
    if (r->generator == 1)
        return;
    uint64_t keys[2];
    const uint32_t batches[] = {batch, batch};
    fpd_rng_tensor_keys2(r->seed, r->index, (const unsigned[]){FPD_STREAM_A, FPD_STREAM_B}, batches, keys);
    a->key = keys[0], b->key = keys[1];
    if (r->special_rate <= 0)
        return;
    fpd_rng_tensor_keys2(r->seed, r->index,
                         (const unsigned[]){FPD_STREAM_A | FPD_STREAM_SPECIAL, FPD_STREAM_B | FPD_STREAM_SPECIAL},
                         batches, keys);
    a->special_key = keys[0], b->special_key = keys[1];
}

static bool specials_wanted(const struct fpd_recipe *r) { return r->special_rate > 0; }

/* Which generator's definition gives an element its value: generator 3 draws binary64 inputs as
 * generator 2 does, and generator 5 every value but the specials as generator 4. */
static unsigned value_generator(const struct tensor_source *s)
{
    unsigned g = s->recipe->generator;
    return g == 3 && s->in == FPD_F64 ? 2 : g == 5 ? 4 : g;
}

/* Unrounded values of `count` <= RUN elements from logical (row, col) on, along the row (the column
 * index advances) or down the column. */
static void source_values(const struct tensor_source *s, uint32_t row, uint32_t col, bool down, size_t count,
                          double out[RUN_ROOM])
{
    const struct fpd_recipe *r = s->recipe;
    const unsigned generator = value_generator(s);
    if (generator == 1) {
        for (uint32_t l = 0; l < count; l++)
            out[l] = fpd_gen_v1_element(s->recipe, s->in, s->stream, s->batch, row + (down ? l : 0), col + (down ? 0 : l));
        return;
    }
    uint64_t position = fpd_rng_position(row, col), step = down ? fpd_rng_position(1, 0) : 1;
    if (generator == 2)
        fpd_gen_v2_values(r->dist, s->in, s->key, position, step, count, out);
    else if (generator == 3)
        fpd_gen_v3_values(r->dist, s->in, s->key, row, col, down, count, out);
    else
        fpd_gen_v4_values(r->dist, s->in, s->key, row, col, down, count, out);
    if (!specials_wanted(r))
        return;
    for (uint32_t l = 0; l < count; l++) {
        uint64_t draw = fpd_rng_bits64(s->special_key, position + l * step);
        if (is_special(r, (uint32_t)draw))
            out[l] = special_value(r->generator, s->in, (uint32_t)(draw >> 32));
    }
}

/* The elements of source_values stored, each rounded once (RNE), at dst + at, at + stride, ...:
 * binary32 straight from the registers where it can be. */
static void store_source_values(const struct tensor_source *s, uint32_t row, uint32_t col, bool down, size_t count,
                                void *dst, size_t at, size_t stride)
{
    if (s->in == FPD_F32 && stride == 1 && !specials_wanted(s->recipe) && value_generator(s) == 2) {
        fpd_gen_v2_values_f32(s->recipe->dist, s->key, fpd_rng_position(row, col), down ? fpd_rng_position(1, 0) : 1, count,
                      (float *)dst + at);
        return;
    }
    double values[RUN_ROOM];
    source_values(s, row, col, down, count, values);
    fpd_store_run(s->in, dst, at, stride, values, count);
}

double fpd_gen_element(const struct fpd_recipe *r, enum fpd_dtype in, unsigned stream, uint32_t batch,
                       uint32_t row, uint32_t col)
{
    struct tensor_source s = tensor_source(r, in, stream, batch);
    double v[RUN_ROOM];
    source_values(&s, row, col, false, 1, v);
    return fpd_round(in, v[0]);
}

bool fpd_gen_known(unsigned generator) { return generator >= 1 && generator <= FPD_GEN_VERSION; }

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

/* The whole-operand fills (without specials), by generator and input type: the others go run by
 * run through source_values. */
typedef void fill_function(enum fpd_dist, uint64_t key, size_t rows, size_t cols, size_t ld, bool transposed,
                           bool down_columns, void *dst);
static fill_function *const whole_fills[FPD_GEN_VERSION + 1][FPD_DTYPE_COUNT] = {
    [3][FPD_F32] = fpd_gen_v3_fill_f32,
    [4][FPD_F32] = fpd_gen_v4_fill_f32,
    [4][FPD_F64] = fpd_gen_v4_fill_f64,
};

static fill_function *whole_fill(const struct tensor_source *s)
{
    return specials_wanted(s->recipe) ? NULL : whole_fills[value_generator(s)][s->in];
}

/* A stored matrix's generated values (its padding aside). Runs go along the stored rows,
 * contiguous stores, unless going down the columns computes less than half the lanes (a k x 1
 * operand along its rows would compute LANES values per element kept): a strided store costs
 * about what computing a value does. Keys are logical coordinates, so either direction gives
 * every element its one value. */
static void fill_generated(const struct tensor_source *src, void *dst, size_t rows, size_t cols, size_t ld,
                           bool transposed)
{
    bool down_columns = 2 * cols * ((rows + LANES - 1) / LANES) < rows * ((cols + LANES - 1) / LANES);
    fill_function *fill = whole_fill(src);
    if (fill) {
        if (down_columns && ld == 1) /* one unpadded column is one stored row of the other orientation */
            fill(src->recipe->dist, src->key, 1, rows, rows, !transposed, false, dst);
        else
            fill(src->recipe->dist, src->key, rows, cols, ld, transposed, down_columns, dst);
        return;
    }
    if (!down_columns) {
        for (size_t i = 0; i < rows; i++)
            for (size_t at = 0; at < cols; at += RUN)
                store_source_values(src, (uint32_t)(transposed ? at : i), (uint32_t)(transposed ? i : at), transposed,
                                    cols - at < RUN ? cols - at : RUN, dst, i * ld + at, 1);
        return;
    }
    /* band by band, so that runs down the columns keep their band of rows in cache */
    for (size_t at = 0; at < rows; at += RUN)
        for (size_t j = 0; j < cols; j++)
            store_source_values(src, (uint32_t)(transposed ? j : at), (uint32_t)(transposed ? at : j), !transposed,
                                rows - at < RUN ? rows - at : RUN, dst, at * ld + j, ld);
}

/* Each stored row's padding, elements cols..ld, a quiet NaN: one loop per element size, whose
 * stores are then a move each (through fpd_store, each was a choice of type). */
#define PAD_ROWS(T)                                                                                \
    do {                                                                                           \
        T nan_bits;                                                                                \
        memcpy(&nan_bits, nan, sizeof nan_bits);                                                   \
        for (size_t i = 0; i < rows; i++)                                                          \
            for (size_t j = cols; j < ld; j++)                                                     \
                ((T *)dst)[i * ld + j] = nan_bits;                                                 \
    } while (0)

static void fill_padding(enum fpd_dtype in, void *dst, size_t rows, size_t cols, size_t ld)
{
    if (ld == cols)
        return;
    unsigned char nan[8];
    fpd_store(in, nan, 0, NAN);
    switch (fpd_dtype_info(in)->size) {
    case 8: PAD_ROWS(uint64_t); break;
    case 4: PAD_ROWS(uint32_t); break;
    default: PAD_ROWS(uint16_t);
    }
}
#undef PAD_ROWS

/* Fill a stored matrix: logical element (r, c) of op(X) lives at storage (c, r) when transposed.
 * Values come from `given` (explicit data, `given_cols` per logical row) or from the generator. */
static void fill_matrix(const struct fpd_case *c, const struct tensor_source *src, const char *given,
                        size_t given_cols, void *dst, size_t rows, size_t cols, size_t ld, bool transposed)
{
    enum fpd_dtype in = c->dt.in;
    size_t es = fpd_dtype_info(in)->size;
    if (given && !transposed) { /* a stored row is a logical row: one copy each */
        for (size_t i = 0; i < rows; i++)
            memcpy((char *)dst + i * ld * es, given + i * given_cols * es, cols * es);
    } else if (given) {
        for (size_t i = 0; i < rows; i++)
            for (size_t j = 0; j < cols; j++)
                fpd_store_bits(in, dst, i * ld + j, fpd_bits(in, given, j * given_cols + i));
    } else {
        fill_generated(src, dst, rows, cols, ld, transposed);
    }
    fill_padding(in, dst, rows, cols, ld); /* after the values: a stored row's spill may cover it */
}

int fpd_gen_materialize(const struct fpd_case *c, struct fpd_tensors *t)
{
    struct fpd_layout l = fpd_case_layout(c);
    const struct fpd_case_data *d = c->data;
    size_t in_size = fpd_dtype_info(c->dt.in)->size, out_size = fpd_dtype_info(c->dt.out)->size;
    if (fpd_grow(&t->a, &t->cap_a, c->batch * l.stride_a * in_size + SPILL_ROOM) != FPD_OK ||
        fpd_grow(&t->b, &t->cap_b, c->batch * l.stride_b * in_size + SPILL_ROOM) != FPD_OK ||
        fpd_grow(&t->bias, &t->cap_bias, (size_t)c->n * out_size + SPILL_ROOM) != FPD_OK)
        return FPD_ERR_NOMEM;
    for (uint32_t b = 0; b < c->batch; b++) {
        struct tensor_source src_a, src_b;
        operand_sources(&c->recipe, c->dt.in, b, &src_a, &src_b);
        /* Keys are logical coordinates, so a transposed layout holds the very same values. */
        const char *given_a = d ? (const char *)d->a + (size_t)b * d->m * d->k * in_size : NULL;
        const char *given_b = d ? (const char *)d->b + (size_t)b * d->k * d->n * in_size : NULL;
        fill_matrix(c, &src_a, given_a, d ? d->k : 0, (char *)t->a + b * l.stride_a * in_size, l.a_rows, l.a_cols,
                    l.lda, c->trans_a);
        fill_matrix(c, &src_b, given_b, d ? d->n : 0, (char *)t->b + b * l.stride_b * in_size, l.b_rows, l.b_cols,
                    l.ldb, c->trans_b);
    }
    if (!c->has_bias) /* nothing reads it */
        return FPD_OK;
    if (d) {
        memcpy(t->bias, d->bias, (size_t)c->n * out_size);
        return FPD_OK;
    }
    struct tensor_source bias = tensor_source(&c->recipe, c->dt.in, FPD_STREAM_BIAS, 0);
    if (c->dt.in == c->dt.out) { /* a stored row of n (SPILL_ROOM after it) */
        fill_generated(&bias, t->bias, 1, c->n, c->n, false);
        return FPD_OK;
    }
    double values[RUN_ROOM];
    for (uint32_t j = 0; j < c->n; j += RUN) {
        uint32_t count = c->n - j < RUN ? c->n - j : RUN;
        source_values(&bias, 0, j, false, count, values);
        for (uint32_t l = 0; l < count; l++) /* dt.in values, stored in dt.out */
            fpd_store(c->dt.out, t->bias, j + l, fpd_round(c->dt.in, values[l]));
    }
    return FPD_OK;
}

void fpd_tensors_free(struct fpd_tensors *t)
{
    fpd_release(&t->a, &t->cap_a);
    fpd_release(&t->b, &t->cap_b);
    fpd_release(&t->bias, &t->cap_bias);
    *t = (struct fpd_tensors){0};
}

/* The inputs in logical, packed form: the case without layout or padding, materialized. */
static int materialize_logical(const struct fpd_case *c, struct fpd_tensors *t)
{
    struct fpd_case logical = *c;
    logical.trans_a = logical.trans_b = false;
    logical.pad = 0;
    logical.has_bias = true; /* the case's data hold a bias whether or not its product adds it */
    return fpd_gen_materialize(&logical, t);
}

int fpd_case_data_capture(const struct fpd_case *c, struct fpd_case_data *out)
{
    /* the user's arrays stay theirs, cut down or not; sidecars are another case file's */
    bool users = c->data && c->data->origin == FPD_DATA_INPUTS;
    *out = (struct fpd_case_data){.batch = c->batch, .m = c->m, .n = c->n, .k = c->k,
                                  .origin = users ? FPD_DATA_INPUTS : FPD_DATA_INLINE};
    struct fpd_tensors t = {0};
    if (materialize_logical(c, &t) != FPD_OK) {
        fpd_tensors_free(&t);
        return FPD_ERR_NOMEM;
    }
    /* ownership moves to out */
    out->a = t.a, out->b = t.b, out->bias = t.bias;
    out->cap_a = t.cap_a, out->cap_b = t.cap_b, out->cap_bias = t.cap_bias;
    return FPD_OK;
}

int fpd_case_data_hash(const struct fpd_case *c, uint64_t *hash)
{
    struct fpd_tensors t = {0};
    int rc = materialize_logical(c, &t);
    if (rc == FPD_OK) {
        size_t in = fpd_dtype_info(c->dt.in)->size, out = fpd_dtype_info(c->dt.out)->size;
        XXH3_state_t *st = XXH3_createState();
        if (!st) {
            rc = FPD_ERR_NOMEM;
        } else {
            XXH3_64bits_reset(st);
            XXH3_64bits_update(st, t.a, (size_t)c->batch * c->m * c->k * in);
            XXH3_64bits_update(st, t.b, (size_t)c->batch * c->k * c->n * in);
            XXH3_64bits_update(st, t.bias, (size_t)c->n * out);
            *hash = XXH3_64bits_digest(st);
            XXH3_freeState(st);
        }
    }
    fpd_tensors_free(&t);
    return rc;
}
