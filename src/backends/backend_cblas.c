/*
 * backend_cblas.c — BLAS libraries through CBLAS: OpenBLAS, the reference BLAS, BLIS, oneMKL, and
 * any other library given by path (--blas NAME=PATH.so). Each is loaded when first used, in a
 * namespace of its own (cblas_library.h), never linked: fpdiv builds and runs without any of them,
 * and a library missing here is `unavailable`, with the loader's reason.
 *
 * f32 and f64 go straight to sgemm/dgemm. f16 and bf16 inputs use the library's own 16-bit GEMM
 * where it has one (OpenBLAS's cblas_sbgemm, oneMKL's cblas_gemm_bf16bf16f32 and
 * cblas_gemm_f16f16f32, for an f32 accumulator); otherwise they are upcast exactly to the
 * accumulate type and computed with sgemm (or dgemm for an f64 accumulator), then rounded to the
 * output type: the documented upcast route. Provenance says which route ran. The fused form of
 * addmm is BLAS's own: C prefilled with the bias, beta = 1.
 *
 * f32 and f64 also take the routes frameworks take for a product with one row, one column or one
 * element (fpdiv_backend.h): the library's gemv and dot, called with numpy's arguments.
 *
 * A DYNAMIC_ARCH OpenBLAS (Debian's) picks one of its cores (kernel sets) for the CPU when it
 * initialises, or the one OPENBLAS_CORETYPE names: read once, at load. So fpdiv pins a core by
 * serving this backend from a process started with that variable (fpdiv_backend.h). OpenBLAS
 * falls back to a core of its own choosing for a name it cannot force, which is why a pin counts
 * only when openblas_get_corename() then names the core asked for.
 */
#include "backends/backend_cblas.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/backend.h"
#include "backends/backend_util.h"
#include "backends/cblas_library.h"
#include "backends/concurrent.h"
#include "backends/host.h"
#include "common/dtype.h"
#include "common/isolate.h"
#include "common/table.h"

#ifndef FPD_MULTIARCH
#define FPD_MULTIARCH "x86_64-linux-gnu"
#endif

/* The x86-64 cores of OpenBLAS's DYNAMIC_ARCH list, by the names openblas_get_corename() gives
 * them (the 32-bit ones, Katmai to Athlon, become Prescott on x86-64). A build or a CPU that cannot
 * run one is found out by probing it, not assumed. */
/* oneMKL's code paths, as MKL_CBWR names them: each of COMPATIBLE to AVX512_E1 gives the same bits
 * on every CPU that runs it; AUTO is the CPU's own reproducible path; OFF, MKL's default (MKL_CBWR
 * unset), its fastest, reproducible nowhere else. */
static const char *const mkl_branches[] = {"OFF",    "AUTO", "COMPATIBLE", "SSE2",   "SSSE3",     "SSE4_1",
                                           "SSE4_2", "AVX",  "AVX2",       "AVX512", "AVX512_E1", NULL};

/* BLIS's configurations for x86-64 CPUs, by the names bli_arch_string gives them (the numbers
 * BLIS_ARCH_TYPE takes differ between BLIS versions: fpdiv names them, and the loader numbers them,
 * cblas_library.c). generic is the reference kernels. */
static const char *const blis_configs[] = {
#if defined(__x86_64__)
    "skx", "knl", "haswell", "sandybridge", "penryn", "zen5", "zen4", "zen3", "zen2", "zen", "excavator", "steamroller",
    "piledriver", "bulldozer",
#endif
    "generic", NULL,
};

static const char *const openblas_cores[] = {
#if defined(__x86_64__)
    "Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom", "Nano", "Opteron", "Opteron_SSE3", "Barcelona",
    "Bobcat", "Bulldozer", "Piledriver", "Steamroller", "Excavator", "Sandybridge", "Haswell", "Zen", "SkylakeX",
    "Cooperlake", "SapphireRapids",
#endif
    NULL,
};

/* A library fpdiv knows by name: where it is found, and what it must be. */
struct known_library {
    const char *name;     /* the backend's */
    const char *library;  /* what provenance calls it when it does not say itself */
    const char *path_env; /* a variable naming its file, before the usual places */
    /* the usual places, in order: a name alone is searched for as dlopen does; "VENV/" is the
     * Python environment fpdiv's install step made (or $VIRTUAL_ENV) */
    const char *paths[6];
    bool reference; /* the Netlib reference BLAS: refused when the file is another library */
};

static const struct known_library known_libraries[] = {
    {"openblas", "OpenBLAS", "FPDIV_OPENBLAS", {"libopenblas.so.0", "libopenblas.so"}, false},
    {"refblas", "reference BLAS (Netlib)", "FPDIV_REFBLAS",
     {"/usr/lib/" FPD_MULTIARCH "/blas/libblas.so.3", "/usr/lib64/libblas.so.3", "/usr/lib/libblas.so.3"}, true},
    {"blis", "BLIS", "FPDIV_BLIS", {"libblis.so.4", "libblis.so.3", "libblis.so"}, false},
    {"mkl", "oneMKL", "FPDIV_MKL",
     {"VENV/lib/libmkl_rt.so.2", "VENV/lib/libmkl_rt.so.3", "libmkl_rt.so.2", "libmkl_rt.so.3", "libmkl_rt.so"}, false},
};

/* Libraries named with --blas NAME=PATH: a known name's file replaced, or a new backend. */
struct given_library {
    char *name, *path;
    struct fpd_backend *backend; /* a new one's (NULL for a known name) */
};
static struct given_library given[16];
static size_t n_given;

struct cblas_state {
    struct fpd_cblas lib;
    const char *library; /* for provenance */
    int current_threads;
    struct fpd_batch_staging batch;
    struct fpd_batch_staging callers[FPD_MAX_CALLERS]; /* a concurrent call's each */
    /* or, where another library's names are global, the library in a process of its own */
    struct fpd_host *host;
    char hosted_because[1200];
    bool probed_wrong; /* its answers to the probe's small GEMM were wrong (probe) */
};

/* Another library made BLAS names global in this process (oneMKL does): loaded here, this one's
 * calls to its own sgemm_ could reach that library's. It runs in a host process instead, where
 * they cannot. */
static int open_hosted(const struct fpd_backend *self, struct cblas_state *s, const char *owner, char *why,
                       size_t why_size)
{
    if (fpd_host_serving()) { /* a host's global names were there when it started: they are everywhere */
        snprintf(why, why_size, "%s is global in every fpdiv process here (LD_PRELOAD?): %s could not answer for "
                                "itself", owner, self->name);
        return FPD_ERR_UNAVAILABLE;
    }
    s->library = self->name;
    snprintf(s->hosted_because, sizeof s->hosted_because, "a host process of its own: %s is global in fpdiv's",
             owner);
    int rc = fpd_host_start(self->name, self->name, NULL, NULL, 60, &s->host, why, why_size);
    return rc == FPD_ERR_NOMEM ? rc : rc == FPD_OK ? FPD_OK : FPD_ERR_UNAVAILABLE;
}

static const char *given_path(const char *name)
{
    for (size_t i = 0; i < n_given; i++)
        if (strcmp(given[i].name, name) == 0)
            return given[i].path;
    return NULL;
}

/* Tries the known library's places in order; the first that loads is it. why keeps the first
 * failure's reason (the most specific place's). */
static int load_known(const struct known_library *k, struct fpd_cblas *lib, char *why, size_t why_size)
{
    const char *env = getenv(k->path_env);
    if (env && *env)
        return fpd_cblas_load(env, lib, why, why_size);
    char first[512] = "", reason[512], path[1100];
    for (size_t i = 0; i < sizeof k->paths / sizeof k->paths[0] && k->paths[i]; i++) {
        if (strncmp(k->paths[i], "VENV/", 5) == 0) {
            if (!*fpd_python_environment())
                continue;
            snprintf(path, sizeof path, "%s/%s", fpd_python_environment(), k->paths[i] + 5);
        } else {
            snprintf(path, sizeof path, "%s", k->paths[i]);
        }
        if (fpd_cblas_load(path, lib, reason, sizeof reason) == FPD_OK)
            return FPD_OK;
        if (!first[0])
            snprintf(first, sizeof first, "%s", reason);
    }
    snprintf(why, why_size, "%s (set %s to its file, or give --blas %s=PATH)", first, k->path_env, k->name);
    return FPD_ERR_UNAVAILABLE;
}

/* Loads the backend's library: the file --blas gave, else the known library's places. */
static int load(const struct fpd_backend *self, struct fpd_cblas *lib, char *why, size_t why_size)
{
    long k = FPD_TABLE_FIND(known_libraries, sizeof known_libraries / sizeof known_libraries[0], self->name);
    const char *path = given_path(self->name);
    if (!path && k < 0) { /* a backend of this family is a known library or one --blas gave */
        snprintf(why, why_size, "no library is known as %s", self->name);
        return FPD_ERR_UNAVAILABLE;
    }
    return path ? fpd_cblas_load(path, lib, why, why_size) : load_known(&known_libraries[k], lib, why, why_size);
}

enum probe_outcome { PROBE_RUNS, PROBE_NO_LOAD, PROBE_WRONG };

/* In a child: the library loads, and a small sgemm and dgemm give the exact answers of integers
 * (2x3 times 3x2, transposes and a beta of 1 included). */
static int probe(void *ctx)
{
    const struct fpd_backend *self = ctx;
    struct fpd_cblas lib;
    char why[512];
    if (load(self, &lib, why, sizeof why) != FPD_OK)
        return PROBE_NO_LOAD;
    const float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {7, 8, 9, 10, 11, 12};
    const float want[4] = {59, 65, 140, 155}; /* 1 + A B, A 2x3 and B 3x2 row-major */
    const double want_d[4] = {59, 65, 140, 155};
    const double ad[6] = {1, 4, 2, 5, 3, 6}, bd[6] = {7, 9, 11, 8, 10, 12}; /* the same, stored transposed */
    float c[4] = {1, 1, 1, 1};
    double cd[4] = {1, 1, 1, 1};
    fpd_cblas_gemm_f32(&lib, lib.sgemm, false, false, false, 2, 2, 3, 1.0f, a, 3, b, 2, 1.0f, c, 2);
    fpd_cblas_dgemm(&lib, false, true, true, 2, 2, 3, 1.0, ad, 2, bd, 3, 1.0, cd, 2);
    return memcmp(c, want, sizeof c) == 0 && memcmp(cd, want_d, sizeof cd) == 0 ? PROBE_RUNS : PROBE_WRONG;
}

static int cblas_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    struct cblas_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    char owner[1100];
    if (fpd_cblas_global_names(owner, sizeof owner)) {
        int rc = open_hosted(self, s, owner, why, why_size);
        if (rc == FPD_OK)
            *state = s;
        else
            free(s);
        return rc;
    }
    /* a library is code fpdiv does not control: before this process takes it, a child loads it
     * and runs it, so that one that crashes, hangs or exits costs the child (not in a host started
     * again for a library that has run here: fpd_host_proven) */
    char death[256];
    int probed = fpd_host_proven() ? PROBE_RUNS : fpd_run_isolated(probe, (void *)self, 60, death, sizeof death);
    long k = FPD_TABLE_FIND(known_libraries, sizeof known_libraries / sizeof known_libraries[0], self->name);
    /* a library that runs but answers the probe wrongly is checked as any: a wrong result is what
     * fpdiv is for, and its checks say where (a crash there costs the check, not fpdiv). Its
     * provenance says so, for the case where the cause is a library built for 64-bit integers
     * under the 32-bit names */
    bool ran = probed == PROBE_RUNS || probed == PROBE_NO_LOAD || probed == PROBE_WRONG;
    int rc = ran ? load(self, &s->lib, why, why_size) : FPD_ERR_UNAVAILABLE;
    s->probed_wrong = probed == PROBE_WRONG;
    if (probed < 0)
        snprintf(why, why_size, "loading and running the library: %s", death);
    else if (probed == PROBE_NO_LOAD && rc == FPD_OK) /* it loads here but did not there */
        snprintf(why, why_size, "the library did not load in a child process (exit %d)", probed), rc = FPD_ERR_UNAVAILABLE;
    if (rc == FPD_OK && k >= 0 && known_libraries[k].reference && s->lib.library[0]) {
        snprintf(why, why_size, "%s is %s, not the reference BLAS (an alternatives link?)", s->lib.path,
                 s->lib.library);
        rc = FPD_ERR_UNAVAILABLE;
    }
    if (rc != FPD_OK) {
        free(s);
        return rc;
    }
    s->library = s->lib.library[0] ? s->lib.library : k >= 0 ? known_libraries[k].library : self->name;
    s->current_threads = s->lib.default_threads;
    *state = s;
    return FPD_OK;
}

/* The library's own 16-bit GEMM for these types, or NULL (then the upcast route). */
static const void *native_16bit(const struct cblas_state *s, const struct fpd_dtypes *dt)
{
    if (dt->acc != FPD_F32)
        return NULL;
    if (dt->in == FPD_BF16)
        return s->lib.gemm_bf16 ? s->lib.gemm_bf16 : s->lib.sbgemm;
    if (dt->in == FPD_F16)
        return s->lib.gemm_f16;
    return NULL;
}

static bool cblas_supports(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    struct cblas_state *s = state;
    if (!fpd_dtypes_valid(dt, why, why_size))
        return false;
    if (dt->acc != FPD_F32 && dt->acc != FPD_F64) {
        snprintf(why, why_size, "%s accumulates in f32 or f64, not %s", s->library, fpd_dtype_info(dt->acc)->name);
        return false;
    }
    return true;
}

static void set_threads(struct cblas_state *s, int threads)
{
    int want = threads > 0 ? threads : s->lib.default_threads;
    if (want != s->current_threads) {
        fpd_cblas_set_threads(&s->lib, want);
        s->current_threads = want;
    }
}

/* Prefill C (m x n, ldc, in type ct) with the bias row: BLAS then adds A·B with beta = 1. The
 * rows filled so far are copied at once, doubling them: a short row's copy costs about its call.
 * A copy spans the row padding between its rows, which holds whatever the first rows' padding
 * holds (the caller's canaries), and never the padding after its last row. */
static void prefill_bias(const struct fpd_gemm_args *g, enum fpd_dtype ct, void *c, size_t ldc)
{
    size_t es = fpd_dtype_info(ct)->size;
    fpd_convert_matrix(1, g->n, g->dt.out, g->bias, g->n, ct, c, ldc);
    for (size_t filled = 1; filled < g->m;) {
        size_t rows = filled < g->m - filled ? filled : g->m - filled;
        memcpy((char *)c + filled * ldc * es, c, ((rows - 1) * ldc + g->n) * es);
        filled += rows;
    }
}

/* A gemv as numpy's matmul calls it: the matrix is out_len x k with element strides s_out and s_k,
 * handed over column-major when its k axis is contiguous, else row-major, and transposed. */
static void numpy_gemv(const struct fpd_cblas *lib, bool f64, const char *matrix, size_t out_len, size_t k,
                       size_t s_out, size_t s_k, const char *x, ptrdiff_t incx, double beta, char *y, ptrdiff_t incy)
{
    bool col_major = s_k == 1 && s_out >= k;
    fpd_cblas_gemv(lib, f64, col_major ? FPD_CBLAS_COL_MAJOR : FPD_CBLAS_ROW_MAJOR, true, k, out_len, matrix,
                   col_major ? s_out : s_k, x, incx, beta, y, incy);
}

/* k elements from `from` (`stride` elements apart, es bytes each) into `to`, the last first: the
 * vector stored backwards, which a negative increment reads in its own order. */
static const char *stored_backwards(char *to, const char *from, size_t k, ptrdiff_t stride, size_t es)
{
    for (size_t p = 0; p < k; p++)
        memcpy(to + (k - 1 - p) * es, from + (ptrdiff_t)p * stride * (ptrdiff_t)es, es);
    return to;
}

/* Which of a call's vectors go over stored backwards, by the call's place q (a row, a column, an
 * element's i + j): each of the four ways in turn, forwards first. */
enum { X_BACKWARDS = 1, Y_BACKWARDS = 2 };
static unsigned backwards_of(size_t q) { return (unsigned)(q % 4); }

/* Room for the vectors handed over backwards: k elements for an x or a dot's y, the longer of m and n
 * for a gemv's y. */
struct reversed_room {
    char *x, *y;
};

/* One gemv of run_route, x and y handed over as `how` says: a y stored backwards is C's own values
 * (the bias, or the poison) reversed, and read back into C after. */
static void route_gemv(const struct cblas_state *s, bool f64, const char *matrix, size_t out_len, size_t k,
                       size_t s_out, size_t s_k, const char *x, ptrdiff_t incx, double beta, char *y, size_t incy,
                       unsigned how, const struct reversed_room *room)
{
    size_t es = f64 ? sizeof(double) : sizeof(float);
    if ((how & X_BACKWARDS) && room->x)
        x = stored_backwards(room->x, x, k, incx, es), incx = -1;
    bool y_backwards = (how & Y_BACKWARDS) && room->y;
    if (y_backwards)
        stored_backwards(room->y, y, out_len, (ptrdiff_t)incy, es);
    numpy_gemv(&s->lib, f64, matrix, out_len, k, s_out, s_k, x, incx, beta, y_backwards ? room->y : y,
               y_backwards ? -1 : (ptrdiff_t)incy);
    for (size_t p = 0; y_backwards && p < out_len; p++)
        memcpy(y + p * incy * es, room->y + (out_len - 1 - p) * es, es);
}

/* C's lower triangle (and the odd rows' diagonal) by a syrk of uplo L into a C of its own, NaN where
 * it writes nothing: numpy mirrors the upper one, but a library's lower path is code of its own,
 * which only such a call runs. Mirrored as numpy does where there is no memory for it. */
static void syrk_lower(const struct cblas_state *s, bool f64, const struct fpd_gemm_args *g, const char *a, size_t lda,
                       char *c, size_t ldc)
{
    size_t m = g->m, es = f64 ? sizeof(double) : sizeof(float);
    char *lower = m > 1 ? malloc(m * m * es) : NULL;
    for (size_t i = 0; lower && i < m * m; i++)
        fpd_store(f64 ? FPD_F64 : FPD_F32, lower, i, NAN);
    if (lower)
        fpd_cblas_syrk(&s->lib, f64, false, g->trans_a, m, g->k, a, lda, lower, m);
    for (size_t i = 1; i < m; i++)
        for (size_t j = 0; j < i; j++)
            memcpy(c + (i * ldc + j) * es, lower ? lower + (i * m + j) * es : c + (j * ldc + i) * es, es);
    for (size_t i = 1; lower && i < m; i += 2)
        memcpy(c + (i * ldc + i) * es, lower + (i * m + i) * es, es);
    free(lower);
}

/* One batch entry through the library's gemv (a call per row or per column of C) or its dot (a
 * call per element), with the arguments numpy passes: (1,k)@(k,n), (m,k)@(k,1) and (k,)@(k,).
 * Three calls in four (rows, columns, elements by i + j) hand x, y or both over stored backwards
 * with the increment -1, as BLAS reads a reversed view (the vector at its lowest address): a path of
 * its own in libraries, wrong where an increment's sign is lost, and seen only where it runs. */
static void run_route(const struct cblas_state *s, const struct fpd_gemm_args *g, const struct fpd_batch_entry *e)
{
    bool f64 = g->dt.acc == FPD_F64;
    size_t es = f64 ? sizeof(double) : sizeof(float);
    ptrdiff_t a_row, a_col, b_row, b_col; /* element strides of op(A) (m x k) and op(B) (k x n) */
    fpd_op_strides(g->trans_a, e->lda, &a_row, &a_col);
    fpd_op_strides(g->trans_b, e->ldb, &b_row, &b_col);
    const char *a = e->a, *b = e->b;
    char *c = e->c;
    double beta = g->bias ? 1 : 0; /* C holds the bias */
    size_t y_len = g->route == FPD_ROUTE_DOT ? g->k : g->m > g->n ? g->m : g->n;
    /* none (out of memory, or vectors of one element): every call forwards */
    struct reversed_room room = {g->k > 1 ? malloc(g->k * es) : NULL, y_len > 1 ? malloc(y_len * es) : NULL};
    switch (g->route) {
    case FPD_ROUTE_GEMV_ROWS: /* row i: op(B) as n x k, times A's row i */
        for (size_t i = 0; i < g->m; i++)
            route_gemv(s, f64, b, g->n, g->k, (size_t)b_col, (size_t)b_row, a + i * a_row * es, a_col, beta,
                       c + i * e->ldc * es, 1, backwards_of(i), &room);
        break;
    case FPD_ROUTE_GEMV_COLS: /* column j: op(A), times B's column j */
        for (size_t j = 0; j < g->n; j++)
            route_gemv(s, f64, a, g->m, g->k, (size_t)a_row, (size_t)a_col, b + j * b_col * es, b_row, beta, c + j * es,
                       e->ldc, backwards_of(j), &room);
        break;
    case FPD_ROUTE_DOT:
        for (size_t i = 0; i < g->m; i++) {
            const char *row = a + i * a_row * es;
            if (room.x && g->k > 1) /* A's row i backwards, for its elements that take it so */
                stored_backwards(room.x, row, g->k, a_col, es);
            for (size_t j = 0; j < g->n; j++) {
                unsigned how = backwards_of(i + j);
                const char *column = b + j * b_col * es;
                bool x_back = (how & X_BACKWARDS) && room.x, y_back = (how & Y_BACKWARDS) && room.y;
                double v = fpd_cblas_dot(&s->lib, f64, g->k, x_back ? room.x : row, x_back ? -1 : a_col,
                                         y_back ? stored_backwards(room.y, column, g->k, b_row, es) : column,
                                         y_back ? -1 : b_row);
                fpd_store(g->dt.acc, c, i * e->ldc + j, v);
            }
        }
        break;
    case FPD_ROUTE_SYRK: /* the upper triangle, as numpy asks for A @ A.T; then the lower by a call of its own */
        fpd_cblas_syrk(&s->lib, f64, true, g->trans_a, g->m, g->k, a, e->lda, c, e->ldc);
        syrk_lower(s, f64, g, a, e->lda, c, e->ldc);
        break;
    case FPD_ROUTE_GEMMT_UPPER:
    case FPD_ROUTE_GEMMT_LOWER:
        fpd_cblas_gemmt(&s->lib, f64, g->route == FPD_ROUTE_GEMMT_UPPER, g->trans_a, g->trans_b, g->m, g->k, a, e->lda,
                        b, e->ldb, c, e->ldc);
        break;
    default: break;
    }
    free(room.x), free(room.y);
}

/* Whether the product is one gemm call, of either storage order: everything a gemm takes, it takes. */
static bool whole_gemm(const struct fpd_gemm_args *g)
{
    return g->route == FPD_ROUTE_GEMM || g->route == FPD_ROUTE_GEMM_COL_MAJOR;
}

/* The routines a route calls, by precision (f32, f64), and where the library's are. */
static const struct route_routines {
    const char *names[2];
    size_t at; /* offset of the pair of entry points in struct fpd_cblas */
    bool no_bias, square;
} route_routines[FPD_ROUTE_COUNT] = {
    [FPD_ROUTE_GEMV_ROWS] = {{"cblas_sgemv", "cblas_dgemv"}, offsetof(struct fpd_cblas, gemv), false, false},
    [FPD_ROUTE_GEMV_COLS] = {{"cblas_sgemv", "cblas_dgemv"}, offsetof(struct fpd_cblas, gemv), false, false},
    [FPD_ROUTE_DOT] = {{"cblas_sdot", "cblas_ddot"}, offsetof(struct fpd_cblas, dot), true, false},
    [FPD_ROUTE_SYRK] = {{"cblas_ssyrk", "cblas_dsyrk"}, offsetof(struct fpd_cblas, syrk), true, true},
    [FPD_ROUTE_GEMMT_UPPER] = {{"cblas_sgemmt", "cblas_dgemmt"}, offsetof(struct fpd_cblas, gemmt), true, true},
    [FPD_ROUTE_GEMMT_LOWER] = {{"cblas_sgemmt", "cblas_dgemmt"}, offsetof(struct fpd_cblas, gemmt), true, true},
};

/* Whether the route can run (FPD_OK): BLAS's gemv, dot, syrk and gemmt take one type throughout;
 * a library that does not export the routine cannot compute the route (FPD_ERR_NOT_APPLICABLE). */
static int route_runs(const struct cblas_state *s, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    if (whole_gemm(g))
        return FPD_OK;
    if (fpd_gemm_args_scaled(g)) {
        snprintf(why, why_size, "%s is handed alpha and beta on its gemm route only", s->library);
        return FPD_ERR_BACKEND;
    }
    const struct route_routines *r = g->route < FPD_ROUTE_COUNT ? &route_routines[g->route] : NULL;
    if (!r || !r->names[0]) { /* a framework's (vmap, out=): not a library's */
        snprintf(why, why_size, "%s has no route %d, only gemv, dot, syrk and gemmt", s->library, (int)g->route);
        return FPD_ERR_BACKEND;
    }
    bool f64 = g->dt.acc == FPD_F64;
    if (g->dt.in != g->dt.acc || g->dt.out != g->dt.acc || (g->dt.acc != FPD_F32 && g->dt.acc != FPD_F64)) {
        snprintf(why, why_size, "%s: gemv, dot, syrk and gemmt routes take f32 or f64 throughout", s->library);
        return FPD_ERR_BACKEND;
    }
    void *const *exported = (void *const *)((const char *)&s->lib + r->at);
    if (exported[f64] == NULL) {
        snprintf(why, why_size, "%s exports no %s", s->library, r->names[f64]);
        return FPD_ERR_NOT_APPLICABLE;
    }
    if (r->no_bias && g->bias) {
        snprintf(why, why_size, "%s has no fused bias", r->names[f64]);
        return FPD_ERR_BACKEND;
    }
    if (r->square && g->m != g->n) {
        snprintf(why, why_size, "%s computes a square C: m = n, not %zu x %zu", r->names[f64], g->m, g->n);
        return FPD_ERR_BACKEND;
    }
    return FPD_OK;
}

/* One GEMM in this process, its conversions staged in `batch`: reentrant given a staging of its
 * own, once the thread count is set. */
static int compute(struct cblas_state *s, struct fpd_batch_staging *batch, const struct fpd_gemm_args *g, char *why,
                   size_t why_size)
{
    const size_t dims[] = {g->m, g->n, g->k, g->lda, g->ldb, g->ldc};
    if (!fpd_cblas_fits(&s->lib, dims, sizeof dims / sizeof dims[0])) {
        snprintf(why, why_size, "a dimension exceeds %s's %d-bit integers", s->library, s->lib.ilp64 ? 64 : 32);
        return FPD_ERR_BACKEND;
    }
    int runs = route_runs(s, g, why, why_size);
    if (runs != FPD_OK)
        return runs;
    enum fpd_dtype ct = g->dt.acc;
    const void *native = native_16bit(s, &g->dt);
    /* BLAS's scalars: powers of two (args->alpha_exp, beta_exp; alpha's sign), 1 and 1 unless asked;
     * C holds the bias, or is not read (beta = 0) */
    double alpha = (g->alpha_negative ? -1 : 1) * ldexp(1, g->alpha_exp), beta = g->bias ? ldexp(1, g->beta_exp) : 0;
    enum fpd_dtype operand_t = native ? g->dt.in : ct;
    for (size_t b = 0; b < g->batch; b++) {
        struct fpd_batch_entry e;
        if (fpd_stage_batch_entry(batch, g, b, operand_t, ct, &e) != FPD_OK) {
            snprintf(why, why_size, "out of memory");
            return FPD_ERR_NOMEM;
        }
        if (g->bias)
            prefill_bias(g, ct, e.c, e.ldc);
        bool col_major = g->route == FPD_ROUTE_GEMM_COL_MAJOR;
        if (!whole_gemm(g))
            run_route(s, g, &e);
        else if (ct == FPD_F64)
            fpd_cblas_dgemm(&s->lib, col_major, g->trans_a, g->trans_b, g->m, g->n, g->k, alpha, e.a, e.lda, e.b,
                            e.ldb, beta, e.c, e.ldc);
        else
            fpd_cblas_gemm_f32(&s->lib, native ? native : s->lib.sgemm, col_major, g->trans_a, g->trans_b, g->m, g->n,
                               g->k, (float)alpha, e.a, e.lda, e.b, e.ldb, (float)beta, e.c, e.ldc);
        fpd_finish_batch_entry(g, b, ct, &e);
    }
    return FPD_OK;
}

static int cblas_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    struct cblas_state *s = state;
    if (s->host) { /* a host is its starter's: one forked from it (a worker) starts its own */
        int rc = fpd_host_renew(&s->host, why, why_size);
        if (rc != FPD_OK)
            return rc == FPD_ERR_NOMEM ? FPD_ERR_NOMEM : FPD_ERR_BACKEND;
        return fpd_host_gemm(s->host, g, 0, why, why_size);
    }
    set_threads(s, g->threads);
    return compute(s, &s->batch, g, why, why_size);
}

/* One of several concurrent calls, staging in room of its own, kept for the next check's: staging
 * afresh each call was fresh pages to fault in and zero, 4 callers of 32 MiB at 2^22 terms. */
static int concurrent_call(void *state, size_t caller, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    struct cblas_state *s = state;
    return compute(s, &s->callers[caller], g, why, why_size);
}

/* The library's thread count is global to it: set once, for every caller (fpdiv gives them one). */
static void cblas_gemm_concurrent(void *state, size_t count, const struct fpd_gemm_args *const *args, int *status,
                                  char *why, size_t why_size)
{
    struct cblas_state *s = state;
    if (s->host) {
        fpd_host_gemm_concurrent(&s->host, count, args, 0, status, why, why_size);
        return;
    }
    set_threads(s, count ? args[0]->threads : 0);
    fpd_gemm_concurrently(concurrent_call, s, count, args, status, why, why_size);
}

static const char *route_16bit(const struct cblas_state *s, enum fpd_dtype in)
{
    const struct fpd_dtypes dt = {.in = in, .out = FPD_F32, .acc = FPD_F32};
    const void *native = native_16bit(s, &dt);
    if (!native)
        return "upcast to f32, cblas_sgemm";
    return native == s->lib.sbgemm ? "cblas_sbgemm" : in == FPD_BF16 ? "cblas_gemm_bf16bf16f32" : "cblas_gemm_f16f16f32";
}

static void cblas_provenance(void *state, fpd_provenance_fn emit, void *ctx)
{
    struct cblas_state *s = state;
    if (s->host) {
        fpd_host_provenance(s->host, emit, ctx);
        emit(ctx, "process", s->hosted_because);
        return;
    }
    char threads[32];
    snprintf(threads, sizeof threads, "%d", s->lib.default_threads);
    emit(ctx, "library", s->library);
    emit(ctx, "version", s->lib.version[0] ? s->lib.version : "unknown");
    if (s->lib.kernel_set[0])
        emit(ctx, "kernel_set", s->lib.kernel_set);
    if (s->lib.config[0])
        emit(ctx, "config", s->lib.config);
    if (s->lib.settings[0])
        emit(ctx, "code_path", s->lib.settings);
    if (s->lib.native_branch[0])
        emit(ctx, "cpu_code_path", s->lib.native_branch);
    emit(ctx, "path", s->lib.path);
    emit(ctx, "default_threads", threads);
    emit(ctx, "integers", s->lib.ilp64 ? "64-bit" : "32-bit");
    if (s->probed_wrong)
        emit(ctx, "probe", "wrong answers to a 2x2x3 sgemm or dgemm of small integers, checked as any library's: a "
                           "fault, or a library built for 64-bit integers under the 32-bit names");
    emit(ctx, "bf16", route_16bit(s, FPD_BF16));
    emit(ctx, "f16", route_16bit(s, FPD_F16));
}

static void cblas_close(void *state)
{
    struct cblas_state *s = state;
    fpd_host_stop(s->host);
    fpd_batch_staging_free(&s->batch);
    for (size_t i = 0; i < FPD_MAX_CALLERS; i++)
        fpd_batch_staging_free(&s->callers[i]);
    fpd_cblas_unload(&s->lib);
    free(s);
}

#define CBLAS_BACKEND(backend_name, text, ...)                                                                       \
    {                                                                                                                \
        .abi = FPDIV_BACKEND_ABI, .name = backend_name, .summary = text, .device = FPD_DEVICE_CPU,                  \
        .kind = FPD_KIND_VENDOR,                                                                                     \
        .features = FPD_FEAT_FUSED_BIAS | FPD_FEAT_THREADS | FPD_FEAT_ROUTES | FPD_FEAT_CONCURRENT | FPD_FEAT_SELF | \
                    FPD_FEAT_GEMMT | FPD_FEAT_SCALARS | FPD_FEAT_COL_MAJOR,                                          \
        .open = cblas_open, .supports = cblas_supports, .gemm = cblas_gemm, .provenance = cblas_provenance,          \
        .close = cblas_close, .gemm_concurrent = cblas_gemm_concurrent,                                              \
        __VA_ARGS__                                                                                                  \
    }

const struct fpd_backend fpd_backend_openblas = CBLAS_BACKEND(
    "openblas", "OpenBLAS sgemm/dgemm via CBLAS; f16/bf16 upcast exactly (cblas_sbgemm when exported)",
    .kernel_set_env = "OPENBLAS_CORETYPE", .kernel_sets = openblas_cores);
const struct fpd_backend fpd_backend_refblas =
    CBLAS_BACKEND("refblas", "Netlib reference BLAS: the textbook loop order, the baseline; f16/bf16 upcast");
const struct fpd_backend fpd_backend_blis = CBLAS_BACKEND("blis", "BLIS through its CBLAS layer; f16/bf16 upcast exactly",
                                                          .kernel_set_env = "BLIS_ARCH_TYPE", .kernel_sets = blis_configs);
const struct fpd_backend fpd_backend_mkl = CBLAS_BACKEND(
    "mkl", "Intel oneMKL (PyTorch's CPU matmul); native bf16 and f16 GEMMs (cblas_gemm_bf16bf16f32, _f16f16f32)",
    .kernel_set_env = "MKL_CBWR", .kernel_sets = mkl_branches);

int fpd_cblas_give(const char *spec, char *why, size_t why_size)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1]) {
        snprintf(why, why_size, "--blas '%s': expected NAME=PATH (a CBLAS library's file)", spec);
        return FPD_ERR_INPUT;
    }
    if (n_given == sizeof given / sizeof given[0]) {
        snprintf(why, why_size, "--blas: at most %zu libraries", sizeof given / sizeof given[0]);
        return FPD_ERR_INPUT;
    }
    struct given_library *g = &given[n_given];
    *g = (struct given_library){.name = strndup(spec, (size_t)(eq - spec)), .path = strdup(eq + 1)};
    if (!g->name || !g->path) {
        free(g->name), free(g->path);
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    for (const char *c = g->name; *c; c++)
        if (!(*c == '-' || *c == '_' || (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z'))) {
            snprintf(why, why_size, "--blas '%s': a name of lower-case letters, digits, '-' and '_'", spec);
            free(g->name), free(g->path);
            return FPD_ERR_INPUT;
        }
    if (given_path(g->name)) {
        snprintf(why, why_size, "--blas: %s given twice", g->name);
        free(g->name), free(g->path);
        return FPD_ERR_INPUT;
    }
    if (FPD_TABLE_FIND(known_libraries, sizeof known_libraries / sizeof known_libraries[0], g->name) >= 0) {
        n_given++; /* the known backend loads this file instead */
        return FPD_OK;
    }
    static const struct fpd_backend any = CBLAS_BACKEND(NULL, NULL);
    char summary[1200];
    snprintf(summary, sizeof summary, "the CBLAS library %s (--blas)", g->path);
    g->backend = malloc(sizeof *g->backend);
    char *copy = strdup(summary);
    int rc = g->backend && copy ? FPD_OK : FPD_ERR_NOMEM;
    if (rc == FPD_OK) {
        *g->backend = any;
        g->backend->name = g->name;
        g->backend->summary = copy;
        if (fpd_cblas_file_is_openblas(g->path)) { /* its kernel sets are pinned as Debian's are */
            g->backend->kernel_set_env = "OPENBLAS_CORETYPE";
            g->backend->kernel_sets = openblas_cores;
        }
        rc = fpd_registry_add(g->backend, why, why_size); /* refused: a name another backend has */
    } else {
        snprintf(why, why_size, "out of memory");
    }
    if (rc != FPD_OK) {
        free(g->backend), free(copy), free(g->name), free(g->path);
        return rc;
    }
    n_given++;
    return FPD_OK;
}
