/*
 * cuda_host.h — runs fpdiv's CUDA kernels (the .cu files of kernels/cuda/) on the CPU, from their own source.
 *
 * Each one is compiled by the host C++ compiler with this header forced in front of it
 * (-include) and tests/gpu/host/include/ standing in for the toolkit's headers. A launch runs
 * every block of the grid in turn; a block's threads are fibers (runtime.cc) that run until they
 * end or reach __syncthreads, which switches to the next thread. A barrier is released only when
 * every thread of the block waits at the same __syncthreads: a thread that has ended, or waits at
 * another one, is a divergent barrier (undefined on a GPU, where it may hang), and the launch
 * fails with cudaErrorLaunchFailure, saying where. The order in which a block's threads run
 * between barriers is the schedule's (fpd_host_set_schedule): a missing barrier shows as a
 * different result under some order.
 *
 * __shared__ variables are static: one block runs at a time, on the thread that launched.
 * Launches are synchronous. The arithmetic intrinsics are C's correctly rounded operations (the
 * kernels' files are built with -ffp-contract=off, as nvcc's with --fmad=false); subnormals are
 * kept (nvcc's --ftz=false). Launch limits are the GPU's: at most 1024 threads per block and
 * grid dimensions of 2^31-1, 65535, 65535.
 */
#ifndef FPD_HOST_CUDA_HOST_H
#define FPD_HOST_CUDA_HOST_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static

namespace fpd_host {

/* Where the running thread is: its indices and the launch's shape. */
struct place {
    uint3 thread_idx, block_idx;
    dim3 block_dim, grid_dim;
};
extern const place *here;

void barrier(const char *file, int line);
[[noreturn]] void trap(const char *file, int line);
cudaError_t launch_erased(const char *kernel, dim3 grid, dim3 block, size_t shared, cudaStream_t stream,
                          void (*body)(void *), void *ctx);

template <typename F>
void launch(const char *kernel, dim3 grid, dim3 block, size_t shared, cudaStream_t stream, F body)
{
    launch_erased(kernel, grid, block, shared, stream, [](void *f) { (*static_cast<F *>(f))(); }, &body);
}

} // namespace fpd_host

#define threadIdx (fpd_host::here->thread_idx)
#define blockIdx (fpd_host::here->block_idx)
#define blockDim (fpd_host::here->block_dim)
#define gridDim (fpd_host::here->grid_dim)
#define __syncthreads() fpd_host::barrier(__FILE__, __LINE__)
#define __trap() fpd_host::trap(__FILE__, __LINE__)

/* kernel<<<grid, block, shared, stream>>>(args): the kernels write their launches this way. */
#define FPD_LAUNCH(kernel, grid, block, shared, stream, ...)                                       \
    fpd_host::launch(#kernel, grid, block, shared, stream, [=] { kernel(__VA_ARGS__); })

static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline double __dmul_rn(double a, double b) { return a * b; }

#endif
