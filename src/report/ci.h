/*
 * ci.h — results in the formats CI systems read: JUnit XML (GitLab, Jenkins, …) and GitHub
 * Actions' workflow commands and step summary. The caller collects test cases and failures; these
 * functions only format.
 */
#ifndef FPD_CI_H
#define FPD_CI_H

#include <stdbool.h>
#include <stdio.h>

struct fpd_ci_failure {
    char *kind;    /* the verdict, or the replay class */
    char *message; /* one line */
    char *details; /* the command that reproduces it */
};

struct fpd_ci_case {
    char *classname, *name;
    size_t checks;
    double seconds;
    double ticks; /* more of its time, in fpd_ticks (clock.h): fpd_ci_settle_ticks adds it to seconds */
    struct fpd_ci_failure *failures;
    size_t n_failures, cap_failures, dropped; /* dropped: failures beyond what is kept */
    char *skipped; /* why it was not run here (a test case that did not pass or fail), or NULL */
};

struct fpd_ci_report {
    char *suite;
    struct fpd_ci_case *cases;
    size_t n_cases, cap_cases;
};

/* The test case (classname, name), created on first use. NULL when out of memory. */
struct fpd_ci_case *fpd_ci_case(struct fpd_ci_report *r, const char *classname, const char *name);
/* Records a failure (at most 100 are kept per test case; the rest are counted). */
int fpd_ci_fail(struct fpd_ci_case *c, const char *kind, const char *message, const char *details);
/* Marks the test case skipped, saying why. */
int fpd_ci_skip(struct fpd_ci_case *c, const char *message);
void fpd_ci_free(struct fpd_ci_report *r);
/* Each test case's ticks into its seconds, at the rate its maker measured. */
void fpd_ci_settle_ticks(struct fpd_ci_report *r, double seconds_per_tick);

/* JUnit XML; FPD_OK or FPD_ERR_INPUT with why (the file). */
int fpd_ci_write_junit(const struct fpd_ci_report *r, const char *path, double seconds, char *why, size_t why_size);

/* GitHub Actions, when GITHUB_ACTIONS=true: an ::error annotation per failure (at most 50, then one
 * that says how many more) on `out`, and a Markdown table appended to $GITHUB_STEP_SUMMARY. */
bool fpd_ci_github(void);
void fpd_ci_github_annotate(const struct fpd_ci_report *r, FILE *out);
int fpd_ci_github_summary(const struct fpd_ci_report *r, const char *headline, char *why, size_t why_size);

#endif
