/* scratch.h — grow-only buffers, reused across checks so the hot loop never allocates. */
#ifndef FPD_SCRATCH_H
#define FPD_SCRATCH_H

#include <stddef.h>

/* Make *buf hold at least `bytes` (contents not kept). Returns FPD_OK or FPD_ERR_NOMEM. */
int fpd_grow(void **buf, size_t *capacity, size_t bytes);

#endif
