/* gen.h — the case generator: value distributions, boundary-biased shapes, input materialization. */
#ifndef FPD_GEN_H
#define FPD_GEN_H

#include "engine/case.h"
#include "gen/rng.h"

struct fpd_dist_info {
    const char *name;
    const char *doc;
};

extern const struct fpd_dist_info fpd_dist_table[FPD_DIST_COUNT];
int fpd_dist_parse(const char *name, enum fpd_dist *out);

/* Whether this fpdiv can generate a recipe's data: generators 1 .. FPD_GEN_VERSION. */
bool fpd_gen_known(unsigned generator);

/* Value of element (batch, row, col) of a stream (FPD_STREAM_A/B/BIAS), rounded to the input type,
 * by the recipe's generator. */
double fpd_gen_element(const struct fpd_recipe *r, enum fpd_dtype in, unsigned stream, uint32_t batch,
                       uint32_t row, uint32_t col);

/* A dimension in [lo, hi], biased toward boundaries: 1, powers of two and their neighbours,
 * multiples of common tile sizes, primes. */
uint32_t fpd_gen_dim(struct fpd_stream *s, uint32_t lo, uint32_t hi);

/* The generated inputs of a case, in its storage layout. Padding holds NaN: a backend that
 * reads outside its matrix poisons its own output. Buffers grow and are reused across cases. */
struct fpd_tensors {
    void *a, *b, *bias; /* a, b in dt.in; bias (n values, only with has_bias) in dt.out, holding dt.in values */
    size_t cap_a, cap_b, cap_bias;
};

int fpd_gen_materialize(const struct fpd_case *c, struct fpd_tensors *t);
void fpd_tensors_free(struct fpd_tensors *t);

/* The inputs of a case as explicit data (logical, packed): owned buffers, freed with
 * fpd_case_data_free (case.h). */
int fpd_case_data_capture(const struct fpd_case *c, struct fpd_case_data *out);
/* XXH3-64 of a case's inputs (logical, packed A, then B, then bias): detects generator drift. */
int fpd_case_data_hash(const struct fpd_case *c, uint64_t *hash);

#endif
