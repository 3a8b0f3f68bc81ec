/* cuda-wmma: tensor cores through WMMA, one warp per 16x16 tile of C, k in steps of 16. The
 * hardware's accumulation inside an MMA is not documented; its published model (tc-* backends,
 * kernels/cpu/tensor_core.h) is this kernel's twin for the GPU it runs on. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include "kernels.cuh"

using namespace nvcuda;

#ifdef __CUDA_ARCH__
#define FPD_ARCH __CUDA_ARCH__
#else
#define FPD_ARCH 0 /* nvcc's host pass, which never runs a kernel's body */
#endif

/* Whether this architecture's WMMA takes T: f16 from sm_70 (Volta), bf16 from sm_80 (Ampere). */
template <typename T> struct wmma_takes;
template <> struct wmma_takes<__half> {
    static constexpr bool value = FPD_ARCH >= 700;
};
template <> struct wmma_takes<__nv_bfloat16> {
    static constexpr bool value = FPD_ARCH >= 800;
};

/* A warp per tile of C, striding over the tiles that do not fit the grid. C holds the bias rows
 * when the kernel starts: they are the accumulator's first value, so the bias is fused. */
template <typename T>
__global__ void wmma_kernel(size_t m, size_t n, size_t k, const T *a, const T *b, float *c)
{
    if constexpr (wmma_takes<T>::value) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> fb;
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
        for (size_t tile_i = blockIdx.y; tile_i < m / 16; tile_i += gridDim.y)
            for (size_t tile_j = blockIdx.x; tile_j < n / 16; tile_j += gridDim.x) {
                float *tile_c = c + tile_i * 16 * n + tile_j * 16;
                wmma::load_matrix_sync(acc, tile_c, (unsigned)n, wmma::mem_row_major);
                for (size_t p = 0; p < k; p += 16) {
                    wmma::load_matrix_sync(fa, a + tile_i * 16 * k + p, (unsigned)k);
                    wmma::load_matrix_sync(fb, b + p * n + tile_j * 16, (unsigned)n);
                    wmma::mma_sync(acc, fa, fb, acc);
                }
                wmma::store_matrix_sync(tile_c, acc, (unsigned)n, wmma::mem_row_major);
            }
    } else {
        __trap(); /* built for a GPU whose tensor cores do not take T: fail, never return zeros */
    }
}

extern "C" cudaError_t fpd_cuda_wmma(size_t m, size_t n, size_t k, const void *a, const void *b, float *c, int is_bf16,
                                     cudaStream_t stream)
{
    if (n > 0xffffffffu || k > 0xffffffffu) /* WMMA's leading dimensions are unsigned */
        return cudaErrorInvalidValue;
    dim3 grid(fpd_cuda_grid_extent(n, 16, 0x7fffffffu), fpd_cuda_grid_extent(m, 16, FPD_CUDA_GRID_YZ_MAX)), block(32);
    (void)cudaGetLastError(); /* see kernels.cuh */
    if (is_bf16)
        FPD_LAUNCH(wmma_kernel<__nv_bfloat16>, grid, block, 0, stream, m, n, k, (const __nv_bfloat16 *)a,
                   (const __nv_bfloat16 *)b, c);
    else
        FPD_LAUNCH(wmma_kernel<__half>, grid, block, 0, stream, m, n, k, (const __half *)a, (const __half *)b, c);
    return cudaGetLastError();
}
