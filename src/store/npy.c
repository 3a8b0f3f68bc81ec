/* npy.c — NumPy's .npy format, version 1.0: the magic, the header's length, a Python dict literal
 * padded with spaces to a multiple of 64 bytes and ended by a newline, then the raw data. */
#include "store/npy.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/file_write.h"
#include "fpdiv_backend.h"

/* NumPy's name for each storage type (bf16 as its bits). */
static const char *const npy_descr[FPD_DTYPE_COUNT] = {[FPD_F64] = "<f8", [FPD_F32] = "<f4", [FPD_F16] = "<f2",
                                                       [FPD_BF16] = "<u2"};

int fpd_npy_write(const char *path, enum fpd_dtype t, const size_t *shape, int ndim, const void *data, char *why,
                  size_t why_size)
{
    char header[256], dims[128] = "";
    size_t elements = 1;
    for (int i = 0; i < ndim; i++) {
        /* a 1-tuple needs its comma: (5,) */
        snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%zu%s", shape[i],
                 ndim == 1 ? "," : i + 1 < ndim ? ", " : "");
        elements *= shape[i];
    }
    int len = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                       npy_descr[t], dims);
    int total = 10 + len + 1, pad = (64 - total % 64) % 64;
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(why, why_size, "cannot write %.900s: %s", path, strerror(errno));
        return FPD_ERR_INPUT;
    }
    uint16_t header_len = (uint16_t)(len + pad + 1);
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc(header_len & 0xff, f);
    fputc(header_len >> 8, f);
    fprintf(f, "%s%*s\n", header, pad, "");
    size_t bytes = elements * fpd_dtype_info(t)->size;
    if (bytes)
        fwrite(data, 1, bytes, f);
    return fpd_file_close_written(f, path, why, why_size);
}
