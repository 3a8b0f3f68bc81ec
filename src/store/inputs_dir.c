/* inputs_dir.c — a case's inputs from A.npy, B.npy and bias.npy (inputs_dir.h). */
#include "store/inputs_dir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/dtype.h"
#include "common/text.h"
#include "store/array_file.h"
#include "store/npy.h"
#include "store/npz.h"

/* The type an array's elements are as `declared` says (a bf16 array's bits do not say it). */
static int element_type(const struct fpd_npy *a, const char *path, enum fpd_dtype declared, bool output,
                        enum fpd_dtype *t, char *why, size_t why_size)
{
    bool bits;
    *t = fpd_npy_dtype(a->element, &bits);
    char shown[4200];
    const char *role_words = output   ? "the case's output type, which the bias is in (--dtype IN:OUT names it)"
                             : bits   ? "the case's input type (bf16 bits: say --dtype bf16)"
                                      : "the case's input type (--dtype)";
    if (*t != declared) { /* bf16 is the case's only where --dtype said so: the defaults never give it */
        snprintf(why, why_size, "%s holds %s elements, not the %s %s", fpd_printable(path, shown, sizeof shown),
                 fpd_npy_element_name(a->element), fpd_dtype_info(declared)->name,
                 role_words);
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

/* The default types for an input type: as --dtype IN alone gives them. */
static struct fpd_dtypes defaults_for(enum fpd_dtype in)
{
    struct fpd_dtypes dt;
    char why[128];
    fpd_dtypes_parse(fpd_dtype_info(in)->name, &dt, why, sizeof why); /* a type's own name always parses */
    return dt;
}

int fpd_inputs_load(const char *dir, const char *dtype, bool bias, struct fpd_inputs *out, char *why, size_t why_size)
{
    *out = (struct fpd_inputs){0};
    /* a directory's files, or an archive's arrays (np.savez(path, A=..., B=..., bias=...)) */
    static const char *const names[] = {"A", "B", "bias"}, *const lower_names[] = {"a", "b", "bias"};
    struct stat st;
    bool archive = stat(dir, &st) == 0 && !S_ISDIR(st.st_mode);
    const char *const *chosen = names;
    struct fpd_npz *z;
    char ignored[256];
    if (archive && fpd_npz_open(dir, &z, ignored, sizeof ignored) == FPD_OK) {
        /* named as judge's options are (np.savez(path, a=..., b=...)) where A is not there; where
         * neither is, reading A says so (a damaged archive, too) */
        if (fpd_npz_find(z, "A") < 0 && fpd_npz_find(z, "a") >= 0 && fpd_npz_find(z, "B") < 0 &&
            fpd_npz_find(z, "b") >= 0)
            chosen = lower_names;
        fpd_npz_close(z);
    }
    struct fpd_npy arrays[3] = {{0}};
    char paths[3][4200], shown[2][4200];
    int rc = FPD_OK;
    for (int i = 0; rc == FPD_OK && i < (bias ? 3 : 2); i++) {
        snprintf(paths[i], sizeof paths[i], archive ? "%.4000s:%s" : "%.4000s/%s.npy", dir, chosen[i]);
        rc = fpd_array_file_read(paths[i], NULL, &arrays[i], why, why_size);
    }
    const struct fpd_npy *a = &arrays[0], *b = &arrays[1];
    if (rc == FPD_OK && dtype)
        rc = fpd_dtypes_parse(dtype, &out->dt, why, why_size);
    else if (rc == FPD_OK) { /* the files' type; bf16 bits must be named, which element_type then says */
        bool bits;
        enum fpd_dtype in = fpd_npy_dtype(a->element, &bits);
        out->dt = defaults_for(bits ? FPD_F32 : in);
    }
    enum fpd_dtype t;
    for (int i = 0; rc == FPD_OK && i < (bias ? 3 : 2); i++)
        rc = element_type(&arrays[i], paths[i], i == 2 ? out->dt.out : out->dt.in, i == 2, &t, why, why_size);
    /* the shapes: A batch x m x k, B batch x k x n (or each without the batch), the bias n */
    bool fits = rc == FPD_OK && (a->ndim == 2 || a->ndim == 3) && a->ndim == b->ndim &&
                (a->ndim == 2 || a->shape[0] == b->shape[0]) && a->shape[a->ndim - 1] == b->shape[b->ndim - 2];
    size_t batch = 1, m = 0, n = 0, k = 0;
    if (rc == FPD_OK && !fits) {
        snprintf(why, why_size, "%s and %s do not make a product: A is batch x m x k (or m x k), B batch x k x n (or "
                 "k x n), as fpdiv export writes them", fpd_printable(paths[0], shown[0], sizeof shown[0]),
                 fpd_printable(paths[1], shown[1], sizeof shown[1]));
        rc = FPD_ERR_INPUT;
    } else if (rc == FPD_OK) {
        batch = a->ndim == 3 ? a->shape[0] : 1, m = a->shape[a->ndim - 2], k = a->shape[a->ndim - 1];
        n = b->shape[b->ndim - 1];
        if (!batch || !m || !n || !k || batch > UINT32_MAX || m > UINT32_MAX || n > UINT32_MAX || k > UINT32_MAX) {
            snprintf(why, why_size, "%s and %s make a %zu x %zu x %zu x %zu product: each dimension from 1 to 2^32 - 1",
                     fpd_printable(paths[0], shown[0], sizeof shown[0]), fpd_printable(paths[1], shown[1], sizeof shown[1]),
                     batch, m, n, k);
            rc = FPD_ERR_INPUT;
        }
    }
    if (rc == FPD_OK && bias && arrays[2].count != n) {
        snprintf(why, why_size, "%s holds %zu elements: the bias is a row of n = %zu",
                 fpd_printable(paths[2], shown[0], sizeof shown[0]), arrays[2].count, n);
        rc = FPD_ERR_INPUT;
    }
    if (rc == FPD_OK) { /* the arrays are the case's data as they are: logical, packed */
        /* a case keeps a bias row whether or not its product adds one (a case file holds it) */
        void *row = bias ? arrays[2].data : calloc(n, fpd_dtype_info(out->dt.out)->size);
        out->data = (struct fpd_case_data){.batch = (uint32_t)batch, .m = (uint32_t)m, .n = (uint32_t)n,
                                           .k = (uint32_t)k, .a = arrays[0].data, .b = arrays[1].data, .bias = row,
                                           .origin = FPD_DATA_INPUTS};
        arrays[0].data = arrays[1].data = arrays[2].data = NULL;
        if (!row) {
            fpd_case_data_free(&out->data);
            snprintf(why, why_size, "out of memory");
            rc = FPD_ERR_NOMEM;
        }
    }
    for (int i = 0; i < 3; i++)
        fpd_npy_free(&arrays[i]);
    return rc;
}
