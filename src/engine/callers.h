/*
 * callers.h — the `concurrent` relation's path B: the path's GEMM computed while other threads of
 * the same program call the same library.
 *
 * What BLAS libraries have shipped wrong here is shared state: a packing buffer two calls fill at
 * once, a lock per routine where the buffer is shared across routines, a thread pool handed to two
 * callers. Such a race corrupts whichever call loses it, so every call that can be checked is:
 * - caller 0 is path B itself, a probe: path B's GEMM;
 * - caller 1 is its mirror: the same GEMM of -A (and -bias), stored alike, whose result negated is
 *   path B's bit for bit (rounding to nearest is symmetric in sign), yet whose operands differ in
 *   every element, so that nothing either reads from the other's buffers passes for its own;
 * - further callers are probes, mirrors, or load on the library's other routines at the same
 *   moment: -A times B stored the other way (other transpose flags), in the other BLAS type (f32
 *   for f64 and back), or on the first half of the rows (not compared).
 * Each probe and mirror is compared with path A (the GEMM alone), and the one that differs in the
 * most elements stands for path B; a caller that fails, or writes outside its C, fails the check.
 * Which kind each caller from the third on is follows from the case's seed and index, so a replay
 * runs the same callers. Whether calls overlap is the scheduler's to decide, so the callers run
 * again, from the same C, while none differs, for a few milliseconds (small GEMMs get many rounds,
 * large ones one).
 */
#ifndef FPD_CALLERS_H
#define FPD_CALLERS_H

#include "backends/backend.h"
#include "backends/backend_util.h"

enum fpd_caller_kind {
    FPD_CALLER_PROBE,
    FPD_CALLER_MIRROR,
    FPD_CALLER_TRANSPOSED,
    FPD_CALLER_OTHER_TYPE,
    FPD_CALLER_FEWER_ROWS,
};
extern const char *const fpd_caller_kind_words[FPD_CALLER_FEWER_ROWS + 1];

/* How the callers went, for the report: which probe stands for path B, and how many differed. */
struct fpd_concurrency {
    uint8_t callers;   /* 0: the path ran alone */
    uint8_t probes;    /* of them, computing path B's GEMM or its mirror */
    uint8_t differing; /* probes and mirrors whose C (negated, for a mirror) differs from path A's */
    uint8_t shown;     /* the caller standing for path B: the one with the most differing elements */
    uint8_t rounds;    /* how many times the callers ran (until a probe differed, or the last) */
    bool shown_mirror; /* the caller standing for path B is a mirror: its output negated */
};

/* Rounds at most, and the time after which no further one starts. */
enum { FPD_CALLER_ROUNDS = 16 };
#define FPD_CALLER_SECONDS 0.002

/* Reusable buffers, as the checker's. */
struct fpd_callers {
    unsigned count;
    enum fpd_caller_kind kind[FPD_MAX_CALLERS];
    struct fpd_gemm_args args[FPD_MAX_CALLERS]; /* [0] is path B's own */
    struct fpd_staging a[FPD_MAX_CALLERS], b[FPD_MAX_CALLERS], bias[FPD_MAX_CALLERS], c[FPD_MAX_CALLERS];
    struct fpd_staging pristine[FPD_MAX_CALLERS]; /* each C as it was handed over */
    size_t c_bytes[FPD_MAX_CALLERS];
};

/* Sets up `count` callers (2 to FPD_MAX_CALLERS) around path B's prepared GEMM *path_b, whose C
 * (c_bytes long, with its padding and guard row) the others copy. `key` chooses the third on.
 * FPD_ERR_NOMEM. */
int fpd_callers_prepare(struct fpd_callers *cs, unsigned count, const struct fpd_gemm_args *path_b, size_t c_bytes,
                        uint64_t key);
/* Runs the callers at once on `slot` and compares each probe with path A's C (`alone`, the same
 * shape and ldc). Returns path B's outcome: FPD_OK with the standing probe's C copied into
 * path_b->c, or the first failure (a caller's, named) with why. */
int fpd_callers_run(struct fpd_callers *cs, const struct fpd_backend_slot *slot, const struct fpd_gemm_args *alone,
                    bool alone_ok, struct fpd_concurrency *out, char *why, size_t why_size);
void fpd_callers_free(struct fpd_callers *cs);

#endif
