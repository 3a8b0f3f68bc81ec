/* cuda_util.h — what the CUDA backends share: device buffers, error text, device provenance. */
#ifndef FPD_CUDA_UTIL_H
#define FPD_CUDA_UTIL_H

#include <cublas_v2.h>
#include <stdbool.h>
#include <cuda_runtime_api.h>

#include "fpdiv_backend.h"

/* A grow-only device buffer. */
struct fpd_device_buffer {
    void *p;
    size_t cap;
};

/* Makes room for `bytes`; on failure says why (the CUDA error) and returns FPD_ERR_BACKEND. */
int fpd_device_grow(struct fpd_device_buffer *b, size_t bytes, char *why, size_t why_size);
void fpd_device_free(struct fpd_device_buffer *b);

/*
 * Opening any CUDA backend: a device must be there. FPD_ERR_UNAVAILABLE with the reason if not.
 * CUDA cannot be used in a child forked after the parent initialized it, and fpdiv runs checks
 * in forks (fuzz workers, isolated checks): so the device is probed in a throwaway child, with a
 * deadline (a broken driver can crash or hang there), and a backend makes its streams and handles
 * on its first GEMM, in the process that runs it.
 */
int fpd_cuda_require_device(char *why, size_t why_size);

/* FPD_OK, or FPD_ERR_BACKEND with "what: CUDA error text". */
int fpd_cuda_check(cudaError_t rc, const char *what, char *why, size_t why_size);
int fpd_cublas_check(cublasStatus_t rc, const char *what, char *why, size_t why_size);

/* Whether a fault has left this process's CUDA context unusable: a sticky error (an illegal
 * address, a trap) fails every later call until cudaDeviceReset. */
bool fpd_cuda_context_lost(void);

/* The device's compute capability as 10·major + minor (90 for an H100), 0 if unknown. */
int fpd_cuda_compute_capability(void);

/* The tensor-core model (a tc-* backend) of a compute capability's GPU, NULL where none is
 * published: cuda-wmma's twin on that GPU. */
const char *fpd_cuda_tensor_core_model(int compute_capability);

/* GPU name, SM count, runtime and driver versions, as the probe found them. */
void fpd_cuda_device_provenance(fpd_provenance_fn emit, void *ctx);

/* The CUDA data type of a storage type. */
cudaDataType fpd_cuda_type(enum fpd_dtype t);

#endif
