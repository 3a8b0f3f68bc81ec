/* case.h — one concrete GEMM problem: shape, layout, dtypes, and where its data comes from. */
#ifndef FPD_CASE_H
#define FPD_CASE_H

#include "fpdiv_backend.h"

/* The generator a new case uses. Bump it whenever generated values would change for the same
 * recipe, and keep the old version: saved cases name theirs and replay with it. */
#define FPD_GEN_VERSION 5
#define FPD_MAX_DIM 0x7fffffffu

enum fpd_dist { FPD_DIST_NORMAL, FPD_DIST_UNIFORM, FPD_DIST_INT, FPD_DIST_WIDE, FPD_DIST_COUNT };

/* How the inputs are generated: values are keyed by (seed, index, tensor, batch, row, col). */
struct fpd_recipe {
    unsigned generator;  /* 1 .. FPD_GEN_VERSION */
    uint64_t seed;
    uint32_t index;      /* case index within the seed's campaign */
    enum fpd_dist dist;
    double special_rate; /* probability of a special value (±0, ±Inf, NaN, subnormal) per element */
};

/* Explicit inputs, as a case file carries them: logical row-major arrays of raw element bits
 * (A is batch x m x k, B batch x k x n, in dt.in; bias n values of dt.out). The arrays may be
 * larger than the case, which then uses their leading block: shrinking a dimension keeps every
 * other element, as with generated data. */
struct fpd_case_data {
    uint32_t batch, m, n, k; /* extents the arrays were stored with */
    void *a, *b, *bias;
    size_t cap_a, cap_b, cap_bias; /* fpd_grow's capacities where the arrays came from it, else 0 (malloc) */
    enum fpd_data_origin {
        FPD_DATA_INLINE,  /* its case file's own arrays, or values drawn from a recipe and kept (minimize, bisect) */
        FPD_DATA_SIDECAR, /* the .npy files beside its case file */
        FPD_DATA_INPUTS,  /* the user's arrays (check --inputs) */
    } origin;             /* what a report calls them: fpd_data_origin_words */
};

extern const char *const fpd_data_origin_words[FPD_DATA_INPUTS + 1];

struct fpd_case {
    uint32_t batch, m, n, k;
    bool trans_a, trans_b; /* A (B) stored transposed: k x m (n x k) rows */
    bool has_bias;         /* C = A·B + bias, bias broadcast over rows */
    uint32_t pad;          /* extra elements at the end of every stored row of A, B and C */
    struct fpd_dtypes dt;
    struct fpd_recipe recipe;
    const struct fpd_case_data *data; /* NULL: inputs generated from the recipe */
};

/* Storage geometry of A and B (elements). */
struct fpd_layout {
    size_t a_rows, a_cols, lda, stride_a;
    size_t b_rows, b_cols, ldb, stride_b;
};

void fpd_case_defaults(struct fpd_case *c);
struct fpd_layout fpd_case_layout(const struct fpd_case *c);

/* The smallest value of dimension d of a case, in the order batch, m, n, k: 0 for k (the empty
 * product, C = beta C), 1 for the others. */
static inline uint32_t fpd_case_dim_lowest(unsigned d) { return d == 3 ? 0 : 1; }

/* "[BATCHx]MxNxK" into c's dimensions. */
int fpd_shape_parse(const char *text, struct fpd_case *c, char *why, size_t why_size);
const char *fpd_shape_format(const struct fpd_case *c, char *buf, size_t size);

/* Bytes a check of this case may hold at once (inputs, two outputs, conversions, bound). */
double fpd_case_bytes(const struct fpd_case *c);
/* The machine's physical memory in bytes, and the default memory budget: half of it. */
double fpd_case_physical_memory(void);
double fpd_case_default_max_mem(void);
/* Dimensions positive and addressable, dtypes valid, memory within max_mem bytes. */
int fpd_case_validate(const struct fpd_case *c, double max_mem, char *why, size_t why_size);

/* Frees what fpd_case_data_capture (gen.h) made. */
void fpd_case_data_free(struct fpd_case_data *d);

#endif
