/*
 * npz.c — libFuzzer harness for .npz archives (`make fuzz-parsers`): what `fpdiv judge` reads
 * when a user saves several arrays in one file (store/npz.h), through libzip.
 *
 * Any input either opens, or is refused with a reason that names it; every array of one that opens
 * either reads, holding the bytes its shape says, or is refused naming the archive and the array.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/npz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fpd_npz *z;
    char why[2048] = "";
    if (fpd_npz_open_bytes("input", data, size, &z, why, sizeof why) != 0) {
        if (strncmp(why, "input", 5) != 0 || z) {
            fprintf(stderr, "refused without naming the input, or with an archive left: \"%s\"\n", why);
            abort();
        }
        return 0;
    }
    char names[1024];
    fpd_npz_names(z, names, sizeof names); /* escaped, whatever the names */
    for (size_t i = 0; i < fpd_npz_count(z); i++) {
        if (fpd_npz_find(z, fpd_npz_name(z, i)) > (long)i) {
            fprintf(stderr, "array %zu is not found by its name\n", i);
            abort();
        }
        struct fpd_npy a;
        if (fpd_npz_read(z, i, &a, why, sizeof why) != 0) {
            if (strncmp(why, "input:", 6) != 0 || a.data) {
                fprintf(stderr, "an array refused without naming it as input:NAME, or with data left: \"%s\"\n", why);
                abort();
            }
            continue;
        }
        size_t count = 1;
        for (int d = 0; d < a.ndim; d++)
            count *= a.shape[d];
        if (count != a.count || (count && !a.data)) {
            fprintf(stderr, "read, but its count is not its shape's product\n");
            abort();
        }
        fpd_npy_free(&a);
    }
    fpd_npz_close(z);
    return 0;
}
