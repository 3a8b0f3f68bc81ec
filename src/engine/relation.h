/*
 * relation.h — pairs of paths that are equal in exact arithmetic.
 *
 * A path is data, not code: which backend runs the GEMM, on which sub-problem, with which
 * input/output types, layout, bias handling and thread count. Every relation is one table row
 * whose build() fills in the two paths and the region of the output they are compared on;
 * check.c executes any path the same way. Adding a relation is adding a row.
 */
#ifndef FPD_RELATION_H
#define FPD_RELATION_H

#include "engine/case.h"
#include "gen/rng.h"

struct fpd_range {
    uint32_t start, len;
};

/* A block of the case's output, in case coordinates. */
struct fpd_region {
    struct fpd_range batch, rows, cols;
};

enum fpd_bias_mode {
    FPD_BIAS_NONE,
    FPD_BIAS_FUSED, /* the backend's own fused form (args.bias) */
    FPD_BIAS_AFTER, /* gemm without bias, then c = round(c + bias) in the output type */
};

struct fpd_path {
    int backend;             /* 0 or 1: which of the check's backends computes it */
    struct fpd_region gemm;  /* the sub-problem handed to the backend */
    bool flip_layout;        /* operands handed over in the other storage order (materialized) */
    enum fpd_dtype in, out;  /* types handed to the backend; the accumulator is the case's */
    enum fpd_bias_mode bias;
    int threads;             /* 0: backend default */
    int algo;                /* 0: the library's first choice */
    enum fpd_route route;    /* how the backend is asked: one gemm, or gemv / dot calls (fpdiv_backend.h) */
    enum fpd_execution execution; /* a framework's: as it runs by default, eager, or compiled */
    unsigned callers;        /* 0: the GEMM alone; else computed by 1 of this many threads calling at once (callers.h) */
    int scale_exp;           /* A and the bias handed over times 2^scale_exp, the output taken times its inverse (scale.h) */
    int8_t alpha_exp, beta_exp; /* BLAS's alpha = 2^alpha_exp and beta = 2^beta_exp (alpha-beta): the bias
                                   handed over times 2^(alpha_exp - beta_exp), the output times 2^-alpha_exp
                                   (scale.h); int8_t, so that a check's answer fits a worker's message */
    bool alpha_negative;        /* alpha is -2^alpha_exp: the bias handed over negated too, the output
                                   negated back */
    uint32_t split_k;        /* 0: one GEMM; else two, of the first split_k terms (with the bias) and of the
                                rest, their outputs added in the output type */
    bool triangles;          /* C (square, no bias) in two GEMMs of its route's kind (gemmt): the upper
                                triangle by one, the lower by another into a C of its own; each must
                                leave the other triangle as it was given, and C is the two put together */
};

struct fpd_paths {
    struct fpd_path a, b;
    struct fpd_region compare;    /* compared in the case's output type */
    unsigned extra_out_roundings; /* see compare.h */
};

/* A relation's parameters: from flags in `check`, from the case's stream in `fuzz`. */
struct fpd_relation_params {
    struct fpd_range slice; /* slice-*: which rows, columns or batch entries */
    int threads;            /* threads: the N of "1 vs N" */
    int algo;               /* algo: the j of "algorithm 0 vs algorithm j" */
    unsigned callers;       /* concurrent: the threads calling at once, 2 to FPD_MAX_CALLERS */
    uint32_t split_k;       /* split-k: k1, the first part's terms, 1 to k - 1 */
    int scale;              /* scale: the exponent's magnitude, 1 to FPD_SCALE_MAX (its sign, from the data) */
    int alpha, beta;        /* alpha-beta: alpha's exponent's magnitude, 0 to FPD_SCALE_MAX (its sign, from the
                               data), and beta's exponent, -FPD_SCALE_MAX to FPD_SCALE_MAX */
    bool alpha_negative;    /* alpha-beta: alpha is -2^(its exponent) */
};

/* Parameters a relation takes beyond the slice, threads and algorithm (struct fpd_relation's `takes`). */
enum {
    FPD_TAKES_SPLIT = 1u << 0,
    FPD_TAKES_SCALE = 1u << 1,
    FPD_TAKES_THREADS = 1u << 2,
    FPD_TAKES_SCALARS = 1u << 3, /* alpha and beta */
    FPD_SCALE_MAX = 8
};

/* Which two backends a two-backend relation compares. */
enum fpd_pairing {
    FPD_PAIR_NONE,        /* one backend */
    FPD_PAIR_SAME_DEVICE, /* vendor: an own kernel against a library, or two libraries, one device */
    FPD_PAIR_CROSS_DEVICE, /* device: a CPU backend against a GPU one (twins, or two vendors) */
    FPD_PAIR_KERNEL_SETS   /* core: one library pinned to two of its kernel sets (backend_pinned.h) */
};

enum fpd_slice_dim { FPD_SLICE_NONE, FPD_SLICE_BATCH, FPD_SLICE_ROWS, FPD_SLICE_COLS };

struct fpd_relation {
    const char *name;
    const char *doc;
    int backends;              /* 1, or 2 for a relation between two backends */
    enum fpd_pairing pairing;
    unsigned needs;            /* fpd_feature bits every backend must have */
    bool default_campaign;     /* run by `fuzz` unless --relations says otherwise */
    bool needs_16bit_in;       /* only meaningful for f16/bf16 inputs */
    bool needs_wider_out;      /* only meaningful when the output is wider than the input */
    bool needs_bias;
    bool needs_blas_types;     /* only for BLAS's own types: inputs, output and accumulator all f32 or all f64 */
    bool strict;               /* the paths agree bit for bit but for underflow: a difference beyond it is at
                                  least improbable, whatever the bound says (scale.h) */
    bool self_product;         /* C = A·Aᵀ: the case's B is its op(A)ᵀ (and C is square) */
    bool square_out;           /* C is m x m (n follows m) and there is no bias: syrk's, gemmt's */
    bool needs_terms;          /* k of at least 1: BLAS's gemv of an empty x returns at once and leaves y as it
                                  was (the reference's quick return), where gemm's k = 0 sets C to beta C */
    unsigned takes;            /* FPD_TAKES_* bits: parameters drawn in fuzz, given in check, kept in case files */
    enum fpd_slice_dim slice;
    enum fpd_route route;      /* path B's, on the slice: the library's gemv or dot instead of its gemm */
    bool route_optional;       /* a library may lack the route's routine (gemmt: OpenBLAS before 0.3.22): a
                                  campaign offers the relation only to backends whose library computes it */
    void (*build)(const struct fpd_relation *r, const struct fpd_case *c, const struct fpd_relation_params *p,
                  struct fpd_paths *out);
};

/* Whether the relation has a thread count (threads, concurrent): drawn, given, kept in case files.
 * A relation that needs backends to honour one has it; concurrent has it whether or not they do (a
 * framework without it runs each call on its own count). */
static inline bool fpd_relation_takes_threads(const struct fpd_relation *r)
{
    return (r->needs & FPD_FEAT_THREADS) || (r->takes & FPD_TAKES_THREADS);
}

/* The routes in words for a path ("a gemv for each row of"); their names are backend.h's. */
extern const char *const fpd_route_words[FPD_ROUTE_COUNT];

extern const struct fpd_relation fpd_relation_table[];
extern const size_t fpd_relation_count;

const struct fpd_relation *fpd_relation_find(const char *name);

/* Adjust a case so the relation can run on it (addmm needs a bias). */
void fpd_relation_prepare_case(const struct fpd_relation *r, struct fpd_case *c);
/* Whether the relation applies to this case's dtypes and these backends; when not, why. */
bool fpd_relation_applies(const struct fpd_relation *r, const struct fpd_dtypes *dt,
                          const struct fpd_backend *const backends[2], char *why, size_t why_size);
/* Whether the parameters fit the case (a slice inside its dimension). */
int fpd_relation_check_params(const struct fpd_relation *r, const struct fpd_case *c,
                              const struct fpd_relation_params *p, char *why, size_t why_size);
/* The smallest value of a dimension for which the relation says anything: 2 for the one it slices
 * with path B through gemm, 1 for the others and for k (dim FPD_SLICE_NONE). */
uint32_t fpd_relation_min_dim(const struct fpd_relation *r, enum fpd_slice_dim dim);
/* Draw parameters from a case's stream (fuzz): slices favour the first entry, as users report. Thread
 * counts from 2 to max_threads for the threads relation, 1 to caller_threads a concurrent caller. */
void fpd_relation_pick_params(const struct fpd_relation *r, struct fpd_stream *s, const struct fpd_case *c,
                              int max_threads, int caller_threads, struct fpd_relation_params *p);
void fpd_relation_build(const struct fpd_relation *r, const struct fpd_case *c,
                        const struct fpd_relation_params *p, struct fpd_paths *out);

/* Whether fuzz should pair these two backends for the relation (check takes any valid pair). A pair
 * of kernel sets is wanted in both orders: the campaign offers each once, in its list's order. */
bool fpd_relation_pair_wanted(const struct fpd_relation *r, const struct fpd_backend *a, const struct fpd_backend *b);

/* The extent of a sliced dimension of a case. */
uint32_t fpd_case_dim(const struct fpd_case *c, enum fpd_slice_dim dim);

#endif
