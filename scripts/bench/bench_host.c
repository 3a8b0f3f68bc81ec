/*
 * bench_host — what a GEMM costs when a host serves it (another kernel set: the core relation,
 * a replay of a case recorded on another CPU) against the same GEMM in fpdiv's own process. Both
 * run OpenBLAS's kernel set this CPU picks, on one thread, side by side in one run; the difference
 * is the round trip: the request, copying the operands into shared memory and C back, and the two
 * wake-ups. Needs the fpdiv binary to start the host: FPDIV (default build/fpdiv).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/backend_pinned.h"
#include "backends/builtin.h"
#include "backends/host.h"
#include "time_best.h"

int main(void)
{
    static const size_t shapes[] = {1, 16, 64, 256, 1024};
    char why[512], set[48];
    fpd_registry_init();
    fpd_host_set_program(getenv("FPDIV") ? getenv("FPDIV") : "build/fpdiv");
    struct fpd_backend_slot *openblas = fpd_registry_find("openblas");
    const char *native = openblas ? fpd_backend_native_kernel_set(openblas) : NULL;
    if (!native) {
        fprintf(stderr, "bench_host: OpenBLAS names no kernel set here\n");
        return 1;
    }
    snprintf(set, sizeof set, "%s", native);
    struct fpd_host *host;
    if (fpd_host_start("openblas", "openblas", openblas->impl->kernel_set_env, set, 60, &host, why, sizeof why) != FPD_OK) {
        fprintf(stderr, "bench_host: %s\n", why);
        return 1;
    }
    printf("host: f32 GEMM n x n x n on OpenBLAS's %s kernels, 1 thread: in fpdiv's process and in a host\n", set);
    printf("(best of 5 runs of at least 0.2 s each)\n");
    printf("%6s %14s %14s %14s %8s\n", "n", "in-process us", "host us", "round trip us", "ratio");
    int failed = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t n = shapes[s];
        float *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b), *c = malloc(n * n * sizeof *c);
        for (size_t i = 0; i < n * n; i++)
            a[i] = (float)(i % 7) - 3, b[i] = (float)(i % 5) - 2;
        struct fpd_gemm_args g = {.dt = {FPD_F32, FPD_F32, FPD_F32}, .batch = 1, .m = n, .n = n, .k = n, .a = a,
                                  .lda = n, .stride_a = n * n, .b = b, .ldb = n, .stride_b = n * n, .c = c, .ldc = n,
                                  .stride_c = n * n, .threads = 1};
        double here, there;
        TIME_BEST(here, failed |= fpd_backend_gemm(openblas, &g, why, sizeof why));
        TIME_BEST(there, failed |= fpd_host_gemm(host, &g, 0, why, sizeof why));
        printf("%6zu %14.2f %14.2f %14.2f %8.2f\n", n, here * 1e6, there * 1e6, (there - here) * 1e6, there / here);
        free(a), free(b), free(c);
    }
    fpd_host_stop(host);
    fpd_registry_close_all();
    if (failed)
        fprintf(stderr, "bench_host: a GEMM failed: %s\n", why);
    return failed ? 1 : 0;
}
