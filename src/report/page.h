/* page.h — a corpus and a campaign as one self-contained HTML page (`fpdiv report`): no
 * network, no external scripts, styles or fonts; readable with JavaScript off, which only adds the
 * copy buttons. */
#ifndef FPD_PAGE_H
#define FPD_PAGE_H

#include <jansson.h>
#include <stdio.h>

#include "engine/replay.h"
#include "report/saved_result.h"
#include "store/corpus.h"

struct fpd_report_case {
    char *path;
    struct fpd_case_file file;
};

/* What a campaign's checks leave for the page, a few bytes each where their JSON took hundreds:
 * per relation (in the order relations first came) the ratio to the bound of each check that
 * differs and how many were bitwise equal, and for each check that differs its m, k and fraction
 * of differing elements. */
struct fpd_ratio_set {
    char relation[32];
    double *ratios; /* of the checks that differ */
    size_t count, cap;
    size_t equal; /* checks whose paths were bitwise equal */
};
struct fpd_difference_point {
    double m, k, fraction;
    bool beyond; /* its verdict is improbable or worse: a finding, not a reordering */
};
struct fpd_campaign_digest {
    struct fpd_ratio_set *sets;
    size_t set_count, set_cap;
    struct fpd_difference_point *points;
    size_t point_count, point_cap;
};
/* One check: its relation, ratio (NaN where no bound was taken), shape, differing elements of
 * `count`, and verdict (`same`: counted as equal). FPD_ERR_NOMEM, or FPD_OK. */
int fpd_campaign_digest_add(struct fpd_campaign_digest *d, const char *relation, double ratio, double m, double k,
                            size_t diff, size_t count, enum fpd_verdict verdict);
/* `checks` more bitwise-equal checks of the relation. */
int fpd_campaign_digest_add_equal(struct fpd_campaign_digest *d, const char *relation, size_t checks);
void fpd_campaign_digest_free(struct fpd_campaign_digest *d);

/* A replay's line for one case (`fpdiv replay --json`): its class, and where it ran, the verdict
 * now and its distance from the correctly rounded result. */
struct fpd_replay_entry {
    char *file;     /* as replay named it */
    char *resolved; /* its real path, to find it among the corpus's; NULL when it has none here */
    enum fpd_replay_class cls;
    enum fpd_verdict recorded, now; /* now: where it ran (not elsewhere or skipped) */
    char *note;                     /* why it did not run, or what changed since it was recorded; or NULL */
    bool exact;                     /* the exact reference's attribution: */
    double ulp_a, ulp_b;            /* each path's ulps from the correctly rounded result */
};
struct fpd_replay_report {
    struct fpd_replay_entry *entries;
    size_t count, cap;
    json_t *summary; /* its "summary" line, or NULL */
};
/* A line of `fpdiv replay --json` for one case: FPD_ERR_INPUT with *problem naming the field that
 * is missing or malformed, FPD_ERR_NOMEM, or FPD_OK. */
int fpd_replay_report_add(struct fpd_replay_report *r, json_t *line, const char **problem);
void fpd_replay_report_free(struct fpd_replay_report *r);

struct fpd_report_input {
    const char *corpus_dir;        /* NULL: the campaign saved nothing (--no-corpus) */
    struct fpd_report_case *cases; /* the corpus's case files, in path order (fpd_report_write reads them) */
    size_t case_count;
    const char *campaign_from; /* where the campaign's lines came from, or NULL for none */
    json_t *campaign;          /* its "campaign" line (seed, environment), or NULL */
    json_t *summary;           /* its "summary" line (the table), or NULL */
    const struct fpd_campaign_digest *digest; /* its checks, or NULL */
    const char *replay_from;                  /* where a replay's lines came from, or NULL for none */
    const struct fpd_replay_report *replay;
    struct fpd_saved_result *saved; /* sweeps, bisections and trees saved beside the corpus, by kind, in
                                       path order (fpd_report_write reads them) */
    size_t saved_count;
};

/* FPD_ERR_NOMEM, with nothing written, or FPD_OK. */
int fpd_report_page(FILE *f, const struct fpd_report_input *in);

#endif
