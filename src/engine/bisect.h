/*
 * bisect.h — find where behaviour changes as one dimension of a case varies.
 *
 * Every other element of the data stays identical as the dimension moves (DESIGN.md: data keyed
 * by coordinates), so a change of outcome between neighbours is the backend's doing. The outcome
 * is the verdict, or with FPD_BY_HASH the bits of path A over the part of its output that every
 * probed shape shares (to see a backend switch algorithm even where both paths agree).
 */
#ifndef FPD_BISECT_H
#define FPD_BISECT_H

#include "engine/check.h"

enum fpd_bisect_dim { FPD_DIM_BATCH, FPD_DIM_M, FPD_DIM_N, FPD_DIM_K, FPD_DIM_COUNT }; /* fpd_case_dim_lowest's order */
enum fpd_bisect_by { FPD_BY_VERDICT, FPD_BY_HASH };

extern const char *const fpd_dim_names[FPD_DIM_COUNT];
int fpd_dim_parse(const char *name, enum fpd_bisect_dim *out);

/* One shape value tried by bisect or sweep. */
struct fpd_shape_probe {
    uint32_t value;
    bool tested;        /* false: the shape cannot be tested (skip_reason says why) */
    enum fpd_verdict verdict;
    uint64_t key;       /* what is compared between probes: the verdict, or path A's shared bits
                           (FPD_PROBE_ERROR_KEY for an error, whose bits there are none of) */
    struct fpd_metrics metrics;
    char skip_reason[256]; /* why it cannot be tested; for an `error` outcome, the error */
};

/* An error's key by path A's bits: no digest of outputs is this one. */
#define FPD_PROBE_ERROR_KEY UINT64_MAX

typedef void (*fpd_shape_probe_fn)(void *ctx, const struct fpd_shape_probe *p);

struct fpd_bisector {
    struct fpd_checker *ck;
    struct fpd_check base; /* the case whose dimension varies */
    enum fpd_bisect_dim dim;
    enum fpd_bisect_by by;
    double max_mem;
    uint32_t shared;       /* FPD_BY_HASH: the extent along dim that every probe shares */
    fpd_shape_probe_fn on_probe; /* told of every probe, as it completes (may be NULL) */
    void (*on_start)(void *ctx, uint32_t value); /* told of a check about to run in this process (may be NULL) */
    void *ctx;
    size_t probes;
    struct fpd_case_data data; /* the inputs at the largest probed shape, generated once */
    /* every value probed so far, so that none is run (and reported) twice: a search for a
     * testable value can come back to an end already probed */
    struct fpd_shape_probe *seen;
    size_t seen_count, seen_cap;
};

/* A boundary: the last value with one outcome and the first with the next. */
struct fpd_boundary {
    struct fpd_shape_probe before, after;
    uint32_t skipped; /* untestable values passed over inside the interval */
};

/* Checks the bisector's settings (FPD_BY_HASH needs m, n or batch) and sets `shared` from lo.
 * Generated inputs are made once, at hi, when they fit in a quarter of max_mem: every probe then
 * uses their leading block, which is exactly what it would generate. */
int fpd_bisect_init(struct fpd_bisector *b, uint32_t lo, uint32_t hi, char *why, size_t why_size);
void fpd_bisect_free(struct fpd_bisector *b);
/* Runs one probe, or gives the one already run at that value (told to on_probe once). Returns a
 * status only for fpdiv's own failures. */
int fpd_bisect_probe(struct fpd_bisector *b, uint32_t value, struct fpd_shape_probe *out);
/* The verdict at `value` with the exact reference run as `exact` says (not kept among the probes, nor
 * reported to on_probe): a boundary found without it, confirmed as `check` would see it. */
int fpd_bisect_verdict_with(struct fpd_bisector *b, uint32_t value, enum fpd_exact_mode exact, enum fpd_verdict *out);
/* The probe at v, or when v cannot be tested, at the nearest testable value toward `toward`
 * (inclusive): its neighbours one by one, then at doubling distances, then back by halves to the
 * nearest, so that the probes are bounded (under 80) however far that is. It assumes what cannot
 * be tested lies in one stretch next to v, as shapes over the memory budget do. p->tested is false
 * when no value was testable; *first is the probe at v itself. */
int fpd_bisect_testable_end(struct fpd_bisector *b, uint32_t v, uint32_t toward, struct fpd_shape_probe *p,
                            struct fpd_shape_probe *first);
/* The outcome changes somewhere in [lo, hi] (lo's and hi's differ): find one adjacent pair.
 * Untestable values are stepped over, to a testable neighbour found as fpd_bisect_testable_end
 * finds one (on both sides). */
int fpd_bisect_find(struct fpd_bisector *b, const struct fpd_shape_probe *lo, const struct fpd_shape_probe *hi,
                    struct fpd_boundary *out);
/* Every transition in [lo, hi]: probe boundary-prone values first (powers of two and their
 * neighbours, multiples of common tile sizes), then bisect each interval whose ends differ. */
int fpd_bisect_scan(struct fpd_bisector *b, uint32_t lo, uint32_t hi, struct fpd_boundary **out, size_t *count);

#endif
