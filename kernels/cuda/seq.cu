/* cuda-seq and cuda-tiled: one output per thread, sequential over k from the bias, one
 * correctly rounded FMA per term (__fmaf_rn / __fma_rn): the order of CPU `seq`, bit for bit. */
#include "kernels.cuh"

template <typename T> __device__ __forceinline__ T fma_rn(T a, T b, T c);
template <> __device__ __forceinline__ float fma_rn(float a, float b, float c) { return __fmaf_rn(a, b, c); }
template <> __device__ __forceinline__ double fma_rn(double a, double b, double c) { return __fma_rn(a, b, c); }

/* Each thread takes the outputs (i, j) of its place in the grid, striding by the grid's extent. */
template <typename T>
__global__ void seq_kernel(size_t m, size_t n, size_t k, const T *a, ptrdiff_t a_rs, ptrdiff_t a_cs, const T *b,
                           ptrdiff_t b_rs, ptrdiff_t b_cs, T *c, size_t ldc, const T *bias)
{
    size_t rows_step = (size_t)gridDim.y * blockDim.y, cols_step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.y * blockDim.y + threadIdx.y; i < m; i += rows_step)
        for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += cols_step) {
            T acc = bias ? bias[j] : T(0);
            for (size_t p = 0; p < k; p++)
                acc = fma_rn(a[(ptrdiff_t)i * a_rs + (ptrdiff_t)p * a_cs], b[(ptrdiff_t)p * b_rs + (ptrdiff_t)j * b_cs],
                             acc);
            c[i * ldc + j] = acc;
        }
}

constexpr unsigned TILE = 16;

/* The same order with tiles: each thread still takes its own terms in increasing p. A block
 * strides over tiles of C; the stride depends on the block alone, so its threads reach every
 * barrier together. */
template <typename T>
__global__ void tiled_kernel(size_t m, size_t n, size_t k, const T *a, ptrdiff_t a_rs, ptrdiff_t a_cs, const T *b,
                             ptrdiff_t b_rs, ptrdiff_t b_cs, T *c, size_t ldc, const T *bias)
{
    __shared__ T as[TILE][TILE], bs[TILE][TILE];
    size_t tiles_m = (m + TILE - 1) / TILE, tiles_n = (n + TILE - 1) / TILE;
    for (size_t tile_i = blockIdx.y; tile_i < tiles_m; tile_i += gridDim.y)
        for (size_t tile_j = blockIdx.x; tile_j < tiles_n; tile_j += gridDim.x) {
            size_t i = tile_i * TILE + threadIdx.y, j = tile_j * TILE + threadIdx.x;
            T acc = bias && j < n ? bias[j] : T(0);
            for (size_t p0 = 0; p0 < k; p0 += TILE) {
                size_t pa = p0 + threadIdx.x, pb = p0 + threadIdx.y;
                as[threadIdx.y][threadIdx.x] = i < m && pa < k ? a[(ptrdiff_t)i * a_rs + (ptrdiff_t)pa * a_cs] : T(0);
                bs[threadIdx.y][threadIdx.x] = pb < k && j < n ? b[(ptrdiff_t)pb * b_rs + (ptrdiff_t)j * b_cs] : T(0);
                __syncthreads();
                size_t steps = k - p0 < TILE ? k - p0 : TILE; /* no padded term ever joins the sum */
                for (size_t q = 0; q < steps; q++)
                    acc = fma_rn(as[threadIdx.y][q], bs[q][threadIdx.x], acc);
                __syncthreads();
            }
            if (i < m && j < n)
                c[i * ldc + j] = acc;
        }
}

template <typename G, typename T>
static cudaError_t launch(const G *g, cudaStream_t stream, bool tiled)
{
    dim3 block(TILE, TILE), grid(fpd_cuda_grid_extent(g->n, TILE, 0x7fffffffu),
                                 fpd_cuda_grid_extent(g->m, TILE, FPD_CUDA_GRID_YZ_MAX));
    (void)cudaGetLastError(); /* see kernels.cuh */
    if (tiled)
        FPD_LAUNCH(tiled_kernel<T>, grid, block, 0, stream, g->m, g->n, g->k, g->a, g->a_rs, g->a_cs, g->b, g->b_rs,
                   g->b_cs, g->c, g->ldc, g->bias);
    else
        FPD_LAUNCH(seq_kernel<T>, grid, block, 0, stream, g->m, g->n, g->k, g->a, g->a_rs, g->a_cs, g->b, g->b_rs,
                   g->b_cs, g->c, g->ldc, g->bias);
    return cudaGetLastError();
}

extern "C" cudaError_t fpd_cuda_seq_f32(const struct fpd_kgemm_f32 *g, cudaStream_t s)
{
    return launch<fpd_kgemm_f32, float>(g, s, false);
}
extern "C" cudaError_t fpd_cuda_seq_f64(const struct fpd_kgemm_f64 *g, cudaStream_t s)
{
    return launch<fpd_kgemm_f64, double>(g, s, false);
}
extern "C" cudaError_t fpd_cuda_tiled_f32(const struct fpd_kgemm_f32 *g, cudaStream_t s)
{
    return launch<fpd_kgemm_f32, float>(g, s, true);
}
extern "C" cudaError_t fpd_cuda_tiled_f64(const struct fpd_kgemm_f64 *g, cudaStream_t s)
{
    return launch<fpd_kgemm_f64, double>(g, s, true);
}
