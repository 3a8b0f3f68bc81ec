/*
 * campaign.h — the fuzz campaign's planning and bookkeeping.
 *
 * Case i of seed S is planned from its own stream (seed, i) alone: relation, dtypes, backends,
 * shape, layout, distribution and relation parameters. Given the same lists of relations,
 * backends and dtypes, it is the same check whether run in a campaign or alone.
 */
#ifndef FPD_CAMPAIGN_H
#define FPD_CAMPAIGN_H

#include "common/workers.h"
#include "engine/check.h"

#define FPD_MAX_LIST 32

struct fpd_campaign_config {
    unsigned generator; /* of every case's data */
    uint64_t seed;
    const struct fpd_relation *relations[FPD_MAX_LIST];
    size_t n_relations;
    struct fpd_backend_slot *backends[FPD_MAX_BACKENDS];
    bool core_only[FPD_MAX_BACKENDS]; /* run only in relations between kernel sets (the core relation) */
    size_t n_backends;
    struct fpd_dtypes dtypes[FPD_MAX_LIST];
    size_t n_dtypes;
    enum fpd_dist dists[FPD_DIST_COUNT];
    size_t n_dists;
    uint32_t max_dim;
    bool reach;         /* a share of the cases past max_dim, where reductions are long (reach.h) */
    double special_rate; /* of every case, or FPD_SPECIALS_DRAWN (negative) */
    double max_mem;
    int max_threads;     /* the threads relation's most (from 2) */
    int caller_threads;  /* the most a concurrent caller's library runs (from 1); 0: max_threads */
    enum fpd_exact_mode exact;
    int default_threads; /* BLAS threads for paths that do not set their own (0: the backend's default) */
    bool unhashed;       /* its checks' outputs go unhashed: a campaign that prints no check's hashes and saves
                            none of its checks as found (see fpd_check) */
    unsigned jobs;       /* worker processes running the campaign */
};

/* One runnable (relation, dtypes, backend[s]) combination: indices into the config's lists;
 * backend[1] is UINT16_MAX for a relation of one backend. */
struct fpd_combo {
    uint16_t relation, dtypes, backend[2];
};

struct fpd_campaign {
    struct fpd_campaign_config cfg;
    struct fpd_combo *combos; /* grouped by relation */
    size_t n_combos;
    size_t first[FPD_MAX_LIST], count[FPD_MAX_LIST]; /* per relation: its combos */
    uint16_t live[FPD_MAX_LIST];                      /* relations with at least one combo */
    size_t n_live;
};

/* Opens the backends, works out what can run. Fails (why set) when nothing can. */
int fpd_campaign_prepare(struct fpd_campaign *cp, const struct fpd_campaign_config *cfg, char *why, size_t why_size);
/* Plans check `index`, its shape shrunk to fit the memory budget. FPD_ERR_INPUT: even its smallest
 * shape does not (fpd_case_validate says by how much); the check is planned all the same, to be
 * skipped. */
int fpd_campaign_plan(const struct fpd_campaign *cp, uint32_t index, struct fpd_check *out);
/* Check `index`'s combination alone: the first draws of its plan, a fraction of the cost. */
const struct fpd_combo *fpd_campaign_combo(const struct fpd_campaign *cp, uint32_t index);
void fpd_campaign_free(struct fpd_campaign *cp);

/* The summary table: one row per relation x backend[s]. */
struct fpd_tally {
    uint16_t relation, backend[2];
    size_t checks, by_verdict[FPD_VERDICT_COUNT];
    uint64_t max_ulp;
    double max_ratio;
};

/* Signatures seen: (relation, backends, dtypes, verdict) — one finding each. */
struct fpd_signature {
    uint16_t relation, backend[2];
    struct fpd_dtypes dt;
    enum fpd_verdict verdict;
    size_t count;
};

struct fpd_stats {
    size_t checks, by_verdict[FPD_VERDICT_COUNT];
    size_t skipped; /* not run: over the memory budget at their smallest shapes (fpd_campaign_plan) */
    size_t not_applicable; /* run, and did not apply (fpd_check_result.not_applicable): not in `checks` */
    struct fpd_tally *tallies;
    size_t n_tallies, cap_tallies;
    struct fpd_signature *signatures;
    size_t n_signatures, cap_signatures;
    struct fpd_shape_reach {
        uint32_t k_octaves;  /* bit e: a check summed k in [2^e, 2^(e+1)) terms */
        uint32_t longest_k, most_rows;
        size_t past_max_dim; /* checks with m, n or k past --max-dim (reach.h) */
        size_t empty;        /* checks of the empty product, k = 0 */
    } shapes;
    size_t with_specials; /* checks whose inputs may hold special values */
};

/* A campaign not given --specials: special values (±0, ±Inf, NaN, subnormals, the smallest normal)
 * in one case in FPD_SPECIALS_EVERY (on average), FPD_DRAWN_SPECIAL_RATE of its elements, a
 * FPD_SPECIALS_FULL_K / k share of that past k = FPD_SPECIALS_FULL_K: a sum then meets about as many
 * as one of that length, where at 0.01 one of 2^21 terms meets thousands, and every path's result and
 * the exact one are NaN alike, which tells nothing. Every other case is drawn as without them.
 * Libraries ship kernels that lose a NaN or an Inf (a zero skipped: the reference BLAS's syrk; a max
 * or min instruction: clamping epilogues) or flush subnormals, right on every finite normal input. */
#define FPD_SPECIALS_DRAWN (-1.0)
#define FPD_DRAWN_SPECIAL_RATE 0.01
enum { FPD_SPECIALS_EVERY = 8, FPD_SPECIALS_FULL_K = 64 };
/* Case `index`'s probability of a special value per element. */
double fpd_campaign_special_rate(const struct fpd_campaign_config *cfg, uint32_t index);

/* One case in FPD_EMPTY_K_EVERY (on average) of a campaign is the empty product, k = 0, where its
 * relation takes one (fpd_campaign_plan). */
enum { FPD_EMPTY_K_EVERY = 64 };

/* The octaves of k a shape reach counts: 1 .. 2^23 - 1, the longest sums reach.h draws. */
enum { FPD_K_OCTAVES = 23 };

/* Records a result. Returns 1 when it is the first of its signature (and not `same`), 0 when not,
 * or FPD_ERR_NOMEM as a negative number. */
int fpd_stats_add(struct fpd_stats *st, const struct fpd_campaign *cp, const struct fpd_combo *combo,
                  const struct fpd_check_result *res);
/* Records check `index` that ran: its shape (m, n, k) for the campaign's reach, and its data. */
void fpd_stats_add_case(struct fpd_stats *st, const struct fpd_campaign *cp, uint32_t index, uint32_t m, uint32_t n,
                        uint32_t k);
void fpd_stats_free(struct fpd_stats *st);

/* A check's answer, as a campaign's worker sends it to the pool (workers.h carries it as bytes). */
struct fpd_check_answer {
    bool skipped;        /* not run (the campaign knows why): no result */
    float ticks;         /* the check's wall time in fpd_ticks (clock.h; a share of it, for checks run
                            together), which the campaign turns into seconds at its end: a read of
                            CLOCK_MONOTONIC on each side was 3% of a check at max-dim 16. A float, in
                            what would be padding: the answer fills a worker's message */
    uint64_t gemm_ticks; /* the check's time in GEMM arithmetic (clock.h) */
    uint32_t m, n, k;    /* its shape, for the campaign's reach (fpd_stats_add_case) */
    struct fpd_check_result res;
};

int fpd_check_answer_send(struct fpd_worker_channel *ch, uint32_t index, const struct fpd_check_answer *a);
/* The answer an FPD_MSG_ANSWER message carries. */
void fpd_check_answer_read(const struct fpd_worker_msg *m, struct fpd_check_answer *a);

#endif
