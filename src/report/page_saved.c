/* page_saved.c — the page's section of what was saved beside the corpus with --save-to: each
 * sweep and bisection plotted (error and ratio to the bound against the dimension), a bisection's
 * boundaries in a table, each summation tree drawn; each with where it ran and its command. */
#include "report/page_saved.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "engine/environment.h"
#include "report/html.h"
#include "report/plot.h"

/* Trees with more terms are described, not drawn: a dendrogram of 100,000 leaves is no picture. */
#define MAX_DRAWN_TERMS 1024

static const char *const kind_headings[FPD_SAVED_KIND_COUNT] = {"sweep", "bisection", "summation order"};

static const char *member(const struct fpd_saved_result *r, const char *name)
{
    return json_string_value(json_object_get(r->doc, name));
}

/* "Intel(R) Xeon(R) ..., avx512; openblas: OpenBLAS 0.3.21, kernel set SkylakeX ..." */
static void ran_on(FILE *f, json_t *environment)
{
    json_t *cpu = json_object_get(environment, "cpu");
    const char *model = json_string_value(json_object_get(cpu, "model"));
    const char *isa = json_string_value(json_object_get(cpu, "isa"));
    fputs("<p class='ran-on'>Ran on ", f);
    fpd_html_printf(f, "%s, %s", model ? model : "an unrecorded CPU", isa ? isa : "unrecorded ISA");
    const char *name;
    json_t *b;
    char line[1024];
    json_object_foreach(json_object_get(environment, "backends"), name, b)
    {
        json_t *threads = json_object_get(b, "threads");
        fpd_html_printf(f, "; %s: %s", name,
                        fpd_provenance_line(b, json_is_integer(threads) ? (int)json_integer_value(threads) : 0, line,
                                            sizeof line));
    }
    fputs(".</p>\n", f);
}

static int by_value(const void *a, const void *b)
{
    uint32_t x = ((const struct fpd_shape_probe *)a)->value, y = ((const struct fpd_shape_probe *)b)->value;
    return (x > y) - (x < y);
}

/* The probes in ascending order of value, each value once (a bisection may probe one twice). */
static void plot_probes(FILE *f, const struct fpd_saved_result *r)
{
    struct fpd_shape_probe *sorted = malloc((r->probe_count ? r->probe_count : 1) * sizeof *sorted);
    if (!sorted) {
        fputs("<p>(Not plotted: out of memory.)</p>\n", f);
        return;
    }
    memcpy(sorted, r->probes, r->probe_count * sizeof *sorted);
    qsort(sorted, r->probe_count, sizeof *sorted, by_value);
    size_t n = 0;
    for (size_t i = 0; i < r->probe_count; i++)
        if (n == 0 || sorted[n - 1].value != sorted[i].value)
            sorted[n++] = sorted[i];
    fpd_plot_sweep(f, member(r, "title"), member(r, "dim"), sorted, n);
    free(sorted);
}

static void outcome(FILE *f, const struct fpd_saved_result *r, const struct fpd_shape_probe *p)
{
    const char *by = member(r, "by");
    if (!p->tested)
        fpd_html_printf(f, "skipped (%s)", p->skip_reason);
    else if (by && strcmp(by, "hash") == 0)
        fprintf(f, "path A bits <code>%016" PRIx64 "</code> (%s)", p->key, fpd_verdict_table[p->verdict].name);
    else
        fprintf(f, "%s, %zu of %zu elements differ", fpd_verdict_table[p->verdict].name, p->metrics.diff,
                p->metrics.count);
}

static void boundaries(FILE *f, const struct fpd_saved_result *r)
{
    const char *dim = member(r, "dim");
    if (!r->boundary_count) {
        fprintf(f, "<p>No change of outcome in the range (%zu probes).</p>\n", r->probe_count);
        return;
    }
    fprintf(f, "<p>%zu boundar%s in %zu probes: the last value with one outcome and the first with the next.</p>\n",
            r->boundary_count, r->boundary_count == 1 ? "y" : "ies", r->probe_count);
    fputs("<table class='boundaries sortable'>\n<thead><tr><th>", f);
    fpd_html_text(f, dim);
    fputs("</th><th>outcome</th><th>", f);
    fpd_html_text(f, dim);
    fputs("</th><th>outcome</th></tr></thead>\n<tbody>\n", f);
    for (size_t i = 0; i < r->boundary_count; i++) {
        const struct fpd_shape_probe *before = &r->boundaries[2 * i], *after = &r->boundaries[2 * i + 1];
        fprintf(f, "<tr><td class='num'>%" PRIu32 "</td><td>", before->value);
        outcome(f, r, before);
        fprintf(f, "</td><td class='num'>%" PRIu32 "</td><td>", after->value);
        outcome(f, r, after);
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

static void trees(FILE *f, const struct fpd_saved_result *r)
{
    json_t *saved = json_object_get(r->doc, "trees");
    for (size_t i = 0; i < r->tree_count; i++) {
        json_t *t = json_array_get(saved, i);
        const char *label = json_string_value(json_object_get(t, "label"));
        const char *order = json_string_value(json_object_get(t, "order"));
        const char *known = json_string_value(json_object_get(t, "known"));
        fputs("<p>", f);
        if (*label)
            fpd_html_printf(f, "<b>%s</b>: ", label);
        fpd_html_text(f, order);
        if (known)
            fpd_html_printf(f, " (the documented order of %s)", known);
        fputs(".</p>\n", f);
        const struct fpd_sumtree *tree = &r->trees[i];
        uint32_t terms = tree->leaves - (tree->has_bias ? 1 : 0);
        if (terms > MAX_DRAWN_TERMS) {
            fprintf(f, "<p>Not drawn: %" PRIu32 " terms (the page draws up to %d).</p>\n", terms, MAX_DRAWN_TERMS);
            continue;
        }
        char title[1200];
        snprintf(title, sizeof title, "%s%s%s", label, *label ? ": " : "", order);
        fputs("<div class='tree'>", f);
        if (fpd_sumtree_write_svg(tree, f, title) != FPD_OK)
            fputs("(Not drawn: out of memory.)", f);
        fputs("</div>\n", f);
    }
}

void fpd_page_saved_section(FILE *f, const struct fpd_saved_result *saved, size_t count)
{
    if (!count)
        return; /* nothing saved: the section would only say so */
    fprintf(f, "<h2 id='saved'>Saved beside the corpus (%zu)</h2>\n<p>Sweeps, bisections and summation orders that "
               "<code>sweep</code>, <code>bisect</code> and <code>explain</code> saved with <code>--save-to</code>, "
               "each with where it ran and the command that made it.</p>\n",
            count);
    for (size_t i = 0; i < count; i++) {
        const struct fpd_saved_result *r = &saved[i];
        fprintf(f, "<section class='saved' id='saved-%zu' data-kind='%s'>\n<h3>", i, fpd_saved_kind_names[r->kind]);
        fpd_html_printf(f, "%s: %s", kind_headings[r->kind], member(r, "title"));
        fputs("</h3>\n", f);
        ran_on(f, json_object_get(r->doc, "environment"));
        if (r->kind == FPD_SAVED_BISECT)
            boundaries(f, r);
        if (r->kind == FPD_SAVED_EXPLAIN)
            trees(f, r);
        else
            plot_probes(f, r);
        fputs("<p>Run it again:</p>\n", f);
        fpd_html_command(f, member(r, "command"));
        fputs("<p class='saved-file'>Saved as <code>", f);
        fpd_html_text(f, r->path);
        fputs("</code>.</p>\n</section>\n", f);
    }
}
