/*
 * npy.c — libFuzzer harness for .npy files (`make fuzz-parsers`): what `fpdiv judge` reads
 * (store/npy.h).
 *
 * Any input either reads, or is refused with a reason that names the input. What reads holds the
 * bytes its shape says, and survives the writer: an array of the types fpdiv writes, written and
 * read back, has the same shape and bytes. The input taken (fpd_npy_take, as files and archive
 * members are read) gives what it parses to, or the same refusal.
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

/* The same bytes taken, in a buffer of malloc's: the same outcome, the same array. */
static void taken_alike(const uint8_t *data, size_t size, int parsed, const struct fpd_npy *a)
{
    void *copy = malloc(size ? size : 1);
    if (!copy)
        return;
    memcpy(copy, data, size);
    struct fpd_npy t;
    char why[1024] = "";
    int rc = fpd_npy_take("input", copy, size, &t, why, sizeof why);
    if (rc != parsed || (rc == FPD_OK && (t.count != a->count || t.element_size != a->element_size ||
                                          memcmp(t.data, a->data, a->count * a->element_size) != 0))) {
        fprintf(stderr, "taken, the bytes give another outcome than parsed\n");
        abort();
    }
    fpd_npy_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fpd_npy a;
    char why[1024] = "";
    int parsed = fpd_npy_parse("input", data, size, &a, why, sizeof why);
    taken_alike(data, size, parsed, &a);
    if (parsed != FPD_OK) {
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
