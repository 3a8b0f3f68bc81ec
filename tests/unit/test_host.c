/* Hosts: a backend served by another fpdiv process with an environment of its own (host.h). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/backend_pinned.h"
#include "backends/builtin.h"
#include "backends/host.h"
#include "backends/plugin.h"
#include "common/dtype.h"
#include "helpers.h"

static void setup(void)
{
    fpd_registry_init();
    load_kernel_sets_plugin();
}

static void teardown(void) { fpd_registry_close_all(); }

/* A 2-entry batched f64 GEMM, 7x9x300, B transposed, with padding: C gets canaries in its padding. */
struct problem {
    double a[2 * 7 * 301], b[2 * 9 * 301], bias[9], c[2 * 7 * 10 + 16];
    struct fpd_gemm_args g;
};

#define CANARY (-12345.0)
static bool canary(double x) { return x <= CANARY && x >= CANARY; }

static void make(struct problem *p)
{
    for (size_t i = 0; i < sizeof p->a / sizeof p->a[0]; i++)
        p->a[i] = sin((double)i) * 3;
    for (size_t i = 0; i < sizeof p->b / sizeof p->b[0]; i++)
        p->b[i] = cos((double)i * 0.7);
    for (size_t j = 0; j < 9; j++)
        p->bias[j] = (double)j / 3;
    for (size_t i = 0; i < sizeof p->c / sizeof p->c[0]; i++)
        p->c[i] = CANARY;
    p->g = (struct fpd_gemm_args){
        .dt = {FPD_F64, FPD_F64, FPD_F64}, .batch = 2, .m = 7, .n = 9, .k = 300, .trans_b = true,
        .a = p->a, .lda = 301, .stride_a = 7 * 301, .b = p->b, .ldb = 301, .stride_b = 9 * 301,
        .c = p->c, .ldc = 10, .stride_c = 70, .bias = p->bias, .threads = 1,
    };
}

/* The same GEMM in fpdiv's process and in a host on the same kernel set: the same bits, padding
 * untouched. OpenBLAS on the kernel set it picks here; and the test plugin. */
Test(host, a_host_computes_what_the_process_computes, .init = setup, .fini = teardown)
{
    const char *names[] = {"openblas", "ksets"};
    for (size_t n = 0; n < 2; n++) {
        struct fpd_backend_slot *base = fpd_registry_find(names[n]);
        cr_assert_not_null(base);
        cr_assert_eq(fpd_backend_acquire(base), FPD_OK);
        const char *set = fpd_backend_native_kernel_set(base);
        cr_assert_not_null(set, "%s names no kernel set", names[n]);
        char why[512], native[48];
        snprintf(native, sizeof native, "%s", set);
        static struct problem here, there;
        make(&here), make(&there);
        cr_assert_eq(fpd_backend_gemm(base, &here.g, why, sizeof why), FPD_OK, "%s", why);
        struct fpd_host *h;
        cr_assert_eq(fpd_host_start(names[n], names[n], base->impl->kernel_set_env, native, 30, &h, why, sizeof why),
                     FPD_OK, "%s", why);
        cr_assert_eq(fpd_host_gemm(h, &there.g, 30, why, sizeof why), FPD_OK, "%s", why);
        cr_expect(memcmp(here.c, there.c, sizeof here.c) == 0, "%s on %s: the host's bits differ", names[n], native);
        cr_expect(canary(there.c[9]) && canary(there.c[sizeof there.c / sizeof there.c[0] - 1]),
                  "the host wrote into C's padding or past it");
        fpd_host_stop(h);
    }
}

Test(host, a_host_that_dies_is_named_with_its_signal, .init = setup, .fini = teardown)
{
    struct fpd_host *h;
    char why[512];
    cr_assert_eq(fpd_host_start("ksets@crashes", "ksets", "FPDIV_TEST_KERNEL_SET", "crashes", 30, &h, why, sizeof why),
                 FPD_OK, "%s", why);
    static struct problem p;
    make(&p);
    cr_expect_eq(fpd_host_gemm(h, &p.g, 30, why, sizeof why), FPD_ERR_BACKEND);
    cr_expect(strstr(why, "the host process running ksets@crashes was killed by signal 4"), "%s", why);
    cr_expect(!fpd_host_usable(h));
    cr_expect_eq(fpd_host_gemm(h, &p.g, 30, why, sizeof why), FPD_ERR_BACKEND, "a dead host computes nothing");
    fpd_host_stop(h);
    /* what a host writes to its stderr is the end of its reason, not noise on fpdiv's */
    cr_assert_eq(fpd_host_start("ksets@complains", "ksets", "FPDIV_TEST_KERNEL_SET", "complains", 30, &h, why,
                                sizeof why),
                 FPD_OK, "%s", why);
    cr_expect_eq(fpd_host_gemm(h, &p.g, 30, why, sizeof why), FPD_ERR_BACKEND);
    cr_expect(strstr(why, "ksets@complains was killed by signal 6 (Aborted), saying: ksets: kernel workspace exhausted"),
              "%s", why);
    fpd_host_stop(h);
}

Test(host, a_write_past_c_is_caught, .init = setup, .fini = teardown)
{
    struct fpd_host *h;
    char why[512];
    cr_assert_eq(fpd_host_start("ksets@scribbles", "ksets", "FPDIV_TEST_KERNEL_SET", "scribbles", 30, &h, why,
                                sizeof why),
                 FPD_OK, "%s", why);
    static struct problem p;
    make(&p);
    p.g.ldc = p.g.n, p.g.stride_c = p.g.m * p.g.n; /* no padding: the element after C is past it */
    cr_expect_eq(fpd_host_gemm(h, &p.g, 30, why, sizeof why), FPD_ERR_BACKEND);
    cr_expect(strstr(why, "ksets@scribbles wrote past the end of C"), "%s", why);
    cr_expect(canary(p.c[2 * 7 * 9]), "the caller's memory past C was written");
    fpd_host_stop(h);
}

/* A kernel set is usable only once probed in a host: one that dies, one the library does not
 * take, one that scribbles, each unavailable with its reason; the good ones open. */
Test(host, pinned_kernel_sets_are_probed, .init = setup, .fini = teardown)
{
    static const struct {
        const char *name, *why;
    } sets[] = {
        {"ksets@forward", NULL},
        {"ksets@reverse", NULL},
        {"ksets@crashes", "this CPU cannot run ksets's kernel set crashes: a probe GEMM there was killed by signal 4"},
        {"ksets@liar", "ksets cannot pin liar here: FPDIV_TEST_KERNEL_SET=liar selects forward"},
        {"ksets@scribbles", "this CPU cannot run ksets's kernel set scribbles: ksets@scribbles wrote past the end of C"},
        {"ksets@unheard_of", "(not a kernel set fpdiv knows it by: fpdiv env lists them)"},
    };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        struct fpd_backend_slot *s;
        char why[512];
        cr_assert_eq(fpd_backend_resolve(sets[i].name, &s, why, sizeof why), FPD_OK, "%s", why);
        int rc = fpd_backend_acquire(s);
        if (!sets[i].why) {
            cr_expect_eq(rc, FPD_OK, "%s: %s", sets[i].name, s->why);
        } else {
            cr_expect_eq(rc, FPD_ERR_UNAVAILABLE, "%s opened", sets[i].name);
            cr_expect(strstr(s->why, sets[i].why), "%s: '%s' lacks '%s'", sets[i].name, s->why, sets[i].why);
        }
    }
    struct fpd_backend_slot *s;
    char why[512];
    cr_expect_eq(fpd_backend_resolve("seq@Haswell", &s, why, sizeof why), FPD_ERR_INPUT);
    cr_expect(strstr(why, "has no kernel sets to pin"), "%s", why);
    cr_expect_eq(fpd_backend_resolve("nope@Haswell", &s, why, sizeof why), FPD_ERR_INPUT);
    cr_expect(strstr(why, "unknown backend 'nope'"), "%s", why);
    /* a plain name is the kernel set the library picks in this process */
    cr_assert_eq(fpd_backend_resolve("ksets", &s, why, sizeof why), FPD_OK, "%s", why);
    cr_expect_str_eq(s->impl->name, "ksets@forward");
}

/* A process forked from the one that started a pinned backend's host starts its own: the two never
 * share a socket. The child's GEMMs give the parent's bits. */
Test(host, a_forked_process_starts_its_own_host, .init = setup, .fini = teardown, .timeout = 60)
{
    struct fpd_backend_slot *s;
    char why[512];
    cr_assert_eq(fpd_backend_resolve("ksets@reverse", &s, why, sizeof why), FPD_OK, "%s", why);
    cr_assert_eq(fpd_backend_acquire(s), FPD_OK, "%s", s->why);
    static struct problem parent, child;
    make(&parent);
    cr_assert_eq(fpd_backend_gemm(s, &parent.g, why, sizeof why), FPD_OK, "%s", why);
    int pipefd[2];
    cr_assert_eq(pipe(pipefd), 0);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        make(&child);
        char reason[512];
        int ok = fpd_backend_gemm(s, &child.g, reason, sizeof reason) == FPD_OK &&
                 memcmp(parent.c, child.c, sizeof child.c) == 0;
        ssize_t w = write(pipefd[1], ok ? "y" : "n", 1);
        _exit(w == 1 ? 0 : 1);
    }
    close(pipefd[1]); /* a child that dies before it answers ends the read */
    char answer = 0;
    cr_expect_eq(read(pipefd[0], &answer, 1), 1);
    close(pipefd[0]);
    int status = 0;
    cr_expect_eq(waitpid(pid, &status, 0), pid);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child ended with status 0x%x", status);
    cr_expect_eq(answer, 'y', "the child's GEMM failed or gave other bits");
    /* the parent's host still answers it */
    make(&child);
    cr_expect_eq(fpd_backend_gemm(s, &child.g, why, sizeof why), FPD_OK, "%s", why);
    cr_expect(memcmp(parent.c, child.c, sizeof child.c) == 0);
}
