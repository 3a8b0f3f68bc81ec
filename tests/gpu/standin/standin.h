/*
 * standin.h — what tests ask of the stand-in CUDA runtime, cuBLAS and cuBLASLt (standin.c): faults
 * to inject, and what the adapters left behind (allocations, objects, modes).
 */
#ifndef FPD_STANDIN_H
#define FPD_STANDIN_H

#include <stdint.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* From the kernel host shim (tests/gpu/host/runtime.cc), which owns the CUDA error state: */
cudaError_t fpd_host_sticky_error(void);        /* the sticky error in effect, cudaSuccess if none */
void fpd_host_raise(cudaError_t e, int sticky); /* the next cudaGetLastError returns e; a sticky one
                                                   stays until cudaDeviceReset */
void fpd_host_reset(void);                      /* what cudaDeviceReset does to the error state */

/* The next call of the runtime function named (its symbol: "cudaMalloc", "cudaMemcpy2D") fails
 * with e, raised as a sticky error when `sticky` (every later call then fails until
 * cudaDeviceReset). Several faults for one function are used in order. An unknown name aborts:
 * a misspelt fault would otherwise never fire and its test pass for nothing. */
void fpd_standin_fail_next(const char *function, cudaError_t e, int sticky);
/* The same for cuBLAS and cuBLASLt, by symbol ("cublasCreate_v2", "cublasLtMatmul"). */
void fpd_standin_fail_next_blas(const char *function, cublasStatus_t status);
/* Forgets the faults not yet used. */
void fpd_standin_reset_faults(void);

/* Device allocations not freed (cudaDeviceReset frees them all). */
int fpd_standin_live_allocations(void);
/* Streams, cuBLAS and cuBLASLt handles, matmul descriptors, layouts and preferences not destroyed. */
int fpd_standin_live_objects(void);
/* The math mode of the cuBLAS handle of the last cuBLAS GEMM (cuBLASLt has none); -1 before any. */
int fpd_standin_last_math_mode(void);
/* The reduction-scheme mask of the preference of the last cublasLtMatmulAlgoGetHeuristic; 0 before any. */
uint32_t fpd_standin_last_reduction_mask(void);

#ifdef __cplusplus
}
#endif

#endif
