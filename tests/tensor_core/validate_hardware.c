/*
 * validate_hardware.c — the tensor-core models (kernels/cpu/tensor_core.h) against measurements
 * on the GPUs themselves: the model_validation/ data of north-numerical-computing/MATLAB-tensor-core,
 * which fpdiv does not carry. Each measurement is one block, d = c + sum a_i b_i.
 *
 * Usage: build/tc-validate GPU INPUT OUTPUT A B C D   (scripts/validate-tensor-cores.sh runs it
 * over a checkout of that repository: A and B hold the block's inputs as fp32 words in hex, K to
 * a line; C and D the fp32 c (rounded to fp16 first for an fp16 output, as the measurement did)
 * and the GPU's d, one 32-bit binary string to a line). Prints how many of the blocks the model
 * gives other bits for; exit status 1 when any, 2 on bad input.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/builtin.h"
#include "common/dtype.h"
#include "cpu/tensor_core.h"

/* Which backend models each GPU of the measurements: its parameters are the backend's own. */
static const struct {
    const char *gpu, *backend;
} gpus[] = {
    {"V100", "tc-v100"}, {"A100", "tc-a100"}, {"A2", "tc-a100"},  {"A30", "tc-a100"},  {"Ada", "tc-ada"},
    {"L40S", "tc-ada"},  {"H100", "tc-h100"}, {"H200", "tc-h100"}, {"B200", "tc-b200"}, {"B200RN", "tc-b200rn"},
};

/* Up to `max` fp32 words of `path`, as hex (binary: false) or 32-bit binary strings. */
static size_t read_words(const char *path, bool binary, float *out, size_t max)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "tc-validate: %s: cannot open\n", path);
        exit(2);
    }
    size_t n = 0;
    char word[64];
    while (n < max && fscanf(f, "%63s", word) == 1) {
        uint32_t u = (uint32_t)strtoul(word, NULL, binary ? 2 : 16);
        memcpy(&out[n++], &u, sizeof u);
    }
    fclose(f);
    return n;
}

enum { MAX_WORDS = 1 << 20 };

int main(int argc, char **argv)
{
    if (argc != 8) {
        fprintf(stderr, "usage: tc-validate GPU fp16|bf16 fp32|fp16 A B C D\n");
        return 2;
    }
    fpd_registry_init();
    size_t g = 0;
    while (g < sizeof gpus / sizeof gpus[0] && strcmp(gpus[g].gpu, argv[1]) != 0)
        g++;
    bool f16_in = strcmp(argv[2], "fp16") == 0, f16_out = strcmp(argv[3], "fp16") == 0;
    if (g == sizeof gpus / sizeof gpus[0] || (!f16_in && strcmp(argv[2], "bf16") != 0) ||
        (!f16_out && strcmp(argv[3], "fp32") != 0)) {
        fprintf(stderr, "tc-validate: no model for %s %s -> %s\n", argv[1], argv[2], argv[3]);
        return 2;
    }
    static float a[MAX_WORDS], b[MAX_WORDS], c[MAX_WORDS], d[MAX_WORDS];
    size_t na = read_words(argv[4], false, a, MAX_WORDS), nb = read_words(argv[5], false, b, MAX_WORDS);
    size_t nc = read_words(argv[6], true, c, MAX_WORDS), nd = read_words(argv[7], true, d, MAX_WORDS);
    if (nc == 0 || nc != nd || na != nb || na % nc != 0) {
        fprintf(stderr, "tc-validate: %zu and %zu inputs for %zu c and %zu d\n", na, nb, nc, nd);
        return 2;
    }
    struct fpd_dtypes dt = {f16_in ? FPD_F16 : FPD_BF16, f16_out ? FPD_F16 : FPD_F32, f16_out ? FPD_F16 : FPD_F32};
    struct fpd_backend_slot *slot = fpd_registry_find(gpus[g].backend);
    struct fpd_rounding r;
    char why[256];
    if (!slot || fpd_backend_acquire(slot) != FPD_OK || !fpd_backend_supports(slot, &dt, why, sizeof why)) {
        fprintf(stderr, "tc-validate: %s does not model %s %s -> %s\n", gpus[g].backend, argv[1], argv[2], argv[3]);
        return 2;
    }
    fpd_backend_rounding(slot, &dt, &r);
    const struct fpd_dtype_info *acc = fpd_dtype_info(dt.acc);
    struct fpd_tc_arith t = {.block = r.block, .extra_bits = r.extra_bits, .min_exp = r.min_exp,
                             .toward_zero = r.toward_zero, .in_emin = fpd_dtype_info(dt.in)->emin,
                             .in_fraction_bits = fpd_dtype_info(dt.in)->precision - 1, .acc_precision = acc->precision,
                             .acc_emin = acc->emin, .acc_emax = acc->emax};
    size_t k = na / nc, differ = 0;
    for (size_t i = 0; i < nc; i++) {
        double ci = f16_out ? fpd_f16_to_double(fpd_f16_from_double(c[i])) : c[i];
        float got = (float)fpd_tc_dot(&t, a + i * k, 1, b + i * k, 1, k, ci);
        if (memcmp(&got, &d[i], sizeof got) != 0 && !(isnan(got) && isnan(d[i]))) {
            if (differ++ < 3)
                printf("  block %zu: model %a, GPU %a\n", i, (double)got, (double)d[i]);
        }
    }
    printf("%s %s -> %s: %zu blocks of %zu, %zu differ\n", argv[1], argv[2], argv[3], nc, k, differ);
    return differ != 0;
}
