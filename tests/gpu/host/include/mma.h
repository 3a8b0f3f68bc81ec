/*
 * mma.h — the host shim's WMMA (nvcuda::wmma), 16x16x16 tiles of f16 or bf16 into f32. On a GPU
 * a fragment's elements are spread over the warp's 32 lanes; here every lane holds the whole tile
 * and computes it, so each lane's loads, stores and products are those of the whole warp, and a
 * lane's slip (a wrong pointer, stride or k step) changes the result. The operations are
 * collective, as the hardware's: each starts with a barrier of the block (a warp's would do; the
 * shim has block-wide ones, which is stricter where a block has several warps), so no lane stores
 * a tile before every lane has loaded it. mma_sync is the tensor-core
 * arithmetic set by fpd_host_set_tensor_core (kernels/cpu/tensor_core.h): for each element, its
 * accumulator plus 16 products, block after block of the model's size.
 */
#ifndef FPD_HOST_MMA_H
#define FPD_HOST_MMA_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "host_runtime.h"

namespace nvcuda {
namespace wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

template <typename Use, int M, int N, int K, typename T, typename Layout = void> struct fragment {
    static_assert(M == 16 && N == 16 && K == 16, "the host shim has 16x16x16 tiles only");
    float x[16 * 16]; /* row-major, each value exactly (16-bit inputs widen exactly) */
    bool is_bf16;
};

inline float widen(__half h)
{
    unsigned e = h.bits >> 10 & 31, f = h.bits & 1023;
    float v = e == 0 ? ldexpf((float)f, -24) : e == 31 ? (f ? NAN : INFINITY) : ldexpf((float)(f | 1024), (int)e - 25);
    return h.bits >> 15 ? -v : v;
}

inline float widen(__nv_bfloat16 b)
{
    uint32_t bits = (uint32_t)b.bits << 16;
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

template <typename Use, typename T, typename Layout>
inline void load_matrix_sync(fragment<Use, 16, 16, 16, T, Layout> &f, const T *p, unsigned ldm)
{
    __syncthreads();
    bool col = std::is_same<Layout, col_major>::value;
    for (unsigned r = 0; r < 16; r++)
        for (unsigned c = 0; c < 16; c++)
            f.x[r * 16 + c] = widen(col ? p[c * ldm + r] : p[r * ldm + c]);
    f.is_bf16 = std::is_same<T, __nv_bfloat16>::value;
}

inline void load_matrix_sync(fragment<accumulator, 16, 16, 16, float> &f, const float *p, unsigned ldm, layout_t l)
{
    __syncthreads();
    for (unsigned r = 0; r < 16; r++)
        for (unsigned c = 0; c < 16; c++)
            f.x[r * 16 + c] = l == mem_row_major ? p[r * ldm + c] : p[c * ldm + r];
}

inline void store_matrix_sync(float *p, const fragment<accumulator, 16, 16, 16, float> &f, unsigned ldm, layout_t l)
{
    __syncthreads();
    for (unsigned r = 0; r < 16; r++)
        for (unsigned c = 0; c < 16; c++)
            (l == mem_row_major ? p[r * ldm + c] : p[c * ldm + r]) = f.x[r * 16 + c];
}

inline void fill_fragment(fragment<accumulator, 16, 16, 16, float> &f, float v)
{
    for (float &e : f.x)
        e = v;
}

template <typename T, typename LA, typename LB>
inline void mma_sync(fragment<accumulator, 16, 16, 16, float> &d, const fragment<matrix_a, 16, 16, 16, T, LA> &a,
                     const fragment<matrix_b, 16, 16, 16, T, LB> &b, const fragment<accumulator, 16, 16, 16, float> &c)
{
    __syncthreads();
    const fpd_tc_arith *arith = fpd_host_tensor_core(a.is_bf16);
    if (!arith)
        __trap(); /* no model of this GPU's tensor cores was set */
    float out[16 * 16];
    for (unsigned i = 0; i < 16; i++)
        for (unsigned j = 0; j < 16; j++)
            out[i * 16 + j] = (float)fpd_tc_dot(arith, &a.x[i * 16], 1, &b.x[j], 16, 16, c.x[i * 16 + j]);
    memcpy(d.x, out, sizeof out);
}

} // namespace wmma
} // namespace nvcuda

#endif
