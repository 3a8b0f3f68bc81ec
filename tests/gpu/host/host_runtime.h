/*
 * host_runtime.h — what tests ask of the host shim's runtime (runtime.cc), from C or C++: the
 * order in which a block's threads run, the error state a launch leaves, and the tensor-core
 * arithmetic that WMMA's mma_sync stands for.
 */
#ifndef FPD_HOST_RUNTIME_H
#define FPD_HOST_RUNTIME_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "cpu/tensor_core.h" /* C's, in C++ too */

/* Between two barriers a block's threads run one after another: in index order, in reverse, or
 * shuffled (seeded, a new order at every barrier). */
enum fpd_host_schedule { FPD_HOST_FORWARD, FPD_HOST_REVERSE, FPD_HOST_SHUFFLED };
void fpd_host_set_schedule(enum fpd_host_schedule schedule, unsigned long long seed);

/* Why the last failed launch failed (a divergent barrier, a trap, a bad configuration), "" if
 * none has. */
const char *fpd_host_last_failure(void);

/* The error state, as a GPU keeps it: an error is returned (and cleared) by the next
 * cudaGetLastError; a sticky one also stays, and fails every later launch, until
 * fpd_host_reset (cudaDeviceReset). */
void fpd_host_raise(cudaError_t error, int sticky);
cudaError_t fpd_host_sticky_error(void);
void fpd_host_reset(void);

/* The arithmetic of one mma_sync (kernels/cpu/tensor_core.h), per input type; NULL: mma_sync
 * traps. */
void fpd_host_set_tensor_core(const struct fpd_tc_arith *f16, const struct fpd_tc_arith *bf16);
const struct fpd_tc_arith *fpd_host_tensor_core(int is_bf16);

#ifdef __cplusplus
}
#endif

#endif
