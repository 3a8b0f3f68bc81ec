/*
 * fpdiv_backend.h — the backend interface: what fpdiv needs from anything that computes a GEMM.
 *
 * The built-in backends (own kernels, OpenBLAS) implement exactly this header, and so will user
 * plugins. It is self-contained C: no other fpdiv header is needed to implement a backend.
 * Bump FPDIV_BACKEND_ABI on any change to the structs or callbacks below.
 */
#ifndef FPDIV_BACKEND_H
#define FPDIV_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FPDIV_BACKEND_ABI 9
/* ABI 8 is ABI 9 without the route FPD_ROUTE_GEMM_COL_MAJOR and its feature, FPD_FEAT_COL_MAJOR, and
 * without args->alpha_negative at the end of struct fpd_gemm_args (a plugin of ABI 8 is handed no
 * scalars: what it would make of a negative alpha is unknown);
 * ABI 7 is ABI 8 without args->alpha_exp and args->beta_exp at the end of struct fpd_gemm_args and
 * their feature, FPD_FEAT_SCALARS;
 * ABI 6 is ABI 7 without gemm_concurrent at the end of struct fpd_backend, the routes FPD_ROUTE_SYRK,
 * FPD_ROUTE_OUT_* and FPD_ROUTE_GEMMT_* and their features;
 * ABI 5 is ABI 6 without the status FPD_ERR_NOT_APPLICABLE (its structs are ABI 6's);
 * ABI 4 is ABI 5 without `rounding` at the end of struct fpd_backend, ABI 3 ABI 4 without
 * gemm_many; ABI 2 is ABI 3 without
 * routes and executions (args->route, args->execution and the features that go with them); ABI 1
 * is ABI 2 without the kernel-set fields. fpdiv still loads plugins built for any of them (theirs
 * get one GEMM per call, take every product as one GEMM before ABI 3, and cannot be pinned to a
 * kernel set before ABI 2). */
#define FPDIV_BACKEND_ABI_OLDEST 1

/* Status codes shared by the whole library. Core code returns these; only the CLI prints. */
enum fpd_status {
    FPD_OK = 0,
    FPD_ERR_INPUT,       /* bad user input: usage, malformed value, over a budget */
    FPD_ERR_UNAVAILABLE, /* a backend cannot run here (library, device, dtype missing) */
    FPD_ERR_BACKEND,     /* a backend failed while computing */
    FPD_ERR_NOMEM,
    FPD_ERR_INTERNAL,
    /* ABI 6, from gemm(): the backend takes the GEMM's dtypes but cannot compute this GEMM (a
     * library offers fewer algorithms for this problem than args->algo asks for), so the check
     * does not apply: it is passed over, not a finding. Say why. */
    FPD_ERR_NOT_APPLICABLE,
};

/* Storage types. Values are stored as IEEE 754 binary64/binary32/binary16 and bfloat16 bits. */
enum fpd_dtype { FPD_F64, FPD_F32, FPD_F16, FPD_BF16, FPD_DTYPE_COUNT };

/* A GEMM's dtypes: inputs (A, B), output (C, bias) and the accumulator the sum is formed in. */
struct fpd_dtypes {
    enum fpd_dtype in, out, acc;
};

enum fpd_device { FPD_DEVICE_CPU, FPD_DEVICE_GPU };

/* Who wrote the arithmetic: relations such as `vendor` pair one own kernel with one vendor library. */
enum fpd_backend_kind {
    FPD_KIND_OWN,
    FPD_KIND_VENDOR,
    FPD_KIND_TEST,
    FPD_KIND_FRAMEWORK, /* ABI 3: a framework's operations (NumPy, PyTorch, JAX), run as its users run them */
};

enum fpd_feature {
    FPD_FEAT_FUSED_BIAS = 1u << 0, /* gemm() honours args->bias in its own fused form */
    FPD_FEAT_THREADS = 1u << 1,    /* gemm() honours args->threads */
    FPD_FEAT_ALGOS = 1u << 2,      /* gemm() honours args->algo: the library's algorithm choice */
    FPD_FEAT_ROUTES = 1u << 3,     /* gemm() honours args->route where in = out = acc is f32 or f64 (ABI 3) */
    FPD_FEAT_VMAP = 1u << 4,       /* gemm() honours FPD_ROUTE_VMAP_ROWS (a framework's vmap; ABI 3) */
    FPD_FEAT_COMPILE = 1u << 5,    /* gemm() honours args->execution: eager or compiled (ABI 3) */
    FPD_FEAT_BIAS_ADDED = 1u << 6, /* args->bias is added to the rounded product: one more rounding (ABI 3) */
    FPD_FEAT_CONCURRENT = 1u << 7, /* gemm_concurrent() runs GEMMs from several threads at once (ABI 7) */
    FPD_FEAT_SELF = 1u << 8,       /* gemm() honours FPD_ROUTE_SYRK (ABI 7) */
    FPD_FEAT_OUT_VIEWS = 1u << 9,  /* gemm() honours FPD_ROUTE_OUT_STRIDED and _TRANSPOSED (ABI 7) */
    FPD_FEAT_OUT_REVERSED = 1u << 10, /* gemm() honours FPD_ROUTE_OUT_REVERSED (ABI 7) */
    FPD_FEAT_GEMMT = 1u << 11,        /* gemm() honours FPD_ROUTE_GEMMT_UPPER and _LOWER (ABI 7) */
    FPD_FEAT_SCALARS = 1u << 12,      /* gemm() honours args->alpha_exp and args->beta_exp on FPD_ROUTE_GEMM (ABI 8),
                                         and args->alpha_negative (ABI 9) */
    FPD_FEAT_COL_MAJOR = 1u << 13,    /* gemm() honours FPD_ROUTE_GEMM_COL_MAJOR, with the bias and scalars it
                                         honours on FPD_ROUTE_GEMM (ABI 9) */
};

/*
 * How a library is asked for the product. Frameworks send a product with one row, one column or
 * one element to BLAS's matrix-vector and dot routines (numpy: (1,k)@(k,n) to gemv, (k,)@(k,) to
 * dot), which add the k terms in orders of their own, unlike the library's gemm.
 */
enum fpd_route {
    FPD_ROUTE_GEMM,      /* the whole product in one gemm call */
    FPD_ROUTE_GEMV_ROWS, /* each row of C by one gemv: C[i,:] = op(A)[i,:] op(B), a vector times a matrix */
    FPD_ROUTE_GEMV_COLS, /* each column by one gemv: C[:,j] = op(A) op(B)[:,j], a matrix times a vector */
    FPD_ROUTE_DOT,       /* each element by one dot: C[i,j] = op(A)[i,:] . op(B)[:,j] (bias is then NULL) */
    FPD_ROUTE_VMAP_ROWS, /* a framework's vmap over the rows of A of (row . op(B)): what a per-row function
                            becomes when it is vectorized (FPD_FEAT_VMAP) */
    FPD_ROUTE_SYRK,      /* ABI 7: C = op(A) op(A)^T (m = n) by the library's syrk: numpy computes the upper
                            triangle and mirrors it for A @ A.T; fpdiv's BLAS backends compute the lower
                            by a second call of uplo L, whose code is the library's own (FPD_FEAT_SELF);
                            op(B) is then a copy of op(A)^T, which the route need not read */
    /* ABI 7: the product written through a view of a larger output, as a framework's out= writes it
     * (np.matmul(a, b, out=v), torch.mm(a, b, out=v)); the backend copies the view's values to C */
    FPD_ROUTE_OUT_STRIDED,    /* v = every other column of an m x 2n array (FPD_FEAT_OUT_VIEWS) */
    FPD_ROUTE_OUT_TRANSPOSED, /* v = the transpose of an n x m array (FPD_FEAT_OUT_VIEWS) */
    FPD_ROUTE_OUT_REVERSED,   /* v = an m x n array with its rows and columns reversed: negative strides
                                 (FPD_FEAT_OUT_REVERSED) */
    /* ABI 7: one triangle of C = op(A) op(B) (m = n), the diagonal included, by the library's gemmt
     * (FPD_FEAT_GEMMT; bias NULL); the other triangle must be left exactly as it was given */
    FPD_ROUTE_GEMMT_UPPER,
    FPD_ROUTE_GEMMT_LOWER,
    /* ABI 9: the whole product in one gemm call through the library's column-major entry, on the same
     * memory: C^T = op(B)^T op(A)^T, each operand's storage that of its transpose (what LAPACK,
     * SciPy and every Fortran caller hand a library) (FPD_FEAT_COL_MAJOR) */
    FPD_ROUTE_GEMM_COL_MAJOR,
    FPD_ROUTE_COUNT
};

/* How a framework runs the operation (FPD_FEAT_COMPILE): as it does by default, op by op, or
 * compiled (torch.compile, jax.jit). */
enum fpd_execution { FPD_EXEC_DEFAULT, FPD_EXEC_EAGER, FPD_EXEC_COMPILED };

/*
 * One batched GEMM on host memory, row-major:
 *   C[b][i][j] = bias[j] + sum_p op(A)[b][i][p] * op(B)[b][p][j]     (bias term only when bias != NULL)
 * op(A) is m x k; when trans_a it is stored transposed (k rows of lda elements), else m rows of lda.
 * op(B) is k x n; when trans_b it is stored transposed (n rows of ldb), else k rows of ldb.
 * C is m rows of ldc elements. Strides between batch entries are in elements. A and B hold `in`
 * values; C and bias hold `out` values. The backend must write only the m x n entries of each C.
 */
struct fpd_gemm_args {
    struct fpd_dtypes dt;
    size_t batch, m, n, k;
    bool trans_a, trans_b;
    const void *a;
    size_t lda, stride_a;
    const void *b;
    size_t ldb, stride_b;
    void *c;
    size_t ldc, stride_c;
    const void *bias; /* n values of dt.out, or NULL; added in the backend's fused form */
    int threads;      /* 0: the backend's default; else the thread count to use (FPD_FEAT_THREADS) */
    int algo;         /* 0: the library's first choice; i: its i-th candidate (FPD_FEAT_ALGOS) */
    enum fpd_route route; /* ABI 3: FPD_ROUTE_GEMM unless the backend has FPD_FEAT_ROUTES */
    enum fpd_execution execution; /* ABI 3: FPD_EXEC_DEFAULT unless the backend has FPD_FEAT_COMPILE */
    /* ABI 8, 0 and 0 unless the backend has FPD_FEAT_SCALARS: the product asked for through BLAS's
     * own scalars, C = 2^alpha_exp op(A) op(B) + 2^beta_exp bias, as a library computes
     * alpha op(A) op(B) + beta C on a C holding the bias rows (alpha = 2^alpha_exp, beta =
     * 2^beta_exp; beta = 0, C unread, without a bias). Powers of two, so that no scalar rounds. */
    int alpha_exp, beta_exp;
    /* ABI 9, with FPD_FEAT_SCALARS: alpha is -2^alpha_exp where this is nonzero (C's bias rows are
     * then handed over negated), as LAPACK's updates C := C - A B ask for */
    int alpha_negative;
};

/* Whether a GEMM asks for BLAS's own scalars (the alpha-beta relation's second path). */
static inline bool fpd_gemm_args_scaled(const struct fpd_gemm_args *g)
{
    return g->alpha_exp || g->beta_exp || g->alpha_negative;
}

/*
 * How a backend's arithmetic rounds, for the rounding-error bound a difference is judged against
 * (ABI 5). By default every operation is correctly rounded to nearest in the accumulator type.
 * A tensor core is not: it adds a block of products at once, each truncated to a grid of the
 * block's largest exponent, and rounds the block's sum once, toward zero for fp32 (see
 * kernels/cpu/tensor_core.h); a bound built for round-to-nearest would call its correct results
 * wrong.
 */
enum fpd_rounding_kind {
    FPD_ROUNDING_NEAREST,   /* each operation rounded to nearest in the accumulator type */
    FPD_ROUNDING_BLOCK_FMA, /* a tensor core's block fused multiply-add, chained through the accumulator */
};

struct fpd_rounding {
    enum fpd_rounding_kind kind;
    unsigned block;   /* BLOCK_FMA: products per block */
    int extra_bits;   /* BLOCK_FMA: alignment bits beyond the 24 of binary32's significand */
    int min_exp;      /* BLOCK_FMA: the least exponent of the grid the terms are truncated to, plus 23 + extra_bits */
    bool toward_zero; /* BLOCK_FMA: each block's sum rounded toward zero (else to nearest even) */
};

/*
 * Provenance: the backend reports key/value pairs. fpdiv records them with every result as the
 * backend's environment and reads three keys where they are given:
 *   "library"    the library that computes ("OpenBLAS")
 *   "version"    its version ("0.3.21")
 *   "kernel_set" the kernels it selected for this CPU ("Haswell": OpenBLAS's core, MKL's code path)
 * Anything else ("config", "threads", …) is recorded as it is.
 */
typedef void (*fpd_provenance_fn)(void *ctx, const char *key, const char *value);

struct fpd_backend {
    int abi;             /* FPDIV_BACKEND_ABI */
    const char *name;    /* what users type: "openblas", "seq" */
    const char *summary; /* one line: what it is and, for own kernels, its accumulation order */
    enum fpd_device device;
    enum fpd_backend_kind kind;
    unsigned features; /* enum fpd_feature bits */
    const void *data;  /* the implementation's own constant data, handed back to open() */
    const char *twin;  /* a backend on another device that computes in exactly this order, or NULL */

    /* Set up once per process. On failure return FPD_ERR_UNAVAILABLE and say why. */
    int (*open)(const struct fpd_backend *self, void **state, char *why, size_t why_size);
    /* Whether this dtype combination can be computed; when not, say why. */
    bool (*supports)(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size);
    /* Compute; on failure return a status and say why (it becomes an `error` verdict). */
    int (*gemm)(void *state, const struct fpd_gemm_args *args, char *why, size_t why_size);
    void (*provenance)(void *state, fpd_provenance_fn emit, void *ctx);
    void (*close)(void *state);

    /* ABI 2. A library that picks its kernels for the CPU once, when it initialises, and lets an
     * environment variable pin that choice, names both here; fpdiv then runs it on any kernel set
     * this CPU can execute (`--backend NAME@SET`, `--core SET`, the `core` relation) by serving the
     * backend from a process of its own started with kernel_set_env=SET, and accepts the pin only
     * when the backend's "kernel_set" provenance then names SET. NULL: not pinnable. */
    const char *kernel_set_env;     /* "OPENBLAS_CORETYPE" */
    const char *const *kernel_sets; /* the names it takes, NULL-terminated: the candidates fpdiv probes */

    /* ABI 4, optional (NULL: fpdiv calls gemm() for each). Several independent GEMMs at once, for a
     * backend whose every call has a fixed cost of its own, such as a round trip to another
     * process: fpdiv hands it the small GEMMs of several checks together. GEMM i is args[i]; its
     * outcome goes in status[i] (FPD_OK, or a failure with its reason in the why_size bytes at
     * why + i * why_size), as gemm() would have returned it. One GEMM's failure is its own: the
     * others still run. */
    void (*gemm_many)(void *state, size_t count, const struct fpd_gemm_args *const *args, int *status, char *why,
                      size_t why_size);

    /* ABI 5, optional (NULL: FPD_ROUNDING_NEAREST). How gemm() rounds for these dtypes. */
    void (*rounding)(void *state, const struct fpd_dtypes *dt, struct fpd_rounding *out);

    /* ABI 7, with FPD_FEAT_CONCURRENT (else NULL). Several GEMMs computed at the same time, as
     * several threads of one program call a library: GEMM i from a thread of its own, all
     * released together, each as gemm() would compute it alone, with its outcome in
     * status[i] and reason at why + i * why_size. For the `concurrent` relation, which looks for
     * what shared state (a packing buffer, a lock per routine) does to calls that overlap: the
     * backend must not serialize them itself. Where this state cannot run them at once (a library
     * served by another process that takes one call at a time), every status is
     * FPD_ERR_NOT_APPLICABLE with the reason. At most FPD_MAX_CALLERS GEMMs. */
    void (*gemm_concurrent)(void *state, size_t count, const struct fpd_gemm_args *const *args, int *status,
                            char *why, size_t why_size);
};
#define FPD_MAX_CALLERS 8

/*
 * Plugins. A shared object adds backends by exporting one function with C linkage:
 *
 *     const struct fpd_backend *const *fpdiv_plugin_init(int abi, size_t *count, char *why, size_t why_size);
 *
 * fpdiv passes the ABI it speaks; the plugin returns its backends (static storage, each with
 * .abi = FPDIV_BACKEND_ABI) and their count, or NULL with a reason (for instance a mismatched ABI).
 * A plugin that refuses the ABI is asked again with each older ABI fpdiv still loads.
 * Load plugins with `fpdiv --plugin PATH.so` or FPDIV_PLUGIN_PATH (colon-separated paths).
 */
#define FPDIV_PLUGIN_ENTRY "fpdiv_plugin_init"
typedef const struct fpd_backend *const *(*fpdiv_plugin_init_fn)(int abi, size_t *count, char *why,
                                                                 size_t why_size);

#endif
