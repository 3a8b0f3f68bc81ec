/*
 * npy.c — libFuzzer harness for .npy files (`make fuzz-parsers`): what `fpdiv judge` reads
 * (store/npy.h).
 *
 * Any input either reads, or is refused with a reason that names the input. What reads holds the
 * bytes its shape says, and survives the writer: an array of the types fpdiv writes, written and
 * read back, has the same shape and bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/npy.h"

static void round_trip(const struct fpd_npy *a)
{
    static const enum fpd_dtype as[] = {[FPD_NPY_FLOAT64] = FPD_F64, [FPD_NPY_FLOAT32] = FPD_F32,
                                        [FPD_NPY_FLOAT16] = FPD_F16, [FPD_NPY_UINT16] = FPD_BF16,
                                        [FPD_NPY_INT16] = FPD_BF16, [FPD_NPY_VOID16] = FPD_BF16};
    if (a->ndim < 1 || a->ndim > 4)
        return; /* the writer's shapes: 1 to 4 dimensions */
    static char path[64];
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/fpdiv-fuzz-npy-%d.npy", (int)getpid());
    }
    char why[512];
    struct fpd_npy back;
    if (fpd_npy_write(path, as[a->element], a->shape, a->ndim, a->data, why, sizeof why) != FPD_OK ||
        fpd_npy_read(path, &back, why, sizeof why) != FPD_OK) {
        fprintf(stderr, "an array read, written out, does not read: %s\n", why);
        abort();
    }
    if (back.ndim != a->ndim || memcmp(back.shape, a->shape, sizeof a->shape) != 0 || back.count != a->count ||
        memcmp(back.data, a->data, a->count * a->element_size) != 0) {
        fprintf(stderr, "an array read, written out and read back, differs\n");
        abort();
    }
    fpd_npy_free(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fpd_npy a;
    char why[1024] = "";
    if (fpd_npy_parse("input", data, size, &a, why, sizeof why) != FPD_OK) {
        if (strncmp(why, "input", 5) != 0) {
            fprintf(stderr, "refused without naming the input: \"%s\"\n", why);
            abort();
        }
        if (a.data) {
            fprintf(stderr, "refused, but left data behind\n");
            abort();
        }
        return 0;
    }
    size_t count = 1;
    for (int d = 0; d < a.ndim; d++)
        count *= a.shape[d];
    if (count != a.count || (count && !a.data)) {
        fprintf(stderr, "read, but its count is not its shape's product\n");
        abort();
    }
    if (count <= 4096)
        round_trip(&a);
    fpd_npy_free(&a);
    return 0;
}
