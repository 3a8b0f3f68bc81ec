/*
 * The tensor-core models (tc-*) against the published test vectors (tensor-cores.md: Fasi,
 * Higham, Mikaitis, Pranesh 2021; Khattak, Mikaitis 2025): d = c + sum a_i b_i with fp16 inputs
 * and an fp32 accumulator, run through each backend as a 1 x 1 x k GEMM whose fused bias is c.
 * Where a paper gives a value for some GPUs only, the others' follow from the model's parameters
 * (marked "model"). Then the parts the vectors leave alone: fp16 accumulation, bf16 inputs,
 * subnormals, NaN and Inf, and the chaining of blocks.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/backend_tensor_core.h"
#include "backends/builtin.h"
#include "common/dtype.h"
#include "engine/check.h"
#include "cpu/tensor_core.h"
#include "cpu/vector_width.h"
#include "tc_reference.h"

enum { V100, A100, ADA, H100, B200, B200RN, MODELS };
static const char *const model_names[MODELS] = {"tc-v100", "tc-a100", "tc-ada", "tc-h100", "tc-b200", "tc-b200rn"};

/* Bit for bit, sign included. */
static bool identical(double x, double y) { return memcmp(&x, &y, sizeof x) == 0; }

/* d = c + sum a_i b_i on backend `name`, with these dtypes (a and b in dt.in, c and d in dt.out). */
static double run(const char *name, struct fpd_dtypes dt, const double *a, const double *b, size_t k, double c)
{
    struct fpd_backend_slot *slot = fpd_registry_find(name);
    cr_assert_not_null(slot, "%s", name);
    cr_assert_eq(fpd_backend_acquire(slot), FPD_OK, "%s", slot->why);
    char why[256];
    cr_assert(fpd_backend_supports(slot, &dt, why, sizeof why), "%s: %s", name, why);
    unsigned char ab[2][64 * 8], cb[16], biasb[16];
    for (size_t p = 0; p < k; p++) {
        fpd_store(dt.in, ab[0], p, a[p]);
        fpd_store(dt.in, ab[1], p, b[p]);
        cr_assert(identical(fpd_load(dt.in, ab[0], p), a[p]) && identical(fpd_load(dt.in, ab[1], p), b[p]),
                  "input %zu is not a value of the input type", p);
    }
    fpd_store(dt.out, biasb, 0, c);
    cr_assert(identical(fpd_load(dt.out, biasb, 0), c) || isnan(c), "c is not a value of the output type");
    struct fpd_gemm_args g = {.dt = dt, .batch = 1, .m = 1, .n = 1, .k = k, .a = ab[0], .lda = k, .stride_a = k,
                              .b = ab[1], .ldb = 1, .stride_b = k, .c = cb, .ldc = 1, .stride_c = 1, .bias = biasb};
    cr_assert_eq(fpd_backend_gemm(slot, &g, why, sizeof why), FPD_OK, "%s", why);
    return fpd_load(dt.out, cb, 0);
}

static const struct fpd_dtypes f16_f32 = {FPD_F16, FPD_F32, FPD_F32};

struct vector {
    const char *name;
    double a[17], b[17];
    size_t k;
    double c;
    double want[MODELS];
};

#define E(x) ldexp(1, x)
#define ALL(x) {x, x, x, x, x, x}
/* want: V100, A100, Ada, H100, B200, B200's round-to-nearest variant. Ada's values are A100's
 * (the same parameters); tc-b200rn's are the model's, as rounding to nearest makes them. */
static const struct vector vectors[] = {
    /* Fasi et al. */
    {"D1 (V100 and A100 published)", {1}, {1}, 1, -(1 - E(-24)), {E(-23), E(-24), E(-24), E(-24), E(-24), E(-24)}},
    {"D3 (V100 and A100 published)", {1, 1}, {1, -E(-24)}, 2, -1 + E(-24), {E(-23), 0, 0, 0, 0, 0}},
    {"rounding", {1, 1}, {2, E(-23) + E(-24)}, 2, 0, {2, 2, 2, 2, 2, 2 + E(-22)}},
    {"rounding, negated", {1, 1}, {-2, -(E(-23) + E(-24))}, 2, 0, {-2, -2, -2, -2, -2, -2 - E(-22)}},
    {"carry bits", {1, 1, 1, 1}, {1, 1, 1, 1}, 4, 1 + E(-22) + E(-23), {5, 5, 5, 5, 5, 5 + E(-21)}},
    {"carry bits, second", {1, 1, 1, 1}, {1, 1.5, 1.75, 1.875}, 4, 1.875, ALL(8)},
    {"exact products", {1 - E(-11)}, {1 - E(-11)}, 1, 0, ALL(1 - E(-10) + E(-22))},
    {"non-monotonicity, c = 1 - 2^-24", {1, 1, 1, 1}, {E(-24), E(-24), E(-24), E(-24)}, 4, 1 - E(-24),
     {1 + E(-23), 1 + E(-23), 1 + E(-23), 1 + E(-23), 1 + E(-23), 1 + E(-22)}},
    {"non-monotonicity, c = 1 (V100 published; the others keep the four 2^-24)", {1, 1, 1, 1},
     {E(-24), E(-24), E(-24), E(-24)}, 4, 1, {1, 1 + E(-22), 1 + E(-22), 1 + E(-22), 1 + E(-22), 1 + E(-22)}},
    {"A100 accumulation (H100 and B200 keep the 2^-25 products)", {.5, .5, .5, .5}, {E(-24), E(-24), E(-24), E(-24)},
     4, 1, {1, 1, 1, 1 + E(-23), 1 + E(-23), 1 + E(-23)}},
    /* Khattak and Mikaitis */
    {"one extra alignment bit", {E(-24), E(-24)}, {1, 1}, 2, 1, {1, 1 + E(-23), 1 + E(-23), 1 + E(-23), 1 + E(-23),
                                                                 1 + E(-23)}},
    {"two extra alignment bits", {E(-24), E(-24), E(-24)}, {1, .5, .5}, 3, 1,
     {1, 1, 1, 1 + E(-23), 1 + E(-23), 1 + E(-23)}},
    {"late normalisation", {E(-21) + E(-24), E(-21) + E(-24)}, {1, 1}, 2, 1 - E(-21), ALL(1 + E(-21) + E(-23))},
    {"round toward zero", {1, 1, 1}, {1, 1, 1}, 3, 1 + E(-23) + E(-22), {4, 4, 4, 4, 4, 4 + E(-21)}},
};

Test(tensor_core, the_published_vectors)
{
    fpd_registry_init();
    for (size_t v = 0; v < sizeof vectors / sizeof vectors[0]; v++)
        for (int model = 0; model < MODELS; model++) {
            const struct vector *x = &vectors[v];
            double d = run(model_names[model], f16_f32, x->a, x->b, x->k, x->c);
            cr_expect(identical(d, x->want[model]), "%s on %s: %a, want %a", x->name, model_names[model], d,
                      x->want[model]);
        }
    fpd_registry_close_all();
}

/* a_0 = b_0 = 1, a_{k-1} = 2^-23, b_{k-1} = 1, c = 1 + 2^-23: 2 + 2^-22 while the last product is
 * in the first block, 2 once it is in the second; so the boundary is the block size. */
Test(tensor_core, the_block_size_vector_finds_each_block_size)
{
    static const unsigned block[MODELS] = {4, 8, 8, 16, 16, 16};
    fpd_registry_init();
    for (int model = 0; model < MODELS; model++)
        for (size_t k = 2; k <= 17; k++) {
            double a[17] = {1}, b[17] = {1};
            a[k - 1] = E(-23), b[k - 1] = 1;
            double d = run(model_names[model], f16_f32, a, b, k, 1 + E(-23));
            /* B200's rounding variant rounds 2 + 2^-23 to nearest even: 2 */
            double want = k <= block[model] ? 2 + E(-22) : 2;
            cr_expect(identical(d, want), "%s at k = %zu: %a, want %a", model_names[model], k, d, want);
        }
    fpd_registry_close_all();
}

/* The bound knows a tensor core's arithmetic: 64 products 1.875 * 2^-24 and c = 1 on V100, whose
 * blocks of 4 truncate every one of them away (the grid at c's exponent is 2^-23), so the result
 * is 1, 120 * 2^-24 below the exact one: more than gamma_65(u) allows a round-to-nearest sum, less
 * than 16 blocks of V100's arithmetic do. Declared, it is `same` within its own bound; the same
 * arithmetic undeclared is `bound`; and a planted truncation of the output to 16 bits, with the
 * arithmetic declared, is `bound` too. */
static int truncating_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    int rc = fpd_backend_tc_v100.gemm(state, g, why, why_size);
    for (size_t i = 0; rc == FPD_OK && i < g->m; i++)
        for (size_t j = 0; j < g->n; j++) {
            uint32_t bits;
            memcpy(&bits, (float *)g->c + i * g->ldc + j, sizeof bits);
            bits &= ~UINT32_C(0xff); /* 16 significant bits, toward zero */
            memcpy((float *)g->c + i * g->ldc + j, &bits, sizeof bits);
        }
    return rc;
}

static struct fpd_check_result repeat_on(const char *backend, struct fpd_case_data *data)
{
    struct fpd_check chk = {.relation = fpd_relation_find("repeat"), .backends = {fpd_registry_find(backend)},
                            .exact = FPD_EXACT_ALWAYS};
    cr_assert_not_null(chk.backends[0], "%s", backend);
    fpd_case_defaults(&chk.c);
    chk.c.dt = f16_f32;
    if (data) {
        chk.c.m = data->m, chk.c.n = data->n, chk.c.k = data->k, chk.c.has_bias = true, chk.c.data = data;
    } else {
        chk.c.m = 4, chk.c.n = 4, chk.c.k = 64, chk.c.has_bias = true;
    }
    struct fpd_checker ck = {0};
    struct fpd_check_result res;
    cr_assert_eq(fpd_check_run(&ck, &chk, &res), FPD_OK);
    fpd_checker_free(&ck);
    return res;
}

Test(tensor_core, the_bound_knows_the_block_fma)
{
    static struct fpd_backend undeclared, truncating;
    char why[256];
    fpd_registry_init();
    undeclared = fpd_backend_tc_v100;
    undeclared.name = "tc-v100-undeclared";
    undeclared.kind = FPD_KIND_TEST;
    undeclared.rounding = NULL;
    truncating = fpd_backend_tc_v100;
    truncating.name = "tc-v100-truncating";
    truncating.kind = FPD_KIND_TEST;
    truncating.gemm = truncating_gemm;
    cr_assert_eq(fpd_registry_add(&undeclared, why, sizeof why), FPD_OK, "%s", why);
    cr_assert_eq(fpd_registry_add(&truncating, why, sizeof why), FPD_OK, "%s", why);

    uint16_t a[64], b[64];
    float bias[1] = {1};
    for (size_t p = 0; p < 64; p++)
        a[p] = fpd_f16_from_double(1.875), b[p] = fpd_f16_from_double(E(-24));
    struct fpd_case_data data = {.batch = 1, .m = 1, .n = 1, .k = 64, .a = a, .b = b, .bias = bias};
    struct fpd_check_result declared = repeat_on("tc-v100", &data), plain = repeat_on("tc-v100-undeclared", &data);
    cr_expect_eq(declared.verdict, FPD_SAME, "%s", fpd_verdict_table[declared.verdict].name);
    cr_expect(declared.exact.own_ratio[0] > 0.5 && declared.exact.own_ratio[0] <= 1, "its own bound: ratio %g",
              declared.exact.own_ratio[0]);
    cr_expect_eq(plain.verdict, FPD_BOUND, "undeclared: %s (ratio %g)", fpd_verdict_table[plain.verdict].name,
                 plain.exact.own_ratio[0]);

    struct fpd_check_result honest = repeat_on("tc-v100", NULL), planted = repeat_on("tc-v100-truncating", NULL);
    cr_expect_eq(honest.verdict, FPD_SAME, "%s", fpd_verdict_table[honest.verdict].name);
    cr_expect_eq(planted.verdict, FPD_BOUND, "a planted truncation: %s (ratio %g)",
                 fpd_verdict_table[planted.verdict].name, planted.exact.own_ratio[0]);
    fpd_registry_close_all();
}

/* A product with a subnormal factor is aligned as if the factor were 2^-14: 2^-24 · 2^15 is
 * 2^-9, but sets H100's grid at 2^(1 - 25), where fifteen products of about 2^-11, whose bits
 * reach 2^-33, lose up to 2^-24 each: 27.6 times what the bound allows a block of normal inputs
 * (measured without the allowance). The bound allows for the coarser grid. */
Test(tensor_core, a_subnormal_factor_sets_the_grid)
{
    fpd_registry_init();
    uint16_t a[16], b[16];
    float bias[1] = {0};
    a[0] = fpd_f16_from_double(E(-24)), b[0] = fpd_f16_from_double(E(15));
    for (size_t p = 1; p < 16; p++)
        a[p] = fpd_f16_from_double(1 + (853.0 - (double)p) / 1024), b[p] = fpd_f16_from_double((1 + 683.0 / 1024) * E(-12));
    struct fpd_case_data data = {.batch = 1, .m = 1, .n = 1, .k = 16, .a = a, .b = b, .bias = bias};
    struct fpd_check_result res = repeat_on("tc-h100", &data);
    cr_expect_eq(res.verdict, FPD_SAME, "%s", fpd_verdict_table[res.verdict].name);
    cr_expect(res.exact.err_ulp[0] >= 8, "the grid lost little: %g ulps", res.exact.err_ulp[0]);
    cr_expect(res.exact.own_ratio[0] <= 1, "beyond its own bound: ratio %g", res.exact.own_ratio[0]);
    fpd_registry_close_all();
}

/* ---- the integer model against the first one (tc_reference.c), bit for bit ------------------------ */

/* Each model's block arithmetic for an input and accumulator type, as the backends build it. */
struct arith_case {
    const char *name;
    struct fpd_tc_arith arith;
};

static struct fpd_tc_arith arith_of(unsigned block, int extra, int min_f32, int min_f16, bool f32_toward_zero,
                                    enum fpd_dtype in, enum fpd_dtype acc)
{
    const struct fpd_dtype_info *i = fpd_dtype_info(in), *a = fpd_dtype_info(acc);
    return (struct fpd_tc_arith){.block = block, .extra_bits = extra, .min_exp = acc == FPD_F16 ? min_f16 : min_f32,
                                 .toward_zero = acc == FPD_F16 ? false : f32_toward_zero, .in_emin = i->emin,
                                 .in_fraction_bits = i->precision - 1, .acc_precision = a->precision,
                                 .acc_emin = a->emin, .acc_emax = a->emax};
}

static size_t arith_cases(struct arith_case out[32])
{
    static const struct {
        const char *name;
        unsigned block;
        int extra, min_f32, min_f16;
        bool toward_zero;
    } models[] = {{"v100", 4, 0, -1024, -19, true}, {"a100", 8, 1, -132, -20, true},
                  {"h100", 16, 2, -133, -21, true}, {"b200rn", 16, 2, -133, -15, false}};
    static const struct {
        const char *name;
        enum fpd_dtype in, acc;
    } types[] = {{"f16:f32", FPD_F16, FPD_F32}, {"bf16:f32", FPD_BF16, FPD_F32}, {"f16 acc f16", FPD_F16, FPD_F16},
                 {"f32:f32", FPD_F32, FPD_F32}}; /* fp32 inputs: a relation's path that casts them up */
    size_t n = 0;
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++)
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
            out[n++] = (struct arith_case){models[m].name,
                                           arith_of(models[m].block, models[m].extra, models[m].min_f32, models[m].min_f16,
                                                    models[m].toward_zero, types[t].in, types[t].acc)};
    return n;
}

static uint64_t state = 0x9e3779b97f4a7c15u;
static uint64_t next_random(void)
{
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
}

/* A value of type t: mostly ordinary, some of every exponent (subnormals included), zeros,
 * specials where asked; the neighbours of earlier values, for cancellation. */
static float random_value(enum fpd_dtype t, bool specials)
{
    uint64_t r = next_random();
    const struct fpd_dtype_info *f = fpd_dtype_info(t);
    double sig = 1 + (double)(r >> 11 & 0x7fffff) * 0x1p-23, sign = (r & 1) ? -1 : 1;
    int e;
    switch (r >> 40 & 7) {
    case 0: return specials && (r >> 50 & 3) == 0 ? ((r >> 52 & 1) ? NAN : sign * INFINITY) : 0;
    case 1: e = f->emin - 1 - (int)((r >> 44) % (unsigned)f->precision); break; /* subnormal */
    case 2: e = f->emin + (int)((r >> 44) % (unsigned)(f->emax - f->emin + 1)); break;
    default: e = (int)((r >> 44) % 12) - 6; break;
    }
    return (float)fpd_round(t, sign * ldexp(sig, e));
}

/* A value of type t of the kind most data has: an exponent within a few of 0 (every product within
 * the GEMM's narrow form), or zero. */
static float ordinary_value(enum fpd_dtype t)
{
    uint64_t r = next_random();
    if ((r >> 40 & 7) == 0)
        return 0;
    double sig = 1 + (double)(r >> 11 & 0x7fffff) * 0x1p-23;
    return (float)fpd_round(t, ((r & 1) ? -1 : 1) * ldexp(sig, (int)((r >> 44) % 12) - 6));
}

/* The inputs' type a case's arithmetic takes. */
static enum fpd_dtype input_type(const struct fpd_tc_arith *t)
{
    return t->in_fraction_bits == 23 ? FPD_F32 : t->in_fraction_bits == 10 ? FPD_F16 : FPD_BF16;
}

static bool same_float(float x, float y) { return memcmp(&x, &y, sizeof x) == 0 || (isnan(x) && isnan(y)); }

Test(tensor_core, the_integer_blocks_are_the_first_models)
{
    struct arith_case cases[32];
    size_t n = arith_cases(cases), checked = 0;
    for (size_t c = 0; c < n; c++) {
        const struct fpd_tc_arith *t = &cases[c].arith;
        enum fpd_dtype in = input_type(t), acc = t->acc_precision == 11 ? FPD_F16 : FPD_F32;
        for (int rep = 0; rep < 100000; rep++) {
            float a[3 * FPD_TC_BLOCK_MAX], b[3 * FPD_TC_BLOCK_MAX];
            bool specials = rep % 16 == 0; /* NaN and Inf, decided over the whole dot product */
            size_t k = 1 + next_random() % (3 * t->block); /* one block to three, and part of one */
            for (size_t p = 0; p < k; p++) {
                a[p] = random_value(in, specials), b[p] = random_value(in, specials);
                if (p && next_random() % 4 == 0) /* the last product's negative: cancellation */
                    a[p] = -a[p - 1], b[p] = b[p - 1];
            }
            double bias = random_value(acc, false);
            if (next_random() % 8 == 0) /* near the accumulator's largest value */
                bias = fpd_round(acc, fpd_dtype_info(acc)->max_finite * (1 - (double)(next_random() % 16) * 0x1p-12));
            double got = fpd_tc_dot(t, a, 1, b, 1, k, bias), want = fpd_tc_reference_dot(t, a, 1, b, 1, k, bias);
            cr_assert(identical(got, want) || (isnan(got) && isnan(want)), "%s, %s, k = %zu: %a, the first model %a",
                      cases[c].name, fpd_dtype_info(in)->name, k, got, want);
            checked++;
        }
    }
    cr_expect_geq(checked, 1000000u); /* some two million blocks */
}

/* The GEMM, whose fast form takes operands apart once and many columns at a time, at every vector
 * width this CPU has: every element the first model's dot, NaN and Inf rows and columns included.
 * Reps 6 and 7 give every type ordinary values (bf16's too take the narrow form), rep 7 with biases
 * near fp32's largest value in some columns (Inf after a block, rounding to nearest). Rep 8: more
 * lines than lanes and k, taken apart across them. Every call in one workspace, as a backend keeps
 * it: what a larger GEMM or one with NaN rows left there changes nothing. */
Test(tensor_core, the_integer_gemm_is_the_first_models_at_every_width)
{
    struct fpd_tc_workspace ws = {0};
    struct arith_case cases[32];
    size_t n_cases = arith_cases(cases);
    enum fpd_vector_width was = fpd_vector_width();
    char err[160];
    for (int w = FPD_VECTOR_BASELINE; w <= (int)fpd_vector_width_of_cpu(); w++) {
        cr_assert_eq(fpd_vector_width_limit((enum fpd_vector_width)w, err, sizeof err), 0, "%s", err);
        for (size_t c = 0; c < n_cases; c++) {
            const struct fpd_tc_arith *t = &cases[c].arith;
            enum fpd_dtype in = input_type(t);
            enum fpd_dtype acc = t->acc_precision == 11 ? FPD_F16 : FPD_F32;
            for (int rep = 0; rep < 9; rep++) {
                bool tall = rep < 3 || rep == 6;
                size_t m = 1 + next_random() % (tall ? 9 : 80), n = 1 + next_random() % (tall ? 80 : 9);
                size_t k = 1 + next_random() % 70;
                bool trans_a = next_random() & 1, trans_b = next_random() & 1, specials = rep == 2 || rep == 5;
                if (rep == 8) /* as many tiles either way, more lines than lanes and k, the runs across them */
                    m = 48, n = 16, k = 5, trans_a = trans_b = true;
                float *a = malloc(m * k * sizeof *a), *b = malloc(k * n * sizeof *b), *out = malloc(m * n * sizeof *out);
                float bias[80];
                bool ordinary = rep >= 6;
                for (size_t i = 0; i < m * k; i++)
                    a[i] = ordinary ? ordinary_value(in) : random_value(in, specials && next_random() % 50 == 0);
                for (size_t i = 0; i < k * n; i++)
                    b[i] = ordinary ? ordinary_value(in) : random_value(in, specials && next_random() % 50 == 0);
                for (size_t j = 0; j < n; j++) {
                    bias[j] = ordinary ? ordinary_value(acc) : random_value(acc, specials && next_random() % 20 == 0);
                    if (rep == 7 && next_random() % 4 == 0)
                        bias[j] = (float)fpd_round(acc, (next_random() & 1 ? -1 : 1) * fpd_dtype_info(acc)->max_finite *
                                                            (1 - (double)(next_random() % 4) * 0x1p-20));
                }
                ptrdiff_t a_rs = trans_a ? 1 : (ptrdiff_t)k, a_cs = trans_a ? (ptrdiff_t)m : 1;
                ptrdiff_t b_rs = trans_b ? 1 : (ptrdiff_t)n, b_cs = trans_b ? (ptrdiff_t)k : 1;
                const float *with_bias = rep % 2 || rep == 6 ? bias : NULL;
                struct fpd_kgemm_f32 g = {m, n, k, a, a_rs, a_cs, b, b_rs, b_cs, out, n, with_bias, NULL, NULL};
                fpd_kernel_tensor_core_in(t, &g, &ws);
                for (size_t i = 0; i < m; i++)
                    for (size_t j = 0; j < n; j++) {
                        float want = (float)fpd_tc_reference_dot(t, a + (ptrdiff_t)i * a_rs, a_cs, b + (ptrdiff_t)j * b_cs,
                                                                 b_rs, k, g.bias ? bias[j] : 0);
                        cr_assert(same_float(out[i * n + j], want), "%s %s at width %s, %zux%zux%zu, (%zu, %zu): %a, the first model %a",
                                  cases[c].name, fpd_dtype_info(in)->name, fpd_vector_width_name((enum fpd_vector_width)w),
                                  m, n, k, i, j, out[i * n + j], want);
                    }
                free(a), free(b), free(out);
            }
        }
    }
    fpd_vector_width_limit(was, err, sizeof err);
    fpd_tc_workspace_free(&ws);
}
