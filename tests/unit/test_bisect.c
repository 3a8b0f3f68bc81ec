/* Bisect and scan on planted switches; by-hash on a backend that changes algorithm with m. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend_own.h"
#include "backends/builtin.h"
#include "common/dtype.h"
#include "engine/bisect.h"

/* Diverges (one ulp on C[0][0], path B only) when k is in one of the planted intervals. */
static uint32_t switch_lo[2], switch_hi[2];
static int calls;

static bool in_switch(size_t k)
{
    for (int i = 0; i < 2; i++)
        if (k >= switch_lo[i] && k < switch_hi[i])
            return true;
    return false;
}

static int switching_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    int rc = fpd_backend_seq.gemm(state, g, why, why_size);
    if (rc == FPD_OK && ++calls % 2 == 0 && in_switch(g->k))
        fpd_store_bits(g->dt.out, g->c, 0, fpd_bits(g->dt.out, g->c, 0) + 1);
    return rc;
}

/* Refuses k that are multiples of 7 above 200: an untestable shape. */
static int refusing_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    if (g->k > 200 && g->k % 7 == 0) {
        snprintf(why, why_size, "planted: refuses k=%zu", g->k);
        return FPD_ERR_BACKEND;
    }
    return switching_gemm(state, g, why, why_size);
}

/* Changes its summation (pairwise instead of sequential) once m reaches 65: row 0's bits change. */
static int m_switch_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    if (g->m < 65)
        return fpd_backend_seq.gemm(state, g, why, why_size);
    struct fpd_backend_slot *pairwise = fpd_registry_find("pairwise");
    cr_assert_eq(fpd_backend_acquire(pairwise), FPD_OK);
    return pairwise->impl->gemm(pairwise->handle, g, why, why_size);
}

/* Refuses every k from 600 to 700: a stretch of shapes a library crashes on, say. */
static int stretch_refusing_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    if (g->k >= 600 && g->k <= 700) {
        snprintf(why, why_size, "planted: refuses k=%zu", g->k);
        return FPD_ERR_BACKEND;
    }
    return switching_gemm(state, g, why, why_size);
}

/* C[0][0] one ulp up for 101 <= m < 103, two from 103: three outcomes by path A's bits, both
 * changes between two values a scan samples (96 and 112). */
static int m_steps_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    int rc = fpd_backend_seq.gemm(state, g, why, why_size);
    if (rc == FPD_OK && g->m >= 101)
        fpd_store_bits(g->dt.out, g->c, 0, fpd_bits(g->dt.out, g->c, 0) + (g->m < 103 ? 1 : 2));
    return rc;
}

/* Crashes from k = 301 on: a probe isolated in a process of its own dies of it. */
static int crashing_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    if (g->k > 300)
        abort();
    return fpd_backend_seq.gemm(state, g, why, why_size);
}

static struct fpd_backend switching, refusing, m_switch, stretch, m_steps, crashing;

static void setup(void)
{
    char why[256];
    fpd_registry_init();
    const struct {
        struct fpd_backend *b;
        const char *name;
        int (*gemm)(void *, const struct fpd_gemm_args *, char *, size_t);
    } rows[] = {{&switching, "switching", switching_gemm}, {&refusing, "refusing", refusing_gemm},
                {&m_switch, "m-switch", m_switch_gemm}, {&stretch, "stretch", stretch_refusing_gemm},
                {&m_steps, "m-steps", m_steps_gemm}, {&crashing, "crashing", crashing_gemm}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        *rows[i].b = fpd_backend_seq;
        rows[i].b->name = rows[i].name;
        rows[i].b->kind = FPD_KIND_TEST;
        rows[i].b->gemm = rows[i].gemm;
        cr_assert_eq(fpd_registry_add(rows[i].b, why, sizeof why), FPD_OK, "%s", why);
    }
    calls = 0;
}

static void teardown(void) { fpd_registry_close_all(); }

static struct fpd_bisector make(struct fpd_checker *ck, const char *relation, const char *backend, uint32_t m,
                                uint32_t k, enum fpd_bisect_dim dim, enum fpd_bisect_by by)
{
    struct fpd_bisector b = {.ck = ck, .dim = dim, .by = by, .max_mem = 0x1p32};
    fpd_case_defaults(&b.base.c);
    b.base.c.m = m, b.base.c.n = 3, b.base.c.k = k;
    b.base.relation = fpd_relation_find(relation);
    b.base.backends[0] = fpd_registry_find(backend);
    b.base.params.slice = (struct fpd_range){0, 1};
    return b;
}

Test(bisect, finds_a_planted_switch_in_few_probes, .init = setup, .fini = teardown)
{
    switch_lo[0] = 257, switch_hi[0] = UINT32_MAX, switch_lo[1] = switch_hi[1] = 0;
    struct fpd_checker ck = {0};
    struct fpd_bisector b = make(&ck, "repeat", "switching", 2, 4096, FPD_DIM_K, FPD_BY_VERDICT);
    char why[256];
    cr_assert_eq(fpd_bisect_init(&b, 1, 4096, why, sizeof why), FPD_OK);
    struct fpd_shape_probe lo, hi;
    cr_assert_eq(fpd_bisect_probe(&b, 1, &lo), FPD_OK);
    cr_assert_eq(fpd_bisect_probe(&b, 4096, &hi), FPD_OK);
    cr_assert_eq(lo.verdict, FPD_SAME);
    cr_assert_eq(hi.verdict, FPD_REORDER);
    struct fpd_boundary x;
    cr_assert_eq(fpd_bisect_find(&b, &lo, &hi, &x), FPD_OK);
    cr_expect_eq(x.before.value, 256);
    cr_expect_eq(x.after.value, 257);
    cr_expect_leq(b.probes, 12 + 2 + 2, "%zu probes for a range of 4096", b.probes); /* log2(4096) + the ends + a few */
    fpd_bisect_free(&b);
    fpd_checker_free(&ck);
}

Test(bisect, scan_finds_both_switches, .init = setup, .fini = teardown)
{
    switch_lo[0] = 100, switch_hi[0] = 300; /* reorder for 100 <= k < 300 and 700 <= k < 1000 */
    switch_lo[1] = 700, switch_hi[1] = 1000;
    struct fpd_checker ck = {0};
    struct fpd_bisector b = make(&ck, "repeat", "switching", 2, 2000, FPD_DIM_K, FPD_BY_VERDICT);
    char why[256];
    cr_assert_eq(fpd_bisect_init(&b, 1, 2000, why, sizeof why), FPD_OK);
    struct fpd_boundary *found;
    size_t n;
    cr_assert_eq(fpd_bisect_scan(&b, 1, 2000, &found, &n), FPD_OK);
    uint32_t want[][2] = {{99, 100}, {299, 300}, {699, 700}, {999, 1000}};
    cr_assert_eq(n, 4, "%zu transitions", n);
    for (size_t i = 0; i < 4; i++) {
        cr_expect_eq(found[i].before.value, want[i][0]);
        cr_expect_eq(found[i].after.value, want[i][1]);
    }
    free(found);
    fpd_bisect_free(&b);
    fpd_checker_free(&ck);
}

Test(bisect, untestable_shapes_are_stepped_over, .init = setup, .fini = teardown)
{
    switch_lo[0] = 259, switch_hi[0] = UINT32_MAX, switch_lo[1] = switch_hi[1] = 0; /* 259 = 7 x 37 */
    struct fpd_checker ck = {0};
    struct fpd_bisector b = make(&ck, "repeat", "refusing", 2, 1024, FPD_DIM_K, FPD_BY_VERDICT);
    char why[256];
    cr_assert_eq(fpd_bisect_init(&b, 1, 1024, why, sizeof why), FPD_OK);
    struct fpd_shape_probe lo, hi;
    cr_assert_eq(fpd_bisect_probe(&b, 1, &lo), FPD_OK);
    cr_assert_eq(fpd_bisect_probe(&b, 1024, &hi), FPD_OK);
    struct fpd_boundary x;
    cr_assert_eq(fpd_bisect_find(&b, &lo, &hi, &x), FPD_OK);
    /* 259 cannot be tested, so the boundary is reported as 258 (same) .. 260 (reorder) */
    cr_expect_eq(x.before.value, 258);
    cr_expect_eq(x.after.value, 260);
    cr_expect_geq(x.skipped, 1);
    struct fpd_shape_probe p;
    cr_assert_eq(fpd_bisect_probe(&b, 259, &p), FPD_OK);
    cr_expect(!p.tested);
    cr_expect(strstr(p.skip_reason, "refuses k=259"), "%s", p.skip_reason);
    fpd_bisect_free(&b);
    fpd_checker_free(&ck);
}

/* A switch inside an untestable stretch (600..700, the switch at 650): the boundary is the stretch's
 * two ends, 599 and 701, not a value a doubling step landed on past the stretch. */
Test(bisect, a_switch_inside_an_untestable_stretch_is_bounded_by_its_ends, .init = setup, .fini = teardown)
{
    switch_lo[0] = 650, switch_hi[0] = UINT32_MAX, switch_lo[1] = switch_hi[1] = 0;
    for (uint32_t hi_end = 1000; hi_end <= 2000; hi_end += 1000) {
        struct fpd_checker ck = {0};
        struct fpd_bisector b = make(&ck, "repeat", "stretch", 2, hi_end, FPD_DIM_K, FPD_BY_VERDICT);
        char why[256];
        cr_assert_eq(fpd_bisect_init(&b, 16, hi_end, why, sizeof why), FPD_OK);
        struct fpd_shape_probe lo, hi;
        cr_assert_eq(fpd_bisect_probe(&b, 16, &lo), FPD_OK);
        cr_assert_eq(fpd_bisect_probe(&b, hi_end, &hi), FPD_OK);
        struct fpd_boundary x;
        cr_assert_eq(fpd_bisect_find(&b, &lo, &hi, &x), FPD_OK);
        cr_expect_eq(x.before.value, 599, "to %u: %u", hi_end, x.before.value);
        cr_expect_eq(x.after.value, 701, "to %u: %u", hi_end, x.after.value);
        fpd_bisect_free(&b);
        fpd_checker_free(&ck);
    }
}

static void count_report(void *ctx, const struct fpd_shape_probe *p)
{
    (void)p;
    ++*(size_t *)ctx;
}

/* A value is run and reported once: a search for a testable end that reaches the other end, which
 * is probed already, reuses its probe (fpdiv bisect printed "probe k=1" twice) */
Test(bisect, a_value_is_probed_once, .init = setup, .fini = teardown)
{
    switch_lo[0] = 257, switch_hi[0] = UINT32_MAX, switch_lo[1] = switch_hi[1] = 0;
    struct fpd_checker ck = {0};
    struct fpd_bisector b = make(&ck, "repeat", "switching", 2, 4096, FPD_DIM_K, FPD_BY_VERDICT);
    size_t reported = 0;
    b.on_probe = count_report, b.ctx = &reported;
    char why[256];
    cr_assert_eq(fpd_bisect_init(&b, 1, 4096, why, sizeof why), FPD_OK);
    struct fpd_shape_probe first, again;
    cr_assert_eq(fpd_bisect_probe(&b, 300, &first), FPD_OK);
    int checks = calls;
    cr_assert_eq(fpd_bisect_probe(&b, 300, &again), FPD_OK);
    cr_expect_eq(calls, checks, "the value ran again");
    cr_expect_eq(b.probes, 1);
    cr_expect_eq(reported, 1);
    cr_expect(again.tested && again.verdict == first.verdict && again.value == 300);
    /* a new bisection starts with nothing probed */
    cr_assert_eq(fpd_bisect_init(&b, 1, 4096, why, sizeof why), FPD_OK);
    cr_assert_eq(fpd_bisect_probe(&b, 300, &again), FPD_OK);
    cr_expect_eq(reported, 2);
    fpd_bisect_free(&b);
    fpd_checker_free(&ck);
}

Test(bisect, by_hash_sees_an_algorithm_switch_both_paths_agree_on, .init = setup, .fini = teardown)
{
    struct fpd_checker ck = {0};
    /* repeat: both paths always agree, so the verdict never changes; path A's row 0 does, at m = 65 */
    struct fpd_bisector b = make(&ck, "repeat", "m-switch", 200, 300, FPD_DIM_M, FPD_BY_HASH);
    b.base.c.n = 4;
    char why[256];
    cr_assert_eq(fpd_bisect_init(&b, 1, 200, why, sizeof why), FPD_OK);
    struct fpd_boundary *found;
    size_t n;
    cr_assert_eq(fpd_bisect_scan(&b, 1, 200, &found, &n), FPD_OK);
    cr_assert_eq(n, 1, "%zu transitions", n);
    cr_expect_eq(found[0].before.value, 64);
    cr_expect_eq(found[0].after.value, 65);
    cr_expect_eq(found[0].before.verdict, FPD_SAME);
    cr_expect_eq(found[0].after.verdict, FPD_SAME);
    free(found);
    fpd_bisect_free(&b);
    b.by = FPD_BY_HASH, b.dim = FPD_DIM_K;
    cr_expect_eq(fpd_bisect_init(&b, 1, 200, why, sizeof why), FPD_ERR_INPUT, "by hash along k must be refused");
    fpd_checker_free(&ck);
}

/* Two changes between two samples that differ: the scan finds the first, then the next from it, until
 * the outcome is the later sample's (it stopped at the first). */
Test(bisect, scan_finds_every_change_between_two_samples, .init = setup, .fini = teardown)
{
    struct fpd_checker ck = {0};
    struct fpd_bisector b = make(&ck, "repeat", "m-steps", 1000, 20, FPD_DIM_M, FPD_BY_HASH);
    b.base.c.n = 4;
    char why[256];
    cr_assert_eq(fpd_bisect_init(&b, 1, 1000, why, sizeof why), FPD_OK);
    struct fpd_boundary *found;
    size_t n;
    cr_assert_eq(fpd_bisect_scan(&b, 1, 1000, &found, &n), FPD_OK);
    cr_assert_eq(n, 2, "%zu transitions", n);
    cr_expect_eq(found[0].before.value, 100);
    cr_expect_eq(found[0].after.value, 101);
    cr_expect_eq(found[1].before.value, 102);
    cr_expect_eq(found[1].after.value, 103);
    free(found);
    fpd_bisect_free(&b);
    fpd_checker_free(&ck);
}

/* Isolated, a crash is an outcome, `error`: its first shape is the boundary, not a shape passed over. */
Test(bisect, a_crash_is_an_outcome, .init = setup, .fini = teardown)
{
    struct fpd_checker ck = {.isolate = true};
    struct fpd_bisector b = make(&ck, "repeat", "crashing", 2, 1000, FPD_DIM_K, FPD_BY_VERDICT);
    char why[256];
    cr_assert_eq(fpd_bisect_init(&b, 1, 1000, why, sizeof why), FPD_OK);
    struct fpd_shape_probe lo, hi;
    cr_assert_eq(fpd_bisect_probe(&b, 1, &lo), FPD_OK);
    cr_assert_eq(fpd_bisect_probe(&b, 1000, &hi), FPD_OK);
    cr_assert(hi.tested, "a crash is no untestable shape: %s", hi.skip_reason);
    cr_assert_eq(hi.verdict, FPD_ERROR);
    cr_expect(strstr(hi.skip_reason, "signal"), "the error says what killed it: %s", hi.skip_reason);
    struct fpd_boundary x;
    cr_assert_eq(fpd_bisect_find(&b, &lo, &hi, &x), FPD_OK);
    cr_expect_eq(x.before.value, 300);
    cr_expect_eq(x.after.value, 301);
    cr_expect_eq(x.after.verdict, FPD_ERROR);
    fpd_bisect_free(&b);
    fpd_checker_free(&ck);
}

/* The inputs generated once at the largest shape equal what each probe would generate itself. */
Test(bisect, shared_inputs_change_nothing, .init = setup, .fini = teardown)
{
    struct fpd_checker ck = {0};
    struct fpd_bisector b = make(&ck, "slice-rows", "openblas", 2, 300, FPD_DIM_K, FPD_BY_VERDICT);
    b.base.c.n = 700;
    struct fpd_bisector fresh = b;
    fresh.max_mem = 0; /* too small to keep the inputs: each probe generates its own */
    char why[256];
    cr_assert_eq(fpd_bisect_init(&b, 1, 900, why, sizeof why), FPD_OK);
    cr_assert_not_null(b.base.c.data);
    for (uint32_t k = 100; k <= 900; k += 200) {
        struct fpd_shape_probe p, q;
        cr_assert_eq(fpd_bisect_probe(&b, k, &p), FPD_OK);
        struct fpd_check chk = fresh.base;
        chk.c.k = k;
        struct fpd_check_result res;
        cr_assert_eq(fpd_check_run(&ck, &chk, &res), FPD_OK);
        q.metrics = res.metrics;
        cr_expect_eq(p.metrics.hash_a, q.metrics.hash_a, "k=%u", k);
        cr_expect_eq(p.metrics.hash_b, q.metrics.hash_b, "k=%u", k);
    }
    fpd_bisect_free(&b);
    fpd_checker_free(&ck);
}
