/*
 * check.h — the one pipeline: a case, a relation, its backends → two outputs → verdict.
 * Every subcommand that computes anything goes through fpd_check_run.
 */
#ifndef FPD_CHECK_H
#define FPD_CHECK_H

#include "backends/backend.h"
#include "backends/backend_util.h"
#include "engine/callers.h"
#include "engine/compare.h"
#include "engine/exact.h"
#include "engine/magnitude.h"
#include "engine/relation.h"
#include "gen/gen.h"

/* When the exact reference is computed: it costs about 2 ns per term of every compared element.
 * SAMPLED: for the checks whose paths differ, and for one case in FPD_EXACT_SAMPLE_EVERY of the
 * rest, chosen by its seed and index (so a replay or a minimization of it chooses alike): paths that
 * agree may both be wrong alike (a library wrong in every routine), which only the reference shows.
 * The empty product (k = 0) has it in every mode but NEVER: it costs nothing there, and a library
 * that returns at once without writing C does so on both paths. */
enum fpd_exact_mode { FPD_EXACT_NEVER, FPD_EXACT_DIVERGING, FPD_EXACT_SAMPLED, FPD_EXACT_ALWAYS, FPD_EXACT_MODE_COUNT };
enum { FPD_EXACT_SAMPLE_EVERY = 8 };
extern const char *const fpd_exact_mode_names[FPD_EXACT_MODE_COUNT];

struct fpd_check {
    const struct fpd_relation *relation;
    struct fpd_relation_params params;
    struct fpd_case c;
    struct fpd_backend_slot *backends[2]; /* [1] only for relations between two backends */
    enum fpd_exact_mode exact;            /* how the check is run, not what it is: not in the case's identity */
    int default_threads;                  /* threads for paths that set none (0: the backend's default): part
                                             of what the check is, since a library's bits can depend on it */
    bool unhashed;                        /* likewise: its outputs go unhashed, where nobody reads their
                                             hashes (see fpd_campaign_config) */
    bool mean;                            /* the paths' outputs are the product divided by k, rounded once
                                             more (a mean: fpdiv judge --op mean, a case no file keeps) */
};

/* Each path against the correctly rounded result. */
struct fpd_exact_report {
    double err_ulp[2];   /* max |c - RN(exact)| over the compared block, in ulps of the case's output type:
                            the distance from the correctly rounded result, 0 for a path that gives it */
    double own_ratio[2]; /* max |c - exact| / the path's own rounding bound (its own output type) */
    size_t wrong_class[2]; /* elements where a path is Inf/NaN/finite and the exact result is not,
                              beyond what rounding explains */
    size_t overflowed[2];  /* of those, where the path is Inf or NaN and its magnitudes let a partial sum
                              overflow: what an order that overflows gives (not kept in case files) */
    size_t zero_sign[2];   /* elements where a path is -0 and the exact sum 0 of nonzero terms, which
                              round-to-nearest arithmetic makes +0 in every order (check.c says where
                              it is judged): a wrong result */
    size_t threshold[2];   /* elements where a path is ±Inf and the correctly rounded result finite (or
                              the other way round) within the path's own bound of the overflow
                              threshold: its rounding carried the sum across (see fpd_metrics) */
    /* The aggregate precision test (aggregate.h), where a path's rounding is random (else 0): its
     * sum of squared normalized errors against its alarm level; over 1 is `improbable`. */
    double aggregate[2];
    size_t aggregate_elements[2]; /* the elements it summed over (not kept in case files) */
    /* (the narrow members last: a check's answer, which holds this, must fit a worker's message) */
    unsigned beyond;              /* bit 0: path A exceeds its own bound, or gives a zero of the wrong sign;
                                     bit 1: path B */
    uint8_t flushed;              /* bit w: every element where that path is wrong (beyond its bound or
                                     of the wrong class) is what arithmetic flushing subnormals to zero
                                     gives (not kept in case files) */
    bool computed;
    bool aggregate_by_orders[2];  /* its alarm level is the legitimate orders' (structured data) */
};

struct fpd_check_result {
    enum fpd_verdict verdict;
    struct fpd_metrics metrics;
    struct fpd_paths paths;
    uint32_t worst_batch, worst_row, worst_col; /* the worst element, in case coordinates */
    int failed_path;                            /* -1, or 0/1 for path A/B when verdict is error */
    /* With verdict error: the check does not apply, as failed_path's backend cannot compute its
     * GEMM (FPD_ERR_NOT_APPLICABLE; error says why). A campaign passes it over, `check` refuses
     * it; anything that does not ask sees an error. */
    bool not_applicable;
    bool probable_order_free; /* of probable_ratio's element (below): its data break the model, so its
                                 threshold is the order-free one (here, beside the other flag, as the
                                 answer holding this must fit a worker's message) */
    char error[256];
    struct fpd_exact_report exact;
    /* Within the worst-case bound: the largest |a - b| against the probabilistic threshold
     * (probable.h), where it is over 1 (the verdict is then improbable); else 0. */
    double probable_ratio;
    uint64_t digest; /* the checker's `digest` of this check's outputs, when it has one */
    struct fpd_concurrency concurrency; /* path B's callers, where it had company (concurrent) */
    /* A strict relation's (scale): the largest |a - b| against what underflow alone can make, where
     * the paths differ and the bound did not already decide (the verdict is improbable when over 1) */
    double strict_excess;
};

/* Reusable buffers: one checker serves a whole campaign without allocating per check. */
struct fpd_checker {
    struct fpd_tensors tensors;
    struct fpd_staging operand_a[2], operand_b[2], bias[2], out[2], result[2];
    struct fpd_staging magnitude, abs_bias, values_a, values_b; /* magnitude: one batch entry's g */
    size_t values_entry; /* the batch entry values_a and values_b hold in the check concluding, or SIZE_MAX */
    struct fpd_staging values_lines; /* which of their lines are converted (check.c's entry_values_open) */
    bool values_whole;               /* all of them */
    /* the check concluding's subnormal reach (check.c) per input type, where known: each tensor-core
     * path's bound in each report asks for it */
    bool reach_known[FPD_DTYPE_COUNT];
    double reach[FPD_DTYPE_COUNT];
    struct fpd_staging terms; /* one element's products, for its probabilistic threshold */
    struct fpd_staging excess; /* per element and path, its error past its allowance in the aggregate test */
    struct fpd_staging flushed; /* one element's terms as arithmetic that flushes subnormals sees them */
    struct fpd_block compared[2]; /* each path's compared block: in `out`, or converted into `result` */
    struct fpd_magnitude_work abs; /* |A| and |B| for the magnitudes */
    /* The check under way, between its preparation and its conclusion: each path's GEMM, the bias
     * a path adds after it, and its outcome with the reason. */
    bool prepared;
    struct fpd_gemm_args args[2];
    const void *bias_after[2];
    int status[2];
    char why[2][256];
    struct fpd_callers callers; /* path B's fellow callers, where it has some (concurrent) */
    struct fpd_gemm_args second[2]; /* a split path's second GEMM (split-k), into second_out */
    struct fpd_staging second_out[2];
    struct fpd_superacc *acc; /* allocated on first use */
    uint64_t gemm_ticks; /* fpd_ticks() spent in GEMM arithmetic: the paths' products and the bound's |A||B| */
    /* Each check in a child process of its own (check itself, and the commands that run many
     * checks in fpdiv's own process: bisect, sweep, minimize): a backend that crashes, or runs past isolate_timeout
     * seconds (0: no limit), gives an `error` verdict instead of ending fpdiv. The child's buffers
     * and gemm_ticks do not come back. */
    bool isolate;
    double isolate_timeout;
    void *shared; /* the child's answer (mapped on first use) */
    /* Optional: what a caller needs from the output buffers beyond the result (bisect --by hash:
     * path A's shared prefix), computed where they are, in the child when isolated. Called after
     * every check that ran both paths; its value comes back as res->digest. */
    uint64_t (*digest)(void *ctx, const struct fpd_checker *ck, const struct fpd_check_result *res);
    void *digest_ctx;
    /* Optional: the environment as the backends saw it where the check ran, JSON text made there
     * after the check (malloc'd; fpd_environment_text). A backend's provenance can be state of the
     * process that ran its GEMMs (cuBLASLt's algorithm, a handle's modes), which an isolated
     * check's parent never had. It comes back in environment_text: NULL when it was not made or
     * was longer than FPD_CHECK_ENVIRONMENT_MAX. */
    char *(*environment)(const struct fpd_check *chk);
    char *environment_text;
};

#define FPD_CHECK_ENVIRONMENT_MAX 16384

/* The thread count a check pins its library backends to, which is part of what the check is:
 * default_threads, when one of its backends honours a thread count and the relation does not set
 * its own (threads); 0 when none is pinned. */
int fpd_check_threads(const struct fpd_check *chk);

/*
 * Runs the check. Backend failures and anything the paths cannot do become the `error` verdict
 * with res->error set; the return value is FPD_OK then too. Only fpdiv's own failures (out of
 * memory) return another status.
 */
int fpd_check_run(struct fpd_checker *ck, const struct fpd_check *chk, struct fpd_check_result *res);
/* Checks chks[i] with checkers cks[i] (distinct: each holds its check's buffers until the end), as
 * fpd_check_run does without isolation, their GEMMs handed to each backend together: a backend in
 * another process (a framework's bridge server) gets those of all the checks in one request. */
int fpd_check_run_many(struct fpd_checker *const *cks, const struct fpd_check *chks, struct fpd_check_result *res,
                       size_t count);
void fpd_checker_free(struct fpd_checker *ck);
/* The result of a check whose process died (a crash, a timeout): `error`, no path to blame, why. */
void fpd_check_result_died(const struct fpd_check *chk, const char *why, struct fpd_check_result *res);

#endif
