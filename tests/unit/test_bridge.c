/*
 * The bridge's requests of several GEMMs (bridge.h), against a real server: tests/bridge's test
 * framework run by scripts/bridge/fpdiv_bridge.py. Each GEMM gets its own outcome; a server that
 * dies, hangs or writes garbage at one GEMM fails that one, keeps those it finished, and leaves
 * those it had not begun for the next server; a request of many slow GEMMs is not a hang.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/backend.h"
#include "backends/backend_framework.h"
#include "backends/bridge.h"

enum { GEMMS = 6, K_MAX = 9, WHY = 256 };

/* GEMM i: 2 x 3, k = 4 + i (so GEMM 3 has k = 7), f64, A all ones, B all twos: C is 2k throughout. */
struct gemms {
    double a[GEMMS][2 * K_MAX], b[GEMMS][K_MAX * 3], c[GEMMS][2 * 3];
    struct fpd_gemm_args args[GEMMS];
    const struct fpd_gemm_args *given[GEMMS];
    int status[GEMMS];
    char why[GEMMS * WHY];
};

static void make_gemms(struct gemms *g)
{
    memset(g, 0, sizeof *g);
    for (size_t i = 0; i < GEMMS; i++) {
        size_t k = 4 + i;
        for (size_t j = 0; j < 2 * K_MAX; j++)
            g->a[i][j] = 1;
        for (size_t j = 0; j < K_MAX * 3; j++)
            g->b[i][j] = 2;
        g->args[i] = (struct fpd_gemm_args){
            .dt = {FPD_F64, FPD_F64, FPD_F64}, .batch = 1, .m = 2, .n = 3, .k = k,
            .a = g->a[i], .lda = k, .stride_a = 2 * k, .b = g->b[i], .ldb = 3, .stride_b = 3 * k,
            .c = g->c[i], .ldc = 3, .stride_c = 6};
        g->given[i] = &g->args[i];
        g->status[i] = FPD_BRIDGE_UNSETTLED;
    }
}

static bool computed(const struct gemms *g, size_t i)
{
    double want[6];
    for (size_t j = 0; j < 6; j++)
        want[j] = 2.0 * (double)(4 + i);
    return memcmp(g->c[i], want, sizeof want) == 0;
}

/* A server of the misbehaving test framework, doing `how`; NULL (the test skipped) where this
 * machine's Python lacks NumPy. */
static struct fpd_bridge *start(const char *how, double timeout)
{
    static char python[1024], server[1024], framework[1024];
    const char *env = getenv("FPDIV_PYTHON");
    snprintf(python, sizeof python, "%s", env && *env ? env : ".venv/bin/python");
    cr_assert(fpd_bridge_file("fpdiv_bridge.py", server, sizeof server), "no fpdiv_bridge.py");
    snprintf(framework, sizeof framework, "tests/bridge/misbehaving.py");
    setenv("MISBEHAVE", how, 1);
    struct fpd_bridge_spec spec = {"bad", python, server, framework, timeout};
    struct fpd_bridge *b;
    char why[512];
    int rc = fpd_bridge_start(&spec, &b, why, sizeof why);
    if (rc == FPD_ERR_UNAVAILABLE || access(python, X_OK) != 0)
        cr_skip_test("the bridge's test framework cannot run here: %s", why);
    cr_assert_eq(rc, FPD_OK, "%s", why);
    return b;
}

Test(bridge, one_request_gives_each_gemm_its_outcome)
{
    struct gemms g;
    make_gemms(&g);
    struct fpd_bridge *b = start("shape", 60); /* k = 7: the framework's own error */
    fpd_bridge_gemm_many(b, GEMMS, g.given, g.status, g.why, WHY);
    for (size_t i = 0; i < GEMMS; i++) {
        if (i == 3) {
            cr_expect_eq(g.status[i], FPD_ERR_BACKEND);
            cr_expect(strstr(g.why + i * WHY, "the framework returned shape"), "%s", g.why + i * WHY);
        } else {
            cr_expect_eq(g.status[i], FPD_OK, "GEMM %zu: %s", i, g.why + i * WHY);
            cr_expect(computed(&g, i), "GEMM %zu's C", i);
        }
    }
    fpd_bridge_stop(b);
}

/* The server fails at GEMM 3 as `how` says: 0-2 stand, 3 fails saying `why`, 4-5 wait for a new
 * server, which computes them. */
static void fails_at_the_fourth(const char *how, double timeout, const char *why)
{
    struct gemms g;
    make_gemms(&g);
    struct fpd_bridge *b = start(how, timeout);
    fpd_bridge_gemm_many(b, GEMMS, g.given, g.status, g.why, WHY);
    for (size_t i = 0; i < 3; i++) {
        cr_expect_eq(g.status[i], FPD_OK, "GEMM %zu: %s", i, g.why + i * WHY);
        cr_expect(computed(&g, i), "GEMM %zu's C", i);
    }
    cr_expect_eq(g.status[3], FPD_ERR_BACKEND);
    cr_expect(strstr(g.why + 3 * WHY, why), "%s", g.why + 3 * WHY);
    cr_expect_eq(g.status[4], FPD_BRIDGE_UNSETTLED);
    cr_expect_eq(g.status[5], FPD_BRIDGE_UNSETTLED);
    char renewal[512];
    cr_assert_eq(fpd_bridge_renew(&b, renewal, sizeof renewal), FPD_OK, "%s", renewal);
    fpd_bridge_gemm_many(b, GEMMS, g.given, g.status, g.why, WHY);
    for (size_t i = 4; i < GEMMS; i++) {
        cr_expect_eq(g.status[i], FPD_OK, "GEMM %zu after the renewal: %s", i, g.why + i * WHY);
        cr_expect(computed(&g, i), "GEMM %zu's C", i);
    }
    fpd_bridge_stop(b);
}

Test(bridge, a_crash_is_the_gemm_it_happened_in) { fails_at_the_fourth("crash", 60, "was killed by signal 11"); }
Test(bridge, a_hang_is_the_gemm_it_happened_in) { fails_at_the_fourth("hang", 1, "did not answer within 1 s"); }
Test(bridge, garbage_is_the_gemm_it_was_written_in)
{
    fails_at_the_fourth("garbage", 60, "sent a line that is no JSON object");
}

/* Six GEMMs of 0.4 s each, 2.4 s in one request, with a second for each: the deadline moves on
 * with every GEMM the server finishes. */
Test(bridge, a_request_of_slow_gemms_is_no_hang)
{
    struct gemms g;
    make_gemms(&g);
    struct fpd_bridge *b = start("slow", 1);
    fpd_bridge_gemm_many(b, GEMMS, g.given, g.status, g.why, WHY);
    for (size_t i = 0; i < GEMMS; i++)
        cr_expect_eq(g.status[i], FPD_OK, "GEMM %zu: %s", i, g.why + i * WHY);
    fpd_bridge_stop(b);
}
