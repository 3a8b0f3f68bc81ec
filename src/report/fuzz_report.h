/*
 * fuzz_report.h — what `fpdiv fuzz` shows: the campaign line, progress on stderr (a live line on a
 * terminal, a plain line every 10 s otherwise), each finding (or with --json a line per check),
 * what was saved, the summary table, JUnit XML and GitHub's annotations and step summary.
 */
#ifndef FPD_FUZZ_REPORT_H
#define FPD_FUZZ_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/campaign.h"
#include "engine/shard.h"
#include "report/ci.h"
#include "report/page.h"

struct fpd_fuzz_report {
    /* set by the caller */
    bool json;          /* JSON Lines on stdout, else text */
    const char *corpus; /* where findings are saved; NULL: nowhere */
    int fail_on;        /* the policy: a verdict, or FPD_FAIL_NEVER */
    const char *junit;  /* JUnit XML file, or NULL */
    const char *html;   /* the report page (page.h), or NULL */
    bool ci_wanted;     /* every check is recorded for JUnit or GitHub */
    /* kept here */
    const struct fpd_campaign *cp;
    struct fpd_ci_report ci;
    bool tty;
    double start, last;   /* fpd_now(): the campaign's start, the last progress line */
    uint64_t start_ticks; /* fpd_ticks() at the start: the campaign measures their rate */
    size_t failed, saved, save_failures;
    json_t *campaign_line;              /* for the page: the campaign line, and its checks */
    struct fpd_campaign_digest digest;
};

/* The campaign line (or the seed and how to rerun the campaign, `rerun` its options), and the
 * shard on stderr; the clock starts. */
void fpd_fuzz_report_start(struct fpd_fuzz_report *r, const struct fpd_campaign *cp, const struct fpd_shard *shard,
                           const char *rerun);
void fpd_fuzz_report_progress(struct fpd_fuzz_report *r, const struct fpd_stats *st, bool final);
/* A check's result and its wall time, in seconds and in fpd_ticks (clock.h; either may be 0):
 * counted against the policy, recorded for JUnit (its time added to its test case's), shown (with
 * --json each one, else the first of each signature). FPD_ERR_NOMEM, or FPD_OK. */
int fpd_fuzz_report_check(struct fpd_fuzz_report *r, const struct fpd_check *chk, const struct fpd_check_result *res,
                          double seconds, double ticks, bool first_of_signature);
/* A check over the memory budget at its smallest shape: a `skipped` line with --json, else a note
 * on stderr for the first (the summary counts them all). */
void fpd_fuzz_report_skipped(struct fpd_fuzz_report *r, uint32_t index, bool first);
/* A check that did not apply (res->not_applicable): a JSON line, or the first on stderr. */
void fpd_fuzz_report_not_applicable(struct fpd_fuzz_report *r, uint32_t index, const struct fpd_check_result *res,
                                    bool first);
/* What saving a finding came to, from its line (campaign_worker.h): the case saved (its path put
 * back in front), or why it could not be, counted (the run then fails). Takes the line. */
void fpd_fuzz_report_saved(struct fpd_fuzz_report *r, json_t *line);
/* The summary, the corpus's line, the JUnit file, the page and GitHub's output. `known`: findings whose
 * signature the corpus already had. Returns the exit status it calls for: FPD_EXIT_INTERNAL when
 * findings were not saved, FPD_EXIT_USAGE when the JUnit file or the page could not be written,
 * else OK. */
int fpd_fuzz_report_finish(struct fpd_fuzz_report *r, struct fpd_stats *st, uint64_t gemm_ticks, size_t known,
                           bool interrupted);
void fpd_fuzz_report_free(struct fpd_fuzz_report *r);

/* Prints a JSON line on stdout, and drops the reference. */
void fpd_fuzz_print_json(json_t *j);

#endif
