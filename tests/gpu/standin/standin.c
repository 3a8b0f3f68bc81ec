/*
 * standin.c — a stand-in CUDA runtime, cuBLAS and cuBLASLt on the host, so that fpdiv's CUDA
 * adapters (src/backends/cuda/) run on a machine without a GPU, under AddressSanitizer. Compiled
 * against the toolkit's real headers and linked instead of libcudart and libcublas, with the
 * kernel host shim (tests/gpu/host/runtime.cc), which owns the error state. This file is the
 * runtime; standin_gemm.c the arithmetic, standin_blas.c the cuBLAS and cuBLASLt interfaces.
 *
 * What it models:
 * - Device memory is host memory, one malloc per cudaMalloc (256-byte aligned, filled with 0xff
 *   bytes, a NaN in every float type, as memory nobody wrote), kept in a table. A copy's host
 *   side is read and written with memcpy, so ASan reports a host buffer overrun; its device side
 *   must lie inside one allocation, or the copy fails with cudaErrorInvalidValue.
 * - Errors: every runtime call records its failure as the last error (fpd_host_raise). While a
 *   sticky error is in effect every call returns it, except cudaDeviceReset, which clears it and
 *   frees every allocation and stream, and the two version queries, which need no context.
 * - One device, "fpdiv stand-in (host)", compute capability 9.0, 132 SMs, CUDA 13.0.
 * - Streams are handles only: all work is done, synchronously, when it is issued.
 * - cuBLAS and cuBLASLt GEMMs are computed on the host, in the compute type, with a model of
 *   split-K and of its reductions (standin_gemm.c), which a test can tell apart from a plain
 *   sequential sum. Type combinations outside cuBLAS's documented table are NOT_SUPPORTED.
 *   A GEMM that touches memory outside the device allocations faults as a kernel would: it
 *   raises the sticky cudaErrorIllegalAddress, which the next synchronization returns.
 * - Faults can be injected per function, and tests can ask what the adapters left behind
 *   (standin.h).
 * What it does not: concurrency and asynchrony (no race between streams can show), the device's
 * real kernels and their summation orders (only the documented split-K structure is modeled),
 * pointer mode device, cuBLAS's invalidation of handles by cudaDeviceReset, and every function
 * fpdiv does not call.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "standin_internal.h"

/* ---- faults ---- */

enum { MAX_FAULTS = 32 };

struct fault {
    const char *function; /* its entry in one of the tables below: runtime and BLAS names differ */
    int code;             /* a cudaError_t or a cublasStatus_t */
    int sticky;
};

static struct fault faults[MAX_FAULTS];
static int fault_count;

static const char *const runtime_functions[] = {
    "cudaMalloc", "cudaFree", "cudaMemcpy", "cudaMemcpy2D", "cudaStreamCreate", "cudaStreamDestroy",
    "cudaStreamSynchronize", "cudaGetDeviceCount", "cudaGetDeviceProperties", "cudaRuntimeGetVersion", "cudaDriverGetVersion", "cudaDeviceReset", "cudaDeviceSynchronize", NULL};

static const char *const blas_functions[] = {
    "cublasCreate_v2", "cublasDestroy_v2", "cublasSetStream_v2", "cublasSetMathMode", "cublasGetMathMode",
    "cublasGetAtomicsMode", "cublasGetProperty", "cublasGemmStridedBatchedEx", "cublasLtCreate", "cublasLtDestroy",
    "cublasLtMatmul", "cublasLtMatmulAlgoGetHeuristic", "cublasLtMatmulAlgoConfigGetAttribute",
    "cublasLtMatmulDescCreate", "cublasLtMatmulDescDestroy", "cublasLtMatmulDescSetAttribute",
    "cublasLtMatmulPreferenceCreate", "cublasLtMatmulPreferenceDestroy", "cublasLtMatmulPreferenceSetAttribute",
    "cublasLtMatrixLayoutCreate", "cublasLtMatrixLayoutDestroy", "cublasLtMatrixLayoutSetAttribute", NULL};

static void add_fault(const char *const *known, const char *function, int code, int sticky)
{
    size_t i = 0;
    while (known[i] && !(function && strcmp(known[i], function) == 0))
        i++;
    if (!known[i] || fault_count == MAX_FAULTS) {
        fprintf(stderr, "stand-in: cannot inject a fault into '%s'%s\n", function ? function : "(null)",
                known[i] ? ": too many pending" : ": no such function");
        abort();
    }
    faults[fault_count++] = (struct fault){known[i], code, sticky};
}

void fpd_standin_fail_next(const char *function, cudaError_t e, int sticky)
{
    add_fault(runtime_functions, function, e, sticky);
}

void fpd_standin_fail_next_blas(const char *function, cublasStatus_t status)
{
    add_fault(blas_functions, function, status, 0);
}

void fpd_standin_reset_faults(void) { fault_count = 0; }

/* The first fault pending for `function`, removed; false if none. */
static bool take_fault(const char *function, struct fault *out)
{
    for (int i = 0; i < fault_count; i++)
        if (strcmp(faults[i].function, function) == 0) {
            *out = faults[i];
            memmove(&faults[i], &faults[i + 1], (size_t)(fault_count - i - 1) * sizeof faults[0]);
            fault_count--;
            return true;
        }
    return false;
}

cublasStatus_t fpd_standin_take_blas_fault(const char *function)
{
    struct fault f;
    return take_fault(function, &f) ? (cublasStatus_t)f.code : CUBLAS_STATUS_SUCCESS;
}

/* A failure, recorded as the last error as the runtime records every one. */
static cudaError_t failed(cudaError_t e)
{
    fpd_host_raise(e, 0);
    return e;
}

/* An injected fault for `function`, raised; cudaSuccess if none. */
static cudaError_t injected(const char *function)
{
    struct fault f;
    if (!take_fault(function, &f))
        return cudaSuccess;
    fpd_host_raise((cudaError_t)f.code, f.sticky);
    return (cudaError_t)f.code;
}

/* Every call that needs the device starts here: a sticky error is returned, as by a GPU whose
 * context a fault has broken; otherwise an injected fault, if any. */
static cudaError_t enter(const char *function)
{
    cudaError_t sticky = fpd_host_sticky_error();
    return sticky != cudaSuccess ? sticky : injected(function);
}

/* ---- objects ---- */

static int live_objects;

void fpd_standin_count_object(int delta) { live_objects += delta; }
int fpd_standin_live_objects(void) { return live_objects; }

/* A table of blocks: the device allocations, the streams (their size unused). */
struct block {
    void *p;
    size_t size;
};

struct block_table {
    struct block *items;
    size_t count, cap;
};

static bool table_add(struct block_table *t, void *p, size_t size)
{
    if (t->count == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        struct block *items = realloc(t->items, cap * sizeof *items);
        if (!items)
            return false;
        t->items = items;
        t->cap = cap;
    }
    t->items[t->count++] = (struct block){p, size};
    return true;
}

/* Frees block i and forgets it (order is not kept). */
static void table_free(struct block_table *t, size_t i)
{
    free(t->items[i].p);
    t->items[i] = t->items[--t->count];
}

/* The block that starts at p, or -1. */
static ptrdiff_t table_find(const struct block_table *t, const void *p)
{
    for (size_t i = 0; i < t->count; i++)
        if (t->items[i].p == p)
            return (ptrdiff_t)i;
    return -1;
}

/* ---- device memory ---- */

static struct block_table allocations;

int fpd_standin_live_allocations(void) { return (int)allocations.count; }

/* The allocation holding p, or -1. Addresses compare as integers: they are of different objects. */
static ptrdiff_t allocation_of(const void *p)
{
    uintptr_t at = (uintptr_t)p;
    for (size_t i = 0; i < allocations.count; i++) {
        uintptr_t base = (uintptr_t)allocations.items[i].p;
        if (at >= base && at - base < allocations.items[i].size)
            return (ptrdiff_t)i;
    }
    return -1;
}

bool fpd_standin_in_device(const void *p, size_t bytes)
{
    if (bytes == 0)
        return true;
    ptrdiff_t i = allocation_of(p);
    if (i < 0)
        return false;
    const struct block *b = &allocations.items[i];
    return bytes <= b->size - ((uintptr_t)p - (uintptr_t)b->p);
}

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    cudaError_t rc = enter("cudaMalloc");
    if (rc != cudaSuccess)
        return rc;
    if (!devPtr)
        return failed(cudaErrorInvalidValue);
    *devPtr = NULL;
    if (size == 0)
        return cudaSuccess;
    void *p;
    if (posix_memalign(&p, 256, size) != 0) /* cudaMalloc's alignment; cuBLASLt's workspace needs it */
        return failed(cudaErrorMemoryAllocation);
    if (!table_add(&allocations, p, size)) {
        free(p);
        return failed(cudaErrorMemoryAllocation);
    }
    memset(p, 0xff, size);
    *devPtr = p;
    return cudaSuccess;
}

cudaError_t cudaFree(void *devPtr)
{
    cudaError_t rc = enter("cudaFree");
    if (rc != cudaSuccess || !devPtr)
        return rc;
    ptrdiff_t i = table_find(&allocations, devPtr);
    if (i < 0)
        return failed(cudaErrorInvalidValue);
    table_free(&allocations, (size_t)i);
    return cudaSuccess;
}

/* Which sides of a copy are device memory: as the kind says, or under cudaMemcpyDefault as the
 * pointers are (unified addressing). */
static bool copy_sides(enum cudaMemcpyKind kind, const void *dst, const void *src, bool *dst_device, bool *src_device)
{
    switch (kind) {
    case cudaMemcpyHostToHost: *dst_device = false, *src_device = false; return true;
    case cudaMemcpyHostToDevice: *dst_device = true, *src_device = false; return true;
    case cudaMemcpyDeviceToHost: *dst_device = false, *src_device = true; return true;
    case cudaMemcpyDeviceToDevice: *dst_device = true, *src_device = true; return true;
    case cudaMemcpyDefault: *dst_device = allocation_of(dst) >= 0, *src_device = allocation_of(src) >= 0; return true;
    default: return false;
    }
}

/* Every copy: `height` rows of `width` bytes. */
static cudaError_t copy_rows(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                             enum cudaMemcpyKind kind)
{
    bool dst_device, src_device;
    if (width > dpitch || width > spitch)
        return failed(cudaErrorInvalidPitchValue);
    if (!copy_sides(kind, dst, src, &dst_device, &src_device))
        return failed(cudaErrorInvalidMemcpyDirection);
    if (width == 0 || height == 0)
        return cudaSuccess;
    if (!dst || !src)
        return failed(cudaErrorInvalidValue);
    if ((dst_device && !fpd_standin_in_device(dst, (height - 1) * dpitch + width)) ||
        (src_device && !fpd_standin_in_device(src, (height - 1) * spitch + width)))
        return failed(cudaErrorInvalidValue);
    for (size_t r = 0; r < height; r++) /* memcpy: ASan checks the host side */
        memcpy((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    cudaError_t rc = enter("cudaMemcpy");
    return rc != cudaSuccess ? rc : copy_rows(dst, count, src, count, count, 1, kind);
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                         enum cudaMemcpyKind kind)
{
    cudaError_t rc = enter("cudaMemcpy2D");
    return rc != cudaSuccess ? rc : copy_rows(dst, dpitch, src, spitch, width, height, kind);
}

/* ---- streams ---- */

struct CUstream_st {
    int unused; /* a stream is its address: work is done when it is issued */
};

static struct block_table streams;

bool fpd_standin_stream_known(cudaStream_t s)
{
    return s == NULL || s == cudaStreamLegacy || s == cudaStreamPerThread || table_find(&streams, s) >= 0;
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    cudaError_t rc = enter("cudaStreamCreate");
    if (rc != cudaSuccess)
        return rc;
    if (!pStream)
        return failed(cudaErrorInvalidValue);
    struct CUstream_st *s = calloc(1, sizeof *s);
    if (!s || !table_add(&streams, s, sizeof *s)) {
        free(s);
        return failed(cudaErrorMemoryAllocation);
    }
    fpd_standin_count_object(1);
    *pStream = s;
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    cudaError_t rc = enter("cudaStreamDestroy");
    if (rc != cudaSuccess)
        return rc;
    ptrdiff_t i = table_find(&streams, stream);
    if (i < 0)
        return failed(cudaErrorInvalidResourceHandle);
    table_free(&streams, (size_t)i);
    fpd_standin_count_object(-1);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    cudaError_t rc = enter("cudaStreamSynchronize");
    if (rc == cudaSuccess && !fpd_standin_stream_known(stream))
        rc = failed(cudaErrorInvalidResourceHandle);
    return rc;
}

cudaError_t cudaDeviceSynchronize(void) { return enter("cudaDeviceSynchronize"); }

/* ---- the device ---- */

cudaError_t cudaGetDeviceCount(int *count)
{
    cudaError_t rc = enter("cudaGetDeviceCount");
    if (rc != cudaSuccess)
        return rc;
    if (!count)
        return failed(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    cudaError_t rc = enter("cudaGetDeviceProperties");
    if (rc != cudaSuccess)
        return rc;
    if (!prop)
        return failed(cudaErrorInvalidValue);
    if (device != 0)
        return failed(cudaErrorInvalidDevice);
    memset(prop, 0, sizeof *prop);
    snprintf(prop->name, sizeof prop->name, "fpdiv stand-in (host)");
    prop->major = 9;
    prop->minor = 0;
    prop->multiProcessorCount = 132;
    prop->warpSize = 32;
    prop->maxThreadsPerBlock = 1024;
    return cudaSuccess;
}

/* The version queries need no context: a sticky error does not fail them. */
cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
    cudaError_t rc = injected("cudaRuntimeGetVersion");
    if (rc != cudaSuccess)
        return rc;
    if (!runtimeVersion)
        return failed(cudaErrorInvalidValue);
    *runtimeVersion = 13000;
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *driverVersion)
{
    cudaError_t rc = injected("cudaDriverGetVersion");
    if (rc != cudaSuccess)
        return rc;
    if (!driverVersion)
        return failed(cudaErrorInvalidValue);
    *driverVersion = 13000;
    return cudaSuccess;
}

cudaError_t cudaDeviceReset(void)
{
    cudaError_t rc = injected("cudaDeviceReset");
    if (rc != cudaSuccess)
        return rc;
    fpd_host_reset();
    fpd_standin_count_object(-(int)streams.count);
    while (allocations.count)
        table_free(&allocations, allocations.count - 1);
    while (streams.count)
        table_free(&streams, streams.count - 1);
    return cudaSuccess;
}
