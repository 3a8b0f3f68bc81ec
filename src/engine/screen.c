/* screen.c — the improbable tier's screen, a row at a time (screen.h). */
#include "engine/screen.h"

#include "common/dtype.h"
#include "cpu/clones.h"

/* One copy per output type and vector width: the loads of a constant type, and the screen's
 * constants in locals, which the stores to maybe[] cannot alias, vectorize. */
#define SCREEN_PARAMS                                                                              \
    (const struct fpd_screen *s, const void *a, const void *b, const double *g, size_t n, double largest, bool *maybe)
#define TYPE_CLONES(T, suffix)                                                                     \
    FPD_VECTOR_WIDTH_FUNCTION(void, screen_##suffix, SCREEN_PARAMS, (s, a, b, g, n, largest, maybe)) \
    {                                                                                              \
        const struct fpd_screen local = *s;                                                        \
        for (size_t j = 0; j < n; j++) {                                                           \
            double rest;                                                                           \
            maybe[j] = fpd_screen_element(&local, fpd_load(T, a, j), fpd_load(T, b, j), g[j], largest, &rest); \
        }                                                                                          \
    }
TYPE_CLONES(FPD_F64, f64)
TYPE_CLONES(FPD_F32, f32)
TYPE_CLONES(FPD_F16, f16)
TYPE_CLONES(FPD_BF16, bf16)
#undef TYPE_CLONES
#undef SCREEN_PARAMS

void fpd_screen_row(const struct fpd_screen *s, enum fpd_dtype t, const void *a, const void *b, const double *g,
                    size_t n, double largest, bool *maybe)
{
    static void (*const by_type[FPD_DTYPE_COUNT])(const struct fpd_screen *, const void *, const void *,
                                                  const double *, size_t, double, bool *) = {
        [FPD_F64] = screen_f64, [FPD_F32] = screen_f32, [FPD_F16] = screen_f16, [FPD_BF16] = screen_bf16};
    by_type[t](s, a, b, g, n, largest, maybe);
}
