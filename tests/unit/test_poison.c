/* C's poison before a GEMM that must not read it: non-finite in every type, fatal to a kernel that
 * scales it by beta = 0, one of each kind across a campaign's cases, and only in the m x n block. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "backends/backend_util.h"
#include "common/dtype.h"
#include "engine/poison.h"

static const enum fpd_dtype types[] = {FPD_F64, FPD_F32, FPD_F16, FPD_BF16};

Test(poison, every_poison_is_what_it_is_named_in_every_type)
{
    for (int p = 0; p < FPD_POISON_COUNT; p++)
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
            uint64_t bits = fpd_poison_bits(p, types[t]);
            double v = fpd_value_of_bits(types[t], bits);
            bool nan = p == FPD_POISON_QUIET_NAN || p == FPD_POISON_SIGNALLING_NAN;
            cr_expect(nan ? isnan(v) : isinf(v) && (v > 0) == (p == FPD_POISON_PLUS_INF), "%s in %s: %g",
                      fpd_poison_names[p], fpd_dtype_info(types[t])->name, v);
            if (nan) { /* the quiet bit: the significand's top bit */
                unsigned top = (unsigned)fpd_bits_significand(types[t]) - 1;
                cr_expect_eq((bits >> top) & 1, p == FPD_POISON_QUIET_NAN, "%s in %s: quiet bit", fpd_poison_names[p],
                             fpd_dtype_info(types[t])->name);
            }
            /* what a kernel that scales C by beta = 0 makes of it */
            cr_expect(isnan(0.0 * v));
        }
}

Test(poison, a_campaign_draws_every_poison_and_a_case_always_the_same)
{
    unsigned seen[FPD_POISON_COUNT] = {0};
    for (uint32_t index = 0; index < 400; index++) {
        enum fpd_poison p = fpd_poison_of(7, index);
        cr_assert_lt(p, FPD_POISON_COUNT);
        cr_expect_eq(p, fpd_poison_of(7, index));
        seen[p]++;
    }
    for (int p = 0; p < FPD_POISON_COUNT; p++)
        cr_expect(seen[p] > 60, "%s drawn %u times of 400", fpd_poison_names[p], seen[p]);
}

Test(poison, only_the_block_is_filled)
{
    enum { ROWS = 3, N = 5, LDC = 7 };
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        size_t es = fpd_dtype_info(types[t])->size;
        unsigned char c[(ROWS + 1) * LDC * 8];
        memset(c, 0xA5, sizeof c);
        fpd_poison_fill(FPD_POISON_MINUS_INF, types[t], c, ROWS, N, LDC);
        for (size_t i = 0; i < ROWS + 1; i++)
            for (size_t j = 0; j < LDC; j++) {
                const unsigned char *e = c + (i * LDC + j) * es;
                if (i < ROWS && j < N) {
                    cr_expect(isinf(fpd_load(types[t], e, 0)), "(%zu, %zu) in %s", i, j, fpd_dtype_info(types[t])->name);
                } else {
                    for (size_t byte = 0; byte < es; byte++)
                        cr_expect_eq(e[byte], 0xA5, "padding (%zu, %zu) in %s written", i, j, fpd_dtype_info(types[t])->name);
                }
            }
    }
}

/* A GEMM whose output type is not the one it is computed in (16-bit outputs through a BLAS of
 * f32) hands the library a converted C: the caller's poison, not what the staging held from the
 * call before, so that a library that reads C at beta = 0, or leaves it unwritten (k = 0), shows. */
Test(poison, a_staged_c_holds_what_the_callers_c_holds)
{
    enum { M = 2, N = 3, LDC = 4 };
    uint16_t a[1] = {0}, b[N] = {0}, c[M * LDC];
    memset(c, 0, sizeof c);
    fpd_poison_fill(FPD_POISON_PLUS_INF, FPD_BF16, c, M, N, LDC);
    struct fpd_gemm_args g = {.dt = {FPD_BF16, FPD_BF16, FPD_F32}, .batch = 1, .m = M, .n = N, .k = 0, .a = a, .lda = 1,
                              .b = b, .ldb = N, .c = c, .ldc = LDC, .stride_c = M * LDC};
    struct fpd_batch_staging s = {0};
    struct fpd_batch_entry e;
    for (int call = 0; call < 2; call++) {
        cr_assert_eq(fpd_stage_batch_entry(&s, &g, 0, FPD_F32, FPD_F32, &e), FPD_OK);
        for (size_t i = 0; i < M; i++)
            for (size_t j = 0; j < N; j++)
                cr_expect(isinf(((const float *)e.c)[i * e.ldc + j]), "call %d (%zu, %zu): %g", call, i, j,
                          ((const float *)e.c)[i * e.ldc + j]);
        cr_expect_geq(e.lda, 1);
        for (size_t x = 0; x < M * N; x++) /* what a library leaves there, seen by the next call */
            ((float *)e.c)[x] = 1.5f;
    }
    fpd_batch_staging_free(&s);
}
