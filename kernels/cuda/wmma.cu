/* cuda-wmma: tensor cores through WMMA, one warp per 16x16 tile of C, k in steps of 16. The
 * hardware's accumulation order inside an MMA is not documented (multi-term fused adds), so this
 * kernel has no CPU twin: it is what `explain` and `device` are for. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include "kernels.cuh"

using namespace nvcuda;

template <typename T>
__global__ void wmma_kernel(size_t m, size_t n, size_t k, const T *a, const T *b, float *c)
{
#if __CUDA_ARCH__ >= 800
    size_t tile_i = blockIdx.y, tile_j = blockIdx.x;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    float *tile_c = c + tile_i * 16 * n + tile_j * 16;
    wmma::load_matrix_sync(acc, tile_c, (unsigned)n, wmma::mem_row_major); /* the bias rows: fused */
    for (size_t p = 0; p < k; p += 16) {
        wmma::load_matrix_sync(fa, a + tile_i * 16 * k + p, (unsigned)k);
        wmma::load_matrix_sync(fb, b + p * n + tile_j * 16, (unsigned)n);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(tile_c, acc, (unsigned)n, wmma::mem_row_major);
#endif
}

extern "C" cudaError_t fpd_cuda_wmma(size_t m, size_t n, size_t k, const void *a, const void *b, float *c, int is_bf16,
                                     cudaStream_t stream)
{
    dim3 grid((unsigned)(n / 16), (unsigned)(m / 16)), block(32);
    if (is_bf16)
        wmma_kernel<__nv_bfloat16><<<grid, block, 0, stream>>>(m, n, k, (const __nv_bfloat16 *)a,
                                                                (const __nv_bfloat16 *)b, c);
    else
        wmma_kernel<__half><<<grid, block, 0, stream>>>(m, n, k, (const __half *)a, (const __half *)b, c);
    return cudaGetLastError();
}
