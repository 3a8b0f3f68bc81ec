/* cmd_sweep.c — `fpdiv sweep`: a relation at every point of a range of one dimension. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_case.h"
#include "cli/cli_crash_note.h"
#include "cli/cmd.h"
#include "common/dtype.h"
#include "common/text.h"
#include "engine/bisect.h"
#include "engine/environment.h"
#include "report/check_report.h"
#include "report/plot.h"
#include "report/saved_result.h"

static const char help_head[] =
    "usage: fpdiv sweep --relation R --backend B --shape MxNxK --vary m|n|k|batch --range LO:HI[:STEP]\n"
    "                   [--csv FILE] [--svg FILE] [--save-to CORPUS_DIR] [case options]\n\n"
    "Runs the relation at every point of the range, the other dimensions and every other input\n"
    "element fixed, and records the differing elements, max |a-b|, max ulp and the ratio to the\n"
    "rounding bound: error against the dimension, the plot users draw when they first meet this.\n\n"
    "  --vary D             the dimension to vary\n"
    "  --range LO:HI[:STEP] the points (default step 1)\n"
    "  --csv FILE           the table as CSV\n"
    "  --svg FILE           a line plot: max |a-b| and the bound ratio against the dimension\n"
    "  --save-to DIR        save the sweep beside the corpus DIR (DIR/results/sweep/), for\n"
    "                       `fpdiv report DIR` to plot\n"
    "  -h, --help           this text\n\ncase options:\n";

enum { OPT_VARY = 1, OPT_RANGE, OPT_CSV, OPT_SVG, OPT_SAVE_TO };

static const struct option own_options[] = {
    {"vary", required_argument, NULL, OPT_VARY}, {"range", required_argument, NULL, OPT_RANGE},
    {"csv", required_argument, NULL, OPT_CSV},   {"svg", required_argument, NULL, OPT_SVG},
    {"save-to", required_argument, NULL, OPT_SAVE_TO},
    {"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0},
};

struct sweep_options {
    const char *vary, *csv, *svg, *save_to;
    uint64_t lo, hi, step;
};

/* Points in one sweep: each is a check, and a table row and a plot point are kept of each. */
enum { SWEEP_POINTS_MAX = 100000 };

static int parse_range(const char *text, struct sweep_options *o, char *why, size_t why_size)
{
    char buf[96];
    if (strlen(text) >= sizeof buf) {
        snprintf(why, why_size, "--range '%s' is too long", text);
        return FPD_ERR_INPUT;
    }
    strcpy(buf, text);
    char *fields[3] = {NULL, NULL, NULL}, *p = buf;
    int n = 0;
    for (char *tok; n < 3 && (tok = strsep(&p, ":")) != NULL;)
        fields[n++] = tok;
    if (n < 2 || p) {
        snprintf(why, why_size, "--range '%s': expected LO:HI or LO:HI:STEP", text);
        return FPD_ERR_INPUT;
    }
    o->step = 1;
    if (fpd_cli_u64("--range", fields[0], FPD_MAX_DIM, &o->lo, why, why_size) != FPD_OK ||
        fpd_cli_u64("--range", fields[1], FPD_MAX_DIM, &o->hi, why, why_size) != FPD_OK ||
        (n == 3 && fpd_cli_u64("--range", fields[2], FPD_MAX_DIM, &o->step, why, why_size) != FPD_OK))
        return FPD_ERR_INPUT;
    if (o->hi < o->lo || o->step < 1) { /* LO's floor is the dimension's (fpd_cmd_sweep) */
        snprintf(why, why_size, "--range '%s': need LO <= HI and STEP >= 1", text);
        return FPD_ERR_INPUT;
    }
    uint64_t points = (o->hi - o->lo) / o->step + 1;
    if (points > SWEEP_POINTS_MAX) {
        snprintf(why, why_size, "--range '%s': %" PRIu64 " points, at most %d in one sweep (give a larger STEP)", text,
                 points, SWEEP_POINTS_MAX);
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

static int parse(int argc, char **argv, struct fpd_case_flags *cf, struct sweep_options *o, char *why,
                 size_t why_size)
{
    struct option options[64];
    fpd_case_options_merge(own_options, options, 64);
    int opt, rc = FPD_OK;
    bool range_given = false;
    while (rc == FPD_OK && (opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        if (fpd_case_flags_take(cf, opt, optarg, &rc, why, why_size))
            continue;
        switch (opt) {
        case OPT_VARY: o->vary = optarg; break;
        case OPT_RANGE: rc = parse_range(optarg, o, why, why_size), range_given = true; break;
        case OPT_CSV: o->csv = optarg; break;
        case OPT_SVG: o->svg = optarg; break;
        case OPT_SAVE_TO: o->save_to = optarg; break;
        case 'h': printf("%s%s", help_head, fpd_case_options_help); return -1;
        default: snprintf(why, why_size, "see 'fpdiv sweep --help'"); return FPD_ERR_INPUT;
        }
    }
    if (rc != FPD_OK)
        return rc;
    if (optind < argc) {
        snprintf(why, why_size, "unexpected argument '%s'", argv[optind]);
        return FPD_ERR_INPUT;
    }
    if (!o->vary || !range_given) {
        snprintf(why, why_size, "--vary and --range are required (see 'fpdiv sweep --help')");
        return FPD_ERR_INPUT;
    }
    return o->save_to ? fpd_cli_can_write_dir("--save-to", o->save_to, why, why_size) : FPD_OK;
}

static FILE *open_output(const char *path, char *why, size_t why_size)
{
    FILE *f = fopen(path, "w");
    if (!f)
        snprintf(why, why_size, "cannot write %s: %s", path, strerror(errno));
    return f;
}

/* A check about to run in fpdiv's process: the note if it crashes (ctx: the dimension's name). */
static void note_probe(void *ctx, uint32_t value) { fpd_crash_note_probe("sweep", ctx, value); }

int fpd_cmd_sweep(int argc, char **argv)
{
    struct fpd_case_flags cf;
    fpd_case_flags_init(&cf);
    cf.chk.exact = FPD_EXACT_NEVER; /* many probes: the reference only on request (--exact) */
    struct sweep_options o = {0};
    char why[1024];
    enum fpd_bisect_dim dim = FPD_DIM_K;
    int rc = parse(argc, argv, &cf, &o, why, sizeof why);
    if (rc < 0)
        return FPD_EXIT_OK;
    if (rc == FPD_OK && fpd_dim_parse(o.vary, &dim) != FPD_OK) {
        snprintf(why, sizeof why, "--vary '%s': expected m, n, k or batch", o.vary);
        rc = FPD_ERR_INPUT;
    }
    if (rc == FPD_OK && o.lo < fpd_case_dim_lowest(dim)) {
        snprintf(why, sizeof why, "--range: %s starts at %u, not %" PRIu64, o.vary, fpd_case_dim_lowest(dim), o.lo);
        rc = FPD_ERR_INPUT;
    }
    if (rc == FPD_OK)
        rc = fpd_case_flags_resolve(&cf, NULL, why, sizeof why);
    FILE *csv = NULL, *svg = NULL;
    if (rc == FPD_OK && o.csv && !(csv = open_output(o.csv, why, sizeof why)))
        rc = FPD_ERR_INPUT;
    if (rc == FPD_OK && o.svg && !(svg = open_output(o.svg, why, sizeof why)))
        rc = FPD_ERR_INPUT;
    size_t n = rc == FPD_OK ? (size_t)((o.hi - o.lo) / o.step + 1) : 0;
    struct fpd_shape_probe *points = rc == FPD_OK ? calloc(n, sizeof *points) : NULL;
    if (rc == FPD_OK && !points)
        rc = FPD_ERR_NOMEM;
    if (rc != FPD_OK) {
        fpd_console_error("sweep", "%s", rc == FPD_ERR_NOMEM ? "out of memory" : why);
        if (csv)
            fclose(csv);
        if (svg)
            fclose(svg);
        return rc == FPD_ERR_NOMEM ? FPD_EXIT_INTERNAL : FPD_EXIT_USAGE;
    }

    struct fpd_checker ck = {.isolate = cf.isolate, .isolate_timeout = cf.timeout}; /* a crash is an error */
    struct fpd_bisector b = {.ck = &ck, .base = cf.chk, .dim = dim, .by = FPD_BY_VERDICT, .max_mem = cf.max_mem,
                             .on_start = note_probe, .ctx = (void *)o.vary};
    if (!ck.isolate)
        fpd_crash_note_arm();
    char dt[32], names[160];
    fpd_dtypes_format(&cf.chk.c.dt, dt, sizeof dt);
    fpd_check_backend_names(&cf.chk, names, sizeof names);
    if (fpd_bisect_init(&b, (uint32_t)o.lo, (uint32_t)o.hi, why, sizeof why) != FPD_OK)
        rc = FPD_ERR_NOMEM; /* by verdict, init can only run out of memory */
    printf("sweep %s on %s, %s, %s from %" PRIu64 " to %" PRIu64 " step %" PRIu64 "\n", cf.chk.relation->name, names,
           dt, o.vary, o.lo, o.hi, o.step);
    printf("%8s %-9s %9s %9s %11s %11s %11s\n", o.vary, "verdict", "differ", "of", "max abs", "max ulp", "ratio");
    if (csv)
        fprintf(csv, "%s,verdict,diff,count,max_abs,max_ulp,max_rel,ratio\n", o.vary);
    for (size_t i = 0; i < n && rc == FPD_OK; i++) {
        struct fpd_shape_probe *p = &points[i];
        rc = fpd_bisect_probe(&b, (uint32_t)(o.lo + i * o.step), p);
        if (rc != FPD_OK)
            break;
        const struct fpd_metrics *m = &p->metrics;
        if (!p->tested) {
            printf("%8u skipped: %s\n", p->value, p->skip_reason);
            fflush(stdout);
            if (csv)
                fprintf(csv, "%u,skipped,,,,,,\n", p->value);
            continue;
        }
        if (p->verdict == FPD_ERROR) { /* a crash, a hang past --timeout: no differences to count */
            printf("%8u %-9s %s\n", p->value, "error", p->skip_reason);
            fflush(stdout);
            if (csv)
                fprintf(csv, "%u,error,,,,,,\n", p->value);
            continue;
        }
        printf("%8u %-9s %9zu %9zu %11.3g %11" PRIu64 " %11.3g\n", p->value, fpd_verdict_table[p->verdict].name, m->diff,
               m->count, m->max_abs, m->max_ulp, m->ratio);
        fflush(stdout); /* each point as it comes: a later one may crash fpdiv (cli_crash_note.h) */
        if (csv)
            fprintf(csv, "%u,%s,%zu,%zu,%.17g,%" PRIu64 ",%.17g,%.17g\n", p->value, fpd_verdict_table[p->verdict].name,
                    m->diff, m->count, m->max_abs, m->max_ulp, m->max_rel, m->ratio);
    }
    char title[384], shape[64];
    fpd_shape_format(&cf.chk.c, shape, sizeof shape);
    snprintf(title, sizeof title, "%s on %s, %s, shape %s, %s varied", cf.chk.relation->name, names, dt, shape, o.vary);
    if (rc == FPD_OK && svg)
        fpd_plot_sweep(svg, title, o.vary, points, n);
    int saved = FPD_EXIT_OK;
    if (rc == FPD_OK && o.save_to)
        saved = fpd_saved_result_write(
            o.save_to, "sweep",
            fpd_saved_result_new(FPD_SAVED_SWEEP, argc, argv, title, fpd_checker_environment(&ck, &cf.chk),
                                 json_pack("{s:s, s:o}", "dim", o.vary, "probes", fpd_shape_probes_json(points, n))));
    bool csv_failed = csv && fclose(csv) != 0, svg_failed = svg && fclose(svg) != 0; /* both closed */
    bool close_failed = csv_failed || svg_failed;
    free(points);
    fpd_bisect_free(&b);
    fpd_checker_free(&ck);
    if (rc != FPD_OK) {
        fpd_console_error("sweep", "internal error (out of memory?)");
        return FPD_EXIT_INTERNAL;
    }
    if (saved != FPD_EXIT_OK)
        return saved;
    if (close_failed) {
        fpd_console_error("sweep", "could not finish writing the CSV or SVG file: %s", strerror(errno));
        return FPD_EXIT_USAGE;
    }
    char shown[4096];
    if (o.csv)
        printf("wrote %s (the table as CSV)\n", fpd_printable(o.csv, shown, sizeof shown));
    if (o.svg)
        printf("wrote %s (the plot)\n", fpd_printable(o.svg, shown, sizeof shown));
    return FPD_EXIT_OK;
}
