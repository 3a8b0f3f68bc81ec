/*
 * cblas_library.h — a CBLAS library loaded at run time, whose names answer for it alone.
 *
 * BLAS libraries export the same names (cblas_sgemm, sgemm_, …) and reach their own code through
 * them, and the loader looks a library's names up in the process's global scope first: with an
 * OpenBLAS linked into the process, the reference BLAS's cblas_sgemm called OpenBLAS's sgemm_, and
 * its answers were OpenBLAS's. So fpdiv links no BLAS, and loads each library RTLD_LOCAL (its
 * names stay its own) and RTLD_NOW (its calls are bound at once, to itself). A library may still
 * put names into the global scope itself: oneMKL loads its parts RTLD_GLOBAL, and sgemm_ and
 * cblas_sgemm then answer from MKL for every library loaded later. fpd_cblas_global_names says
 * when that is so; the backend then runs the library in a process of its own (host.h).
 * (dlmopen's namespaces would keep the names apart too, but a library's fork handlers register
 * with its namespace's own C library, so a child forked for a check found OpenBLAS's thread pool
 * missing and spun; and glibc 2.36 cannot load RTLD_GLOBAL inside one, which oneMKL does.)
 *
 * A library is recognised by its symbols, with the names ILP64 builds give them too (numpy's
 * scipy-openblas: scipy_cblas_sgemm64_, 64-bit integers).
 */
#ifndef FPD_CBLAS_LIBRARY_H
#define FPD_CBLAS_LIBRARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CBLAS's enumerations, as every CBLAS numbers them. */
enum {
    FPD_CBLAS_ROW_MAJOR = 101, FPD_CBLAS_COL_MAJOR = 102, FPD_CBLAS_NO_TRANS = 111, FPD_CBLAS_TRANS = 112,
    FPD_CBLAS_UPPER = 121, FPD_CBLAS_LOWER = 122
};

struct fpd_cblas {
    void *handle;
    bool ilp64; /* 64-bit integers */
    char path[1024];
    char symbol_prefix[16], symbol_suffix[8]; /* "scipy_", "64_": how this build names its symbols */
    /* cblas_sgemm and cblas_dgemm, always; the rest when the library has them */
    void *sgemm, *dgemm;
    void *sbgemm;    /* OpenBLAS's bf16 x bf16 -> f32 (cblas_sbgemm) */
    void *gemm_bf16; /* oneMKL's cblas_gemm_bf16bf16f32 */
    void *gemm_f16;  /* oneMKL's cblas_gemm_f16f16f32 */
    void *gemv[2], *dot[2]; /* the routes frameworks take (fpdiv_backend.h): cblas_sgemv, cblas_dgemv; cblas_sdot, cblas_ddot */
    void *syrk[2];          /* numpy's for A @ A.T: cblas_ssyrk, cblas_dsyrk */
    void *gemmt[2];         /* one triangle of a GEMM: cblas_sgemmt, cblas_dgemmt (oneMKL, BLIS, OpenBLAS >= 0.3.22) */
    void (*set_threads_int)(int);     /* openblas_set_num_threads, MKL_Set_Num_Threads */
    void (*set_threads_long)(int64_t); /* bli_thread_set_num_threads (BLIS's dim_t) */
    int default_threads;               /* the library's own count when loaded (0: unknown, 1 for a serial one) */
    /* what it says of itself ("" when it does not) */
    char library[32];    /* "OpenBLAS", "oneMKL", "BLIS"; "" for a library without a version function */
    char version[64];    /* "0.3.21", "2024.2.0", "0.9.0" */
    char kernel_set[48]; /* the kernels it picked: OpenBLAS's core, BLIS's configuration */
    char config[256];    /* OpenBLAS's configuration string, oneMKL's version string */
    char settings[160];  /* the variables that chose its code path, as set: "MKL_CBWR=AVX2" */
    char native_branch[16]; /* oneMKL: the code path it picks for this CPU (mkl_cbwr_get_auto_branch) */
};

/* Loads the library at `path` (a file name alone is searched for as dlopen searches) and resolves
 * its entry points. FPD_ERR_UNAVAILABLE with why (the loader's message, or the missing symbol). */
int fpd_cblas_load(const char *path, struct fpd_cblas *lib, char *why, size_t why_size);
void fpd_cblas_unload(struct fpd_cblas *lib);

/* Whether BLAS names (sgemm_, cblas_sgemm, …) are in this process's global scope, where they would
 * answer for a library loaded now; owner gets the name and the library it comes from. */
bool fpd_cblas_global_names(char *owner, size_t owner_size);

/* Whether the file is an OpenBLAS (it exports openblas_get_corename, under any of the names
 * builds give it), read from its symbol table without loading it. */
bool fpd_cblas_file_is_openblas(const char *path);

/* The library's threads: `threads` (> 0), where it can be told. */
void fpd_cblas_set_threads(const struct fpd_cblas *lib, int threads);

/* One GEMM of row-major operands, C = alpha op(A) op(B) + beta C, through the entry point `fn`
 * (sgemm, dgemm, sbgemm, gemm_bf16 or gemm_f16: the last three take 16-bit operands and a binary32
 * C): asked of the row-major entry, or with col_major of the column-major one, as the same memory's
 * C^T = op(B)^T op(A)^T (what a Fortran caller hands the library). Dimensions must fit the library's
 * integers (fpd_cblas_fits). */
void fpd_cblas_gemm_f32(const struct fpd_cblas *lib, const void *fn, bool col_major, bool trans_a, bool trans_b,
                        size_t m, size_t n, size_t k, float alpha, const void *a, size_t lda, const void *b,
                        size_t ldb, float beta, float *c, size_t ldc);
void fpd_cblas_dgemm(const struct fpd_cblas *lib, bool col_major, bool trans_a, bool trans_b, size_t m, size_t n,
                     size_t k, double alpha, const double *a, size_t lda, const double *b, size_t ldb, double beta,
                     double *c, size_t ldc);
/* y = A x + beta y through cblas_sgemv (f64 false) or cblas_dgemv, with A of rows x cols stored in
 * `order` with leading dimension lda, transposed first when trans. A negative increment reads x
 * (writes y) backwards, BLAS's way: the vector then points at its lowest address, where its last
 * element is. Call only when lib->gemv[f64]. */
void fpd_cblas_gemv(const struct fpd_cblas *lib, bool f64, int order, bool trans, size_t rows, size_t cols,
                    const void *a, size_t lda, const void *x, ptrdiff_t incx, double beta, void *y, ptrdiff_t incy);
/* x . y through cblas_sdot or cblas_ddot (an sdot's float widened exactly), increments as gemv's.
 * Call only when lib->dot[f64]. */
double fpd_cblas_dot(const struct fpd_cblas *lib, bool f64, size_t n, const void *x, ptrdiff_t incx, const void *y,
                     ptrdiff_t incy);
/* C = op(A) op(A)^T, its upper triangle only (lower where not upper; row-major, n x n of ldc; op(A)
 * n x k, stored transposed when trans), through cblas_ssyrk (f64 false) or cblas_dsyrk with beta = 0.
 * Call only when lib->syrk[f64]. */
void fpd_cblas_syrk(const struct fpd_cblas *lib, bool f64, bool upper, bool trans, size_t n, size_t k, const void *a,
                    size_t lda, void *c, size_t ldc);
/* One triangle (upper when `upper`, the diagonal included) of C = op(A) op(B), row-major, n x n of
 * ldc, op(A) n x k and op(B) k x n, through cblas_sgemmt (f64 false) or cblas_dgemmt with beta = 0;
 * the other triangle is the library's to leave alone. Call only when lib->gemmt[f64]. */
void fpd_cblas_gemmt(const struct fpd_cblas *lib, bool f64, bool upper, bool trans_a, bool trans_b, size_t n, size_t k,
                     const void *a, size_t lda, const void *b, size_t ldb, void *c, size_t ldc);
bool fpd_cblas_fits(const struct fpd_cblas *lib, const size_t *dims, size_t count);

#endif
