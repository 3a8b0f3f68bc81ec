/* page.c — the HTML page of `fpdiv report`: sections in the order a reader asks their
 * questions (what ran and where, what diverged, how far, how to get it back). */
#include "report/page.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/dtype.h"
#include "common/table.h"
#include "common/text.h"
#include "common/version.h"
#include "engine/scale.h"
#include "report/check_report.h"
#include "report/export_target.h"
#include "report/html.h"
#include "report/page_saved.h"
#include "report/plot.h"

/* Inline, so that the page is one file: a CI artifact opened offline looks the same. */
static const char style[] =
    "body{font-family:sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;color:#222;line-height:1.4}"
    "table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left}"
    "td.num{text-align:right;font-variant-numeric:tabular-nums}th{background:#f2f2f2}"
    "#summary-table{font-size:90%}#summary-table td:first-child,#summary-table td:nth-child(2){white-space:nowrap}"
    "td.alarm{background:#fde0cc;font-weight:bold}"
    "pre{background:#f6f6f6;padding:.4em .6em;overflow-x:auto;display:inline-block;margin:.2em 0}"
    "section.finding{border-top:1px solid #ccc;margin-top:1.5em}"
    "button.copy{display:none;margin-left:.5em}.js button.copy{display:inline}"
    ".js-only{display:none}.js .js-only{display:block}table.sortable th{cursor:pointer}"
    "th[aria-sort=ascending]::after{content:' \\25B2'}th[aria-sort=descending]::after{content:' \\25BC'}"
    "svg{max-width:100%;height:auto}";

/* With JavaScript on, each command gets a button that copies it, a table of class `sortable` sorts
 * by the column whose heading is clicked, and the saved cases can be filtered by what their headings
 * say. The page's address can carry both (#filter=TEXT&sort=TABLE.COLUMN.asc|desc), so that a link
 * shows one relation's cases, or the worst rows first. */
static const char script[] =
    "document.documentElement.classList.add('js');"
    "function sortTable(t,i,asc){var h=t.tHead.rows[0].cells[i],body=t.tBodies[0];if(!h||!body)return;"
    "Array.prototype.forEach.call(h.parentNode.cells,function(x){x.removeAttribute('aria-sort');});"
    "h.setAttribute('aria-sort',asc?'ascending':'descending');"
    "function key(r){var c=r.cells[i];if(!c)return'';var n=parseFloat(c.textContent);"
    "return c.classList.contains('num')&&!isNaN(n)?n:c.textContent;}"
    "var rows=Array.prototype.slice.call(body.rows);rows.sort(function(a,b){var x=key(a),y=key(b);"
    "var d=typeof x==='number'&&typeof y==='number'?x-y:String(x).localeCompare(String(y));return asc?d:-d;});"
    "rows.forEach(function(r){body.appendChild(r);});}"
    "function filterCases(text){var q=text.toLowerCase(),shown=0,all=document.querySelectorAll('section.finding');"
    "all.forEach(function(x){x.hidden=q!==''&&x.querySelector('h3').textContent.toLowerCase().indexOf(q)<0;"
    "if(!x.hidden)shown++;});var c=document.getElementById('case-count');"
    "if(c)c.textContent=q?shown+' of '+all.length+' shown':'';}"
    "document.addEventListener('click',function(e){var b=e.target.closest('button.copy');"
    "if(b){var t=b.previousElementSibling.textContent;"
    "if(navigator.clipboard)navigator.clipboard.writeText(t).then(function(){b.textContent='copied';},"
    "function(){b.textContent='select and copy';});return;}"
    "var h=e.target.closest('table.sortable thead th');if(!h)return;"
    "sortTable(h.closest('table'),h.cellIndex,h.getAttribute('aria-sort')!=='ascending');});"
    "var box=document.getElementById('case-filter');"
    "if(box)box.addEventListener('input',function(){filterCases(box.value);});"
    "location.hash.replace(/^#/,'').split('&').forEach(function(p){var kv=p.split('='),v=decodeURIComponent(kv[1]||'');"
    "if(kv[0]==='filter'&&box){box.value=v;filterCases(v);}"
    "if(kv[0]==='sort'){var a=v.split('.'),t=document.getElementById(a[0]);"
    "if(t&&t.classList.contains('sortable'))sortTable(t,parseInt(a[1],10),a[2]!=='desc');}});";

static const char *string_of(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static void heading(FILE *f, const struct fpd_report_input *in)
{
    fputs("<h1>fpdiv report</h1>\n<p>", f);
    if (in->corpus_dir) {
        fputs("corpus <code>", f);
        fpd_html_text(f, in->corpus_dir);
        fprintf(f, "</code>: %zu saved case%s", in->case_count, in->case_count == 1 ? "" : "s");
    } else {
        fputs(in->campaign_from ? "no corpus: the campaign saved nothing" : "no corpus directory", f);
    }
    if (in->campaign_from) {
        fputs("; the campaign: ", f);
        fpd_html_text(f, in->campaign_from);
        char *seed = in->campaign ? json_dumps(json_object_get(in->campaign, "seed"), JSON_ENCODE_ANY) : NULL;
        if (seed)
            fpd_html_printf(f, " (seed %s, generator %" JSON_INTEGER_FORMAT ")", seed,
                            json_integer_value(json_object_get(in->campaign, "generator")));
        free(seed);
    }
    fprintf(f, ". Written by fpdiv %s.</p>\n", FPD_VERSION);
}

static int by_relation_and_backends(const void *a, const void *b)
{
    json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int by_relation = strcmp(string_of(x, "relation"), string_of(y, "relation"));
    return by_relation ? by_relation : strcmp(string_of(x, "backends"), string_of(y, "backends"));
}

/* The campaign's table: a row per relation and backends (in that order), a column per verdict. */
static void summary_table(FILE *f, const struct fpd_report_input *in)
{
    fputs("<h2 id='summary'>Campaign</h2>\n", f);
    if (!in->summary) {
        fputs(in->campaign_from ? "<p>The campaign's output has no summary line: it did not finish.</p>\n"
                                : "<p>No campaign given (<code>--campaign RUN.jsonl</code>, from <code>fpdiv fuzz "
                                  "--json</code>).</p>\n",
              f);
        return;
    }
    json_t *s = in->summary;
    double seconds = json_number_value(json_object_get(s, "seconds"));
    double gemm_seconds = json_number_value(json_object_get(s, "gemm_seconds"));
    json_int_t jobs = in->campaign ? json_integer_value(json_object_get(in->campaign, "jobs")) : 0;
    fprintf(f, "<p>%" JSON_INTEGER_FORMAT " checks in %.1f s", json_integer_value(json_object_get(s, "checks")),
            seconds);
    if (seconds > 0 && jobs > 0) /* the workers' time, as fuzz reports it */
        fprintf(f, " (%.0f%% of the workers' time in GEMM arithmetic)", 100 * gemm_seconds / (seconds * (double)jobs));
    fprintf(f, "; %" JSON_INTEGER_FORMAT " failed the policy; %" JSON_INTEGER_FORMAT " signatures, %" JSON_INTEGER_FORMAT
               " saved.</p>\n",
            json_integer_value(json_object_get(s, "failed")), json_integer_value(json_object_get(s, "signatures")),
            json_integer_value(json_object_get(s, "saved")));
    fputs("<table id='summary-table' class='sortable'>\n<thead><tr><th>relation</th><th>backends</th><th>checks</th>", f);
    for (int v = 0; v < FPD_VERDICT_COUNT; v++)
        fprintf(f, "<th>%s</th>", fpd_verdict_table[v].name);
    fputs("<th>max ulp</th><th>max ratio</th></tr></thead>\n<tbody>\n", f);
    json_t *rows = json_object_get(s, "rows");
    size_t count = json_array_size(rows);
    json_t **sorted = malloc((count ? count : 1) * sizeof *sorted);
    if (!sorted) {
        fputs("</tbody></table>\n<p>Out of memory: the table is not shown.</p>\n", f);
        return;
    }
    for (size_t i = 0; i < count; i++)
        sorted[i] = json_array_get(rows, i);
    qsort(sorted, count, sizeof *sorted, by_relation_and_backends);
    for (size_t i = 0; i < count; i++) {
        json_t *row = sorted[i];
        fputs("<tr><td>", f);
        fpd_html_text(f, string_of(row, "relation"));
        fputs("</td><td>", f);
        fpd_html_text(f, string_of(row, "backends"));
        fprintf(f, "</td><td class='num'>%" JSON_INTEGER_FORMAT "</td>", json_integer_value(json_object_get(row, "checks")));
        json_t *verdicts = json_object_get(row, "verdicts");
        for (int v = 0; v < FPD_VERDICT_COUNT; v++) {
            json_int_t n = json_integer_value(json_object_get(verdicts, fpd_verdict_table[v].name));
            fprintf(f, "<td class='num%s' data-verdict='%s'>%" JSON_INTEGER_FORMAT "</td>",
                    n && v >= FPD_IMPROBABLE ? " alarm" : "", fpd_verdict_table[v].name, n);
        }
        fprintf(f, "<td class='num'>%" JSON_INTEGER_FORMAT "</td><td class='num'>%.3g</td></tr>\n",
                json_integer_value(json_object_get(row, "max_ulp")), json_number_value(json_object_get(row, "max_ratio")));
    }
    free(sorted);
    fputs("</tbody></table>\n", f);
}

/* The environment: the campaign's, else the first case's (each finding names its own). */
static void environment(FILE *f, const struct fpd_report_input *in)
{
    json_t *env = in->campaign ? json_object_get(in->campaign, "environment")
                               : in->case_count ? in->cases[0].file.environment : NULL;
    fputs("<h2 id='environment'>Environment</h2>\n", f);
    if (!json_is_object(env)) {
        fputs("<p>Unrecorded.</p>\n", f);
        return;
    }
    fputs(in->campaign ? "<p>Where the campaign ran.</p>\n" : "<p>Where the first saved case ran.</p>\n", f);
    json_t *cpu = json_object_get(env, "cpu");
    fputs("<table id='environment-table'>\n<tr><th>CPU</th><td>", f);
    fpd_html_printf(f, "%s (%s), %s", string_of(cpu, "model"), string_of(cpu, "vendor"), string_of(cpu, "isa"));
    fputs("</td></tr>\n<tr><th>features</th><td>", f);
    fpd_html_text(f, string_of(cpu, "features"));
    fputs("</td></tr>\n<tr><th>fpdiv</th><td>", f);
    fpd_html_printf(f, "%s, generator %" JSON_INTEGER_FORMAT ", vector paths %s", string_of(env, "fpdiv"),
                    json_integer_value(json_object_get(env, "generator")), string_of(env, "vector_width"));
    fputs("</td></tr>\n</table>\n<table id='backends-table' class='sortable'>\n<thead><tr><th>backend</th><th>library or "
          "implementation</th><th>version</th><th>kernel set</th><th>threads</th></tr></thead>\n<tbody>\n", f);
    const char *name;
    json_t *b;
    json_object_foreach(json_object_get(env, "backends"), name, b)
    {
        fputs("<tr><td>", f);
        fpd_html_text(f, name);
        fputs("</td><td>", f);
        fpd_html_text(f, *string_of(b, "library") ? string_of(b, "library") : string_of(b, "implementation"));
        fputs("</td><td>", f);
        fpd_html_text(f, string_of(b, "version"));
        fputs("</td><td>", f);
        fpd_html_text(f, string_of(b, "kernel_set"));
        json_t *threads = json_object_get(b, "threads");
        if (json_is_integer(threads))
            fprintf(f, "</td><td class='num'>%" JSON_INTEGER_FORMAT "</td></tr>\n", json_integer_value(threads));
        else
            fputs("</td><td></td></tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

/* The relation's set, made where it is new. */
static struct fpd_ratio_set *ratio_set(struct fpd_campaign_digest *d, const char *relation)
{
    for (size_t i = d->set_count; i-- > 0;) /* a campaign's relations are few */
        if (strcmp(d->sets[i].relation, relation) == 0)
            return &d->sets[i];
    if (!FPD_ARRAY_RESERVE(d->sets, d->set_cap, d->set_count + 1))
        return NULL;
    struct fpd_ratio_set *set = &d->sets[d->set_count++];
    *set = (struct fpd_ratio_set){.count = 0};
    snprintf(set->relation, sizeof set->relation, "%s", relation);
    return set;
}

int fpd_campaign_digest_add_equal(struct fpd_campaign_digest *d, const char *relation, size_t checks)
{
    struct fpd_ratio_set *set = ratio_set(d, relation);
    if (!set)
        return FPD_ERR_NOMEM;
    set->equal += checks;
    return FPD_OK;
}

int fpd_campaign_digest_add(struct fpd_campaign_digest *d, const char *relation, double ratio, double m, double k,
                            size_t diff, size_t count, enum fpd_verdict verdict)
{
    if (verdict == FPD_SAME)
        return fpd_campaign_digest_add_equal(d, relation, 1);
    struct fpd_ratio_set *set = ratio_set(d, relation);
    if (!set || !FPD_ARRAY_RESERVE(set->ratios, set->cap, set->count + 1))
        return FPD_ERR_NOMEM;
    set->ratios[set->count++] = ratio;
    if (!diff || !count)
        return FPD_OK;
    if (!FPD_ARRAY_RESERVE(d->points, d->point_cap, d->point_count + 1))
        return FPD_ERR_NOMEM;
    d->points[d->point_count++] =
        (struct fpd_difference_point){m, k, (double)diff / (double)count, verdict >= FPD_IMPROBABLE};
    return FPD_OK;
}

void fpd_campaign_digest_free(struct fpd_campaign_digest *d)
{
    for (size_t i = 0; i < d->set_count; i++)
        free(d->sets[i].ratios);
    free(d->sets);
    free(d->points);
    *d = (struct fpd_campaign_digest){0};
}

/* What a relation's ratios give a histogram: bars (a finite ratio over 0), nothing because every
 * check was bitwise equal, or nothing because the differences have no finite ratio (a NaN/Inf
 * pattern that differs, or no bound taken). */
enum drawable { BARS, ALL_EQUAL, NO_FINITE_RATIO };

static enum drawable drawable(const struct fpd_ratio_set *set)
{
    for (size_t i = 0; i < set->count; i++)
        if (set->ratios[i] > 0 && isfinite(set->ratios[i]))
            return BARS;
    return set->count ? NO_FINITE_RATIO : ALL_EQUAL;
}

/* The relations of one kind, named in a sentence, if any. */
static void named(FILE *f, const struct fpd_campaign_digest *d, enum drawable kind, const char *lead)
{
    const char *sep = lead;
    for (size_t i = 0; i < d->set_count; i++)
        if (drawable(&d->sets[i]) == kind) {
            fputs(sep, f);
            fpd_html_text(f, d->sets[i].relation);
            sep = ", ";
        }
    if (sep != lead)
        fputs(".</p>\n", f);
}

/* The saved cases, as the digest of a campaign that ran only them. */
static int digest_of_cases(const struct fpd_report_input *in, struct fpd_campaign_digest *d)
{
    for (size_t i = 0; i < in->case_count; i++) {
        const struct fpd_case_file *cf = &in->cases[i].file;
        if (fpd_campaign_digest_add(d, cf->chk.relation->name, cf->recorded.ratio, cf->chk.c.m, cf->chk.c.k,
                                    cf->recorded.diff, cf->recorded.count, cf->recorded.verdict) != FPD_OK)
            return FPD_ERR_NOMEM;
    }
    return FPD_OK;
}

/* A histogram per relation of the checks' ratios to the bound, and the fraction of elements that
 * differ against k and m: of the campaign's checks, or else of the saved cases. Relations with
 * nothing to draw are named instead. */
static void plots(FILE *f, const struct fpd_report_input *in)
{
    struct fpd_campaign_digest from_cases = {0};
    const struct fpd_campaign_digest *d = in->digest ? in->digest : &from_cases;
    const char *of = in->digest ? "every check of the campaign" : "the saved cases (no campaign given)";
    if (!in->digest && digest_of_cases(in, &from_cases) != FPD_OK) {
        fputs("<p>Out of memory: no plots.</p>\n", f);
        fpd_campaign_digest_free(&from_cases);
        return;
    }
    fprintf(f, "<h2 id='ratios'>Ratio to the rounding bound</h2>\n<p>%s%s.</p>\n",
            d->set_count ? "By relation, " : "No checks to plot", d->set_count ? of : "");
    for (size_t i = 0; i < d->set_count; i++)
        if (drawable(&d->sets[i]) == BARS) {
            fputs("<figure>\n", f);
            fpd_plot_ratio_histogram(f, d->sets[i].relation, d->sets[i].ratios, d->sets[i].count, d->sets[i].equal);
            fputs("</figure>\n", f);
        }
    named(f, d, ALL_EQUAL, "<p>Every check bitwise equal (no plot): ");
    named(f, d, NO_FINITE_RATIO, "<p>Differences without a finite ratio only (NaN/Inf patterns, no bound taken): ");

    fprintf(f, "<h2 id='fractions'>Where elements differ</h2>\n");
    struct fpd_plot_point *pts = d->point_count ? malloc(d->point_count * sizeof *pts) : NULL;
    if (!pts) {
        fputs(d->point_count ? "<p>Out of memory: no plots.</p>\n" : "<p>No check differs.</p>\n", f);
        fpd_campaign_digest_free(&from_cases);
        return;
    }
    fprintf(f, "<p>The fraction of output elements that differ, in each check that differs: %s.</p>\n", of);
    static const struct {
        const char *title, *label;
        size_t at; /* offsetof the dimension in a point */
    } against[] = {{"Differing elements against k", "k, the inner dimension", offsetof(struct fpd_difference_point, k)},
                   {"Differing elements against m", "m, the rows of C", offsetof(struct fpd_difference_point, m)}};
    for (size_t a = 0; a < sizeof against / sizeof against[0]; a++) {
        for (size_t i = 0; i < d->point_count; i++) {
            double x;
            memcpy(&x, (const char *)&d->points[i] + against[a].at, sizeof x);
            pts[i] = (struct fpd_plot_point){x, d->points[i].fraction, d->points[i].beyond};
        }
        fputs("<figure>\n", f);
        fpd_plot_fraction(f, against[a].title, against[a].label, pts, d->point_count);
        fputs("</figure>\n", f);
    }
    free(pts);
    fpd_campaign_digest_free(&from_cases);
}

void fpd_replay_report_free(struct fpd_replay_report *r)
{
    for (size_t i = 0; i < r->count; i++) {
        free(r->entries[i].file);
        free(r->entries[i].resolved);
        free(r->entries[i].note);
    }
    free(r->entries);
    json_decref(r->summary);
    *r = (struct fpd_replay_report){0};
}

static char *copy_or_null(const char *s) { return s ? strdup(s) : NULL; }

int fpd_replay_report_add(struct fpd_replay_report *r, json_t *o, const char **problem)
{
    const char *file = json_string_value(json_object_get(o, "file"));
    const char *class_name = json_string_value(json_object_get(o, "class"));
    const char *recorded = json_string_value(json_object_get(o, "recorded"));
    const char *now = json_string_value(json_object_get(o, "verdict"));
    long cls = class_name ? fpd_table_find(fpd_replay_class_names, FPD_REPLAY_CLASS_COUNT, sizeof(const char *), 0,
                                           class_name)
                          : -1;
    struct fpd_replay_entry e = {.cls = (enum fpd_replay_class)cls};
    bool ran = cls >= 0 && cls != FPD_ELSEWHERE && cls != FPD_SKIPPED;
    *problem = !file                                                          ? "without \"file\" (a string)"
               : cls < 0                                                      ? "without \"class\" (reproduced, changed, "
                                                                                "fixed, worse, elsewhere or skipped)"
               : !recorded || fpd_verdict_parse(recorded, &e.recorded) != FPD_OK ? "without \"recorded\" (a verdict)"
               : ran && (!now || fpd_verdict_parse(now, &e.now) != FPD_OK)       ? "without \"verdict\" (a verdict)"
                                                                                  : NULL;
    if (*problem)
        return FPD_ERR_INPUT;
    json_t *exact = json_object_get(json_object_get(o, "check"), "exact");
    e.exact = json_is_number(json_object_get(exact, "ulp_a")) && json_is_number(json_object_get(exact, "ulp_b"));
    e.ulp_a = json_number_value(json_object_get(exact, "ulp_a"));
    e.ulp_b = json_number_value(json_object_get(exact, "ulp_b"));
    const char *note = json_string_value(json_object_get(o, ran ? "environment_changes" : "reason"));
    char resolved[PATH_MAX];
    e.file = strdup(file);
    e.resolved = copy_or_null(realpath(file, resolved));
    e.note = copy_or_null(note);
    if (!e.file || (note && !e.note) || !FPD_ARRAY_RESERVE(r->entries, r->cap, r->count + 1)) {
        free(e.file), free(e.resolved), free(e.note);
        return FPD_ERR_NOMEM;
    }
    r->entries[r->count++] = e;
    return FPD_OK;
}

/* Which replay line is about which saved case: each case's real path (the two commands may have
 * named the corpus differently; else the name as given) against the lines', found once. */
struct replay_match {
    long *entry_of_case; /* per case, the index of its line, or -1 */
    long *case_of_entry; /* per line, the index of its case, or -1 */
};

static int match_replay(const struct fpd_report_input *in, struct replay_match *m)
{
    size_t entries = in->replay ? in->replay->count : 0;
    m->entry_of_case = malloc((in->case_count + 1) * sizeof *m->entry_of_case);
    m->case_of_entry = malloc((entries + 1) * sizeof *m->case_of_entry);
    if (!m->entry_of_case || !m->case_of_entry)
        return FPD_ERR_NOMEM;
    for (size_t e = 0; e < entries; e++)
        m->case_of_entry[e] = -1;
    for (size_t i = 0; i < in->case_count; i++) {
        char buf[PATH_MAX];
        const char *path = in->cases[i].path, *resolved = realpath(path, buf);
        m->entry_of_case[i] = -1;
        for (size_t e = 0; e < entries && m->entry_of_case[i] < 0; e++) {
            const struct fpd_replay_entry *r = &in->replay->entries[e];
            if (resolved && r->resolved ? strcmp(resolved, r->resolved) == 0 : strcmp(path, r->file) == 0)
                m->entry_of_case[i] = (long)e, m->case_of_entry[e] = (long)i;
        }
    }
    return FPD_OK;
}

/* A replay, class by class and case by case: an upgrade's effect on one screen. */
static void replay_section(FILE *f, const struct fpd_report_input *in, const struct replay_match *match)
{
    const struct fpd_replay_report *r = in->replay;
    if (!r)
        return;
    fputs("<h2 id='replay'>Replay</h2>\n<p>", f);
    fpd_html_printf(f, "The replay %s: %zu case%s, each re-run as it was recorded.", in->replay_from, r->count,
                    r->count == 1 ? "" : "s");
    fputs("</p>\n<table id='replay-summary'>\n<thead><tr>", f);
    size_t by_class[FPD_REPLAY_CLASS_COUNT] = {0};
    for (size_t i = 0; i < r->count; i++)
        by_class[r->entries[i].cls]++;
    for (int c = 0; c < FPD_REPLAY_CLASS_COUNT; c++)
        fprintf(f, "<th>%s</th>", fpd_replay_class_names[c]);
    fputs("</tr></thead>\n<tbody><tr>", f);
    for (int c = 0; c < FPD_REPLAY_CLASS_COUNT; c++)
        fprintf(f, "<td class='num%s' data-class='%s'>%zu</td>", by_class[c] && c == FPD_WORSE ? " alarm" : "",
                fpd_replay_class_names[c], by_class[c]);
    fputs("</tr></tbody></table>\n", f);
    json_int_t malformed = json_integer_value(json_object_get(r->summary, "malformed"));
    if (malformed)
        fprintf(f, "<p class='alarm'>%" JSON_INTEGER_FORMAT " case file%s could not be read.</p>\n", malformed,
                malformed == 1 ? "" : "s");
    fputs("<table id='replay-cases' class='sortable'>\n<thead><tr><th>case</th><th>class</th><th>recorded</th><th>now</th>"
          "<th>why, or what changed</th></tr></thead>\n<tbody>\n", f);
    for (size_t i = 0; i < r->count; i++) {
        const struct fpd_replay_entry *e = &r->entries[i];
        bool ran = e->cls != FPD_ELSEWHERE && e->cls != FPD_SKIPPED;
        long at = match->case_of_entry[i];
        fputs("<tr><td>", f);
        if (at >= 0)
            fprintf(f, "<a href='#case-%ld'>", at); /* the page's own anchor: nothing is fetched */
        fpd_html_text(f, e->file);
        fprintf(f, "%s</td><td class='%s' data-class='%s'>%s</td><td>%s</td><td>%s</td><td>", at >= 0 ? "</a>" : "",
                e->cls == FPD_WORSE ? "alarm" : "", fpd_replay_class_names[e->cls], fpd_replay_class_names[e->cls],
                fpd_verdict_table[e->recorded].name, ran ? fpd_verdict_table[e->now].name : "not run");
        fpd_html_text(f, e->note ? e->note : "");
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

/* What each path computes and how the outputs are compared, as `show` says it: a row each. */
static void paths(FILE *f, const struct fpd_check *chk)
{
    struct fpd_paths built; /* path B's scales as the check ran them */
    if (fpd_scale_paths_as_run(chk->relation, &chk->c, &chk->params, &built) != FPD_OK)
        return;
    const struct fpd_path *both[2] = {&built.a, &built.b};
    for (int w = 0; w < 2; w++) {
        char *line = NULL;
        size_t size = 0;
        FILE *m = open_memstream(&line, &size);
        if (!m)
            return;
        fpd_path_words(m, chk, both[w], &built.compare);
        if (fclose(m) != 0 || !line) {
            free(line);
            return;
        }
        fprintf(f, "<tr><th>path %c</th><td>", "AB"[w]);
        fpd_html_text(f, line); /* a plugin's backend name is anyone's */
        fputs("</td></tr>\n", f);
        free(line);
    }
}

/* One saved case: what it is, its numbers, where it ran, and the commands that bring it back. */
static void finding(FILE *f, const struct fpd_report_input *in, const struct replay_match *match, size_t index)
{
    const struct fpd_report_case *rc = &in->cases[index];
    const struct fpd_case_file *cf = &rc->file;
    const struct fpd_check *chk = &cf->chk;
    char backends[160], dtypes[64], shape[96], cmd[FPD_COMMAND_MAX];
    fpd_check_backend_names(chk, backends, sizeof backends);
    fpd_dtypes_format(&chk->c.dt, dtypes, sizeof dtypes);
    fpd_shape_format(&chk->c, shape, sizeof shape);
    enum fpd_verdict v = cf->recorded.verdict;
    fprintf(f, "<section class='finding' id='case-%zu' data-verdict='%s'>\n<h3>", index, fpd_verdict_table[v].name);
    fpd_html_printf(f, "%s · %s · %s · %s", chk->relation->name, backends, dtypes, fpd_verdict_table[v].name);
    fputs("</h3>\n<p>", f);
    fpd_html_text(f, chk->relation->doc);
    fputs("</p>\n<table class='numbers'>\n", f);
    paths(f, chk);
    fputs("<tr><th>shape</th><td>", f);
    fpd_html_printf(f, "%s (%s)%s%s%s", shape, chk->c.batch > 1 ? "batch x m x n x k" : "m x n x k",
                    chk->c.trans_a ? ", A transposed" : "",
                    chk->c.trans_b ? ", B transposed" : "", chk->c.has_bias ? ", with bias" : "");
    if (chk->c.pad)
        fprintf(f, ", rows padded by %" PRIu32, chk->c.pad);
    fprintf(f, "</td></tr>\n<tr><th>differing elements</th><td class='num'>%zu of %zu</td></tr>\n"
               "<tr><th>max ulp</th><td class='num'>%" PRIu64 "</td></tr>\n"
               "<tr><th>ratio to the bound</th><td class='num%s'>%.4g</td></tr>\n"
               "<tr><th>output hashes</th><td><code>A %016" PRIx64 " B %016" PRIx64 "</code></td></tr>\n"
               "<tr><th>origin</th><td>seed %" PRIu64 ", case %" PRIu32 ", generator %u; %zu check%s of this "
               "signature when saved; data %s</td></tr>\n",
            cf->recorded.diff, cf->recorded.count, cf->recorded.max_ulp, cf->recorded.ratio > 1 ? " alarm" : "",
            cf->recorded.ratio, cf->recorded.hash_a, cf->recorded.hash_b, cf->origin_seed, cf->origin_index,
            cf->origin_generator, cf->signature_count, cf->signature_count == 1 ? "" : "s",
            cf->sidecar    ? "in .npy files beside the case file, exact"
            : cf->has_data ? "inline, exact"
                           : "generated from the recipe");
    if (cf->recorded.probable_ratio > 0)
        fprintf(f, "<tr><th>ratio to the probabilistic threshold</th><td class='num%s'>%.4g</td></tr>\n",
                cf->recorded.probable_ratio > 1 ? " alarm" : "", cf->recorded.probable_ratio);
    const struct fpd_exact_report *x = &cf->recorded.exact;
    if (x->computed) {
        fprintf(f, "<tr><th>from the correctly rounded result</th><td>path A %.3g ulp, path B %.3g ulp; each "
                   "against its own bound %.3g and %.3g",
                x->err_ulp[0], x->err_ulp[1], x->own_ratio[0], x->own_ratio[1]);
        for (int w = 0; w < 2; w++) {
            if (x->wrong_class[w])
                fprintf(f, "; path %c Inf, NaN or finite where it is not, at %zu element%s", "AB"[w], x->wrong_class[w],
                        x->wrong_class[w] == 1 ? "" : "s");
            if (x->threshold[w])
                fprintf(f, "; path %c across the overflow threshold, at %zu element%s", "AB"[w], x->threshold[w],
                        x->threshold[w] == 1 ? "" : "s");
            if (x->zero_sign[w])
                fprintf(f, "; path %c -0 where exactly cancelling terms give +0, at %zu element%s", "AB"[w],
                        x->zero_sign[w], x->zero_sign[w] == 1 ? "" : "s");
        }
        fputs(" (when saved)</td></tr>\n", f);
        if (x->aggregate[0] > 0 || x->aggregate[1] > 0) /* the aggregate test's, where a path's was taken */
            fprintf(f, "<tr><th>aggregate test, against its alarm level</th><td class='num%s'>path A %.3g, path B "
                       "%.3g</td></tr>\n",
                    x->aggregate[0] > 1 || x->aggregate[1] > 1 ? " alarm" : "", x->aggregate[0], x->aggregate[1]);
    }
    if (cf->recorded.strict_excess > 0)
        fprintf(f, "<tr><th>past what underflow can make (strict)</th><td class='num%s'>%.4g</td></tr>\n",
                cf->recorded.strict_excess > 1 ? " alarm" : "", cf->recorded.strict_excess);
    json_t *cpu = json_object_get(cf->environment, "cpu");
    fputs("<tr><th>ran on</th><td>", f);
    fpd_html_printf(f, "%s, %s", *string_of(cpu, "model") ? string_of(cpu, "model") : "unrecorded CPU",
                    *string_of(cpu, "isa") ? string_of(cpu, "isa") : "unrecorded ISA");
    const char *name;
    json_t *b;
    json_object_foreach(json_object_get(cf->environment, "backends"), name, b)
    {
        if (!*string_of(b, "kernel_set") && !*string_of(b, "version"))
            continue;
        fputs("; ", f);
        fpd_html_printf(f, "%s: %s %s", name, string_of(b, "library"), string_of(b, "version"));
        if (*string_of(b, "kernel_set"))
            fpd_html_printf(f, ", kernel set %s", string_of(b, "kernel_set"));
    }
    fputs("</td></tr>\n", f);
    const struct fpd_replay_entry *e = match->entry_of_case[index] < 0 ? NULL
                                                                       : &in->replay->entries[match->entry_of_case[index]];
    if (e) {
        fputs("<tr><th>replayed</th><td>", f);
        fpd_html_printf(f, "%s", fpd_replay_class_names[e->cls]);
        if (e->cls != FPD_ELSEWHERE && e->cls != FPD_SKIPPED)
            fpd_html_printf(f, ", %s now", fpd_verdict_table[e->now].name);
        if (e->note)
            fpd_html_printf(f, " (%s)", e->note);
        fputs("</td></tr>\n", f);
        if (e->exact)
            fprintf(f, "<tr><th>from the correctly rounded result now</th><td>path A %.3g ulp, path B %.3g ulp (by "
                       "the replay)</td></tr>\n",
                    e->ulp_a, e->ulp_b);
    }
    fputs("</table>\n<p>Replay it, see it in full (re-run), and where a framework has its relation, "
          "export it as a script for that framework:</p>\n", f);
    char word[4096], line[4200];
    fpd_shell_word(rc->path, word, sizeof word);
    static const char *const verbs[] = {"replay", "show"};
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
        snprintf(line, sizeof line, "fpdiv %s %s", verbs[i], word);
        fpd_html_command(f, line);
    }
    if (fpd_reproduce_command(chk, cmd, sizeof cmd))
        fpd_html_command(f, cmd);
    char refusal[512];
    for (size_t i = 0; i < fpd_export_target_count; i++) {
        const struct fpd_export_target *t = &fpd_export_targets[i];
        if (!fpd_export_target_takes(t, chk, refusal, sizeof refusal))
            continue; /* export would refuse it: no command that fails */
        snprintf(line, sizeof line, "fpdiv export %s --to %s", word, t->name);
        fpd_html_command(f, line);
    }
    fputs("</section>\n", f);
}

int fpd_report_page(FILE *f, const struct fpd_report_input *in)
{
    struct replay_match match;
    if (match_replay(in, &match) != FPD_OK) {
        free(match.entry_of_case);
        free(match.case_of_entry);
        return FPD_ERR_NOMEM;
    }
    fprintf(f, "<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
               "<meta name='viewport' content='width=device-width, initial-scale=1'>\n<title>fpdiv report</title>\n"
               "<style>%s</style>\n</head>\n<body>\n",
            style);
    heading(f, in);
    summary_table(f, in);
    replay_section(f, in, &match);
    environment(f, in);
    plots(f, in);
    fpd_page_saved_section(f, in->saved, in->saved_count);
    fprintf(f, "<h2 id='findings'>Saved cases (%zu)</h2>\n", in->case_count);
    if (!in->case_count)
        fputs("<p>The corpus holds no case.</p>\n", f);
    else /* shown only with JavaScript, which is what filters */
        fputs("<p class='js-only'><label>Show the cases whose heading has <input type='search' id='case-filter' "
              "placeholder='relation, backend, dtype or verdict'></label> <span id='case-count'></span></p>\n",
              f);
    for (size_t i = 0; i < in->case_count; i++)
        finding(f, in, &match, i);
    fprintf(f, "<script>%s</script>\n</body>\n</html>\n", script);
    free(match.entry_of_case);
    free(match.case_of_entry);
    return FPD_OK;
}
