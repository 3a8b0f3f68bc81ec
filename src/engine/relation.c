/* relation.c — the relation table. Each build() states its two paths; nothing here computes. */
#include "engine/relation.h"

#include <stdio.h>
#include <string.h>

#include "backends/backend_pinned.h"
#include "common/dtype.h"
#include "common/table.h"

uint32_t fpd_case_dim(const struct fpd_case *c, enum fpd_slice_dim dim)
{
    static const size_t offsets[] = {
        [FPD_SLICE_BATCH] = offsetof(struct fpd_case, batch),
        [FPD_SLICE_ROWS] = offsetof(struct fpd_case, m),
        [FPD_SLICE_COLS] = offsetof(struct fpd_case, n),
    };
    if (dim == FPD_SLICE_NONE)
        return 0;
    return *(const uint32_t *)((const char *)c + offsets[dim]);
}

static struct fpd_range *region_dim(struct fpd_region *r, enum fpd_slice_dim dim)
{
    return dim == FPD_SLICE_BATCH ? &r->batch : dim == FPD_SLICE_ROWS ? &r->rows : &r->cols;
}

/* Both paths: the whole case on backend 0, in the case's own types and layout. */
static void whole_case(const struct fpd_case *c, struct fpd_paths *out)
{
    struct fpd_region all = {{0, c->batch}, {0, c->m}, {0, c->n}};
    struct fpd_path p = {
        .backend = 0, .gemm = all, .in = c->dt.in, .out = c->dt.out,
        .bias = c->has_bias ? FPD_BIAS_FUSED : FPD_BIAS_NONE,
    };
    *out = (struct fpd_paths){.a = p, .b = p, .compare = all};
}

/* A product of vectors has no fused bias: code that computes one adds the bias afterwards (as
 * torch's linear does for a vector, and a dot cannot do otherwise). */
static void bias_after_vectors(struct fpd_path *p, struct fpd_paths *out)
{
    if (p->route != FPD_ROUTE_GEMM && p->bias == FPD_BIAS_FUSED) {
        p->bias = FPD_BIAS_AFTER;
        out->extra_out_roundings = 1;
    }
}

/* Path B computes only the slice, with the relation's route. */
static void build_slice(const struct fpd_relation *r, const struct fpd_case *c, const struct fpd_relation_params *p,
                        struct fpd_paths *out)
{
    whole_case(c, out);
    *region_dim(&out->b.gemm, r->slice) = p->slice;
    *region_dim(&out->compare, r->slice) = p->slice;
    out->b.route = r->route;
    bias_after_vectors(&out->b, out);
}

/* vmap(f)(A)[rows] vs f(A[i]) for each row i, f(row) = row · B: the framework's vectorized map
 * against the function alone (path B's rows are each a vector-matrix product). */
static void build_vmap(const struct fpd_relation *r, const struct fpd_case *c, const struct fpd_relation_params *p,
                       struct fpd_paths *out)
{
    build_slice(r, c, p, out);
    out->a.route = FPD_ROUTE_VMAP_ROWS;
    bias_after_vectors(&out->a, out);
}

static void build_compile(const struct fpd_relation *r, const struct fpd_case *c,
                          const struct fpd_relation_params *p, struct fpd_paths *out)
{
    (void)r, (void)p;
    whole_case(c, out);
    out->a.execution = FPD_EXEC_EAGER;
    out->b.execution = FPD_EXEC_COMPILED;
}

static void build_addmm(const struct fpd_relation *r, const struct fpd_case *c, const struct fpd_relation_params *p,
                        struct fpd_paths *out)
{
    (void)r, (void)p;
    whole_case(c, out);
    out->a.bias = FPD_BIAS_AFTER;
    out->b.bias = FPD_BIAS_FUSED;
    out->extra_out_roundings = 1;
}

static void build_cast_in(const struct fpd_relation *r, const struct fpd_case *c,
                          const struct fpd_relation_params *p, struct fpd_paths *out)
{
    (void)r, (void)p;
    whole_case(c, out);
    out->b.in = c->dt.acc; /* upcast inputs, then the plain accumulate-type gemm */
}

static void build_cast_out(const struct fpd_relation *r, const struct fpd_case *c,
                           const struct fpd_relation_params *p, struct fpd_paths *out)
{
    (void)r, (void)p;
    whole_case(c, out);
    out->b.out = c->dt.in; /* low-precision output, then cast up to the case's output type */
}

static void build_layout(const struct fpd_relation *r, const struct fpd_case *c, const struct fpd_relation_params *p,
                         struct fpd_paths *out)
{
    (void)r, (void)p;
    whole_case(c, out);
    out->b.flip_layout = true;
}

/* Path A on the first backend, path B on the second: vendor, device, core. */
static void build_two_backends(const struct fpd_relation *r, const struct fpd_case *c,
                               const struct fpd_relation_params *p, struct fpd_paths *out)
{
    (void)r, (void)p;
    whole_case(c, out);
    out->b.backend = 1;
}

static void build_threads(const struct fpd_relation *r, const struct fpd_case *c,
                          const struct fpd_relation_params *p, struct fpd_paths *out)
{
    (void)r;
    whole_case(c, out);
    out->a.threads = 1;
    out->b.threads = p->threads;
}

static void build_algo(const struct fpd_relation *r, const struct fpd_case *c, const struct fpd_relation_params *p,
                       struct fpd_paths *out)
{
    (void)r;
    whole_case(c, out);
    out->b.algo = p->algo;
}

/* The GEMM alone vs the same GEMM while other threads call the library too. */
static void build_concurrent(const struct fpd_relation *r, const struct fpd_case *c,
                             const struct fpd_relation_params *p, struct fpd_paths *out)
{
    (void)r;
    whole_case(c, out);
    out->a.threads = out->b.threads = p->threads; /* the library's own pool, shared by callers or not */
    out->b.callers = p->callers;
}

/* A and the bias times 2^e, the product times 2^-e: e's magnitude from the parameters, its sign from
 * the data when the check prepares it (scale.h). */
static void build_scale(const struct fpd_relation *r, const struct fpd_case *c, const struct fpd_relation_params *p,
                        struct fpd_paths *out)
{
    (void)r;
    whole_case(c, out);
    out->b.scale_exp = p->scale;
}

/* The library's own scalars: alpha = ±2^a, and beta = 2^b on a C holding the bias handed over times
 * ±2^(a - b), the output taken times ±2^-a; so both paths are A·B + bias. a's magnitude, alpha's sign
 * and b from the parameters, a's sign from the data when the check prepares it (scale.h). Without a
 * bias, beta is 0 (C is not read) and alpha alone is asked for. */
static void build_alpha_beta(const struct fpd_relation *r, const struct fpd_case *c, const struct fpd_relation_params *p,
                             struct fpd_paths *out)
{
    (void)r;
    whole_case(c, out);
    out->b.alpha_exp = (int8_t)p->alpha;
    out->b.beta_exp = (int8_t)(c->has_bias ? p->beta : 0);
    out->b.alpha_negative = p->alpha_negative;
}

/* The first k1 terms and the rest (k1 from the parameters), computed and added in the accumulator's
 * type and the sum rounded to the output's once, as a split-k GEMM's workspace does (two halves each
 * rounded to f16 could overflow where their sum does not). */
static void build_split_k(const struct fpd_relation *r, const struct fpd_case *c, const struct fpd_relation_params *p,
                          struct fpd_paths *out)
{
    (void)r;
    whole_case(c, out);
    if (p->split_k < 1 || p->split_k >= c->k) /* k = 1: nothing to split */
        return;
    out->b.split_k = p->split_k;
    out->b.out = c->dt.acc;
    out->extra_out_roundings = 2; /* each part rounded (to the accumulator's type, no wider than the output's), then their sum */
}

/* A·(a copy of Aᵀ) by gemm vs A·Aᵀ by the library's syrk. */
static void build_self(const struct fpd_relation *r, const struct fpd_case *c, const struct fpd_relation_params *p,
                       struct fpd_paths *out)
{
    (void)r, (void)p;
    whole_case(c, out);
    out->b.route = FPD_ROUTE_SYRK;
}

/* A·B by gemm vs its two triangles by the library's gemmt (uplo U, then L into a C of its own). */
static void build_gemmt(const struct fpd_relation *r, const struct fpd_case *c, const struct fpd_relation_params *p,
                        struct fpd_paths *out)
{
    (void)p;
    whole_case(c, out);
    out->b.route = r->route; /* the upper triangle's; the lower's is the second GEMM's (check.c) */
    out->b.triangles = true;
}

/* The product as asked vs the same through the relation's route, whatever the product takes kept
 * (a fused bias, as torch.addmm(bias, a, b, out=v) keeps it): a framework's out= view, a library's
 * column-major entry. */
static void build_route(const struct fpd_relation *r, const struct fpd_case *c, const struct fpd_relation_params *p,
                        struct fpd_paths *out)
{
    (void)p;
    whole_case(c, out);
    out->b.route = r->route;
}

static void build_repeat(const struct fpd_relation *r, const struct fpd_case *c, const struct fpd_relation_params *p,
                         struct fpd_paths *out)
{
    (void)r, (void)p;
    whole_case(c, out);
}

const char *const fpd_route_words[FPD_ROUTE_COUNT] = {
    [FPD_ROUTE_GEMM] = "gemm", [FPD_ROUTE_GEMV_ROWS] = "a gemv for each row of",
    [FPD_ROUTE_GEMV_COLS] = "a gemv for each column of", [FPD_ROUTE_DOT] = "a dot for each element of",
    [FPD_ROUTE_VMAP_ROWS] = "a vmap over the rows of", [FPD_ROUTE_SYRK] = "syrk (A times its own transpose) for",
    [FPD_ROUTE_OUT_STRIDED] = "out= every other column of a wider array for",
    [FPD_ROUTE_OUT_TRANSPOSED] = "out= a transposed array for",
    [FPD_ROUTE_OUT_REVERSED] = "out= an array of reversed rows and columns (negative strides) for",
    [FPD_ROUTE_GEMMT_UPPER] = "gemmt, upper then lower triangle, for",
    [FPD_ROUTE_GEMMT_LOWER] = "gemmt's lower triangle of",
    [FPD_ROUTE_GEMM_COL_MAJOR] = "gemm through the column-major entry (C^T = B^T A^T),"};

#define ROW(...) {__VA_ARGS__}
const struct fpd_relation fpd_relation_table[] = {
    ROW(.name = "slice-rows", .doc = "(A·B)[rows] vs A[rows]·B: slice after vs before the gemm",
        .backends = 1, .default_campaign = true, .slice = FPD_SLICE_ROWS, .build = build_slice),
    ROW(.name = "slice-cols", .doc = "(A·B)[:, cols] vs A·B[:, cols]: slice after vs before the gemm",
        .backends = 1, .default_campaign = true, .slice = FPD_SLICE_COLS, .build = build_slice),
    ROW(.name = "gemv-rows",
        .doc = "(A·B)[rows] vs each row by the library's gemv, as numpy computes (1,k)@(k,n)",
        .backends = 1, .needs = FPD_FEAT_ROUTES, .default_campaign = true, .needs_blas_types = true, .needs_terms = true,
        .slice = FPD_SLICE_ROWS, .route = FPD_ROUTE_GEMV_ROWS, .build = build_slice),
    ROW(.name = "gemv-cols",
        .doc = "(A·B)[:, cols] vs each column by the library's gemv, as numpy computes (m,k)@(k,1)",
        .backends = 1, .needs = FPD_FEAT_ROUTES, .default_campaign = true, .needs_blas_types = true, .needs_terms = true,
        .slice = FPD_SLICE_COLS, .route = FPD_ROUTE_GEMV_COLS, .build = build_slice),
    ROW(.name = "dot", .doc = "(A·B)[rows] vs each element by the library's dot, as numpy computes (k,)@(k,)",
        .backends = 1, .needs = FPD_FEAT_ROUTES, .default_campaign = true, .needs_blas_types = true,
        .slice = FPD_SLICE_ROWS, .route = FPD_ROUTE_DOT, .build = build_slice),
    ROW(.name = "vmap", .doc = "vmap(f)(A)[rows] vs f(A[i]) for each row, f(row) = row·B (jax.vmap, torch.func.vmap)",
        .backends = 1, .needs = FPD_FEAT_VMAP | FPD_FEAT_ROUTES, .default_campaign = true, .slice = FPD_SLICE_ROWS,
        .route = FPD_ROUTE_GEMV_ROWS, .build = build_vmap),
    ROW(.name = "compile", .doc = "the framework's eager operation vs the same compiled (torch.compile, jax.jit)",
        .backends = 1, .needs = FPD_FEAT_COMPILE, .default_campaign = true, .build = build_compile),
    ROW(.name = "slice-batch", .doc = "batched gemm, then take entries vs the gemm on those entries only",
        .backends = 1, .default_campaign = true, .slice = FPD_SLICE_BATCH, .build = build_slice),
    ROW(.name = "addmm", .doc = "gemm, then + bias in the output type vs the backend's fused form",
        .backends = 1, .needs = FPD_FEAT_FUSED_BIAS, .default_campaign = true, .needs_bias = true,
        .build = build_addmm),
    ROW(.name = "cast-in", .doc = "16-bit inputs, wide accumulation vs inputs upcast first, then a wide gemm",
        .backends = 1, .default_campaign = true, .needs_16bit_in = true, .build = build_cast_in),
    ROW(.name = "cast-out",
        .doc = "16-bit inputs, wide output vs a 16-bit output cast up (rounds by design; not in fuzz defaults)",
        .backends = 1, .needs_16bit_in = true, .needs_wider_out = true, .build = build_cast_out),
    ROW(.name = "layout", .doc = "transpose flags vs the same operands materialized in the other storage order",
        .backends = 1, .default_campaign = true, .build = build_layout),
    ROW(.name = "col-major",
        .doc = "A·B by the row-major gemm vs through the column-major entry as C^T = B^T A^T, as LAPACK and SciPy call it",
        .backends = 1, .needs = FPD_FEAT_COL_MAJOR, .default_campaign = true, .route = FPD_ROUTE_GEMM_COL_MAJOR,
        .build = build_route),
    ROW(.name = "vendor", .doc = "one gemm on two backends of one device (own kernel vs library, or two libraries)",
        .backends = 2, .pairing = FPD_PAIR_SAME_DEVICE, .default_campaign = true, .build = build_two_backends),
    ROW(.name = "device", .doc = "one gemm on the CPU and on the GPU (an own kernel and its twin, or two vendors)",
        .backends = 2, .pairing = FPD_PAIR_CROSS_DEVICE, .default_campaign = true, .build = build_two_backends),
    ROW(.name = "core", .doc = "one gemm on two kernel sets of one library (this machine vs another CPU's)",
        .backends = 2, .pairing = FPD_PAIR_KERNEL_SETS, .default_campaign = true, .build = build_two_backends),
    ROW(.name = "algo", .doc = "the library's first algorithm choice vs its j-th (cuBLASLt heuristics)",
        .backends = 1, .needs = FPD_FEAT_ALGOS, .default_campaign = true, .build = build_algo),
    ROW(.name = "threads", .doc = "the same gemm on 1 thread vs N threads", .backends = 1,
        .needs = FPD_FEAT_THREADS, .default_campaign = true, .build = build_threads),
    ROW(.name = "concurrent",
        .doc = "the gemm alone vs the same gemm from 1 of N threads calling the library at once (races), on T threads each",
        .backends = 1, .needs = FPD_FEAT_CONCURRENT, .default_campaign = true, .takes = FPD_TAKES_THREADS,
        .build = build_concurrent),
    ROW(.name = "scale", .doc = "A·B vs (2^e A)·B times 2^-e: bit for bit but for underflow (a strict oracle)",
        .backends = 1, .default_campaign = true, .strict = true, .takes = FPD_TAKES_SCALE, .build = build_scale),
    ROW(.name = "alpha-beta",
        .doc = "A·B + bias vs BLAS's alpha·A·B + beta·C: alpha = ±2^a, beta = 2^b, C the bias times ±2^(a-b), then times ±2^-a",
        .backends = 1, .needs = FPD_FEAT_SCALARS, .default_campaign = true, .takes = FPD_TAKES_SCALARS,
        .build = build_alpha_beta),
    ROW(.name = "split-k", .doc = "A·B vs A[:, :k1]·B[:k1] + A[:, k1:]·B[k1:], the parts added in the accumulator's type",
        .backends = 1, .default_campaign = true, .takes = FPD_TAKES_SPLIT, .build = build_split_k),
    ROW(.name = "self", .doc = "A·Aᵀ by gemm on a copy of Aᵀ vs the library's syrk, as numpy computes A @ A.T",
        .backends = 1, .needs = FPD_FEAT_SELF, .default_campaign = true, .needs_blas_types = true,
        .self_product = true, .square_out = true, .build = build_self),
    ROW(.name = "gemmt", .doc = "A·B by gemm vs its upper and lower triangles by the library's gemmt (C square)",
        .backends = 1, .needs = FPD_FEAT_GEMMT, .default_campaign = true, .needs_blas_types = true,
        .square_out = true, .route = FPD_ROUTE_GEMMT_UPPER, .route_optional = true, .build = build_gemmt),
    ROW(.name = "out-strided", .doc = "A·B returned vs written through out= every other column of a wider array",
        .backends = 1, .needs = FPD_FEAT_OUT_VIEWS, .default_campaign = true, .route = FPD_ROUTE_OUT_STRIDED,
        .build = build_route),
    ROW(.name = "out-transposed", .doc = "A·B returned vs written through out= the transpose of an n x m array",
        .backends = 1, .needs = FPD_FEAT_OUT_VIEWS, .default_campaign = true, .route = FPD_ROUTE_OUT_TRANSPOSED,
        .build = build_route),
    ROW(.name = "out-reversed", .doc = "A·B returned vs written through out= a view of negative strides",
        .backends = 1, .needs = FPD_FEAT_OUT_REVERSED, .default_campaign = true, .route = FPD_ROUTE_OUT_REVERSED,
        .build = build_route),
    ROW(.name = "repeat", .doc = "the same path twice (run-to-run determinism)", .backends = 1,
        .default_campaign = true, .build = build_repeat),
};
#undef ROW
const size_t fpd_relation_count = sizeof fpd_relation_table / sizeof fpd_relation_table[0];

const struct fpd_relation *fpd_relation_find(const char *name)
{
    long i = FPD_TABLE_FIND(fpd_relation_table, fpd_relation_count, name);
    return i < 0 ? NULL : &fpd_relation_table[i];
}

void fpd_relation_prepare_case(const struct fpd_relation *r, struct fpd_case *c)
{
    if (r->needs_bias)
        c->has_bias = true;
    if (r->square_out) /* C is m x m, and syrk and gemmt have no bias */
        c->n = c->m, c->has_bias = false;
}

static bool is_16bit(enum fpd_dtype t) { return t == FPD_F16 || t == FPD_BF16; }

bool fpd_relation_applies(const struct fpd_relation *r, const struct fpd_dtypes *dt,
                          const struct fpd_backend *const backends[2], char *why, size_t why_size)
{
    if (r->needs_16bit_in && !is_16bit(dt->in)) {
        snprintf(why, why_size, "%s needs f16 or bf16 inputs, not %s", r->name, fpd_dtype_info(dt->in)->name);
        return false;
    }
    if (r->needs_wider_out && dt->out == dt->in) {
        snprintf(why, why_size, "%s needs an output type wider than the input (try %s:f32)", r->name,
                 fpd_dtype_info(dt->in)->name);
        return false;
    }
    if (r->needs_blas_types && !(dt->in == dt->out && dt->out == dt->acc && (dt->in == FPD_F32 || dt->in == FPD_F64))) {
        snprintf(why, why_size, "%s runs BLAS's %s, which takes f32 or f64 throughout (--dtype f32 or f64)", r->name,
                 r->self_product ? "syrk" : r->route == FPD_ROUTE_GEMMT_UPPER ? "gemmt" : r->route == FPD_ROUTE_DOT ? "dot" : "gemv");
        return false;
    }
    static const struct {
        unsigned feature;
        const char *words;
    } feature_words[] = {
        {FPD_FEAT_CONCURRENT, "concurrent calls (a library loaded in fpdiv's process or a host's, or a framework's)"},
        {FPD_FEAT_SELF, "a syrk (a BLAS library's)"},
        {FPD_FEAT_GEMMT, "a gemmt (a BLAS library's: oneMKL, BLIS, OpenBLAS from 0.3.22)"},
        {FPD_FEAT_COL_MAJOR, "a column-major gemm (a BLAS library's)"},
        {FPD_FEAT_SCALARS, "BLAS's alpha and beta (a BLAS library's, or torch's addmm and baddbmm)"},
        {FPD_FEAT_OUT_VIEWS, "an out= argument (a framework's: numpy, torch)"},
        {FPD_FEAT_OUT_REVERSED, "an out= of negative strides (numpy's)"},
        {FPD_FEAT_FUSED_BIAS, "a fused bias"},
        {FPD_FEAT_THREADS, "a thread count"},
        {FPD_FEAT_ALGOS, "a choice of algorithms"},
        {FPD_FEAT_ROUTES, "routes to gemv and dot (a BLAS library's or a framework's)"},
        {FPD_FEAT_VMAP, "a vmap (a framework's: jax, torch)"},
        {FPD_FEAT_COMPILE, "a compiler (a framework's: torch.compile, jax.jit)"},
    };
    for (int i = 0; i < r->backends; i++) {
        if (!backends[i]) {
            snprintf(why, why_size, "%s compares two backends: give --backend B1,B2", r->name);
            return false;
        }
        for (size_t f = 0; f < sizeof feature_words / sizeof feature_words[0]; f++)
            if ((r->needs & feature_words[f].feature) && !(backends[i]->features & feature_words[f].feature)) {
                snprintf(why, why_size, "%s needs a backend with %s; %s has none", r->name, feature_words[f].words,
                         backends[i]->name);
                return false;
            }
    }
    if (r->pairing == FPD_PAIR_SAME_DEVICE && backends[0]->device != backends[1]->device) {
        snprintf(why, why_size, "%s compares two backends of one device; %s and %s differ", r->name,
                 backends[0]->name, backends[1]->name);
        return false;
    }
    struct fpd_backend_slot *bases[2] = {NULL, NULL};
    const char *sets[2] = {NULL, NULL};
    if (r->pairing == FPD_PAIR_KERNEL_SETS &&
        (!fpd_backend_pinned_parts(backends[0], &bases[0], &sets[0]) ||
         !fpd_backend_pinned_parts(backends[1], &bases[1], &sets[1]) || bases[0] != bases[1] ||
         strcmp(sets[0], sets[1]) == 0)) {
        snprintf(why, why_size, "%s compares one library on two of its kernel sets (--backend openblas --core A,B); "
                 "%s and %s are not that", r->name, backends[0]->name, backends[1]->name);
        return false;
    }
    if (r->pairing == FPD_PAIR_CROSS_DEVICE &&
        (backends[0]->device != FPD_DEVICE_CPU || backends[1]->device != FPD_DEVICE_GPU)) {
        snprintf(why, why_size, "%s compares a CPU backend (first) with a GPU backend (second)", r->name);
        return false;
    }
    return true;
}

uint32_t fpd_relation_min_dim(const struct fpd_relation *r, enum fpd_slice_dim dim)
{
    /* slicing one entry out of one is the identity, but a gemv or dot of all of it is not. k, which
     * no relation slices, is FPD_SLICE_NONE here, as a relation that slices nothing has it: one
     * term, a library's rank-1 path, is as much a case as any */
    return dim != FPD_SLICE_NONE && r->slice == dim && r->route == FPD_ROUTE_GEMM ? 2 : 1;
}

/* alpha-beta's scalars that ask for the product with alpha 1 and beta 1, or without a bias beta 0:
 * path A's own call, so that the check would test nothing. */
static bool plain_product(const struct fpd_relation_params *p, const struct fpd_case *c)
{
    return p->alpha == 0 && !p->alpha_negative && (p->beta == 0 || !c->has_bias);
}

int fpd_relation_check_params(const struct fpd_relation *r, const struct fpd_case *c,
                              const struct fpd_relation_params *p, char *why, size_t why_size)
{
    static const char *const dim_names[] = {[FPD_SLICE_BATCH] = "batch", [FPD_SLICE_ROWS] = "m",
                                            [FPD_SLICE_COLS] = "n"};
    if (r->slice != FPD_SLICE_NONE) {
        uint32_t extent = fpd_case_dim(c, r->slice);
        if (p->slice.len == 0 || p->slice.start >= extent || p->slice.len > extent - p->slice.start) {
            snprintf(why, why_size, "slice %u:%u is outside %s = %u", p->slice.start, p->slice.len,
                     dim_names[r->slice], extent);
            return FPD_ERR_INPUT;
        }
    }
    if (r->needs_terms && c->k == 0) {
        snprintf(why, why_size, "%s takes k of at least 1: BLAS's gemv of an empty x returns at once and leaves y as "
                 "it was, so there is no product to compare with gemm's (C = beta C)", r->name);
        return FPD_ERR_INPUT;
    }
    if ((r->needs & FPD_FEAT_ALGOS) && p->algo < 1) {
        snprintf(why, why_size, "algo compares algorithm 0 with algorithm j >= 1 (--algo J)");
        return FPD_ERR_INPUT;
    }
    if ((r->needs & FPD_FEAT_CONCURRENT) && (p->callers < 2 || p->callers > FPD_MAX_CALLERS)) {
        snprintf(why, why_size, "concurrent needs 2 to %d callers (--callers N)", FPD_MAX_CALLERS);
        return FPD_ERR_INPUT;
    }
    if ((r->takes & FPD_TAKES_SPLIT) && (p->split_k < 1 || p->split_k >= (c->k > 1 ? c->k : 2))) {
        snprintf(why, why_size, "split-k splits k = %u after 1 to %u terms (--split K1), not %u", c->k,
                 c->k > 1 ? c->k - 1 : 1, p->split_k);
        return FPD_ERR_INPUT;
    }
    if ((r->takes & FPD_TAKES_SCALE) && (p->scale < 1 || p->scale > FPD_SCALE_MAX)) {
        snprintf(why, why_size, "scale takes an exponent of 1 to %d (--scale E)", FPD_SCALE_MAX);
        return FPD_ERR_INPUT;
    }
    if ((r->takes & FPD_TAKES_SCALARS) && (p->alpha < 0 || p->alpha > FPD_SCALE_MAX || p->beta < -FPD_SCALE_MAX ||
                                           p->beta > FPD_SCALE_MAX)) {
        snprintf(why, why_size, "alpha-beta takes alpha = 2^E or 2^-E, E from 0 to %d (--alpha E), and beta = 2^E, E "
                 "from -%d to %d (--beta E)", FPD_SCALE_MAX, FPD_SCALE_MAX, FPD_SCALE_MAX);
        return FPD_ERR_INPUT;
    }
    if ((r->takes & FPD_TAKES_SCALARS) && plain_product(p, c)) {
        snprintf(why, why_size, "alpha-beta with alpha 2^0 and %s asks for the plain product: path B would be path A "
                 "(--alpha 1 or more, --negative-alpha%s)", c->has_bias ? "beta 2^0" : "no bias (beta 0)",
                 c->has_bias ? ", or --beta" : "");
        return FPD_ERR_INPUT;
    }
    if (fpd_relation_takes_threads(r) && p->threads < 1) {
        snprintf(why, why_size, "threads needs a thread count of at least 1");
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

void fpd_relation_pick_params(const struct fpd_relation *r, struct fpd_stream *s, const struct fpd_case *c,
                              int max_threads, int caller_threads, struct fpd_relation_params *p)
{
    p->slice = (struct fpd_range){0, 1};
    p->threads = max_threads < 2 ? 2 : max_threads;
    p->algo = 1 + (int)fpd_stream_below(s, 3); /* the library's second to fourth choice */
    p->callers = 2;
    if (r->slice != FPD_SLICE_NONE && fpd_stream_chance(s, 1, 2)) {
        uint32_t extent = fpd_case_dim(c, r->slice);
        p->slice.start = fpd_stream_below(s, extent);
        p->slice.len = 1 + fpd_stream_below(s, extent - p->slice.start);
    }
    if (r->needs & FPD_FEAT_CONCURRENT) /* one thread a call too: a server's threads, each calling numpy */
        p->threads = 1 + (int)fpd_stream_below(s, (uint32_t)(caller_threads > 0 ? caller_threads : p->threads));
    else if (fpd_relation_takes_threads(r))
        p->threads = 2 + (int)fpd_stream_below(s, (uint32_t)(p->threads - 1));
    if (r->needs & FPD_FEAT_CONCURRENT) /* 2 to 4: path B and its mirror, then others */
        p->callers = 2 + fpd_stream_below(s, 3);
    p->split_k = 1;
    if ((r->takes & FPD_TAKES_SPLIT) && c->k > 1) { /* half the time at a power of two (a library's block) */
        uint32_t below = 1;
        while (below * 2 < c->k)
            below *= 2;
        p->split_k = fpd_stream_chance(s, 1, 2) ? below : 1 + fpd_stream_below(s, c->k - 1);
    }
    p->scale = 1;
    if (r->takes & FPD_TAKES_SCALE)
        p->scale = 1 + (int)fpd_stream_below(s, 3);
    p->alpha = 1, p->beta = 0;
    if (r->takes & FPD_TAKES_SCALARS) { /* alpha ±2^0 to ±2^±3, beta 2^-3 to 2^3; never both 1 */
        p->alpha = (int)fpd_stream_below(s, 4);
        p->beta = (int)fpd_stream_below(s, 7) - 3;
        p->alpha_negative = fpd_stream_chance(s, 1, 2);
        if (fpd_stream_chance(s, 1, 4)) /* LAPACK's update, C := C - A B: kernels have fast paths for it */
            p->alpha = 0, p->beta = 0, p->alpha_negative = true;
        if (plain_product(p, c))
            p->alpha = 1;
    }
}

void fpd_relation_build(const struct fpd_relation *r, const struct fpd_case *c,
                        const struct fpd_relation_params *p, struct fpd_paths *out)
{
    r->build(r, c, p, out);
}

/* Arithmetic of someone else's: a library's, or a framework's as its users run it. */
static bool vendors(const struct fpd_backend *b) { return b->kind == FPD_KIND_VENDOR || b->kind == FPD_KIND_FRAMEWORK; }

bool fpd_relation_pair_wanted(const struct fpd_relation *r, const struct fpd_backend *a, const struct fpd_backend *b)
{
    struct fpd_backend_slot *base_a, *base_b;
    switch (r->pairing) {
    case FPD_PAIR_KERNEL_SETS: /* each pair once: the campaign offers it in its list's order */
        return fpd_backend_pinned_parts(a, &base_a, NULL) && fpd_backend_pinned_parts(b, &base_b, NULL) &&
               base_a == base_b && a != b;
    case FPD_PAIR_SAME_DEVICE:
        if (a->device != b->device)
            return false;
        if (a->kind == FPD_KIND_OWN)
            return b->kind != FPD_KIND_OWN;
        /* two libraries, each pair once (in name order), and never two kernel sets of one library:
         * that is the core relation's */
        base_a = base_b = NULL;
        fpd_backend_pinned_parts(a, &base_a, NULL);
        fpd_backend_pinned_parts(b, &base_b, NULL);
        return vendors(a) && vendors(b) && strcmp(a->name, b->name) < 0 &&
               (!base_a || base_a != base_b);
    case FPD_PAIR_CROSS_DEVICE:
        return a->device == FPD_DEVICE_CPU && b->device == FPD_DEVICE_GPU &&
               ((b->twin && strcmp(b->twin, a->name) == 0) || (vendors(a) && vendors(b)));
    default: return false;
    }
}
