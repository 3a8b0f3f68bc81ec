/* scratch.c — grow-only buffers. */
#include "scratch.h"

#include <stdlib.h>

#include "fpdiv_backend.h"

int fpd_grow(void **buf, size_t *capacity, size_t bytes)
{
    if (bytes <= *capacity && *buf)
        return FPD_OK;
    /* grow geometrically: a campaign's sizes vary, and every fresh allocation costs page faults */
    size_t want = bytes < 64 ? 64 : bytes;
    if (want < *capacity * 2 && *capacity * 2 > *capacity)
        want = *capacity * 2;
    /* 64-byte alignment suits every vector width the kernels use. */
    void *p = aligned_alloc(64, (want + 63) / 64 * 64);
    if (!p)
        return FPD_ERR_NOMEM;
    free(*buf);
    *buf = p;
    *capacity = want;
    return FPD_OK;
}
