/*
 * The `concurrent` relation: calls that really overlap (concurrent.h), path B among probes, mirrors
 * and load (callers.h), a race planted in a test backend found, and a reentrant backend `same`.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdatomic.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/backend_pinned.h"
#include "backends/builtin.h"
#include "backends/concurrent.h"
#include "common/clock.h"
#include "common/dtype.h"
#include "engine/callers.h"
#include "engine/check.h"

/* ---- overlap: every call waits, inside, until all are inside ---------------------------------- */

static atomic_int inside, most_inside;
static size_t expected_inside;
static atomic_size_t caller_of_m[6]; /* each call's caller index, by its m (1 to 5) */

static int meeting_gemm(void *state, size_t caller, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    (void)state;
    atomic_store(&caller_of_m[g->m], caller);
    int now = atomic_fetch_add(&inside, 1) + 1;
    for (int seen = atomic_load(&most_inside); now > seen && !atomic_compare_exchange_weak(&most_inside, &seen, now);)
        ;
    double give_up = fpd_now() + 5;
    while ((size_t)atomic_load(&inside) < expected_inside && atomic_load(&most_inside) < (int)expected_inside &&
           fpd_now() < give_up)
        ;
    atomic_fetch_sub(&inside, 1);
    if (g->m == 3) {
        snprintf(why, why_size, "planted failure of the call with m = 3");
        return FPD_ERR_BACKEND;
    }
    return FPD_OK;
}

Test(concurrent, calls_overlap_and_keep_their_own_outcomes)
{
    struct fpd_gemm_args args[5];
    const struct fpd_gemm_args *each[5];
    for (size_t i = 0; i < 5; i++)
        args[i] = (struct fpd_gemm_args){.m = i + 1}, each[i] = &args[i];
    int status[5];
    char why[5][128];
    expected_inside = 5;
    fpd_gemm_concurrently(meeting_gemm, NULL, 5, each, status, why[0], sizeof why[0]);
    cr_expect_eq(atomic_load(&most_inside), 5, "at most %d of 5 calls were inside at once", atomic_load(&most_inside));
    for (size_t i = 0; i < 5; i++)
        cr_expect_eq(status[i], i == 2 ? FPD_ERR_BACKEND : FPD_OK, "call %zu: %d (%s)", i, status[i], why[i]);
    cr_expect(strstr(why[2], "m = 3"), "%s", why[2]);
    for (size_t i = 0; i < 5; i++) /* call i is caller i: the index a backend keeps its room by */
        cr_expect_eq(atomic_load(&caller_of_m[i + 1]), i);
}

/* ---- test backends: a textbook loop, reentrant, and the same with a shared buffer --------------- */

/* C = op(A) op(B) (+ bias) in the accumulator type, k in order: fpd_load/fpd_store only. */
static void textbook(const struct fpd_gemm_args *g, const void *a, size_t lda, bool trans_a)
{
    for (size_t b = 0; b < g->batch; b++)
        for (size_t i = 0; i < g->m; i++)
            for (size_t j = 0; j < g->n; j++) {
                double s = g->bias ? fpd_load(g->dt.out, g->bias, j) : 0;
                for (size_t p = 0; p < g->k; p++) {
                    size_t ai = b * g->stride_a + (trans_a ? p * lda + i : i * lda + p);
                    size_t bi = b * g->stride_b + (g->trans_b ? j * g->ldb + p : p * g->ldb + j);
                    s = fpd_round(g->dt.acc, s + fpd_load(g->dt.in, a, ai) * fpd_load(g->dt.in, g->b, bi));
                }
                fpd_store(g->dt.out, g->c, b * g->stride_c + i * g->ldc + j, s);
            }
}

static int textbook_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    (void)state, (void)why, (void)why_size;
    textbook(g, g->a, g->lda, g->trans_a);
    return FPD_OK;
}

/* op(A) copied into one buffer for every call, then read from it once every call running at once
 * has copied its own (so the race is lost every time, not when the scheduler happens to interleave
 * the calls): all but the last to copy read another's A. */
static unsigned char shared_a[1 << 20];
static atomic_size_t copied, copying_at_once = 1;
static int racy_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    (void)state;
    size_t es = fpd_dtype_info(g->dt.in)->size;
    if (g->batch * g->m * g->k * es > sizeof shared_a) {
        snprintf(why, why_size, "too large for the racy test backend");
        return FPD_ERR_BACKEND;
    }
    for (size_t b = 0; b < g->batch; b++)
        for (size_t i = 0; i < g->m; i++)
            for (size_t p = 0; p < g->k; p++) {
                size_t from = b * g->stride_a + (g->trans_a ? p * g->lda + i : i * g->lda + p);
                memcpy(shared_a + ((b * g->m + i) * g->k + p) * es, (const unsigned char *)g->a + from * es, es);
            }
    atomic_fetch_add(&copied, 1);
    for (double give_up = fpd_now() + 5; atomic_load(&copied) % atomic_load(&copying_at_once) != 0 && fpd_now() < give_up;)
        ;
    struct fpd_gemm_args packed = *g;
    packed.stride_a = g->m * g->k;
    textbook(&packed, shared_a, g->k, false);
    return FPD_OK;
}

/* The two as concurrent calls, whichever caller they are. */
static int textbook_call(void *state, size_t caller, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    (void)caller;
    return textbook_gemm(state, g, why, why_size);
}

static int racy_call(void *state, size_t caller, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    (void)caller;
    return racy_gemm(state, g, why, why_size);
}

static void textbook_concurrent(void *state, size_t count, const struct fpd_gemm_args *const *args, int *status,
                                char *why, size_t why_size)
{
    fpd_gemm_concurrently(textbook_call, state, count, args, status, why, why_size);
}

static void racy_concurrent(void *state, size_t count, const struct fpd_gemm_args *const *args, int *status,
                            char *why, size_t why_size)
{
    atomic_store(&copied, 0);
    atomic_store(&copying_at_once, count);
    fpd_gemm_concurrently(racy_call, state, count, args, status, why, why_size);
    atomic_store(&copying_at_once, 1);
}

static bool takes_all(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    (void)state, (void)dt, (void)why, (void)why_size;
    return true;
}

static int open_nothing(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    (void)self, (void)why, (void)why_size;
    *state = NULL;
    return FPD_OK;
}

#define CONCURRENT_BACKEND(nm, gemm_fn, concurrent_fn)                                                               \
    {                                                                                                                \
        .abi = FPDIV_BACKEND_ABI, .name = nm, .summary = "test", .device = FPD_DEVICE_CPU, .kind = FPD_KIND_TEST,   \
        .features = FPD_FEAT_FUSED_BIAS | FPD_FEAT_THREADS | FPD_FEAT_CONCURRENT, .open = open_nothing,             \
        .supports = takes_all, .gemm = gemm_fn, .gemm_concurrent = concurrent_fn,                                    \
    }
static const struct fpd_backend textbook_backend = CONCURRENT_BACKEND("textbook", textbook_gemm, textbook_concurrent);
static const struct fpd_backend racy_backend = CONCURRENT_BACKEND("racy", racy_gemm, racy_concurrent);

static void setup(void)
{
    char why[256];
    fpd_registry_init();
    cr_assert_eq(fpd_registry_add(&textbook_backend, why, sizeof why), FPD_OK, "%s", why);
    cr_assert_eq(fpd_registry_add(&racy_backend, why, sizeof why), FPD_OK, "%s", why);
}

static void teardown(void) { fpd_registry_close_all(); }

static struct fpd_check_result check(const char *backend, const char *shape, const char *dtype, unsigned callers,
                                     bool trans_a)
{
    struct fpd_check chk = {.params = {.slice = {0, 1}, .threads = 2, .algo = 1, .callers = callers},
                            .exact = FPD_EXACT_DIVERGING};
    char why[256];
    fpd_case_defaults(&chk.c);
    chk.relation = fpd_relation_find("concurrent");
    cr_assert_not_null(chk.relation);
    cr_assert_eq(fpd_backend_resolve(backend, &chk.backends[0], why, sizeof why), FPD_OK, "%s", why);
    cr_assert_eq(fpd_dtypes_parse(dtype, &chk.c.dt, why, sizeof why), FPD_OK, "%s", why);
    cr_assert_eq(fpd_shape_parse(shape, &chk.c, why, sizeof why), FPD_OK, "%s", why);
    chk.c.trans_a = trans_a;
    chk.c.pad = 3;
    struct fpd_checker ck = {0};
    struct fpd_check_result res;
    cr_assert_eq(fpd_check_run_many((struct fpd_checker *[]){&ck}, &chk, &res, 1), FPD_OK);
    fpd_checker_free(&ck);
    return res;
}

TestSuite(concurrent_relation, .init = setup, .fini = teardown);

Test(concurrent_relation, a_reentrant_library_is_same)
{
    const char *dtypes[] = {"f64", "f32", "bf16", "f16:f16:f32"};
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
        for (unsigned callers = 2; callers <= FPD_MAX_CALLERS; callers += 3) {
            struct fpd_check_result res = check("textbook", "2x9x7x33", dtypes[d], callers, d % 2 == 1);
            cr_expect_eq(res.verdict, FPD_SAME, "%s, %u callers: %s (%s)", dtypes[d], callers,
                         fpd_verdict_table[res.verdict].name, res.error);
            cr_expect_eq(res.concurrency.callers, callers);
            cr_expect_geq(res.concurrency.probes, 2);
            cr_expect_eq(res.concurrency.differing, 0);
        }
}

Test(concurrent_relation, a_shared_buffer_is_found)
{
    /* the racy backend makes the calls overlap: the one that copied its A last hands it to the
     * other, path B or its mirror, whichever it is (or both read a mix, where they copied at once) */
    struct fpd_check_result res = check("racy", "24x16x40", "f64", 2, false);
    cr_expect_geq(res.verdict, FPD_BOUND, "%s (%s)", fpd_verdict_table[res.verdict].name, res.error);
    cr_expect_geq(res.concurrency.differing, 1, "%u of the 2 differ", res.concurrency.differing);
    cr_expect_eq(res.concurrency.rounds, 1);
    /* alone, the same backend is right: the repeat relation runs it twice, one call at a time */
    res = check("racy", "24x16x40", "f64", 2, false);
    struct fpd_check chk = {.params = {.slice = {0, 1}, .threads = 2, .algo = 1}, .exact = FPD_EXACT_ALWAYS};
    char why[256];
    fpd_case_defaults(&chk.c);
    chk.relation = fpd_relation_find("repeat");
    cr_assert_eq(fpd_backend_resolve("racy", &chk.backends[0], why, sizeof why), FPD_OK, "%s", why);
    cr_assert_eq(fpd_shape_parse("24x16x40", &chk.c, why, sizeof why), FPD_OK, "%s", why);
    chk.c.dt = (struct fpd_dtypes){FPD_F64, FPD_F64, FPD_F64};
    struct fpd_checker ck = {0};
    cr_assert_eq(fpd_check_run_many((struct fpd_checker *[]){&ck}, &chk, &res, 1), FPD_OK);
    fpd_checker_free(&ck);
    cr_expect_eq(res.verdict, FPD_SAME, "%s", fpd_verdict_table[res.verdict].name);
}

Test(concurrent_relation, a_backend_without_concurrent_calls_is_refused)
{
    char why[256];
    const struct fpd_backend *seq[2] = {fpd_registry_find("seq")->impl, NULL};
    struct fpd_dtypes f32 = {FPD_F32, FPD_F32, FPD_F32};
    cr_expect_not(fpd_relation_applies(fpd_relation_find("concurrent"), &f32, seq, why, sizeof why));
    cr_expect(strstr(why, "concurrent calls"), "%s", why);
    struct fpd_backend no_callback = textbook_backend;
    no_callback.name = "no-callback";
    no_callback.gemm_concurrent = NULL;
    cr_expect_eq(fpd_registry_add(&no_callback, why, sizeof why), FPD_ERR_INPUT);
    cr_expect(strstr(why, "gemm_concurrent"), "%s", why);
}

/* ---- the callers: a mirror is path B negated, load is -A times B as its kind stores it ------------ */

Test(concurrent_relation, callers_compute_what_their_kind_says)
{
    /* the textbook loop sums in one order whatever the storage, so a caller in the path's type gives
     * exactly C or -C on its rows (the mirror's bias negated too), and one in the other type -C
     * rounded to it */
    enum { M = 6, N = 5, K = 7, PAD = 2, LDC = N + PAD };
    double a[K * M], b[K * N], bias[N], c[(M + 1) * LDC];
    for (size_t i = 0; i < K * M; i++)
        a[i] = (double)(i % 7) - 3.25;
    for (size_t i = 0; i < K * N; i++)
        b[i] = 0.5 + (double)(i % 5);
    for (size_t j = 0; j < N; j++)
        bias[j] = 0.125 * (double)j - 0.25;
    memset(c, 0xA5, sizeof c);
    struct fpd_gemm_args path_b = {
        .dt = {FPD_F64, FPD_F64, FPD_F64}, .batch = 1, .m = M, .n = N, .k = K, .trans_a = true, .a = a, .lda = M,
        .stride_a = K * M, .b = b, .ldb = N, .stride_b = K * N, .c = c, .ldc = LDC, .stride_c = M * LDC, .bias = bias,
    };
    double with_bias[(M + 1) * LDC], without[(M + 1) * LDC];
    struct fpd_gemm_args alone = path_b;
    alone.c = with_bias;
    textbook(&alone, a, M, true);
    alone.c = without, alone.bias = NULL;
    textbook(&alone, a, M, true);
    bool seen[FPD_CALLER_FEWER_ROWS + 1] = {false};
    for (uint64_t key = 0; key < 64; key++) {
        struct fpd_callers cs = {0};
        cr_assert_eq(fpd_callers_prepare(&cs, FPD_MAX_CALLERS, &path_b, sizeof c, key), FPD_OK);
        cr_expect_eq(cs.kind[0], FPD_CALLER_PROBE);
        cr_expect_eq(cs.kind[1], FPD_CALLER_MIRROR);
        for (unsigned i = 0; i < cs.count; i++) {
            enum fpd_caller_kind kind = cs.kind[i];
            seen[kind] = true;
            textbook_gemm(NULL, &cs.args[i], NULL, 0);
            const struct fpd_gemm_args *g = &cs.args[i];
            const double *want = kind == FPD_CALLER_PROBE || kind == FPD_CALLER_MIRROR ? with_bias : without;
            for (size_t r = 0; r < g->m; r++)
                for (size_t j = 0; j < g->n; j++) {
                    double got = fpd_load(g->dt.out, g->c, r * g->ldc + j);
                    double expected = fpd_round(g->dt.out, want[r * LDC + j]) * (kind == FPD_CALLER_PROBE ? 1 : -1);
                    if (kind == FPD_CALLER_OTHER_TYPE) /* summed in f32: close, not equal */
                        cr_expect(fabs(got - expected) <= 1e-4 * (1 + fabs(expected)), "caller %u [%zu,%zu]", i, r, j);
                    else
                        cr_expect_eq(got, expected, "key %lu caller %u (%s) [%zu,%zu]: %g, want %g", (unsigned long)key,
                                     i, fpd_caller_kind_words[kind], r, j, got, expected);
                }
            if (kind == FPD_CALLER_FEWER_ROWS)
                cr_expect_eq(g->m, (M + 1) / 2);
            if (kind == FPD_CALLER_MIRROR) /* stored as path B is: the same leading dimension */
                cr_expect(g->lda == path_b.lda && g->trans_a == path_b.trans_a && g->b == path_b.b);
        }
        fpd_callers_free(&cs);
    }
    for (int kind = 0; kind <= FPD_CALLER_FEWER_ROWS; kind++)
        cr_expect(seen[kind], "no caller of kind %s in 64 keys", fpd_caller_kind_words[kind]);
}
