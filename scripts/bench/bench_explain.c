/*
 * bench_explain — how long `fpdiv explain` takes to reveal k = 1024 on OpenBLAS sgemm, at shapes
 * from one dot product to a full 1024^3 GEMM per call, on the kernel set OpenBLAS picks here and
 * on Haswell's (AVX2: what an AVX2-only CPU runs, and whose elements are summed in two orders).
 * Target: under 5 s. Reported: the best of 3 runs (the machine is shared), with the queries and
 * GEMM calls it took, and whether the batched queries were taken as they came ("all"), asked again
 * where elements are summed as the explained one ("narrowed"), or redone one by one ("alone").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/backend_pinned.h"
#include "backends/host.h"
#include "common/clock.h"
#include "explain/probe.h"
#include "explain/reveal.h"

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
            struct fpd_probe p;
            struct fpd_sumtree tree;
            struct fpd_reveal_stats st;
            if (fpd_probe_open(&p, &t, why, sizeof why) != FPD_OK) {
                fprintf(stderr, "bench_explain: %s\n", why);
                return false;
            }
            struct fpd_reveal_oracle o = fpd_probe_oracle(&p);
            double t0 = fpd_now();
            int rc = fpd_reveal(p.leaves, false, &o, false, &tree, &st, why, sizeof why);
            double took = fpd_now() - t0;
            fpd_probe_close(&p);
            if (rc != FPD_OK) {
                fprintf(stderr, "bench_explain: %s %zux%zux%zu: %s\n", name, t.m, t.n, t.k, why);
                return false;
            }
            if (took < best)
                best = took;
            queries = st.queries + st.verify_queries, calls = p.calls;
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

int main(void)
{
    fpd_registry_init();
    fpd_host_set_program(getenv("FPDIV") ? getenv("FPDIV") : "build/fpdiv"); /* the hosts of kernel sets */
    printf("explain: k = 1024, OpenBLAS sgemm (threads: its default), best of 3\n");
    printf("%-18s %-16s %10s %9s %8s  %-9s %s\n", "backend", "shape", "seconds", "queries", "calls", "batching",
           "order");
    bool met = bench_backend("openblas");
    met &= bench_backend("openblas@Haswell");
    printf(met ? "target (< 5 s) met at every shape\n" : "target (< 5 s) MISSED\n");
    fpd_registry_close_all();
    return 0;
}
