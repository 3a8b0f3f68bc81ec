/* vector_width.c — the CPU's widest vector width, and the user's limit on it. */
#include "vector_width.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[FPD_VECTOR_WIDTHS] = {
    [FPD_VECTOR_BASELINE] = "baseline",
    [FPD_VECTOR_AVX2] = "avx2",
    [FPD_VECTOR_AVX512] = "avx512",
};

/* -1 until first asked: the dispatchers read it on every call, from any thread. */
static int in_use = -1;

enum fpd_vector_width fpd_vector_width_of_cpu(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
    /* the levels exactly as gcc's target("arch=x86-64-vN") code assumes them */
    if (__builtin_cpu_supports("x86-64-v4"))
        return FPD_VECTOR_AVX512;
    if (__builtin_cpu_supports("x86-64-v3"))
        return FPD_VECTOR_AVX2;
#else
    bool v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi") &&
              __builtin_cpu_supports("bmi2");
    if (v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return FPD_VECTOR_AVX512;
    if (v3)
        return FPD_VECTOR_AVX2;
#endif
#endif
    return FPD_VECTOR_BASELINE;
}

const char *fpd_vector_width_name(enum fpd_vector_width w)
{
    return (unsigned)w < FPD_VECTOR_WIDTHS ? names[w] : "?";
}

static int parse(const char *text)
{
    for (int w = 0; w < FPD_VECTOR_WIDTHS; w++)
        if (strcmp(text, names[w]) == 0)
            return w;
    return -1;
}

int fpd_vector_width_limit(enum fpd_vector_width w, char *err, size_t errlen)
{
    enum fpd_vector_width cpu = fpd_vector_width_of_cpu();
    if ((unsigned)w >= FPD_VECTOR_WIDTHS || w > cpu) {
        snprintf(err, errlen, "this CPU's widest vector path is %s: it cannot run %s", names[cpu],
                 fpd_vector_width_name(w));
        return -1;
    }
    __atomic_store_n(&in_use, (int)w, __ATOMIC_RELAXED);
    return 0;
}

int fpd_vector_width_from_environment(char *err, size_t errlen)
{
    const char *text = getenv(FPD_VECTOR_WIDTH_ENV);
    if (!text || !*text)
        return fpd_vector_width_limit(fpd_vector_width_of_cpu(), err, errlen);
    int w = parse(text);
    if (w < 0) {
        snprintf(err, errlen, "%s=%s: expected avx512, avx2 or baseline", FPD_VECTOR_WIDTH_ENV, text);
        return -1;
    }
    char why[128];
    if (fpd_vector_width_limit((enum fpd_vector_width)w, why, sizeof why) < 0) {
        snprintf(err, errlen, "%s=%s: %s", FPD_VECTOR_WIDTH_ENV, text, why);
        return -1;
    }
    return 0;
}

enum fpd_vector_width fpd_vector_width(void)
{
    int w = __atomic_load_n(&in_use, __ATOMIC_RELAXED);
    if (w >= 0)
        return (enum fpd_vector_width)w;
    char ignored[160];
    if (fpd_vector_width_from_environment(ignored, sizeof ignored) < 0)
        fpd_vector_width_limit(fpd_vector_width_of_cpu(), ignored, sizeof ignored);
    return (enum fpd_vector_width)__atomic_load_n(&in_use, __ATOMIC_RELAXED);
}
