/*
 * bench_explain — how long `fpdiv explain` takes to reveal k = 1024 on OpenBLAS sgemm, at shapes
 * from one dot product to a full 1024^3 GEMM per call. Target (the explain issue): under 5 s.
 * Reported: the best of 3 runs (the machine is shared), with the queries and GEMM calls it took.
 */
#include <stdio.h>

#include "backends/backend.h"
#include "common/clock.h"
#include "explain/probe.h"
#include "explain/reveal.h"

int main(void)
{
    static const size_t shapes[][3] = {{1, 1, 1024}, {64, 64, 1024}, {2, 1000, 1024}, {1024, 1024, 1024}};
    fpd_registry_init();
    struct fpd_backend_slot *openblas = fpd_registry_find("openblas");
    printf("explain: k = 1024, OpenBLAS sgemm (threads: its default), best of 3\n");
    printf("%-16s %10s %9s %8s  %s\n", "shape", "seconds", "queries", "calls", "order");
    int failed = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        struct fpd_probe_target t = {.backend = openblas, .dt = {FPD_F32, FPD_F32, FPD_F32}, .batch = 1,
                                     .m = shapes[s][0], .n = shapes[s][1], .k = shapes[s][2]};
        double best = 1e30;
        size_t queries = 0, calls = 0;
        char order[512] = "", why[512];
        for (int rep = 0; rep < 3; rep++) {
            struct fpd_probe p;
            struct fpd_sumtree tree;
            struct fpd_reveal_stats st;
            if (fpd_probe_open(&p, &t, why, sizeof why) != FPD_OK) {
                fprintf(stderr, "bench_explain: %s\n", why);
                return 1;
            }
            struct fpd_reveal_oracle o = fpd_probe_oracle(&p);
            double t0 = fpd_now();
            int rc = fpd_reveal(p.leaves, false, &o, false, &tree, &st, why, sizeof why);
            double took = fpd_now() - t0;
            fpd_probe_close(&p);
            if (rc != FPD_OK) {
                fprintf(stderr, "bench_explain: %zux%zux%zu: %s\n", t.m, t.n, t.k, why);
                return 1;
            }
            if (took < best)
                best = took;
            queries = st.queries + st.verify_queries, calls = p.calls;
            fpd_sumtree_describe(&tree, order, sizeof order);
            fpd_sumtree_free(&tree);
        }
        char shape[64];
        snprintf(shape, sizeof shape, "%zux%zux%zu", t.m, t.n, t.k);
        printf("%-16s %10.3f %9zu %8zu  %s\n", shape, best, queries, calls, order);
        failed |= best >= 5;
    }
    printf(failed ? "target (< 5 s) MISSED\n" : "target (< 5 s) met at every shape\n");
    fpd_registry_close_all();
    return 0;
}
