/* scratch.h — grow-only buffers, reused across checks so the hot loop never allocates. */
#ifndef FPD_SCRATCH_H
#define FPD_SCRATCH_H

#include <stddef.h>

/* Make *buf hold at least `bytes` (contents not kept). Returns FPD_OK or FPD_ERR_NOMEM. */
int fpd_grow(void **buf, size_t *capacity, size_t bytes);
/* Give back what fpd_grow made (large buffers are mapped, not malloc'ed), and reset both. */
void fpd_release(void **buf, size_t *capacity);

#endif
