/*
 * kernels.cuh — fpdiv's own CUDA GEMM kernels: arithmetic only. Same contract as
 * kernels/cpu/kernels.h (row-major, op(A)/op(B) by element strides, C = bias + A·B), on device
 * pointers, launched on `stream`. Built with --fmad=false and every FMA written as __fmaf_rn /
 * __fma_rn, so each kernel's order is exactly the one it states:
 *   cuda-seq    one thread per output, sequential over k from the bias — twin of CPU `seq`
 *   cuda-tiled  16x16 shared-memory tiles, the same sequential order — twin of CPU `seq`
 *   cuda-splitk k in 4 contiguous parts on separate threads, reduced in order — twin of `splitk`
 *   cuda-wmma   tensor cores (WMMA 16x16x16, f16/bf16 in, f32 accumulate): twin of the GPU's
 *               tensor-core model (tc-*, kernels/cpu/tensor_core.h)
 * The same source also runs on the CPU, compiled by the host compiler through tests/gpu/host/
 * (cuda_host.h), so launches are written FPD_LAUNCH(kernel, grid, block, shared, stream, args...):
 * nvcc's kernel<<<...>>>(args) is not C++.
 * A launcher clears the runtime's last error before it launches, so the error it returns is its
 * own launch's, not one a previous call left behind. Grids are capped at the GPU's limits and the
 * kernels stride over what does not fit, so any m and n run.
 */
#ifndef FPD_CUDA_KERNELS_CUH
#define FPD_CUDA_KERNELS_CUH

#include <cuda_runtime_api.h>

#include "cpu/kernels.h"

#ifndef FPD_LAUNCH
#define FPD_LAUNCH(kernel, grid, block, shared, stream, ...) kernel<<<grid, block, shared, stream>>>(__VA_ARGS__)
#endif

/* A grid's blocks along y and z at most (x takes 2^31 - 1). */
#define FPD_CUDA_GRID_YZ_MAX 65535u

/* Blocks along one grid dimension for `count` items, `per_block` to a block: enough for all, or
 * `limit`, past which the kernels stride. */
static inline unsigned fpd_cuda_grid_extent(size_t count, unsigned per_block, unsigned limit)
{
    size_t blocks = (count + per_block - 1) / per_block;
    return blocks == 0 ? 1u : blocks < limit ? (unsigned)blocks : limit;
}

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t fpd_cuda_seq_f32(const struct fpd_kgemm_f32 *g, cudaStream_t stream);
cudaError_t fpd_cuda_seq_f64(const struct fpd_kgemm_f64 *g, cudaStream_t stream);
cudaError_t fpd_cuda_tiled_f32(const struct fpd_kgemm_f32 *g, cudaStream_t stream);
cudaError_t fpd_cuda_tiled_f64(const struct fpd_kgemm_f64 *g, cudaStream_t stream);
cudaError_t fpd_cuda_splitk_f32(const struct fpd_kgemm_f32 *g, float *partials, cudaStream_t stream);
cudaError_t fpd_cuda_splitk_f64(const struct fpd_kgemm_f64 *g, double *partials, cudaStream_t stream);
/* C (m x n, ldc, float) = bias rows + A·B; A (m x k) and B (k x n) row-major 16-bit values
 * (is_bf16 selects bf16 over f16), m, n, k multiples of 16, C prefilled with the bias rows. */
cudaError_t fpd_cuda_wmma(size_t m, size_t n, size_t k, const void *a, const void *b, float *c, int is_bf16,
                          cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
