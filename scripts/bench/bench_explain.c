/*
 * bench_explain — how long `fpdiv explain` takes to reveal k = 1024 on OpenBLAS sgemm, at shapes
 * from one dot product to a full 1024^3 GEMM per call, on the kernel set OpenBLAS picks here, on
 * Haswell's (AVX2: what an AVX2-only CPU runs, and whose elements are summed in two orders) and,
 * where the CPU has AVX-512, on SkylakeX's (what OpenBLAS picks on AVX-512 Intel CPUs).
 * Target: under 5 s. Reported: the best of 3 runs (the machine is shared), with the queries and
 * GEMM calls it took, and whether the batched queries were taken as they came ("all"), asked again
 * where elements are summed as the explained one ("narrowed"), or redone one by one ("alone").
 *
 * With FPREV set to a checkout of FPRev (https://github.com/peichenxie/FPRev, the published
 * order-revealing tool, kept outside this project), also side by side with it, one thread each,
 * on the same OpenBLAS (the system's, which Debian's NumPy calls): at each shape fpdiv's reveal in
 * this process against FPRev's fprev() in NumPy (scripts/bench/fprev_gemm.py), timed the same way
 * (the algorithm alone, no process start), and whether their trees are the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/backend.h"
#include "backends/backend_pinned.h"
#include "backends/builtin.h"
#include "backends/host.h"
#include "common/clock.h"
#include "cpu/vector_width.h"
#include "explain/probe.h"
#include "explain/reveal.h"

/* One reveal of t's element: its time in *took, its tree (the caller frees it), its statistics and
 * the GEMM calls it made; false, said on stderr, where the probe or the reveal failed. */
static bool reveal_timed(const char *name, const struct fpd_probe_target *t, double *took, struct fpd_sumtree *tree,
                         struct fpd_reveal_stats *st, size_t *calls)
{
    struct fpd_probe p;
    char why[512];
    if (fpd_probe_open(&p, t, why, sizeof why) != FPD_OK) {
        fprintf(stderr, "bench_explain: %s\n", why);
        return false;
    }
    struct fpd_reveal_oracle o = fpd_probe_oracle(&p);
    double t0 = fpd_now();
    int rc = fpd_reveal(p.leaves, false, &o, false, tree, st, why, sizeof why);
    *took = fpd_now() - t0;
    *calls = p.calls;
    fpd_probe_close(&p);
    if (rc != FPD_OK)
        fprintf(stderr, "bench_explain: %s %zux%zux%zu: %s\n", name, t->m, t->n, t->k, why);
    return rc == FPD_OK;
}

/* One backend at every shape: false when one took 5 s or more. */
static bool bench_backend(const char *name)
{
    static const size_t shapes[][3] = {{1, 1, 1024}, {16, 64, 1024}, {64, 64, 1024}, {2, 1000, 1024},
                                       {1024, 1024, 1024}};
    /* the library in this process as picked here, as before; a kernel set in a host of its own */
    struct fpd_backend_slot *backend = strchr(name, '@') ? NULL : fpd_registry_find(name);
    char why[512];
    if (!backend && fpd_backend_resolve(name, &backend, why, sizeof why) != FPD_OK) {
        fprintf(stderr, "bench_explain: %s\n", why);
        return false;
    }
    bool met = true;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        struct fpd_probe_target t = {.backend = backend, .dt = {FPD_F32, FPD_F32, FPD_F32}, .batch = 1,
                                     .m = shapes[s][0], .n = shapes[s][1], .k = shapes[s][2]};
        double best = 1e30;
        size_t queries = 0, calls = 0;
        const char *batching = "";
        char order[512] = "";
        for (int rep = 0; rep < 3; rep++) {
            struct fpd_sumtree tree;
            struct fpd_reveal_stats st;
            double took;
            if (!reveal_timed(name, &t, &took, &tree, &st, &calls))
                return false;
            if (took < best)
                best = took;
            queries = st.queries + st.verify_queries;
            batching = !st.batch_mismatch ? "all" : st.alone ? "alone" : "narrowed";
            fpd_sumtree_describe(&tree, order, sizeof order);
            fpd_sumtree_free(&tree);
        }
        char shape[64];
        snprintf(shape, sizeof shape, "%zux%zux%zu", t.m, t.n, t.k);
        printf("%-18s %-16s %10.3f %9zu %8zu  %-9s %s\n", name, shape, best, queries, calls, batching, order);
        met &= best < 5;
    }
    return met;
}

/* One fpdiv reveal of element (0,0) at m x n x k; its time, and its tree in `dot` (or -1). */
static double reveal_once(struct fpd_backend_slot *backend, size_t m, size_t n, size_t k, const char *dot)
{
    /* NumPy's matmul of one row by one column is a dot: FPRev's queries take that route */
    struct fpd_probe_target t = {.backend = backend, .dt = {FPD_F32, FPD_F32, FPD_F32}, .batch = 1, .m = m,
                                 .n = n, .k = k, .threads = 1,
                                 .route = m == 1 && n == 1 ? FPD_ROUTE_DOT : FPD_ROUTE_GEMM};
    struct fpd_sumtree tree;
    struct fpd_reveal_stats st;
    double took;
    size_t calls;
    if (!reveal_timed("openblas", &t, &took, &tree, &st, &calls))
        return -1;
    FILE *f = fopen(dot, "w");
    if (!f || fpd_sumtree_write_dot(&tree, f, "fpdiv") != 0 || fclose(f) != 0) {
        fprintf(stderr, "bench_explain: cannot write %s\n", dot);
        took = -1;
    }
    fpd_sumtree_free(&tree);
    return took;
}

/* fpdiv against FPRev at each shape, one thread each; false where fpdiv is not 10x as fast. */
static bool versus_fprev(const char *fprev)
{
    static const size_t shapes[][3] = {{1, 1, 1024}, {16, 64, 1024}, {64, 64, 1024}, {2, 1000, 1024},
                                       {256, 256, 1024}, {1024, 1024, 1024}};
    struct fpd_backend_slot *backend = fpd_registry_find("openblas");
    char dot[] = "/tmp/bench_explain_XXXXXX";
    int fd = mkstemp(dot);
    if (!backend || fd < 0) {
        fprintf(stderr, "bench_explain: %s\n", backend ? "no temporary file" : "no openblas backend");
        return false;
    }
    close(fd);
    setenv("OPENBLAS_NUM_THREADS", "1", 1); /* NumPy's, as it loads; fpdiv's probe asks for one thread */
    printf("\nagainst FPRev (%s), one thread each, OpenBLAS sgemm element (0,0); fpdiv best of 3, FPRev best of 3\n"
           "(of 1 from 256x256x1024 on: a run takes seconds)\n",
           fprev);
    printf("%-16s %10s %10s %9s %9s  %s\n", "shape", "fpdiv s", "FPRev s", "speed-up", "FPRev q", "same tree");
    bool met = true;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        double best = 1e30;
        for (int rep = 0; rep < 3; rep++) {
            double took = reveal_once(backend, m, n, k, dot);
            if (took < 0)
                return false;
            best = took < best ? took : best;
        }
        char command[1024], answer[256] = "";
        snprintf(command, sizeof command, "/usr/bin/python3 scripts/bench/fprev_gemm.py '%s' %zu %zu %zu %s %d", fprev,
                 m, n, k, dot, m * n >= 256 * 256 ? 1 : 3);
        FILE *py = popen(command, "r");
        double fprev_s = 0;
        unsigned long queries = 0;
        char agree[8] = "?";
        if (!py || !fgets(answer, sizeof answer, py) ||
            sscanf(answer, "seconds %lf queries %lu agree %7s", &fprev_s, &queries, agree) != 3) {
            fprintf(stderr, "bench_explain: FPRev did not answer (%s): %s\n", command, answer);
            if (py)
                pclose(py);
            return false;
        }
        pclose(py);
        char shape[64];
        snprintf(shape, sizeof shape, "%zux%zux%zu%s", m, n, k, m == 1 && n == 1 ? " dot" : "");
        printf("%-16s %10.4f %10.4f %8.1fx %9lu  %s\n", shape, best, fprev_s, fprev_s / best, queries, agree);
        met &= fprev_s >= 10 * best && strcmp(agree, "yes") == 0;
    }
    unlink(dot);
    return met;
}

int main(void)
{
    fpd_registry_init();
    fpd_host_set_program(getenv("FPDIV") ? getenv("FPDIV") : "build/fpdiv"); /* the hosts of kernel sets */
    printf("explain: k = 1024, OpenBLAS sgemm (threads: its default), best of 3\n");
    printf("%-18s %-16s %10s %9s %8s  %-9s %s\n", "backend", "shape", "seconds", "queries", "calls", "batching",
           "order");
    bool met = bench_backend("openblas");
    met &= bench_backend("openblas@Haswell");
    if (fpd_vector_width_of_cpu() == FPD_VECTOR_AVX512) /* the AVX-512 class's, whatever OpenBLAS picked */
        met &= bench_backend("openblas@SkylakeX");
    else
        printf("openblas@SkylakeX: unmeasured (this CPU has no AVX-512)\n");
    printf(met ? "target (< 5 s) met at every shape\n" : "target (< 5 s) MISSED\n");
    const char *fprev = getenv("FPREV");
    if (!fprev || !*fprev)
        printf("\nagainst FPRev: unmeasured (set FPREV to a checkout of https://github.com/peichenxie/FPRev)\n");
    else
        printf(versus_fprev(fprev) ? "target (10x FPRev, the same tree) met at every shape\n"
                                   : "target (10x FPRev, the same tree) MISSED\n");
    fpd_registry_close_all();
    return 0;
}
