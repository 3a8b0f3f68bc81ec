/* cuda_util.c — device buffers, errors and provenance for the CUDA backends. */
#include "cuda_util.h"

#include <stdio.h>

int fpd_device_grow(struct fpd_device_buffer *b, size_t bytes, char *why, size_t why_size)
{
    if (bytes <= b->cap && b->p)
        return FPD_OK;
    cudaFree(b->p);
    b->p = NULL;
    b->cap = 0;
    cudaError_t rc = cudaMalloc(&b->p, bytes ? bytes : 1);
    if (rc != cudaSuccess) {
        snprintf(why, why_size, "cudaMalloc of %zu bytes: %s", bytes, cudaGetErrorString(rc));
        b->p = NULL;
        return FPD_ERR_BACKEND;
    }
    b->cap = bytes;
    return FPD_OK;
}

void fpd_device_free(struct fpd_device_buffer *b)
{
    cudaFree(b->p);
    b->p = NULL;
    b->cap = 0;
}

int fpd_cuda_require_device(char *why, size_t why_size)
{
    int count = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess) {
        snprintf(why, why_size, "no usable CUDA device: %s", cudaGetErrorString(rc));
        return FPD_ERR_UNAVAILABLE;
    }
    if (count == 0) {
        snprintf(why, why_size, "no CUDA device on this machine");
        return FPD_ERR_UNAVAILABLE;
    }
    return FPD_OK;
}

int fpd_cuda_check(cudaError_t rc, const char *what, char *why, size_t why_size)
{
    if (rc == cudaSuccess)
        return FPD_OK;
    snprintf(why, why_size, "%s: %s", what, cudaGetErrorString(rc));
    return FPD_ERR_BACKEND;
}

int fpd_cublas_check(cublasStatus_t rc, const char *what, char *why, size_t why_size)
{
    if (rc == CUBLAS_STATUS_SUCCESS)
        return FPD_OK;
    snprintf(why, why_size, "%s: %s (%s)", what, cublasGetStatusName(rc), cublasGetStatusString(rc));
    return FPD_ERR_BACKEND;
}

void fpd_cuda_device_provenance(fpd_provenance_fn emit, void *ctx)
{
    char buf[64];
    int device = 0, runtime = 0, driver = 0;
    struct cudaDeviceProp prop;
    if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
        emit(ctx, "gpu", prop.name);
        snprintf(buf, sizeof buf, "%d", prop.multiProcessorCount);
        emit(ctx, "sm_count", buf);
        snprintf(buf, sizeof buf, "%d.%d", prop.major, prop.minor);
        emit(ctx, "compute_capability", buf);
    }
    if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) {
        snprintf(buf, sizeof buf, "%d.%d", runtime / 1000, runtime % 1000 / 10);
        emit(ctx, "cuda_runtime", buf);
    }
    if (cudaDriverGetVersion(&driver) == cudaSuccess) {
        snprintf(buf, sizeof buf, "%d.%d", driver / 1000, driver % 1000 / 10);
        emit(ctx, "cuda_driver", buf);
    }
}

cudaDataType fpd_cuda_type(enum fpd_dtype t)
{
    static const cudaDataType types[FPD_DTYPE_COUNT] = {
        [FPD_F64] = CUDA_R_64F, [FPD_F32] = CUDA_R_32F, [FPD_F16] = CUDA_R_16F, [FPD_BF16] = CUDA_R_16BF};
    return types[t];
}
