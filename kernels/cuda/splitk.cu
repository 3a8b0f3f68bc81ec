/* cuda-splitk: k in FPD_SPLITK_PARTS contiguous parts, each summed by its own thread (part 0 from
 * the bias), then the parts added in order by a second kernel: the order of CPU `splitk`. */
#include "kernels.cuh"

template <typename T> __device__ __forceinline__ T fma_rn(T a, T b, T c);
template <> __device__ __forceinline__ float fma_rn(float a, float b, float c) { return __fmaf_rn(a, b, c); }
template <> __device__ __forceinline__ double fma_rn(double a, double b, double c) { return __fma_rn(a, b, c); }

template <typename T> __device__ __forceinline__ T add_rn(T a, T b);
template <> __device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
template <> __device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }

/* Part blockIdx.z of every output (i, j) at this thread's place in the grid, striding by its extent. */
template <typename T>
__global__ void parts_kernel(size_t m, size_t n, size_t k, const T *a, ptrdiff_t a_rs, ptrdiff_t a_cs, const T *b,
                             ptrdiff_t b_rs, ptrdiff_t b_cs, const T *bias, T *partials)
{
    size_t part = blockIdx.z, len = (k + FPD_SPLITK_PARTS - 1) / FPD_SPLITK_PARTS;
    size_t begin = part * len < k ? part * len : k, end = (part + 1) * len < k ? (part + 1) * len : k;
    size_t rows_step = (size_t)gridDim.y * blockDim.y, cols_step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.y * blockDim.y + threadIdx.y; i < m; i += rows_step)
        for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += cols_step) {
            T acc = part == 0 && bias ? bias[j] : T(0);
            for (size_t p = begin; p < end; p++)
                acc = fma_rn(a[(ptrdiff_t)i * a_rs + (ptrdiff_t)p * a_cs], b[(ptrdiff_t)p * b_rs + (ptrdiff_t)j * b_cs],
                             acc);
            partials[(part * m + i) * n + j] = acc;
        }
}

template <typename T>
__global__ void reduce_kernel(size_t m, size_t n, const T *partials, T *c, size_t ldc)
{
    size_t rows_step = (size_t)gridDim.y * blockDim.y, cols_step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.y * blockDim.y + threadIdx.y; i < m; i += rows_step)
        for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += cols_step) {
            T total = partials[i * n + j];
            for (size_t part = 1; part < FPD_SPLITK_PARTS; part++)
                total = add_rn(total, partials[(part * m + i) * n + j]);
            c[i * ldc + j] = total;
        }
}

template <typename G, typename T>
static cudaError_t launch(const G *g, T *partials, cudaStream_t stream)
{
    dim3 block(16, 16), grid(fpd_cuda_grid_extent(g->n, 16, 0x7fffffffu),
                             fpd_cuda_grid_extent(g->m, 16, FPD_CUDA_GRID_YZ_MAX), FPD_SPLITK_PARTS);
    (void)cudaGetLastError(); /* see kernels.cuh */
    FPD_LAUNCH(parts_kernel<T>, grid, block, 0, stream, g->m, g->n, g->k, g->a, g->a_rs, g->a_cs, g->b, g->b_rs,
               g->b_cs, g->bias, partials);
    cudaError_t rc = cudaGetLastError();
    if (rc != cudaSuccess)
        return rc;
    grid.z = 1;
    FPD_LAUNCH(reduce_kernel<T>, grid, block, 0, stream, g->m, g->n, partials, g->c, g->ldc);
    return cudaGetLastError();
}

extern "C" cudaError_t fpd_cuda_splitk_f32(const struct fpd_kgemm_f32 *g, float *partials, cudaStream_t s)
{
    return launch<fpd_kgemm_f32, float>(g, partials, s);
}
extern "C" cudaError_t fpd_cuda_splitk_f64(const struct fpd_kgemm_f64 *g, double *partials, cudaStream_t s)
{
    return launch<fpd_kgemm_f64, double>(g, partials, s);
}
