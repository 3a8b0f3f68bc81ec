/* sidecar.c — a case's data as three .npy files beside it (sidecar.h). */
#include "store/sidecar.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "common/dtype.h"
#include "common/text.h"
#include "fpdiv_backend.h"
#include "store/npy.h"

static const char *const suffix[FPD_SIDECAR_FILES] = {".A.npy", ".B.npy", ".bias.npy"};
const char *const fpd_sidecar_key[FPD_SIDECAR_FILES] = {"A", "B", "bias"};

/* Sidecar i's shape (a batch of one is left out, as export writes it) and element type. */
static int shape_of(const struct fpd_case *c, int i, size_t shape[3], enum fpd_dtype *t)
{
    size_t rows[] = {c->m, c->k, 0}, cols[] = {c->k, c->n, c->n};
    *t = i == 2 ? c->dt.out : c->dt.in;
    if (i == 2) {
        shape[0] = c->n;
        return 1;
    }
    int ndim = 0;
    if (c->batch > 1)
        shape[ndim++] = c->batch;
    shape[ndim++] = rows[i];
    shape[ndim++] = cols[i];
    return ndim;
}

static const void *array_of(const struct fpd_case_data *d, int i)
{
    return i == 0 ? d->a : i == 1 ? d->b : d->bias;
}

static uint64_t elements_hash(const struct fpd_case *c, const void *array, int i)
{
    size_t shape[3], count = 1;
    enum fpd_dtype t;
    int ndim = shape_of(c, i, shape, &t);
    for (int d = 0; d < ndim; d++)
        count *= shape[d];
    return XXH3_64bits(array, count * fpd_dtype_info(t)->size);
}

void fpd_sidecar_hashes(const struct fpd_case *c, const struct fpd_case_data *d, uint64_t hash[FPD_SIDECAR_FILES])
{
    for (int i = 0; i < FPD_SIDECAR_FILES; i++)
        hash[i] = elements_hash(c, array_of(d, i), i);
}

int fpd_sidecar_encode(const struct fpd_case *c, const struct fpd_case_data *d, int i, char **bytes, size_t *len)
{
    size_t shape[3];
    enum fpd_dtype t;
    int ndim = shape_of(c, i, shape, &t);
    return fpd_npy_encode(t, shape, ndim, array_of(d, i), bytes, len);
}

void fpd_sidecar_name(const char *case_name, int i, char *out, size_t size)
{
    size_t n = strlen(case_name);
    if (n > 5 && strcmp(case_name + n - 5, ".json") == 0)
        n -= 5;
    snprintf(out, size, "%.*s%s", (int)n, case_name, suffix[i]);
}

int fpd_sidecar_read(const char *case_path, const struct fpd_case *c, const uint64_t hash[FPD_SIDECAR_FILES],
                     struct fpd_case_data *out, char *why, size_t why_size)
{
    *out = (struct fpd_case_data){.batch = c->batch, .m = c->m, .n = c->n, .k = c->k};
    void **arrays[FPD_SIDECAR_FILES] = {&out->a, &out->b, &out->bias};
    char path[4200], shown[1024];
    int rc = FPD_OK;
    for (int i = 0; rc == FPD_OK && i < FPD_SIDECAR_FILES; i++) {
        fpd_sidecar_name(case_path, i, path, sizeof path);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) { /* as a corpus's case files: no link is followed */
            snprintf(why, why_size, "%s: a symbolic link: fpdiv reads a corpus's own files only, and follows no link "
                     "in it", fpd_printable(path, shown, sizeof shown));
            rc = FPD_ERR_INPUT;
            break;
        }
        size_t shape[3], count = 1;
        enum fpd_dtype t;
        int ndim = shape_of(c, i, shape, &t);
        for (int d = 0; d < ndim; d++)
            count *= shape[d];
        /* read only what can be the array the case says: its elements and a header (a .npy's is
         * at most 4 GiB in format 2, but NumPy's are a few hundred bytes) */
        if (lstat(path, &st) == 0 && (uint64_t)st.st_size > count * fpd_dtype_info(t)->size + 65536) {
            snprintf(why, why_size, "%s: %lld bytes, past the %zu elements of %s the case file says it holds",
                     fpd_printable(path, shown, sizeof shown), (long long)st.st_size, count, fpd_dtype_info(t)->name);
            rc = FPD_ERR_INPUT;
            break;
        }
        struct fpd_npy a;
        rc = fpd_npy_read(path, &a, why, why_size);
        if (rc != FPD_OK)
            break;
        bool bits;
        bool fits = fpd_npy_dtype(a.element, &bits) == t && a.ndim == ndim &&
                    memcmp(a.shape, shape, (size_t)ndim * sizeof shape[0]) == 0;
        if (!fits) {
            char want[64], held[200];
            snprintf(why, why_size, "%s: expected %s elements of %s, as the case file says; it holds %s of %s",
                     fpd_printable(path, shown, sizeof shown), fpd_npy_shape_text(shape, ndim, want, sizeof want),
                     fpd_dtype_info(t)->name, fpd_npy_shape_text(a.shape, a.ndim, held, sizeof held),
                     fpd_npy_element_name(a.element));
            fpd_npy_free(&a);
            rc = FPD_ERR_INPUT;
            break;
        }
        uint64_t actual = elements_hash(c, a.data, i);
        if (actual != hash[i]) {
            snprintf(why, why_size, "%s: changed since the case was saved: its elements hash to %016" PRIx64 ", the case "
                     "file says %016" PRIx64 " (check.case.data.sidecar.%s); refusing to replay other data",
                     fpd_printable(path, shown, sizeof shown), actual, hash[i], fpd_sidecar_key[i]);
            fpd_npy_free(&a);
            rc = FPD_ERR_INPUT;
            break;
        }
        *arrays[i] = a.data; /* taken over */
    }
    if (rc != FPD_OK)
        fpd_case_data_free(out);
    return rc;
}
