/* case.c — the case struct's geometry, parsing and validation. */
#include "engine/case.h"

#include <errno.h>
#include <math.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/scratch.h"
#include "gen/rng.h"

void fpd_case_defaults(struct fpd_case *c)
{
    *c = (struct fpd_case){
        .batch = 1, .m = 1, .n = 1, .k = 1,
        .dt = {FPD_F32, FPD_F32, FPD_F32},
        .recipe = {.generator = FPD_GEN_VERSION, .seed = 1, .index = 0, .dist = FPD_DIST_NORMAL, .special_rate = 0},
    };
}

struct fpd_layout fpd_case_layout(const struct fpd_case *c)
{
    struct fpd_layout l;
    l.a_rows = c->trans_a ? c->k : c->m;
    l.a_cols = c->trans_a ? c->m : c->k;
    l.lda = fpd_leading_dimension(l.a_cols, c->pad);
    l.stride_a = l.a_rows * l.lda;
    l.b_rows = c->trans_b ? c->n : c->k;
    l.b_cols = c->trans_b ? c->k : c->n;
    l.ldb = fpd_leading_dimension(l.b_cols, c->pad);
    l.stride_b = l.b_rows * l.ldb;
    return l;
}

int fpd_shape_parse(const char *text, struct fpd_case *c, char *why, size_t why_size)
{
    static const char *const names[] = {"batch", "m", "n", "k"};
    unsigned long long dims[4];
    int count = 0;
    const char *p = text;
    for (;;) {
        if (count == 4) {
            snprintf(why, why_size, "shape '%s' has more than four dimensions ([BATCHx]MxNxK)", text);
            return FPD_ERR_INPUT;
        }
        if (*p < '0' || *p > '9') {
            snprintf(why, why_size, "shape '%s': expected a positive integer at column %d", text,
                     (int)(p - text) + 1);
            return FPD_ERR_INPUT;
        }
        char *end;
        errno = 0;
        dims[count] = strtoull(p, &end, 10);
        if (errno == ERANGE || dims[count] > FPD_MAX_DIM) {
            snprintf(why, why_size, "shape '%s': dimension %d is larger than %u", text, count + 1, FPD_MAX_DIM);
            return FPD_ERR_INPUT;
        }
        count++;
        p = end;
        if (*p == '\0')
            break;
        if (*p != 'x' && *p != 'X') {
            snprintf(why, why_size, "shape '%s': unexpected '%c' at column %d (write [BATCHx]MxNxK)", text, *p,
                     (int)(p - text) + 1);
            return FPD_ERR_INPUT;
        }
        p++;
    }
    if (count < 3) {
        snprintf(why, why_size, "shape '%s' needs three dimensions MxNxK (or four, BATCHxMxNxK)", text);
        return FPD_ERR_INPUT;
    }
    int first = 4 - count;
    for (int i = 0; i < count; i++) {
        if (dims[i] < fpd_case_dim_lowest((unsigned)(first + i))) {
            snprintf(why, why_size, "shape '%s': %s is zero; every dimension but k must be at least 1", text,
                     names[first + i]);
            return FPD_ERR_INPUT;
        }
    }
    c->batch = count == 4 ? (uint32_t)dims[0] : 1;
    c->m = (uint32_t)dims[count - 3];
    c->n = (uint32_t)dims[count - 2];
    c->k = (uint32_t)dims[count - 1];
    return FPD_OK;
}

const char *fpd_shape_format(const struct fpd_case *c, char *buf, size_t size)
{
    if (c->batch > 1)
        snprintf(buf, size, "%ux%ux%ux%u", c->batch, c->m, c->n, c->k);
    else
        snprintf(buf, size, "%ux%ux%u", c->m, c->n, c->k);
    return buf;
}

double fpd_case_bytes(const struct fpd_case *c)
{
    struct fpd_layout l = fpd_case_layout(c);
    double in = (double)fpd_dtype_info(c->dt.in)->size, out = (double)fpd_dtype_info(c->dt.out)->size;
    double inputs = (double)c->batch * ((double)l.stride_a + (double)l.stride_b);
    double entry = (double)c->m * (double)(c->n + c->pad), outputs = (double)c->batch * entry;
    /* inputs: generated, plus one converted or re-laid-out copy per path, plus |A|,|B| in f64 for
     * the bound; outputs: each path's gemm result, and a copy where a path's output type is not
     * the case's; one batch entry's bound, summed in f32 and raised to f64. */
    return inputs * (3 * in + 2 * 4 + 8) + outputs * (2 * 8 + 2 * out) + entry * (4 + 8);
}

double fpd_case_physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (double)pages * (double)page : 0x1p33;
}

double fpd_case_default_max_mem(void) { return fpd_case_physical_memory() / 2; }

/* "1.5 GiB", "12 KiB": bytes in the largest binary unit that leaves at least 1 of it. */
static const char *format_bytes(double bytes, char *buf, size_t size)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    size_t u = 0;
    for (; bytes >= 1024 && u + 1 < sizeof units / sizeof units[0]; u++)
        bytes /= 1024;
    snprintf(buf, size, "%.3g %s", bytes, units[u]);
    return buf;
}

int fpd_case_validate(const struct fpd_case *c, double max_mem, char *why, size_t why_size)
{
    if (c->batch == 0 || c->m == 0 || c->n == 0) {
        snprintf(why, why_size, "every dimension but k must be at least 1");
        return FPD_ERR_INPUT;
    }
    if (c->batch >= FPD_RNG_MAX_BATCH) {
        snprintf(why, why_size, "batch %u is too large (at most %u)", c->batch, FPD_RNG_MAX_BATCH - 1);
        return FPD_ERR_INPUT;
    }
    if (!fpd_dtypes_valid(&c->dt, why, why_size))
        return FPD_ERR_INPUT;
    double bytes = fpd_case_bytes(c);
    if (bytes > max_mem || bytes > 0x1p60) { /* the latter: no size_t product can wrap */
        char need[32], budget[32];
        snprintf(why, why_size, "case needs about %s, over the --max-mem budget of %s",
                 format_bytes(bytes, need, sizeof need), format_bytes(max_mem, budget, sizeof budget));
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

const char *const fpd_data_origin_words[FPD_DATA_INPUTS + 1] = {
    [FPD_DATA_INLINE] = "inline data",
    [FPD_DATA_SIDECAR] = "data from the .npy files beside its case file",
    [FPD_DATA_INPUTS] = "the user's data (--inputs)",
};

void fpd_case_data_free(struct fpd_case_data *d)
{
    fpd_release(&d->a, &d->cap_a);
    fpd_release(&d->b, &d->cap_b);
    fpd_release(&d->bias, &d->cap_bias);
    *d = (struct fpd_case_data){0};
}
