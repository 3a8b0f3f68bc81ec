/*
 * cuda_runtime_api.h — the host shim's stand-in for the CUDA runtime header, for compiling
 * the .cu files of kernels/cuda/ with a host C++ compiler (tests/gpu/host/cuda_host.h says how). It declares
 * only what the kernels use; the error codes are the real runtime's values, so objects built
 * against the real header link with tests/gpu/host/runtime.cc.
 */
#ifndef FPD_HOST_CUDA_RUNTIME_API_H
#define FPD_HOST_CUDA_RUNTIME_API_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidPitchValue = 12,
    cudaErrorNoDevice = 100,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchTimeout = 702,
    cudaErrorIllegalInstruction = 715,
    cudaErrorLaunchFailure = 719,
    cudaErrorNotSupported = 801,
} cudaError_t;

typedef struct CUstream_st *cudaStream_t;

cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t error);
const char *cudaGetErrorName(cudaError_t error);

#ifdef __cplusplus
}

struct uint3 {
    unsigned x, y, z;
};

struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};
#endif

#endif
