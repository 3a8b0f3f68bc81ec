/*
 * Checks run together (fpd_check_run_many): each backend is handed all the checks' GEMMs at once,
 * one gemm_many call where it has one, and every check's result is what it is run alone, down to
 * its hashes; a GEMM's failure, or a check that cannot be prepared, is that check's alone.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/backend_own.h"
#include "backends/backend_pinned.h"
#include "backends/builtin.h"
#include "common/dtype.h"
#include "engine/check.h"

/* What the batching backend was handed: its gemm_many calls, the GEMMs in them, its gemm calls
 * (fpdiv should make none). */
static int many_calls, many_gemms, single_calls;

/* seq's arithmetic, except that a GEMM with k = 7 fails (on its own) and one with k = 9 has C[0][0]
 * one ulp off: enough to tell each GEMM's outcome from its neighbours'. */
static int planted(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    if (g->k == 7) {
        snprintf(why, why_size, "planted failure at k = 7");
        return FPD_ERR_BACKEND;
    }
    int rc = fpd_backend_seq.gemm(state, g, why, why_size);
    if (rc == FPD_OK && g->k == 9 && g->m > 1)
        fpd_store_bits(g->dt.out, g->c, 0, fpd_bits(g->dt.out, g->c, 0) + 1);
    return rc;
}

static int batching_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    single_calls++;
    return planted(state, g, why, why_size);
}

static void batching_gemm_many(void *state, size_t count, const struct fpd_gemm_args *const *args, int *status,
                               char *why, size_t why_size)
{
    many_calls++;
    many_gemms += (int)count;
    for (size_t i = 0; i < count; i++)
        status[i] = planted(state, args[i], why + i * why_size, why_size);
}

static int plain_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    return planted(state, g, why, why_size);
}

static struct fpd_backend batching, plain;

static void setup(void)
{
    char why[256];
    fpd_registry_init();
    batching = fpd_backend_seq;
    batching.name = "batching";
    batching.kind = FPD_KIND_FRAMEWORK;
    batching.features = FPD_FEAT_FUSED_BIAS;
    batching.gemm = batching_gemm;
    batching.gemm_many = batching_gemm_many;
    plain = batching; /* the same arithmetic, one GEMM per call */
    plain.name = "plain";
    plain.gemm = plain_gemm;
    plain.gemm_many = NULL;
    cr_assert_eq(fpd_registry_add(&batching, why, sizeof why), FPD_OK, "%s", why);
    cr_assert_eq(fpd_registry_add(&plain, why, sizeof why), FPD_OK, "%s", why);
    many_calls = many_gemms = single_calls = 0;
}

static void teardown(void) { fpd_registry_close_all(); }

struct planned {
    const char *relation, *backends[2], *dtype, *shape;
    bool bias;
};

static struct fpd_check plan(const struct planned *p)
{
    struct fpd_check chk = {.params = {.slice = {0, 1}}, .exact = FPD_EXACT_ALWAYS};
    char why[256];
    fpd_case_defaults(&chk.c);
    chk.relation = fpd_relation_find(p->relation);
    cr_assert_not_null(chk.relation, "%s", p->relation);
    for (int i = 0; i < 2 && p->backends[i]; i++)
        cr_assert_eq(fpd_backend_resolve(p->backends[i], &chk.backends[i], why, sizeof why), FPD_OK, "%s", why);
    cr_assert_eq(fpd_dtypes_parse(p->dtype, &chk.c.dt, why, sizeof why), FPD_OK, "%s", why);
    cr_assert_eq(fpd_shape_parse(p->shape, &chk.c, why, sizeof why), FPD_OK, "%s", why);
    chk.c.recipe.seed = 5;
    chk.c.has_bias = p->bias;
    fpd_relation_prepare_case(chk.relation, &chk.c);
    return chk;
}

static const struct planned checks[] = {
    {"slice-rows", {"batching"}, "f32", "4x40x50", true},   /* same */
    {"slice-rows", {"batching"}, "f32", "4x40x9", false},   /* path A nudged: its m > 1, B's is 1 */
    {"addmm", {"batching"}, "f64", "3x5x7", true},          /* both paths fail: k = 7 */
    {"vendor", {"seq", "batching"}, "f32", "2x6x9", false}, /* B nudged, A is seq's own */
    {"cast-in", {"batching"}, "bf16", "5x6x70", false},
    {"vendor", {"plain", "batching"}, "f64", "2x3x11x20", true},
    {"slice-cols", {"batching"}, "f32", "6x9x33", false},
    {"layout", {"plain"}, "f32", "7x5x7", false}, /* fails on a backend without gemm_many */
};
enum { CHECKS = sizeof checks / sizeof checks[0] };

Test(check_many, results_are_those_of_each_check_alone, .init = setup, .fini = teardown)
{
    struct fpd_check chk[CHECKS];
    struct fpd_check_result alone[CHECKS], together[CHECKS];
    struct fpd_checker ck = {0}, many[CHECKS];
    struct fpd_checker *cks[CHECKS];
    memset(many, 0, sizeof many);
    for (size_t i = 0; i < CHECKS; i++) {
        chk[i] = plan(&checks[i]);
        cks[i] = &many[i];
        cr_assert_eq(fpd_check_run(&ck, &chk[i], &alone[i]), FPD_OK);
    }
    int gemms_alone = many_gemms;
    many_calls = many_gemms = single_calls = 0;
    cr_assert_eq(fpd_check_run_many(cks, chk, together, CHECKS), FPD_OK);
    cr_expect_eq(many_calls, 1, "the batching backend was handed its GEMMs in %d calls, not one", many_calls);
    cr_expect_eq(single_calls, 0);
    cr_expect_eq(many_gemms, gemms_alone, "%d GEMMs together, %d alone", many_gemms, gemms_alone);
    for (size_t i = 0; i < CHECKS; i++) {
        const struct fpd_check_result *a = &alone[i], *t = &together[i];
        cr_expect_eq(t->verdict, a->verdict, "check %zu (%s): %s together, %s alone", i, checks[i].relation,
                     fpd_verdict_table[t->verdict].name, fpd_verdict_table[a->verdict].name);
        cr_expect_eq(t->failed_path, a->failed_path, "check %zu", i);
        cr_expect_str_eq(t->error, a->error, "check %zu", i);
        cr_expect_eq(t->metrics.diff, a->metrics.diff, "check %zu", i);
        cr_expect_eq(t->metrics.hash_a, a->metrics.hash_a, "check %zu", i);
        cr_expect_eq(t->metrics.hash_b, a->metrics.hash_b, "check %zu", i);
        cr_expect_eq(t->exact.err_ulp[0], a->exact.err_ulp[0], "check %zu", i);
        cr_expect_eq(t->exact.err_ulp[1], a->exact.err_ulp[1], "check %zu", i);
    }
    /* and each outcome is its own GEMMs' */
    cr_expect_eq(together[0].verdict, FPD_SAME);
    cr_expect_eq(together[1].verdict, FPD_REORDER, "%s", fpd_verdict_table[together[1].verdict].name);
    cr_expect_eq(together[2].verdict, FPD_ERROR);
    cr_expect_eq(together[2].failed_path, 0);
    cr_expect(strstr(together[2].error, "planted failure at k = 7"), "%s", together[2].error);
    cr_expect_eq(together[3].verdict, FPD_REORDER, "%s", fpd_verdict_table[together[3].verdict].name);
    cr_expect_eq(together[4].verdict, FPD_SAME);
    cr_expect_eq(together[7].verdict, FPD_ERROR);
    fpd_checker_free(&ck);
    for (size_t i = 0; i < CHECKS; i++)
        fpd_checker_free(&many[i]);
}

/* A check whose backend cannot be opened is an error before its GEMMs; the others run. */
static int unavailable_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    (void)self, (void)state;
    snprintf(why, why_size, "planted: no such device");
    return FPD_ERR_UNAVAILABLE;
}

Test(check_many, a_check_that_cannot_be_prepared_is_its_own_error, .init = setup, .fini = teardown)
{
    static struct fpd_backend absent;
    char why[256];
    absent = batching;
    absent.name = "absent";
    absent.open = unavailable_open;
    cr_assert_eq(fpd_registry_add(&absent, why, sizeof why), FPD_OK, "%s", why);
    const struct planned p[] = {{"slice-rows", {"batching"}, "f32", "4x40x50", false},
                                {"vendor", {"batching", "absent"}, "f32", "4x40x50", false},
                                {"slice-rows", {"batching"}, "f32", "4x40x9", false}};
    struct fpd_check chk[3];
    struct fpd_check_result res[3];
    struct fpd_checker many[3];
    struct fpd_checker *cks[3] = {&many[0], &many[1], &many[2]};
    memset(many, 0, sizeof many);
    for (size_t i = 0; i < 3; i++)
        chk[i] = plan(&p[i]);
    cr_assert_eq(fpd_check_run_many(cks, chk, res, 3), FPD_OK);
    cr_expect_eq(res[0].verdict, FPD_SAME);
    cr_expect_eq(res[1].verdict, FPD_ERROR);
    cr_expect_eq(res[1].failed_path, 1);
    cr_expect(strstr(res[1].error, "planted: no such device"), "%s", res[1].error);
    cr_expect_eq(res[2].verdict, FPD_REORDER, "%s", fpd_verdict_table[res[2].verdict].name);
    cr_expect_eq(many_calls, 1);
    cr_expect_eq(many_gemms, 4, "%d", many_gemms); /* both paths of checks 0 and 2; check 1 runs none */
    for (size_t i = 0; i < 3; i++)
        fpd_checker_free(&many[i]);
}
