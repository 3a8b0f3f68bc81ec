/* report_page.h — a corpus and a campaign as one self-contained HTML page (`fpdiv report`): no
 * network, no external scripts, styles or fonts; readable with JavaScript off, which only adds the
 * copy buttons. */
#ifndef FPD_REPORT_PAGE_H
#define FPD_REPORT_PAGE_H

#include <jansson.h>
#include <stdio.h>

#include "store/corpus.h"

struct fpd_report_case {
    char *path;
    struct fpd_case_file file;
};

/* The checks' ratios to the bound, a list per relation, in the order relations first came: all a
 * campaign's checks leave for the page (8 bytes each, where their JSON took hundreds). */
struct fpd_ratio_set {
    char relation[32];
    double *ratios;
    size_t count, cap;
};
struct fpd_ratio_sets {
    struct fpd_ratio_set *sets;
    size_t count, cap;
};
int fpd_ratio_sets_add(struct fpd_ratio_sets *r, const char *relation, double ratio);
void fpd_ratio_sets_free(struct fpd_ratio_sets *r);

struct fpd_report_input {
    const char *corpus_dir;              /* NULL: the campaign saved nothing (--no-corpus) */
    const struct fpd_report_case *cases; /* the corpus's case files, in path order */
    size_t case_count;
    const char *campaign_from; /* where the campaign's lines came from, or NULL for none */
    json_t *campaign;          /* its "campaign" line (seed, environment), or NULL */
    json_t *summary;           /* its "summary" line (the table), or NULL */
    const struct fpd_ratio_sets *ratios; /* its checks' ratios, or NULL */
};

void fpd_report_page(FILE *f, const struct fpd_report_input *in);

/* Reads every case file of corpus_dir (none when NULL), as replay reads them, and writes the page
 * to `path` through a temporary file renamed over it: FILE is never half written, and a malformed
 * case (named, with line and column) leaves it as it was. FPD_ERR_INPUT with why, or
 * FPD_ERR_NOMEM. `*cases` is how many case files the page shows. */
int fpd_report_write(const char *path, const char *corpus_dir, const char *campaign_from, json_t *campaign,
                     json_t *summary, const struct fpd_ratio_sets *ratios, size_t *cases, char *why,
                     size_t why_size);

#endif
