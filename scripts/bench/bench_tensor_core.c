/*
 * bench_tensor_core — products per second of the tensor-core models (tc-*) against the own `seq`
 * kernel, each as its backend computes a GEMM (the inputs staged from f16 or bf16 as a check stages
 * them), side by side in one run on the same shapes and data: random values of the input type,
 * so that blocks align and round as they do on a campaign's data. Issue 56's target: every model
 * at least one third of seq's products/s. Reported: the best of several timed repetitions, after
 * a warm-up call.
 */
#include <stdio.h>
#include <stdlib.h>

#include "backends/backend.h"
#include "backends/builtin.h"
#include "common/dtype.h"
#include "time_best.h"

static int gemm(struct fpd_backend_slot *slot, const struct fpd_gemm_args *g)
{
    char why[256];
    int rc = fpd_backend_gemm(slot, g, why, sizeof why);
    if (rc != FPD_OK)
        fprintf(stderr, "bench_tensor_core: %s: %s\n", slot->impl->name, why);
    return rc;
}

int main(void)
{
    static const char *const backends[] = {"seq", "tc-v100", "tc-a100", "tc-ada", "tc-h100", "tc-b200", "tc-b200rn"};
    static const struct {
        size_t m, n, k;
    } shapes[] = {{64, 64, 64}, {256, 256, 1024}};
    static const struct fpd_dtypes types[] = {{FPD_F16, FPD_F32, FPD_F32}, {FPD_BF16, FPD_F32, FPD_F32}};
    fpd_registry_init();
    printf("tensor-core models against seq, one thread, G products/s, best of 5 (share: of seq's)\n");
    printf("  %-10s %-15s %-8s %10s %7s\n", "backend", "m x n x k", "dtype", "Gprod/s", "share");
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
            size_t m = shapes[s].m, n = shapes[s].n, k = shapes[s].k;
            struct fpd_dtypes dt = types[t];
            uint16_t *a = malloc(m * k * 2), *b = malloc(k * n * 2);
            float *c = malloc(m * n * sizeof *c);
            if (!a || !b || !c)
                return 1;
            unsigned x = 12345;
            for (size_t i = 0; i < m * k; i++, x = x * 1103515245 + 12345)
                fpd_store(dt.in, a, i, ldexp((double)(x >> 8 & 0xffff) / 65536 - 0.5, (int)(x >> 28) % 4));
            for (size_t i = 0; i < k * n; i++, x = x * 1103515245 + 12345)
                fpd_store(dt.in, b, i, ldexp((double)(x >> 8 & 0xffff) / 65536 - 0.5, (int)(x >> 28) % 4));
            struct fpd_gemm_args g = {.dt = dt, .batch = 1, .m = m, .n = n, .k = k, .a = a, .lda = k, .stride_a = m * k,
                                      .b = b, .ldb = n, .stride_b = k * n, .c = c, .ldc = n, .stride_c = m * n};
            double seq = 0;
            for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++) {
                struct fpd_backend_slot *slot = fpd_registry_find(backends[i]);
                char why[256];
                if (!slot || fpd_backend_acquire(slot) != FPD_OK || !fpd_backend_supports(slot, &dt, why, sizeof why))
                    continue; /* tc-v100 takes no bf16 */
                double best;
                TIME_BEST(best, gemm(slot, &g));
                double rate = (double)m * n * k / best * 1e-9;
                seq = i == 0 ? rate : seq;
                char shape[32];
                snprintf(shape, sizeof shape, "%zux%zux%zu", m, n, k);
                printf("  %-10s %-15s %-8s %10.3f %6.0f%%\n", backends[i], shape, fpd_dtype_info(dt.in)->name, rate,
                       100 * rate / seq);
            }
            free(a), free(b), free(c);
        }
    fpd_registry_close_all();
    return 0;
}
