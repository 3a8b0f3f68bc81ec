/*
 * concurrent.h — GEMMs called from several threads at once, as the threads of one program call a
 * library: what a backend's gemm_concurrent (fpdiv_backend.h) does in its own process.
 */
#ifndef FPD_CONCURRENT_H
#define FPD_CONCURRENT_H

#include "fpdiv_backend.h"

/* One GEMM as the backend computes it alone, reentrant: it may run beside itself. `caller`: which of
 * the concurrent calls it is (0 to count - 1), for room of its own that the state keeps. */
typedef int (*fpd_gemm_fn)(void *state, size_t caller, const struct fpd_gemm_args *args, char *why, size_t why_size);

/* Calls gemm(state, args[i]) for each i < count (at most FPD_MAX_CALLERS) from a thread of its
 * own, all released together once every one has started, so that the calls overlap, and returns
 * when every one has.
 * status[i] and the why_size bytes at why + i * why_size are call i's outcome; a call that left
 * its thread's floating-point environment changed failed (fpenv.h). A thread that cannot be
 * started fails its call, and the others still run. */
void fpd_gemm_concurrently(fpd_gemm_fn gemm, void *state, size_t count, const struct fpd_gemm_args *const *args,
                           int *status, char *why, size_t why_size);

#endif
