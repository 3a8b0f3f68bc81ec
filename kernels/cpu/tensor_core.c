/*
 * tensor_core.c — a tensor core's block fused multiply-add (tensor_core.h), in integers.
 *
 * The scalar block takes every value apart, from its bits, into a sign, an exponent and an integer
 * significand; a product is a product of significands, its alignment a shift, a block's sum an
 * integer sum, and its one rounding is built back from bits. No libm call per product: the first
 * model (frexp and ldexp per product, kept in tests/unit/tc_reference.c) spent 80% of its time in
 * them. The GEMM takes every operand apart once, not once per product it enters, and computes a
 * block for TILE output elements at a time, in vectors, from products scaled by powers of two (its
 * own section below); the results are the scalar block's, bit for bit (test_tensor_core.c).
 */
#include "cpu/tensor_core.h"

#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/clones.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* 2^e as a double, from its bits (-1022 <= e <= 1023): common/dtype.h's fpd_pow2, which a kernel
 * may not include (kernels are arithmetic alone). */
static inline double pow2(int e)
{
    uint64_t bits = (uint64_t)(e + 1023) << 52;
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* A finite non-zero value taken apart as the model reads it: e = floor(log2|x|), at least emin,
 * and sig = |x|·2^(23 - e) truncated to an integer (the model's significand with 23 fraction
 * bits: exact for every value the model is given). */
struct parts {
    uint64_t sig;
    int e;
    bool negative;
};

/* From a double's bits: its significand (53 bits with the leading one) is full·2^(at - 52). */
static inline struct parts parts_of_double(double x, int emin)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int biased = (int)(bits >> 52 & 0x7ff);
    uint64_t full = bits & ((UINT64_C(1) << 52) - 1);
    int at = biased ? biased - 1023 : -1022, lead = at;
    if (biased)
        full |= UINT64_C(1) << 52;
    else
        lead = at - (52 - (63 - __builtin_clzll(full))); /* a subnormal's leading bit */
    int e = lead > emin ? lead : emin;
    /* sig = full·2^(at - 52 + 23 - e), truncated: a right shift of 29 bits at least (e >= lead = at
     * for a normal double; far more for a subnormal one, whose sig is 0) */
    int shift = 52 - 23 + e - at;
    return (struct parts){shift < 64 ? full >> shift : 0, e, (bits >> 63) != 0};
}

/* A float's significand as it is stored, full·2^(at - 23) (full with its leading one, where it has
 * one: 24 bits at most), and the model's exponent for it, e = floor(log2|x|) at least emin. */
struct float_parts {
    uint64_t full;
    int at, e;
    bool negative;
};

static inline struct float_parts float_parts_of(float x, int emin)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    int biased = (int)(bits >> 23 & 0xff);
    uint32_t full = bits & 0x7fffff;
    int at = biased ? biased - 127 : -126;
    int lead = biased ? at : at - (23 - (31 - __builtin_clz(full))); /* a subnormal's leading bit */
    return (struct float_parts){biased ? full | 0x800000 : full, at, lead > emin ? lead : emin, (bits >> 31) != 0};
}

/* n·2^scale (n < 2^63, not 0) rounded to the accumulator's format, `negative` its sign. Inlined
 * (here and below): the GEMM's vector copies call it (clones.h). */
static inline __attribute__((always_inline)) double round_to_accumulator(const struct fpd_tc_arith *t, uint64_t n,
                                                                         int scale, bool negative)
{
    int lead = 63 - __builtin_clzll(n) + scale; /* the exponent of n's leading bit */
    int quantum = (lead > t->acc_emin ? lead : t->acc_emin) - (t->acc_precision - 1);
    uint64_t kept = n;
    if (quantum > scale) {
        int shift = quantum - scale;
        kept = shift < 63 ? n >> shift : 0;
        uint64_t rest = shift < 63 ? n - (kept << shift) : n, half = shift < 64 ? UINT64_C(1) << (shift - 1) : 0;
        if (!t->toward_zero && shift < 64 && (rest > half || (rest == half && (kept & 1))))
            kept++;
    } else {
        quantum = scale;
    }
    /* kept < 2^53 (at most the precision's bits and a carry, or n itself below the grid), and
     * 2^quantum a normal double: the product is exact */
    double d = (double)kept * pow2(quantum);
    if (d >= pow2(t->acc_emax + 1))
        d = INFINITY;
    return negative ? -d : d;
}

/* The block's sum of the aligned terms (an exact integer, in units of 2^(emax - 23 - extra_bits))
 * rounded, or 0. */
static inline __attribute__((always_inline)) double block_result(const struct fpd_tc_arith *t, int64_t sum, int emax)
{
    if (sum == 0)
        return 0;
    return round_to_accumulator(t, (uint64_t)(sum < 0 ? -sum : sum), emax - 23 - t->extra_bits, sum < 0);
}

double fpd_tc_block(const struct fpd_tc_arith *t, const float *a, ptrdiff_t as, const float *b, ptrdiff_t bs,
                    size_t count, double c)
{
    uint64_t sig[FPD_TC_BLOCK_MAX + 1];
    int exp[FPD_TC_BLOCK_MAX + 1];
    bool negative[FPD_TC_BLOCK_MAX + 1];
    size_t terms = 0;
    int emax = t->min_exp;
    for (size_t i = 0; i < count && i < FPD_TC_BLOCK_MAX; i++) { /* count is at most block */
        float x = a[(ptrdiff_t)i * as], y = b[(ptrdiff_t)i * bs];
        if (fpclassify(x) == FP_ZERO || fpclassify(y) == FP_ZERO)
            continue; /* zero products are dropped */
        struct float_parts px = float_parts_of(x, t->in_emin), py = float_parts_of(y, t->in_emin);
        int e = px.e + py.e;
        /* the product's significand, |x·y|·2^(23 - e), truncated: the exact product of the stored
         * significands (48 bits) is |x·y|·2^(46 - at_x - at_y), and e >= at_x + at_y */
        int shift = 23 + e - px.at - py.at;
        sig[terms] = shift < 64 ? (px.full * py.full) >> shift : 0;
        exp[terms] = e;
        negative[terms++] = px.negative != py.negative;
        emax = e > emax ? e : emax;
    }
    if (fpclassify(c) != FP_ZERO) { /* c as an fp32 value: exponent at least fp32's emin */
        struct parts pc = parts_of_double(c, -126);
        sig[terms] = pc.sig;
        exp[terms] = pc.e;
        negative[terms++] = pc.negative;
        emax = pc.e > emax ? pc.e : emax;
    }
    int64_t sum = 0;
    for (size_t i = 0; i < terms; i++) {
        int shift = emax - exp[i]; /* truncated toward zero to 2^(emax - 23 - extra_bits) */
        uint64_t aligned = shift < 40 ? (sig[i] << t->extra_bits) >> shift : 0;
        sum += negative[i] ? -(int64_t)aligned : (int64_t)aligned;
    }
    return block_result(t, sum, emax);
}

/* NaN and Inf over the whole dot product, decided first (tensor_core.h); false where every term
 * and the bias are finite. */
static bool nonfinite_dot(const float *a, ptrdiff_t as, const float *b, ptrdiff_t bs, size_t k, double bias,
                          double *result)
{
    bool nan = isnan(bias), plus = isinf(bias) && bias > 0, minus = isinf(bias) && bias < 0;
    for (size_t p = 0; p < k; p++) {
        double x = (double)a[(ptrdiff_t)p * as] * b[(ptrdiff_t)p * bs];
        nan |= isnan(x);
        plus |= isinf(x) && x > 0;
        minus |= isinf(x) && x < 0;
    }
    *result = nan || (plus && minus) ? NAN : plus ? INFINITY : -INFINITY;
    return nan || plus || minus;
}

double fpd_tc_dot(const struct fpd_tc_arith *t, const float *a, ptrdiff_t as, const float *b, ptrdiff_t bs, size_t k,
                  double bias)
{
    double special;
    if (nonfinite_dot(a, as, b, bs, k, bias, &special))
        return special;
    double c = bias;
    for (size_t p = 0; p < k && isfinite(c); p += t->block) {
        size_t count = k - p < t->block ? k - p : t->block;
        c = fpd_tc_block(t, a + (ptrdiff_t)p * as, as, b + (ptrdiff_t)p * bs, bs, count, c);
    }
    return c; /* an Inf from a block that overflowed stays: finite terms cannot bring it back */
}

/* ---- the GEMM ------------------------------------------------------------------------------------ */

/*
 * The GEMM's fast form computes a term from the values themselves. A product's term is its
 * significand shifted to 23 + extra_bits fraction bits at the block's emax and truncated toward
 * zero; for inputs a and b of at most 12 significand bits that is trunc(a·b·2^(23 + extra_bits -
 * emax)): a·b is exact in a double, the power of two scales it exactly (a term below the normal
 * range is below 1, and truncates to 0 however it rounds), and the conversion to an integer
 * truncates toward zero, as the model truncates a magnitude. Only emax needs the exponents.
 * Where every exponent of both operands is within ±NARROW_EXP, the same holds in floats (a
 * product of two 12-bit significands is exact in one), twice as many at a time: the narrow
 * form. Wider inputs (fp32's, which a path that casts its inputs up gives the model) make
 * products of up to 48 bits, which the model first truncates to 23 fraction bits at their own
 * exponent e: trunc(a·b·2^(23 - e)), then aligned as above, from e.
 *
 * Operands are taken apart into tiles of TILE output elements. A block is computed on lanes, GCC
 * vectors of 16 or 8 values (tensor_core_lanes.h), so that its emax and sum stay in registers
 * across its products (arrays of lanes went through memory at every product).
 */
enum { TILE = 16, NARROW_EXP = 48 };

/* The helpers on lanes below are inlined into every caller, so that no vector passes through a
 * call (gcc's note on such calls' ABI does not apply: -Wno-psabi, Makefile). */
#define TILE_INLINE static inline __attribute__((always_inline))

/* How the block's terms are computed (above). */
enum term_form { NARROW, DOUBLE, WIDE };

/* A line of the GEMM, as lines_against_tile reads it: its parts, and its lanes' first c. */
struct tile_line {
    const int32_t *e;
    const float *v;
    const float *c0;
};

/* Lines computed against a tile together, at most. */
enum { GROUP = 3 };

/* The blocks on lanes, once per vector width: 16 lanes in arithmetic (the baseline copy); where
 * the lanes are one register of the CPU's, its own maxima and minima (tensor_core_lanes.h), which
 * only code compiled for that width may inline: 16 lanes for AVX-512, 8 for AVX2. */
#define LANES 16
#define LANE_NAME(x) x##_16
#include "cpu/tensor_core_lanes.h"
#if defined(__x86_64__)
/* gcc's pragmas: clang has none such (its build, the parser fuzzers', keeps the arithmetic) */
#if defined(__GNUC__) && !defined(__clang__)
#define FPD_GCC 1
#else
#define FPD_GCC 0
#endif
#if FPD_GCC
#pragma GCC push_options
#pragma GCC target("avx512f")
#endif
#define LANES 16
#define LANE_NAME(x) x##_512
#include "cpu/tensor_core_lanes.h"
#if FPD_GCC
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
#define LANES 8
#define LANE_NAME(x) x##_8
#include "cpu/tensor_core_lanes.h"
#if FPD_GCC
#pragma GCC pop_options
#endif
#undef FPD_GCC
#endif

/*
 * A group of lines (1 to GROUP) against a tile of TILE lanes, every block: out[i] gets line i's
 * results. The chain from one block's c to the next is the form's latency: lines' chains,
 * independent, overlap (two lines against one: 1.4-1.6x; three against two: a few percent more),
 * and share the tile's loads. A group's missing lines start from the first's c, and nobody reads
 * what they would compute. One copy per vector width, chosen on every call, as clones.h's are: the
 * AVX-512 copy takes the tile as one register of 16 lanes, the AVX2 copy as two halves of 8 (16
 * lanes there were two registers, and ran at half the speed).
 */
#define LINES_AGAINST_TILE_PARAMS                                                                        \
    (const struct fpd_tc_arith *restrict t, enum term_form form, const struct tile_line *line, size_t lines, \
     const int32_t *restrict tile_e, const float *restrict tile_v, size_t row, size_t k, float (*restrict out)[TILE])

static void lines_against_tile_baseline LINES_AGAINST_TILE_PARAMS
{
    group_against_lanes_16(t, form, line, lines, tile_e, tile_v, row, k, 0, out);
}

#if defined(__x86_64__)
FPD_TARGET_AVX512 static void lines_against_tile_avx512 LINES_AGAINST_TILE_PARAMS
{
    group_against_lanes_512(t, form, line, lines, tile_e, tile_v, row, k, 0, out);
}

FPD_TARGET_AVX2 static void lines_against_tile_avx2 LINES_AGAINST_TILE_PARAMS
{
    group_against_lanes_8(t, form, line, lines, tile_e, tile_v, row, k, 0, out);
    if (row > 8)
        group_against_lanes_8(t, form, line, lines, tile_e, tile_v, row, k, 8, out);
}
#endif

FPD_VECTOR_WIDTH_DISPATCH(void, lines_against_tile, LINES_AGAINST_TILE_PARAMS,
                          (t, form, line, lines, tile_e, tile_v, row, k, out))
#undef LINES_AGAINST_TILE_PARAMS

/* Whether the fast form holds the model: a product is exact in a double, a block's terms sum below
 * 2^31, and c's term is below 2^31. */
static bool fast_form_fits(const struct fpd_tc_arith *t)
{
    int f = t->in_fraction_bits;
    return f >= 1 && f <= 23 && t->extra_bits >= 0 && t->extra_bits <= 4 &&
           ((uint64_t)t->block << (25 + t->extra_bits)) <= (UINT64_C(1) << 31);
}

/* An operand taken apart for the GEMM: per element its exponent as the model reads it (ZERO_EXP
 * for a zero, so that a zero product never sets a block's emax) and its value (0 for a zero). A
 * row (of A) or column (of B) with a value that is not finite, or not of the input format, is
 * computed by the scalar block instead: `scalar` per row or column. e_low and e_high: the
 * smallest and largest exponent of a value that is not zero. */
#define ZERO_EXP (-(1 << 24))
struct operand_parts {
    int32_t *e;
    float *v;
    bool *scalar;
    int32_t e_low, e_high;
};

/* Takes value x (a float's bits) apart with f fraction bits: *e its exponent, *value x; returns 1
 * where it is refused (not finite, or not a value of the format: it has more fraction bits), 0
 * else. A zero, and a refused value, get ZERO_EXP and 0.
 * Branch-free, for the loop of split_run to vectorize; a subnormal's leading bit from the exponent
 * of its fraction converted to a float (exact: below 2^23), as a count of leading zeros does not
 * vectorize without AVX-512. */
static inline __attribute__((always_inline)) int32_t split_bits(uint32_t bits, int emin, int f, int32_t *e,
                                                                 float *value)
{
    uint32_t magnitude = bits & 0x7fffffffu, frac = magnitude & 0x7fffffu;
    int32_t biased = (int32_t)(magnitude >> 23), at = (biased > 1 ? biased : 1) - 127;
    int32_t normal = -(int32_t)(biased != 0); /* masks, not branches: gcc 12 threads a loop's branches into a
                                                 shape it cannot vectorize */
    float frac_value = (float)(int32_t)frac;
    uint32_t frac_bits;
    memcpy(&frac_bits, &frac_value, sizeof frac_bits);
    int32_t subnormal_lead = at - 23 + ((int32_t)(frac_bits >> 23) - 127);
    int32_t lead = (at & normal) | (subnormal_lead & ~normal);
    int32_t exponent = lead > emin ? lead : emin;
    uint32_t full = frac | (0x800000u & (uint32_t)normal);
    /* |x|·2^(f - e) is an integer for a value of the format: the bits below it are zero */
    int32_t shift = 23 - f + exponent - at, clamped = shift < 31 ? shift : 31; /* >= 23 - f: e >= at */
    uint32_t dropped = full & ((UINT32_C(1) << clamped) - 1);
    int32_t zero = magnitude == 0;
    int32_t ok = (biased != 255) & (zero | ((shift < 32) & (dropped == 0)));
    int32_t live = -(ok & !zero);
    uint32_t value_bits = bits & (uint32_t)live;
    *e = (exponent & live) | (ZERO_EXP & ~live);
    memcpy(value, &value_bits, sizeof value_bits);
    return !ok;
}

/* What a run taken apart holds: its smallest and largest exponent of a value that is not zero
 * (INT32_MAX and ZERO_EXP where there is none), and whether a value is refused. */
struct run_summary {
    int32_t low, high;
    bool refused;
};

/* Value x[p] taken apart into e[p] and value[p], refused[p]; *low, *high and *any take it in. */
static inline __attribute__((always_inline)) void split_into(const float *restrict x, size_t p, int emin, int f,
                                                             int32_t *restrict e, float *restrict value,
                                                             int32_t *restrict refused, int32_t *low, int32_t *high,
                                                             int32_t *any)
{
    uint32_t bits;
    memcpy(&bits, &x[p], sizeof bits);
    int32_t exponent, refusal = split_bits(bits, emin, f, &exponent, &value[p]);
    e[p] = exponent, refused[p] = refusal;
    int32_t nonzero = exponent == ZERO_EXP ? INT32_MAX : exponent; /* a zero's: no smallest */
    *low = nonzero < *low ? nonzero : *low;
    *high = exponent > *high ? exponent : *high;
    *any |= refusal;
}

/* count values x[p] taken apart into e[p] and value[p]; refused[p] 1 where value p is. */
FPD_VECTOR_WIDTH_FUNCTION(struct run_summary, split_run,
                          (const float *restrict x, size_t count, int emin, int f, int32_t *restrict e,
                           float *restrict value, int32_t *restrict refused),
                          (x, count, emin, f, e, value, refused))
{
    enum { RUN = 8 }; /* a fixed trip count, which the vectorizer's cost model takes */
    int32_t low[RUN], high[RUN], any[RUN];
    for (size_t j = 0; j < RUN; j++)
        low[j] = INT32_MAX, high[j] = ZERO_EXP, any[j] = 0;
    size_t whole = count / RUN * RUN;
    for (size_t p = 0; p < whole; p += RUN)
        for (size_t j = 0; j < RUN; j++)
            split_into(x, p + j, emin, f, e, value, refused, &low[j], &high[j], &any[j]);
    for (size_t p = whole; p < count; p++)
        split_into(x, p, emin, f, e, value, refused, &low[0], &high[0], &any[0]);
    struct run_summary summary = {INT32_MAX, ZERO_EXP, false};
    for (size_t j = 0; j < RUN; j++) {
        summary.low = low[j] < summary.low ? low[j] : summary.low;
        summary.high = high[j] > summary.high ? high[j] : summary.high;
        summary.refused |= any[j] != 0;
    }
    return summary;
}

/* An operand as the GEMM reads it: value (o, p) of its o-th row (of A) or column (of B), p along k. */
struct operand_view {
    const float *x;
    ptrdiff_t o_stride, p_stride;
};

/* Where value (o, p) of an operand's parts lies: a line's k values together, or, for the lanes,
 * tiles of TILE lanes, each a run of k steps of its lanes (TILE, or what the last tile has of
 * `lanes`): unpadded, so that a GEMM of 2 lanes by 2^21 steps takes no room for 16. */
static inline size_t part_index(bool tiled, size_t o, size_t p, size_t k, size_t lanes)
{
    if (!tiled)
        return o * k + p;
    size_t first = o / TILE * TILE, width = lanes - first < TILE ? lanes - first : TILE;
    return first * k + p * width + (o - first);
}

/* Room for max(count, k) values each, for take_apart's runs. */
struct run_scratch {
    float *gathered, *value;
    int32_t *e, *refused;
};

/* Takes operand v's `count` rows or columns apart into parts (part_index's layout). The runs go
 * along the operand's storage (along k, or across the rows or columns), a strided one gathered
 * first: a strided load the vectorizer does not take. */
static void take_apart(const struct fpd_tc_arith *t, const struct operand_view *v, size_t count, size_t k,
                       bool tiled, struct operand_parts *parts, const struct run_scratch *s)
{
    parts->e_low = INT32_MAX, parts->e_high = ZERO_EXP;
    bool along_k = v->p_stride == 1 || v->o_stride != 1;
    size_t runs = along_k ? count : k, length = along_k ? k : count;
    ptrdiff_t run_stride = along_k ? v->o_stride : v->p_stride, step = along_k ? v->p_stride : v->o_stride;
    for (size_t r = 0; r < runs; r++) {
        const float *x = v->x + (ptrdiff_t)r * run_stride;
        if (step != 1) {
            for (size_t i = 0; i < length; i++)
                s->gathered[i] = x[(ptrdiff_t)i * step];
            x = s->gathered;
        }
        struct run_summary summary = split_run(x, length, t->in_emin, t->in_fraction_bits, s->e, s->value, s->refused);
        parts->e_low = summary.low < parts->e_low ? summary.low : parts->e_low;
        parts->e_high = summary.high > parts->e_high ? summary.high : parts->e_high;
        if (along_k) { /* run r is the whole of row or column r */
            parts->scalar[r] = summary.refused;
            if (!tiled) {
                memcpy(&parts->e[r * k], s->e, k * sizeof *s->e);
                memcpy(&parts->v[r * k], s->value, k * sizeof *s->value);
                continue;
            }
            for (size_t p = 0; p < k; p++) {
                size_t at = part_index(true, r, p, k, count);
                parts->e[at] = s->e[p], parts->v[at] = s->value[p];
            }
            continue;
        }
        for (size_t o = 0; o < count; o++) /* run r is step r of every row or column */
            parts->scalar[o] |= s->refused[o] != 0;
        if (tiled) { /* a tile's TILE lanes lie together */
            for (size_t o = 0; o < count; o += TILE) {
                size_t width = count - o < TILE ? count - o : TILE, at = part_index(true, o, r, k, count);
                memcpy(&parts->e[at], &s->e[o], width * sizeof *s->e);
                memcpy(&parts->v[at], &s->value[o], width * sizeof *s->value);
            }
            continue;
        }
        for (size_t o = 0; o < count; o++)
            parts->e[o * k + r] = s->e[o], parts->v[o * k + r] = s->value[o];
    }
}

/*
 * The fast form runs each line (a row of A, or a column of B) against TILE lanes (columns of B, or
 * rows of A) at a time: the lanes along the longer of C's sides, so that a GEMM with few columns
 * (a matrix-vector product, 2^21 rows by 2) does not compute TILE lanes for each of its few. A
 * tile's lanes are stored together (part_index), and every line passes against one tile before
 * the next: the tile's parts stay in cache while the lines, read once per tile, stream. A last
 * tile's loads of TILE lanes read past its own: the next steps' parts, or zeros after the last
 * (in range); nobody reads what those lanes compute. A product is the same whichever operand is
 * the line.
 */
/* Room of at least `bytes` in slot i of ws (what it held not kept); NULL where none is left. */
static void *room(struct fpd_tc_workspace *ws, size_t i, size_t bytes)
{
    if (ws->size[i] < bytes) {
        free(ws->room[i]);
        ws->room[i] = malloc(bytes);
        ws->size[i] = ws->room[i] ? bytes : 0;
    }
    return ws->room[i];
}

void fpd_tc_workspace_free(struct fpd_tc_workspace *ws)
{
    for (size_t i = 0; i < sizeof ws->room / sizeof ws->room[0]; i++)
        free(ws->room[i]);
    *ws = (struct fpd_tc_workspace){0};
}

int fpd_kernel_tensor_core(const struct fpd_tc_arith *t, const struct fpd_kgemm_f32 *g)
{
    struct fpd_tc_workspace ws = {0};
    int rc = fpd_kernel_tensor_core_in(t, g, &ws);
    fpd_tc_workspace_free(&ws);
    return rc;
}

int fpd_kernel_tensor_core_in(const struct fpd_tc_arith *t, const struct fpd_kgemm_f32 *g, struct fpd_tc_workspace *ws)
{
    size_t m = g->m, n = g->n, k = g->k;
    bool by_rows = n * ((m + TILE - 1) / TILE) < m * ((n + TILE - 1) / TILE); /* lanes are A's rows */
    struct operand_view va = {g->a, g->a_rs, g->a_cs}, vb = {g->b, g->b_cs, g->b_rs};
    const struct operand_view *line_of = by_rows ? &vb : &va, *lane_of = by_rows ? &va : &vb;
    size_t lines = by_rows ? n : m, lanes = by_rows ? m : n;
    size_t longest = k > lanes ? k : lanes; /* a run: along k, or across the lanes or the lines */
    longest = longest > lines ? longest : lines;
    struct operand_parts line = {0}, lane = {0};
    struct run_scratch scratch = {0};
    bool fast = fast_form_fits(t) && m && n && k;
    if (fast) { /* else the scalar form, which takes no memory */
        line = (struct operand_parts){room(ws, 0, lines * k * sizeof *line.e), room(ws, 1, lines * k * sizeof *line.v),
                                      room(ws, 2, lines * sizeof *line.scalar), 0, 0};
        lane = (struct operand_parts){room(ws, 3, (lanes * k + TILE) * sizeof *lane.e),
                                      room(ws, 4, (lanes * k + TILE) * sizeof *lane.v),
                                      room(ws, 5, lanes * sizeof *lane.scalar), 0, 0};
        scratch = (struct run_scratch){room(ws, 6, longest * sizeof(float)), room(ws, 7, longest * sizeof(float)),
                                       room(ws, 8, 2 * longest * sizeof(int32_t)), NULL};
        fast = line.e && line.v && line.scalar && lane.e && lane.v && lane.scalar && scratch.gathered &&
               scratch.value && scratch.e;
    }
    if (fast) { /* take_apart writes every part, and or's into the flags; a last tile's loads past the
                   lanes read zeros */
        scratch.refused = scratch.e + longest;
        memset(line.scalar, 0, lines * sizeof *line.scalar), memset(lane.scalar, 0, lanes * sizeof *lane.scalar);
        memset(lane.e + lanes * k, 0, TILE * sizeof *lane.e), memset(lane.v + lanes * k, 0, TILE * sizeof *lane.v);
    }
    if (fast) {
        take_apart(t, line_of, lines, k, false, &line, &scratch);
        take_apart(t, lane_of, lanes, k, true, &lane, &scratch);
    }
    bool narrow = t->in_fraction_bits <= 11 && line.e_low >= -NARROW_EXP && lane.e_low >= -NARROW_EXP &&
                  line.e_high <= NARROW_EXP && lane.e_high <= NARROW_EXP;
    /* A model that rounds toward zero runs the narrow form in that rounding mode, where every
     * value it computes but the rounding is exact (products of few bits, powers of two, integers
     * in doubles, conversions that truncate), the scalar block's included. A block's products sum
     * below 2^(2·NARROW_EXP + 2)·FPD_TC_BLOCK_MAX = 2^104, the ulp of fp32's largest value: c
     * never reaches 2^128, where the model's rounding gives Inf and the mode's would stop */
    _Static_assert((UINT64_C(1) << (2 * NARROW_EXP + 2 - 64)) * FPD_TC_BLOCK_MAX <= (UINT64_C(1) << (104 - 64)),
                   "the narrow form's blocks stay below fp32's largest value's ulp");
    bool by_mode = narrow && t->toward_zero;
    enum term_form form = narrow ? NARROW : 2 * t->in_fraction_bits <= 23 ? DOUBLE : WIDE;
    int mode = fegetround();
    if (by_mode)
        fesetround(FE_TOWARDZERO);
    for (size_t j = 0; fast && g->bias && j < n; j++) /* a column with a bias that is not finite: */
        if (!isfinite(g->bias[j]))                      /* the scalar form's */
            (by_rows ? line.scalar : lane.scalar)[j] = true;
    float c0[GROUP][TILE], c[GROUP][TILE];
    for (size_t w0 = 0; w0 < lanes; w0 += TILE) {
        size_t width = lanes - w0 < TILE ? lanes - w0 : TILE;
        bool any_scalar = !fast;
        for (size_t w = 0; fast && w < width; w++)
            any_scalar |= lane.scalar[w0 + w];
        float tile_bias[TILE] = {0}; /* each lane's first c, where the lanes are columns */
        if (g->bias && !by_rows)
            memcpy(tile_bias, g->bias + w0, width * sizeof *tile_bias);
        for (size_t l0 = 0; l0 < lines; l0 += GROUP) {
            size_t group_end = lines - l0 < GROUP ? lines : l0 + GROUP;
            struct tile_line tl[GROUP];
            size_t fast_lines = 0;
            for (size_t l = l0; fast && l < group_end; l++) {
                if (line.scalar[l])
                    continue;
                const float *first = tile_bias;
                if (g->bias && by_rows) { /* the lanes are rows, the line a column: its bias */
                    for (size_t w = 0; w < TILE; w++)
                        c0[fast_lines][w] = g->bias[l];
                    first = c0[fast_lines];
                }
                tl[fast_lines++] = (struct tile_line){line.e + l * k, line.v + l * k, first};
            }
            if (fast_lines)
                lines_against_tile(t, form, tl, fast_lines, lane.e + w0 * k, lane.v + w0 * k, width, k, c);
            for (size_t l = l0, at = 0; l < group_end; l++) {
                bool computed = fast && !line.scalar[l];
                if (computed && !any_scalar && !by_rows) { /* a piece of row l */
                    memcpy(&g->c[l * g->ldc + w0], c[at++], width * sizeof **c);
                    continue;
                }
                for (size_t w = 0; w < width; w++) {
                    size_t i = by_rows ? w0 + w : l, j = by_rows ? l : w0 + w;
                    float *out = &g->c[i * g->ldc + j];
                    if (!computed || lane.scalar[w0 + w])
                        *out = (float)fpd_tc_dot(t, g->a + (ptrdiff_t)i * g->a_rs, g->a_cs,
                                                 g->b + (ptrdiff_t)j * g->b_cs, g->b_rs, k, g->bias ? g->bias[j] : 0);
                    else
                        *out = c[at][w];
                }
                at += computed;
            }
        }
    }
    if (by_mode)
        fesetround(mode);
    return 0;
}
