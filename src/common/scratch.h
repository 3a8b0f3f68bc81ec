/* scratch.h — grow-only buffers, reused across checks so the hot loop never allocates. */
#ifndef FPD_SCRATCH_H
#define FPD_SCRATCH_H

#include <stdbool.h>
#include <stddef.h>

/* Make *buf hold at least `bytes` (contents not kept). Returns FPD_OK or FPD_ERR_NOMEM. */
int fpd_grow(void **buf, size_t *capacity, size_t bytes);
/* Give back what fpd_grow made (large buffers are mapped, not malloc'ed), and reset both. */
void fpd_release(void **buf, size_t *capacity);
/*
 * Whether buffers of 512 KiB or more that fpd_grow maps from now on ask the kernel for huge pages
 * (default: no). They pay where a process makes its buffers afresh for one check (a child of
 * fpd_run_isolated): a page fault per 2 MiB instead of 512. A long-lived worker faults its pages
 * in once, and where a virtual machine's balloon hands free memory back to the host in 2 MiB
 * blocks (the benchmark machine's does), a fresh huge page is such a block: its first touch costs
 * the host's fault as well: page zeroing took 5% of a 5 s campaign at max-dim 1024 with huge
 * pages, 0.2% without (BENCHMARKS.md).
 */
void fpd_scratch_use_huge_pages(bool on);

#endif
