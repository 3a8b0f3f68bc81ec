/* Grow-only buffers: sizes, alignment, growth, pages kept across growth, and huge pages where asked. */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/isolate.h"
#include "common/scratch.h"
#include "fpdiv_backend.h"

#define HUGE_PAGE ((size_t)2 << 20)

/* Grows the buffer to `bytes` and checks what every caller relies on: room for them, the
 * alignment every kernel's vectors need, and every byte of the capacity writable. */
static void grow_and_fill(void **buf, size_t *capacity, size_t bytes)
{
    cr_assert_eq(fpd_grow(buf, capacity, bytes), FPD_OK);
    cr_assert_not_null(*buf);
    cr_assert_geq(*capacity, bytes);
    cr_assert_eq((uintptr_t)*buf % 64, 0, "buffer of %zu bytes at %p", bytes, *buf);
    memset(*buf, 0x5a, *capacity);
}

Test(scratch, small_buffers_are_aligned_and_kept_while_large_enough)
{
    void *buf = NULL;
    size_t capacity = 0;
    grow_and_fill(&buf, &capacity, 1);
    cr_assert_geq(capacity, 64);
    void *first = buf;
    size_t first_capacity = capacity;
    grow_and_fill(&buf, &capacity, first_capacity); /* fits: the same buffer */
    cr_assert_eq(buf, first);
    cr_assert_eq(capacity, first_capacity);
    grow_and_fill(&buf, &capacity, 1000);
    size_t before = capacity;
    grow_and_fill(&buf, &capacity, before + 1); /* geometric growth */
    cr_assert_geq(capacity, 2 * before);
    fpd_release(&buf, &capacity);
    cr_assert_null(buf);
    cr_assert_eq(capacity, 0);
}

Test(scratch, large_buffers_are_whole_huge_pages_through_every_growth)
{
    void *buf = NULL;
    size_t capacity = 0;
    /* from malloc'ed memory to mapped, then mapped to larger mapped, twice */
    size_t sizes[] = {100000, (size_t)600 << 10, (size_t)3 << 20, (size_t)13 << 20, (size_t)40 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        grow_and_fill(&buf, &capacity, sizes[i]);
        if (sizes[i] >= (size_t)600 << 10) {
            cr_assert_eq((uintptr_t)buf % HUGE_PAGE, 0, "%zu bytes at %p", sizes[i], buf);
            cr_assert_eq(capacity % HUGE_PAGE, 0, "capacity %zu", capacity);
        }
    }
    fpd_release(&buf, &capacity);
    cr_assert_null(buf);
    cr_assert_eq(capacity, 0);
}

static long minor_faults(void)
{
    struct rusage u;
    cr_assert_eq(getrusage(RUSAGE_THREAD, &u), 0);
    return u.ru_minflt;
}

/* The point of moving pages: the part of a grown buffer that was touched before is not zeroed
 * by the kernel again (which a fresh mapping would do, one fault per page or huge page). */
Test(scratch, growth_keeps_the_pages_already_touched)
{
#if defined(__SANITIZE_ADDRESS__)
    /* its shadow of the buffer's new address faults in on the first access through it */
    cr_skip_test("AddressSanitizer's shadow memory has page faults of its own");
#endif
    void *buf = NULL;
    size_t capacity = 0;
    grow_and_fill(&buf, &capacity, (size_t)8 << 20);
    size_t touched = capacity;
    cr_assert_eq(fpd_grow(&buf, &capacity, touched + 1), FPD_OK);
    long before = minor_faults();
    memset(buf, 0xa5, touched);
    long faults = minor_faults() - before;
    cr_expect_eq(faults, 0, "%ld page faults touching %zu bytes the buffer had before it grew", faults, touched);
    memset((char *)buf + touched, 0xa5, capacity - touched); /* the new part is fresh */
    cr_expect_gt(minor_faults() - before, 0);
    fpd_release(&buf, &capacity);
}

/* Whether the mapping that holds p asks for huge pages (MADV_HUGEPAGE shows as "hg" among its
 * VmFlags in /proc/self/smaps): 1 or 0, or -1 where the kernel does not say. */
static int asks_for_huge_pages(const void *p)
{
    if (access("/sys/kernel/mm/transparent_hugepage", F_OK) != 0)
        return -1; /* a kernel without them ignores the advice */
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512];
    bool inside = false;
    int answer = -1;
    while (answer < 0 && fgets(line, sizeof line, f)) {
        unsigned long from, to;
        if (sscanf(line, "%lx-%lx ", &from, &to) == 2)
            inside = from <= (uintptr_t)p && (uintptr_t)p < to;
        else if (inside && strncmp(line, "VmFlags:", 8) == 0)
            answer = strstr(line, " hg") != NULL;
    }
    fclose(f);
    return answer;
}

Test(scratch, large_buffers_ask_for_huge_pages_only_when_told_to)
{
    for (int told = 0; told < 2; told++) {
        fpd_scratch_use_huge_pages(told);
        void *buf = NULL;
        size_t capacity = 0;
        grow_and_fill(&buf, &capacity, (size_t)4 << 20);
        grow_and_fill(&buf, &capacity, (size_t)9 << 20); /* pages moved to the front, and new ones */
        const char *ends[] = {buf, (const char *)buf + capacity - 1};
        for (int e = 0; e < 2; e++) {
            int asks = asks_for_huge_pages(ends[e]);
            if (asks < 0)
                cr_skip_test("this kernel does not say which mappings ask for huge pages");
            cr_expect_eq(asks, told, "told %d, the mapping at %p asks %d", told, (const void *)ends[e], asks);
        }
        fpd_release(&buf, &capacity);
    }
    fpd_scratch_use_huge_pages(false);
}

/* In a child of fpd_run_isolated: 0 when a buffer it grows asks for huge pages, 1 when not, 2 when
 * the kernel does not say. */
static int child_buffer_asks(void *ctx)
{
    (void)ctx;
    void *buf = NULL;
    size_t capacity = 0;
    if (fpd_grow(&buf, &capacity, (size_t)4 << 20) != FPD_OK)
        return 3;
    int asks = asks_for_huge_pages(buf);
    fpd_release(&buf, &capacity);
    return asks < 0 ? 2 : asks ? 0 : 1;
}

/* A child makes its buffers afresh for its one job, where huge pages save most of their faults;
 * the process that starts it keeps the default. */
Test(scratch, an_isolated_child_asks_for_huge_pages)
{
    char why[256] = "";
    int rc = fpd_run_isolated(child_buffer_asks, NULL, 0, why, sizeof why);
    if (rc == 2)
        cr_skip_test("this kernel does not say which mappings ask for huge pages");
    cr_expect_eq(rc, 0, "the child answered %d: %s", rc,
                 rc == 1 ? "its buffer does not ask for huge pages" : rc == 3 ? "out of memory" : why);
    void *buf = NULL;
    size_t capacity = 0;
    grow_and_fill(&buf, &capacity, (size_t)4 << 20);
    cr_expect_eq(asks_for_huge_pages(buf), 0, "the parent's buffer asks for huge pages");
    fpd_release(&buf, &capacity);
}
