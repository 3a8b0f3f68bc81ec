/* scratch.c — grow-only buffers. */
#include "scratch.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "fpdiv_backend.h"

#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_FROM ((size_t)1 << 19) /* rounding up to whole huge pages wastes at most 3/4 of one */

int fpd_grow(void **buf, size_t *capacity, size_t bytes)
{
    if (bytes <= *capacity && *buf)
        return FPD_OK;
    /* grow geometrically: a campaign's sizes vary, and every fresh allocation costs page faults */
    size_t want = bytes < 64 ? 64 : bytes;
    if (want < *capacity * 2 && *capacity * 2 > *capacity)
        want = *capacity * 2;
    /* 64-byte alignment suits every vector width the kernels use. A buffer of 512 KiB or more is
     * made of whole huge pages, aligned to them, and asks for them: one fault per 2 MiB instead
     * of 512, which matters most where every check runs in a fresh process (minimize, show,
     * bisect --isolate). */
    size_t align = want >= HUGE_FROM ? HUGE_PAGE : 64;
    if (want > SIZE_MAX - align)
        return FPD_ERR_NOMEM;
    size_t size = (want + align - 1) / align * align;
    void *p = aligned_alloc(align, size);
    if (!p)
        return FPD_ERR_NOMEM;
    if (align == HUGE_PAGE)
        madvise(p, size, MADV_HUGEPAGE); /* advice only: without huge pages it is ordinary memory */
    free(*buf);
    *buf = p;
    *capacity = size; /* all of it: rounding up to huge pages gave some room */
    return FPD_OK;
}
