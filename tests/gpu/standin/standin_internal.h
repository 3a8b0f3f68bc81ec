/*
 * standin_internal.h — what the stand-in's files share: device memory and faults (standin.c), the
 * GEMM arithmetic and type table (standin_gemm.c), used by cuBLAS and cuBLASLt (standin_blas.c).
 */
#ifndef FPD_STANDIN_INTERNAL_H
#define FPD_STANDIN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "fpdiv_backend.h"
#include "standin.h"

/* Whether [p, p + bytes) lies inside one device allocation (always, for 0 bytes). */
bool fpd_standin_in_device(const void *p, size_t bytes);
/* Whether s is a live stream or one of the runtime's own (NULL, legacy, per-thread). */
bool fpd_standin_stream_known(cudaStream_t s);
/* The status of a fault fpd_standin_fail_next_blas set for `function`, used up; else SUCCESS. */
cublasStatus_t fpd_standin_take_blas_fault(const char *function);
/* Counts objects made (+1) and destroyed (-1), for fpd_standin_live_objects. */
void fpd_standin_count_object(int delta);

/* How a compute type treats f32 inputs before multiplying: as they are, or rounded to TF32, f16
 * or bf16 (the _FAST_ compute types; emulated ones are modeled as exact). */
enum fpd_standin_inputs { FPD_STANDIN_EXACT, FPD_STANDIN_TF32, FPD_STANDIN_F16, FPD_STANDIN_BF16 };

/* A column-major matrix, batched: element (i, j) of entry b at i + j ld + b stride. */
struct fpd_standin_matrix {
    const void *p;
    enum fpd_dtype type;
    int64_t ld, stride;
    bool trans; /* A and B: the operand is op(X) = X^T */
};

/*
 * D = alpha op(A) op(B) + beta C (+ bias[i] on row i), batched: op(A) is m x k, op(B) k x n, C and
 * D m x n, of one type. k is cut into `splitk` contiguous parts, each summed by sequential FMA in
 * the accumulator type from zero; the parts are then added in order, in the accumulator type or,
 * when reduce_in_output, each rounded to D's type and added in it. C is not read when beta is 0.
 */
struct fpd_standin_gemm {
    int64_t m, n, k, batch;
    struct fpd_standin_matrix a, b, c, d;
    const void *bias; /* m values of D's type, or NULL */
    enum fpd_dtype acc; /* FPD_F32 or FPD_F64 */
    enum fpd_standin_inputs inputs;
    bool pedantic; /* a _PEDANTIC compute type: no reduced-precision reduction */
    double alpha, beta;
    int splitk;
    bool reduce_in_output;
};

/* The storage type of a CUDA data type; false for one fpdiv does not store. */
bool fpd_standin_dtype(cudaDataType t, enum fpd_dtype *out);
/*
 * Whether cuBLAS's table lists (compute, scale, A/B, C) for cublasGemmEx (lt false; scale NULL:
 * the compute type's) or cublasLtMatmul (lt true); when it does, sets g's acc, inputs and pedantic
 * and the operands' types.
 */
bool fpd_standin_combination(cublasComputeType_t compute, const cudaDataType *scale, cudaDataType ab, cudaDataType c,
                             bool lt, struct fpd_standin_gemm *g);
/* Whether every operand g reads or writes lies in device memory. */
bool fpd_standin_gemm_in_device(const struct fpd_standin_gemm *g);
void fpd_standin_gemm_run(const struct fpd_standin_gemm *g);

#endif
