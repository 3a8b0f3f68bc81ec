/* ci.c — JUnit XML and GitHub Actions output. */
#include "report/ci.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/file_write.h"
#include "common/text.h"
#include "fpdiv_backend.h"
#include "report/html.h"
#include "store/corpus.h"

enum { KEEP_FAILURES = 100, ANNOTATIONS = 50 };

struct fpd_ci_case *fpd_ci_case(struct fpd_ci_report *r, const char *classname, const char *name)
{
    for (size_t i = 0; i < r->n_cases; i++)
        if (strcmp(r->cases[i].classname, classname) == 0 && strcmp(r->cases[i].name, name) == 0)
            return &r->cases[i];
    if (!FPD_ARRAY_RESERVE(r->cases, r->cap_cases, r->n_cases + 1))
        return NULL;
    struct fpd_ci_case *c = &r->cases[r->n_cases];
    *c = (struct fpd_ci_case){.classname = strdup(classname), .name = strdup(name)};
    if (!c->classname || !c->name) {
        free(c->classname);
        free(c->name);
        return NULL;
    }
    r->n_cases++;
    return c;
}

int fpd_ci_fail(struct fpd_ci_case *c, const char *kind, const char *message, const char *details)
{
    if (c->n_failures == KEEP_FAILURES) {
        c->dropped++;
        return FPD_OK;
    }
    if (!FPD_ARRAY_RESERVE(c->failures, c->cap_failures, c->n_failures + 1))
        return FPD_ERR_NOMEM;
    struct fpd_ci_failure f = {strdup(kind), strdup(message), strdup(details ? details : "")};
    if (!f.kind || !f.message || !f.details) {
        free(f.kind);
        free(f.message);
        free(f.details);
        return FPD_ERR_NOMEM;
    }
    c->failures[c->n_failures++] = f;
    return FPD_OK;
}

int fpd_ci_skip(struct fpd_ci_case *c, const char *message)
{
    free(c->skipped);
    c->skipped = strdup(message);
    return c->skipped ? FPD_OK : FPD_ERR_NOMEM;
}

void fpd_ci_free(struct fpd_ci_report *r)
{
    for (size_t i = 0; i < r->n_cases; i++) {
        for (size_t j = 0; j < r->cases[i].n_failures; j++) {
            free(r->cases[i].failures[j].kind);
            free(r->cases[i].failures[j].message);
            free(r->cases[i].failures[j].details);
        }
        free(r->cases[i].skipped);
        free(r->cases[i].failures);
        free(r->cases[i].classname);
        free(r->cases[i].name);
    }
    free(r->cases);
    free(r->suite);
    *r = (struct fpd_ci_report){0};
}

void fpd_ci_settle_ticks(struct fpd_ci_report *r, double seconds_per_tick)
{
    for (size_t i = 0; i < r->n_cases; i++) {
        r->cases[i].seconds += r->cases[i].ticks * seconds_per_tick;
        r->cases[i].ticks = 0;
    }
}

int fpd_ci_write_junit(const struct fpd_ci_report *r, const char *path, double seconds, char *why, size_t why_size)
{
    if (fpd_make_parent_dirs(path, why, why_size) != FPD_OK)
        return FPD_ERR_INPUT;
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(why, why_size, "cannot write %s: %s", path, strerror(errno));
        return FPD_ERR_INPUT;
    }
    size_t failures = 0, skipped = 0;
    for (size_t i = 0; i < r->n_cases; i++) {
        failures += r->cases[i].n_failures ? 1 : 0;
        skipped += r->cases[i].skipped && !r->cases[i].n_failures ? 1 : 0;
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"");
    fpd_html_text(f, r->suite ? r->suite : "fpdiv");
    fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"%.3f\">\n", r->n_cases, failures,
            skipped, seconds);
    for (size_t i = 0; i < r->n_cases; i++) {
        const struct fpd_ci_case *c = &r->cases[i];
        fprintf(f, "    <testcase classname=\"");
        fpd_html_text(f, c->classname);
        fprintf(f, "\" name=\"");
        fpd_html_text(f, c->name);
        fprintf(f, "\" time=\"%.3f\">\n", c->seconds);
        for (size_t j = 0; j < c->n_failures; j++) {
            fprintf(f, "      <failure type=\"");
            fpd_html_text(f, c->failures[j].kind);
            fprintf(f, "\" message=\"");
            fpd_html_text(f, c->failures[j].message);
            fprintf(f, "\">");
            fpd_html_text(f, c->failures[j].details);
            fprintf(f, "</failure>\n");
        }
        if (c->skipped && !c->n_failures) {
            fprintf(f, "      <skipped message=\"");
            fpd_html_text(f, c->skipped);
            fprintf(f, "\"/>\n");
        }
        if (c->dropped)
            fprintf(f, "      <system-out>%zu more failures of this test case are not listed</system-out>\n", c->dropped);
        fprintf(f, "    </testcase>\n");
    }
    fprintf(f, "  </testsuite>\n</testsuites>\n");
    if (fclose(f) != 0) {
        snprintf(why, why_size, "cannot write %s: %s", path, strerror(errno));
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

bool fpd_ci_github(void)
{
    const char *v = getenv("GITHUB_ACTIONS");
    return v && strcmp(v, "true") == 0;
}

/* Workflow commands take their data on one line. What a case file or a file name may carry that
 * is not printable text (CR, LF and other controls, bytes that are not UTF-8, characters that
 * reorder text) is shown escaped first (text.h), and then the command's own escapes: % in data;
 * in a property also : and , (which end it). */
static void command_text(FILE *out, const char *s, bool property)
{
    size_t size = 4 * strlen(s) + 1;
    char *shown = malloc(size);
    for (const char *c = shown ? fpd_printable(s, shown, size) : ""; *c; c++) {
        if (*c == '%')
            fputs("%25", out);
        else if (property && *c == ':')
            fputs("%3A", out);
        else if (property && *c == ',')
            fputs("%2C", out);
        else
            fputc(*c, out);
    }
    free(shown);
}

void fpd_ci_github_annotate(const struct fpd_ci_report *r, FILE *out)
{
    size_t shown = 0, total = 0;
    for (size_t i = 0; i < r->n_cases; i++) {
        const struct fpd_ci_case *c = &r->cases[i];
        total += c->n_failures + c->dropped;
        for (size_t j = 0; j < c->n_failures && shown < ANNOTATIONS; j++, shown++) {
            fputs("::error title=fpdiv ", out);
            command_text(out, c->failures[j].kind, true);
            fputs("::", out);
            command_text(out, c->failures[j].message, false);
            fputs("%0Areproduce: ", out);
            command_text(out, c->failures[j].details, false);
            fputc('\n', out);
        }
    }
    if (total > shown)
        fprintf(out, "::error title=fpdiv::%zu more failures; the JUnit report and the step summary list them\n",
                total - shown);
}

/* A Markdown table cell of `s`: on one line, without a column break, and shown as text, not read
 * as Markdown or HTML (a file name in it is anyone's). In a code span only a | needs its escape
 * there, and a backquote, which would end the span, becomes a quote. */
static void markdown_cell(FILE *f, const char *s, bool code)
{
    static const char markup[] = "\\`*_{}[]()<>#+-.!|~&";
    size_t size = 4 * strlen(s) + 1;
    char *shown = malloc(size); /* what is not printable text, escaped first (text.h) */
    if (code)
        fputc('`', f);
    for (const char *c = shown ? fpd_printable(s, shown, size) : ""; *c; c++) {
        if (*c == '|')
            fputs("\\|", f);
        else if (code && *c == '`')
            fputc('\'', f);
        else if (!code && strchr(markup, *c))
            fprintf(f, "\\%c", *c);
        else
            fputc(*c, f);
    }
    if (code)
        fputc('`', f);
    free(shown);
}

int fpd_ci_github_summary(const struct fpd_ci_report *r, const char *headline, char *why, size_t why_size)
{
    const char *path = getenv("GITHUB_STEP_SUMMARY");
    if (!path || !*path)
        return FPD_OK;
    FILE *f = fopen(path, "a");
    if (!f) {
        snprintf(why, why_size, "cannot append to $GITHUB_STEP_SUMMARY (%s): %s", path, strerror(errno));
        return FPD_ERR_INPUT;
    }
    fprintf(f, "### %s\n\n| test | checks | failures | first failure |\n|---|---:|---:|---|\n", headline);
    for (size_t i = 0; i < r->n_cases; i++) {
        const struct fpd_ci_case *c = &r->cases[i];
        fputs("| ", f);
        markdown_cell(f, c->classname, true);
        fputc(' ', f);
        markdown_cell(f, c->name, false);
        fprintf(f, " | %zu | %zu | ", c->checks, c->n_failures + c->dropped);
        if (c->n_failures)
            markdown_cell(f, c->failures[0].details, true);
        fputs(" |\n", f);
    }
    fputc('\n', f);
    fclose(f);
    return FPD_OK;
}
