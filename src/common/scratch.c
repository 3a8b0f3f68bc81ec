/* scratch.c — grow-only buffers. */
#define _GNU_SOURCE /* mremap */
#include "common/scratch.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "fpdiv_backend.h"

#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_FROM ((size_t)1 << 19) /* rounding up to whole huge pages wastes at most 3/4 of one */

/* Whether new mappings ask for huge pages: see fpd_scratch_use_huge_pages. */
static bool huge_pages_wanted;

void fpd_scratch_use_huge_pages(bool on) { huge_pages_wanted = on; }

/* `size` bytes (a multiple of HUGE_PAGE) of fresh memory aligned to a huge page, so that it can
 * be made of them: where asked to, or where the system gives them unasked. NULL when out of
 * memory. */
static void *map_huge_page_aligned(size_t size)
{
    char *reserved = mmap(NULL, size + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (reserved == MAP_FAILED)
        return NULL;
    char *p = (char *)(((uintptr_t)reserved + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (p > reserved)
        munmap(reserved, (size_t)(p - reserved));
    munmap(p + size, (size_t)(reserved + HUGE_PAGE - p));
    if (huge_pages_wanted)
        madvise(p, size, MADV_HUGEPAGE); /* advice only: without huge pages it is ordinary memory */
    return p;
}

/* *buf grown to `size` bytes of huge pages. A mapped buffer grows by moving its pages to the front
 * of the larger mapping instead of taking fresh ones: the kernel zeroes every page on its first
 * touch, slowly on a virtual machine, and a campaign's buffers grow several times as its shapes
 * do. Where the move fails, the old pages are given back and the new mapping (which a failed move
 * may have cut) is made afresh. */
static int grow_mapped(void **buf, size_t *capacity, size_t size)
{
    void *p = map_huge_page_aligned(size);
    if (!p)
        return FPD_ERR_NOMEM;
    if (*capacity < HUGE_PAGE) {
        free(*buf);
    } else if (mremap(*buf, *capacity, *capacity, MREMAP_MAYMOVE | MREMAP_FIXED, p) == MAP_FAILED) {
        munmap(*buf, *capacity);
        munmap(p, size);
        p = map_huge_page_aligned(size);
    }
    *buf = p;
    *capacity = p ? size : 0;
    return p ? FPD_OK : FPD_ERR_NOMEM;
}

int fpd_grow(void **buf, size_t *capacity, size_t bytes)
{
    if (bytes <= *capacity && *buf)
        return FPD_OK;
    /* grow geometrically: a campaign's sizes vary, and every fresh allocation costs page faults */
    size_t want = bytes < 64 ? 64 : bytes;
    if (want < *capacity * 2 && *capacity * 2 > *capacity)
        want = *capacity * 2;
    /* A buffer of 512 KiB or more is mapped (whole huge pages, aligned to them), so that it can
     * grow by moving its pages. */
    if (want >= HUGE_FROM) {
        if (want > SIZE_MAX - HUGE_PAGE * 2)
            return FPD_ERR_NOMEM;
        return grow_mapped(buf, capacity, (want + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE);
    }
    /* 64-byte alignment suits every vector width the kernels use */
    size_t size = (want + 63) / 64 * 64;
    void *p = aligned_alloc(64, size);
    if (!p)
        return FPD_ERR_NOMEM;
    free(*buf);
    *buf = p;
    *capacity = size;
    return FPD_OK;
}

void fpd_release(void **buf, size_t *capacity)
{
    if (*capacity >= HUGE_PAGE)
        munmap(*buf, *capacity);
    else
        free(*buf);
    *buf = NULL;
    *capacity = 0;
}
