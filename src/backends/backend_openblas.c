/*
 * backend_openblas.c — OpenBLAS through CBLAS.
 *
 * f32 and f64 go straight to sgemm/dgemm. f16 and bf16 inputs are upcast exactly to the
 * accumulate type and computed with sgemm (or dgemm for an f64 accumulator), then rounded to the
 * output type: the documented upcast route. When the library exports cblas_sbgemm (found at run
 * time: Debian's build does not), bf16:f32:f32 uses it instead, and provenance says which route ran.
 * The fused form of addmm is BLAS's own: C prefilled with the bias, beta = 1.
 *
 * A DYNAMIC_ARCH OpenBLAS (Debian's) picks one of its cores (kernel sets) for the CPU when it
 * initialises, or the one OPENBLAS_CORETYPE names: read once, at load. So fpdiv pins a core by
 * serving this backend from a process started with that variable (fpdiv_backend.h). OpenBLAS
 * falls back to a core of its own choosing for a name it cannot force, which is why a pin counts
 * only when openblas_get_corename() then names the core asked for.
 */
#include <cblas.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/backend.h"
#include "backends/backend_util.h"
#include "common/dtype.h"

typedef void (*sbgemm_fn)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, blasint, blasint, blasint,
                          float, const uint16_t *, blasint, const uint16_t *, blasint, float, float *, blasint);

struct openblas_state {
    sbgemm_fn sbgemm;
    int default_threads, current_threads;
    struct fpd_batch_staging batch;
};

static int openblas_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    (void)self;
    struct openblas_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    s->sbgemm = (sbgemm_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "cblas_sbgemm");
    s->default_threads = openblas_get_num_threads();
    s->current_threads = s->default_threads;
    *state = s;
    return FPD_OK;
}

static bool openblas_supports(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    (void)state;
    if (!fpd_dtypes_valid(dt, why, why_size))
        return false;
    if (dt->acc != FPD_F32 && dt->acc != FPD_F64) {
        snprintf(why, why_size, "OpenBLAS accumulates in f32 or f64, not %s", fpd_dtype_info(dt->acc)->name);
        return false;
    }
    return true;
}

static void set_threads(struct openblas_state *s, int threads)
{
    int want = threads > 0 ? threads : s->default_threads;
    if (want != s->current_threads) {
        openblas_set_num_threads(want);
        s->current_threads = want;
    }
}

static bool fits_blasint(const struct fpd_gemm_args *g)
{
    size_t largest[] = {g->m, g->n, g->k, g->lda, g->ldb, g->ldc};
    for (size_t i = 0; i < sizeof largest / sizeof largest[0]; i++)
        if (largest[i] > INT_MAX)
            return false;
    return true;
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

static int openblas_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    struct openblas_state *s = state;
    if (!fits_blasint(g)) {
        snprintf(why, why_size, "a dimension exceeds OpenBLAS's %zu-byte integer", sizeof(blasint));
        return FPD_ERR_BACKEND;
    }
    set_threads(s, g->threads);
    enum fpd_dtype ct = g->dt.acc;
    bool use_sbgemm = s->sbgemm && g->dt.in == FPD_BF16 && ct == FPD_F32;
    enum fpd_dtype operand_t = use_sbgemm ? FPD_BF16 : ct;
    enum CBLAS_TRANSPOSE ta = g->trans_a ? CblasTrans : CblasNoTrans, tb = g->trans_b ? CblasTrans : CblasNoTrans;
    for (size_t b = 0; b < g->batch; b++) {
        struct fpd_batch_entry e;
        if (fpd_stage_batch_entry(&s->batch, g, b, operand_t, ct, &e) != FPD_OK) {
            snprintf(why, why_size, "out of memory");
            return FPD_ERR_NOMEM;
        }
        if (g->bias)
            prefill_bias(g, ct, e.c, e.ldc);
        int m = (int)g->m, n = (int)g->n, k = (int)g->k;
        if (use_sbgemm)
            s->sbgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, e.a, (int)e.lda, e.b, (int)e.ldb, g->bias ? 1.0f : 0.0f, e.c,
                      (int)e.ldc);
        else if (ct == FPD_F32)
            cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, e.a, (int)e.lda, e.b, (int)e.ldb, g->bias ? 1.0f : 0.0f, e.c,
                        (int)e.ldc);
        else
            cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, e.a, (int)e.lda, e.b, (int)e.ldb, g->bias ? 1.0 : 0.0, e.c,
                        (int)e.ldc);
        fpd_finish_batch_entry(g, b, ct, &e);
    }
    return FPD_OK;
}

/* The version from the configuration string, "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH …". */
static void library_version(char *buf, size_t size)
{
    char version[32];
    snprintf(buf, size, "%s", sscanf(openblas_get_config(), "OpenBLAS %31s", version) == 1 ? version : "unknown");
}

static void openblas_provenance(void *state, fpd_provenance_fn emit, void *ctx)
{
    struct openblas_state *s = state;
    char threads[32], version[32];
    snprintf(threads, sizeof threads, "%d", s->default_threads);
    library_version(version, sizeof version);
    emit(ctx, "library", "OpenBLAS");
    emit(ctx, "version", version);
    emit(ctx, "kernel_set", openblas_get_corename());
    emit(ctx, "config", openblas_get_config());
    emit(ctx, "default_threads", threads);
    emit(ctx, "bf16", s->sbgemm ? "cblas_sbgemm" : "upcast to f32, cblas_sgemm");
}

static void openblas_close(void *state)
{
    struct openblas_state *s = state;
    fpd_batch_staging_free(&s->batch);
    free(s);
}

/* The x86-64 cores of OpenBLAS's DYNAMIC_ARCH list, by the names openblas_get_corename() gives
 * them (the 32-bit ones, Katmai to Athlon, become Prescott on x86-64). A build or a CPU that cannot
 * run one is found out by probing it, not assumed. */
static const char *const openblas_cores[] = {
#if defined(__x86_64__)
    "Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom", "Nano", "Opteron", "Opteron_SSE3", "Barcelona",
    "Bobcat", "Bulldozer", "Piledriver", "Steamroller", "Excavator", "Sandybridge", "Haswell", "Zen", "SkylakeX",
    "Cooperlake", "SapphireRapids",
#endif
    NULL,
};

const struct fpd_backend fpd_backend_openblas = {
    .abi = FPDIV_BACKEND_ABI,
    .name = "openblas",
    .summary = "OpenBLAS sgemm/dgemm via CBLAS; f16/bf16 upcast exactly (cblas_sbgemm when exported)",
    .device = FPD_DEVICE_CPU,
    .kind = FPD_KIND_VENDOR,
    .features = FPD_FEAT_FUSED_BIAS | FPD_FEAT_THREADS,
    .open = openblas_open,
    .supports = openblas_supports,
    .gemm = openblas_gemm,
    .provenance = openblas_provenance,
    .close = openblas_close,
    .kernel_set_env = "OPENBLAS_CORETYPE",
    .kernel_sets = openblas_cores,
};
