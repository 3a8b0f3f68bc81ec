/* structured.c — inputs on which rounding errors are not random: see structured.h. */
#include "gen/structured.h"

#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "gen/rng.h"

const char *const fpd_structure_names[FPD_STRUCTURE_COUNT] = {
    [FPD_STRUCT_CONSTANT] = "constant",       [FPD_STRUCT_NEAR_CONSTANT] = "near-constant",
    [FPD_STRUCT_ARITHMETIC] = "arithmetic",   [FPD_STRUCT_GEOMETRIC] = "geometric",
    [FPD_STRUCT_SIGN_BLOCKS] = "sign-blocks", [FPD_STRUCT_ABSORPTION] = "absorption",
    [FPD_STRUCT_INTEGER] = "integer",         [FPD_STRUCT_POWERS_OF_TWO] = "powers-of-two",
    [FPD_STRUCT_SORTED] = "sorted",
};

/* Uniform in [0, 1), 32 bits. */
static double unit(struct fpd_stream *s) { return fpd_stream_u32(s) * 0x1p-32; }

/* A row's scale: in [2^-3, 2^3), a significand of 24 bits times a power of two (no libm: the data
 * are the same with every C library). */
static double scale(struct fpd_stream *s)
{
    return ldexp(1 + (fpd_stream_u32(s) >> 8) * 0x1p-24, (int)fpd_stream_below(s, 6) - 3);
}

/* Approximately standard normal: the sum of four uniforms, centred and scaled (Irwin-Hall). */
static double normal(struct fpd_stream *s) { return (unit(s) + unit(s) + unit(s) + unit(s) - 2) * 1.7320508075688772; }

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Half an ulp of x in type t, for the absorption family: terms just above it are rounded away, or
 * not, one by one. */
static double half_ulp(enum fpd_dtype t, double x)
{
    int e;
    frexp(x, &e);
    return ldexp(1, e - fpd_dtype_info(t)->precision - 1); /* x in [2^(e-1), 2^e): ulp 2^(e-precision) */
}

/* Row i of A, k values, of family f. */
static void row_values(enum fpd_structure f, const struct fpd_dtypes *dt, uint32_t k, struct fpd_stream *s, double *a)
{
    double c = scale(s);
    switch (f) {
    case FPD_STRUCT_CONSTANT:
        for (uint32_t p = 0; p < k; p++)
            a[p] = c;
        break;
    case FPD_STRUCT_NEAR_CONSTANT: {
        static const double etas[] = {0x1p-20, 0x1p-13, 0x1p-7};
        double eta = etas[fpd_stream_below(s, 3)];
        for (uint32_t p = 0; p < k; p++)
            a[p] = c * (1 + eta * (2 * unit(s) - 1));
        break;
    }
    case FPD_STRUCT_ARITHMETIC:
        for (uint32_t p = 0; p < k; p++)
            a[p] = c + (double)p * c * 0x1p-16;
        break;
    case FPD_STRUCT_GEOMETRIC: {
        double v = c;
        for (uint32_t p = 0; p < k; p++, v *= 1 - 0x1p-12)
            a[p] = v;
        break;
    }
    case FPD_STRUCT_SIGN_BLOCKS: {
        static const uint32_t lengths[] = {1, 7, 64, 1024};
        uint32_t length = lengths[fpd_stream_below(s, 4)];
        for (uint32_t p = 0; p < k; p++)
            a[p] = (p / length) % 2 ? -c : c;
        break;
    }
    case FPD_STRUCT_ABSORPTION: {
        uint32_t bulk = k / 2 ? k / 2 : 1;
        double h = half_ulp(dt->acc, (double)bulk);
        for (uint32_t p = 0; p < k; p++)
            a[p] = p < bulk ? 1 : h * (1.0625 + 0.4375 * unit(s));
        break;
    }
    case FPD_STRUCT_INTEGER:
        for (uint32_t p = 0; p < k; p++)
            a[p] = (double)fpd_stream_below(s, 4097) - 2048;
        break;
    case FPD_STRUCT_POWERS_OF_TWO:
        for (uint32_t p = 0; p < k; p++)
            a[p] = ldexp(fpd_stream_u32(s) & 1 ? -1 : 1, (int)fpd_stream_below(s, 21) - 10);
        break;
    default:
        for (uint32_t p = 0; p < k; p++)
            a[p] = c * normal(s);
        qsort(a, k, sizeof *a, by_value);
        break;
    }
}

int fpd_structured_data(enum fpd_structure f, const struct fpd_dtypes *dt, uint32_t m, uint32_t n, uint32_t k,
                        uint64_t seed, struct fpd_case_data *out)
{
    size_t in = fpd_dtype_info(dt->in)->size, outsz = fpd_dtype_info(dt->out)->size;
    *out = (struct fpd_case_data){.batch = 1, .m = m, .n = n, .k = k, .a = calloc((size_t)m * k, in),
                                  .b = calloc((size_t)k * n, in), .bias = calloc(n, outsz)};
    double *row = malloc(k * sizeof *row);
    if (!out->a || !out->b || !out->bias || !row) {
        free(row);
        fpd_case_data_free(out);
        return FPD_ERR_NOMEM;
    }
    struct fpd_stream s;
    fpd_stream_init(&s, seed, (uint32_t)f);
    for (uint32_t i = 0; i < m; i++) {
        row_values(f, dt, k, &s, row);
        for (uint32_t p = 0; p < k; p++)
            fpd_store(dt->in, out->a, (size_t)i * k + p, fpd_round(dt->in, row[p]));
    }
    /* B: a constant per column, or 1 where A's values are the structure (integers, powers of two) */
    bool ones = f == FPD_STRUCT_INTEGER || f == FPD_STRUCT_POWERS_OF_TWO;
    for (uint32_t p = 0; p < k; p++)
        for (uint32_t j = 0; j < n; j++)
            fpd_store(dt->in, out->b, (size_t)p * n + j, ones ? 1 : 1 + (double)(j % 8) / 8);
    free(row);
    return FPD_OK;
}
