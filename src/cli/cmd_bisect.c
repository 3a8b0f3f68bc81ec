/* cmd_bisect.c — `fpdiv bisect`: where, as one dimension grows, the outcome changes. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_case.h"
#include "cli/cli_crash_note.h"
#include "cli/cmd.h"
#include "common/array.h"
#include "common/dtype.h"
#include "engine/bisect.h"
#include "engine/environment.h"
#include "report/check_report.h"
#include "report/saved_result.h"
#include "store/corpus.h"

static const char help_head[] =
    "usage: fpdiv bisect CASE.json --dim m|n|k|batch [--lo L] [--hi H] [--by verdict|hash] [--scan]\n"
    "       fpdiv bisect --good SHAPE --bad SHAPE --relation R [case options] [--by ...] [--scan]\n"
    "       (either form: [--save-to CORPUS_DIR])\n\n"
    "Varies one dimension of a case, keeping every other input element identical, and finds where\n"
    "the outcome changes: the last value with one outcome and the first with the next. Each probe\n"
    "is printed as it runs. Shapes that cannot be tested (memory budget, a backend refusing) are\n"
    "skipped, like `git bisect skip`: the nearest testable neighbour is probed instead, and an end\n"
    "replaced so is said. A crash or a hang (with --isolate or --timeout) is an outcome like a\n"
    "verdict, `error`, so the first shape that crashes is a boundary too.\n\n"
    "  --dim D              the dimension to vary (with --good/--bad: the one where they differ)\n"
    "  --lo L, --hi H       the range (default 1 and the case's own value; k may start at 0)\n"
    "  --good S, --bad S    two shapes that differ in one dimension, for the case the flags describe\n"
    "  --by verdict|hash    compare verdicts (default), or the bits of path A over the output every\n"
    "                       probed shape shares: where a backend switches algorithm even when both\n"
    "                       paths agree (m, n or batch)\n"
    "  --scan               look for every transition in the range: probe powers of two, their\n"
    "                       neighbours, multiples of tile sizes and 32 values spread between, then\n"
    "                       find every change between two probes that differ (a change that starts\n"
    "                       and ends between two probes that agree is not seen)\n"
    "  --save-to DIR        save the probes and boundaries beside the corpus DIR\n"
    "                       (DIR/results/bisect/), for `fpdiv report DIR` to plot\n"
    "  -h, --help           this text\n\ncase options (with --good/--bad):\n";

enum { OPT_DIM = 1, OPT_LO, OPT_HI, OPT_BY, OPT_SCAN, OPT_GOOD, OPT_BAD, OPT_SAVE_TO };

static const struct option own_options[] = {
    {"dim", required_argument, NULL, OPT_DIM},   {"lo", required_argument, NULL, OPT_LO},
    {"hi", required_argument, NULL, OPT_HI},     {"by", required_argument, NULL, OPT_BY},
    {"scan", no_argument, NULL, OPT_SCAN},       {"good", required_argument, NULL, OPT_GOOD},
    {"bad", required_argument, NULL, OPT_BAD},   {"save-to", required_argument, NULL, OPT_SAVE_TO},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

struct bisect_options {
    const char *dim, *good, *bad, *file, *save_to;
    uint64_t lo, hi;
    bool lo_given, hi_given, scan;
    enum fpd_bisect_by by;
};

static const char *outcome(const struct fpd_bisector *b, const struct fpd_shape_probe *p, char *buf, size_t size)
{
    if (p->verdict == FPD_ERROR) /* no bits to show: what went wrong */
        snprintf(buf, size, "error (%.200s)", p->skip_reason);
    else if (b->by == FPD_BY_HASH)
        snprintf(buf, size, "path A bits %016" PRIx64 " (%s)", p->key, fpd_verdict_table[p->verdict].name);
    else
        snprintf(buf, size, "%s", fpd_verdict_table[p->verdict].name);
    return buf;
}

/* Where the range's end `asked` could not be tested and the nearest value that can stands for it:
 * said, with why, so that a range cut short (the memory budget) is not taken for the whole. */
static void note_replaced_end(const struct fpd_bisector *b, uint32_t asked, const struct fpd_shape_probe *first,
                              const struct fpd_shape_probe *used)
{
    if (used->value != asked)
        printf("note: %s=%u cannot be tested (%s): %s=%u, the nearest value that can, stands for it\n",
               fpd_dim_names[b->dim], asked, first->skip_reason, fpd_dim_names[b->dim], used->value);
}

/* A bisection as it runs: every probe printed, and kept for --save-to. */
struct bisect_run {
    const struct fpd_bisector *b;
    struct fpd_shape_probe *probes;
    size_t count, cap;
    bool out_of_memory;
};

static void print_probe(void *ctx, const struct fpd_shape_probe *p)
{
    struct bisect_run *run = ctx;
    const struct fpd_bisector *b = run->b;
    if (FPD_ARRAY_RESERVE(run->probes, run->cap, run->count + 1))
        run->probes[run->count++] = *p;
    else
        run->out_of_memory = true;
    char buf[320];
    if (!p->tested)
        printf("  probe %s=%u: skipped (%s)\n", fpd_dim_names[b->dim], p->value, p->skip_reason);
    else if (p->verdict == FPD_ERROR)
        printf("  probe %s=%u: %s\n", fpd_dim_names[b->dim], p->value, outcome(b, p, buf, sizeof buf));
    else
        printf("  probe %s=%u: %s, %zu of %zu elements differ\n", fpd_dim_names[b->dim], p->value,
               outcome(b, p, buf, sizeof buf), p->metrics.diff, p->metrics.count);
    fflush(stdout);
}

/* A check about to run in fpdiv's process: the note if it crashes (cli_crash_note.h). */
static void note_probe(void *ctx, uint32_t value)
{
    const struct bisect_run *run = ctx;
    fpd_crash_note_probe("bisect", fpd_dim_names[run->b->dim], value);
}

static int parse(int argc, char **argv, struct fpd_case_flags *cf, struct bisect_options *o, char *why,
                 size_t why_size)
{
    struct option options[64];
    fpd_case_options_merge(own_options, options, 64);
    int opt, rc = FPD_OK;
    while (rc == FPD_OK && (opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        if (fpd_case_flags_take(cf, opt, optarg, &rc, why, why_size))
            continue;
        switch (opt) {
        case OPT_DIM: o->dim = optarg; break;
        case OPT_LO: rc = fpd_cli_u64("--lo", optarg, FPD_MAX_DIM, &o->lo, why, why_size), o->lo_given = true; break;
        case OPT_HI: rc = fpd_cli_u64("--hi", optarg, FPD_MAX_DIM, &o->hi, why, why_size), o->hi_given = true; break;
        case OPT_BY:
            if (strcmp(optarg, "verdict") == 0 || strcmp(optarg, "hash") == 0) {
                o->by = optarg[0] == 'h' ? FPD_BY_HASH : FPD_BY_VERDICT;
            } else {
                snprintf(why, why_size, "--by '%s': expected verdict or hash", optarg);
                rc = FPD_ERR_INPUT;
            }
            break;
        case OPT_SCAN: o->scan = true; break;
        case OPT_GOOD: o->good = optarg; break;
        case OPT_BAD: o->bad = optarg; break;
        case OPT_SAVE_TO: o->save_to = optarg; break;
        case 'h': printf("%s%s", help_head, fpd_case_options_help); return -1;
        default: snprintf(why, why_size, "see 'fpdiv bisect --help'"); return FPD_ERR_INPUT;
        }
    }
    if (rc != FPD_OK)
        return rc;
    if (argc - optind > 1) {
        snprintf(why, why_size, "unexpected argument '%s'", argv[optind + 1]);
        return FPD_ERR_INPUT;
    }
    o->file = optind < argc ? argv[optind] : NULL;
    if (!o->file == !(o->good && o->bad)) {
        snprintf(why, why_size, "give a case file, or --good and --bad shapes (see 'fpdiv bisect --help')");
        return FPD_ERR_INPUT;
    }
    return o->save_to ? fpd_cli_can_write_dir("--save-to", o->save_to, why, why_size) : FPD_OK;
}

/* The good/bad form: the case from flags at the good shape; the dimension where the shapes differ. */
static int from_shapes(struct fpd_case_flags *cf, struct bisect_options *o, enum fpd_bisect_dim *dim, char *why,
                       size_t why_size)
{
    int rc = fpd_case_flags_resolve(cf, o->good, why, why_size);
    if (rc != FPD_OK)
        return rc;
    struct fpd_case bad = cf->chk.c;
    if (fpd_shape_parse(o->bad, &bad, why, why_size) != FPD_OK)
        return FPD_ERR_INPUT;
    const uint32_t good_dims[] = {cf->chk.c.batch, cf->chk.c.m, cf->chk.c.n, cf->chk.c.k};
    const uint32_t bad_dims[] = {bad.batch, bad.m, bad.n, bad.k};
    int differing = 0;
    for (int d = 0; d < FPD_DIM_COUNT; d++)
        if (good_dims[d] != bad_dims[d])
            *dim = (enum fpd_bisect_dim)d, differing++;
    if (differing != 1) {
        snprintf(why, why_size, "--good %s and --bad %s must differ in exactly one dimension (they differ in %d)",
                 o->good, o->bad, differing);
        return FPD_ERR_INPUT;
    }
    if (o->dim && strcmp(o->dim, fpd_dim_names[*dim]) != 0) {
        snprintf(why, why_size, "--dim %s, but the shapes differ in %s", o->dim, fpd_dim_names[*dim]);
        return FPD_ERR_INPUT;
    }
    if (o->lo_given || o->hi_given) {
        snprintf(why, why_size, "--lo and --hi bound a case file's dimension; --good %s and --bad %s are the range "
                 "themselves", o->good, o->bad);
        return FPD_ERR_INPUT;
    }
    uint32_t g = good_dims[*dim], b = bad_dims[*dim];
    o->lo = g < b ? g : b;
    o->hi = g < b ? b : g;
    return FPD_OK;
}

/* A boundary by verdict found without the exact reference (bisect's default), its sides again with
 * it, as `check` runs them: between paths a lost precision can read improbable where check, seeing a
 * path beyond its own bound, says bound. Said where that differs. FPD_OK, or what the checks gave. */
static int confirm_boundary(struct fpd_bisector *b, const struct fpd_boundary *x)
{
    if (b->by != FPD_BY_VERDICT || b->base.exact != FPD_EXACT_NEVER || x->before.verdict == FPD_ERROR ||
        x->after.verdict == FPD_ERROR)
        return FPD_OK;
    enum fpd_verdict v[2];
    const uint32_t values[2] = {x->before.value, x->after.value};
    for (int i = 0; i < 2; i++) {
        int rc = fpd_bisect_verdict_with(b, values[i], FPD_EXACT_ALWAYS, &v[i]);
        if (rc != FPD_OK)
            return rc;
    }
    if (v[0] == x->before.verdict && v[1] == x->after.verdict)
        return FPD_OK;
    const char *d = fpd_dim_names[b->dim];
    printf("  with the exact reference, as check runs them: %s=%u gives %s; %s=%u gives %s%s\n", d, values[0],
           fpd_verdict_table[v[0]].name, d, values[1], fpd_verdict_table[v[1]].name,
           v[0] == v[1] ? " (no change there)" : "");
    return FPD_OK;
}

static int print_boundary(struct fpd_bisector *b, const struct fpd_boundary *x)
{
    char before[320], after[320];
    printf("boundary: %s=%u gives %s; %s=%u gives %s", fpd_dim_names[b->dim], x->before.value,
           outcome(b, &x->before, before, sizeof before), fpd_dim_names[b->dim], x->after.value,
           outcome(b, &x->after, after, sizeof after));
    if (x->after.value - x->before.value > 1)
        printf(" (the %u values between could not be tested)", x->after.value - x->before.value - 1);
    printf("\n");
    return confirm_boundary(b, x);
}

/* The bisection beside the corpus (--save-to): its probes in the order they ran and its boundaries. */
static int save(const struct bisect_options *o, const struct fpd_check *chk, const struct fpd_bisector *b,
                const struct fpd_checker *ck, const struct bisect_run *run, const struct fpd_boundary *found,
                size_t n, int argc, char **argv)
{
    char title[512], names[160], dt[32], shape[64];
    fpd_check_backend_names(chk, names, sizeof names);
    fpd_dtypes_format(&chk->c.dt, dt, sizeof dt);
    fpd_shape_format(&chk->c, shape, sizeof shape);
    snprintf(title, sizeof title, "%s on %s, %s, shape %s, %s from %" PRIu64 " to %" PRIu64 ", by %s%s",
             chk->relation->name, names, dt, shape, fpd_dim_names[b->dim], o->lo, o->hi,
             b->by == FPD_BY_HASH ? "path A's bits" : "verdict", o->scan ? ", every transition" : "");
    json_t *boundaries = json_array();
    for (size_t i = 0; boundaries && i < n; i++) {
        struct fpd_shape_probe pair[2] = {found[i].before, found[i].after};
        if (json_array_append_new(boundaries, fpd_shape_probes_json(pair, 2)) != 0)
            json_decref(boundaries), boundaries = NULL;
    }
    json_t *members = json_pack("{s:s, s:s, s:o, s:o}", "dim", fpd_dim_names[b->dim], "by",
                                b->by == FPD_BY_HASH ? "hash" : "verdict", "probes",
                                fpd_shape_probes_json(run->probes, run->count), "boundaries", boundaries);
    return fpd_saved_result_write(
        o->save_to, "bisect",
        fpd_saved_result_new(FPD_SAVED_BISECT, argc, argv, title, fpd_checker_environment(ck, chk), members));
}

int fpd_cmd_bisect(int argc, char **argv)
{
    struct fpd_case_flags cf;
    fpd_case_flags_init(&cf);
    cf.chk.exact = FPD_EXACT_NEVER; /* many probes: the reference only on request (--exact) */
    struct bisect_options o = {.by = FPD_BY_VERDICT};
    struct fpd_case_file file = {0};
    char why[1024];
    int rc = parse(argc, argv, &cf, &o, why, sizeof why);
    if (rc < 0)
        return FPD_EXIT_OK;
    enum fpd_bisect_dim dim = FPD_DIM_K;
    if (rc == FPD_OK && o.file) {
        rc = fpd_case_file_load(o.file, &file, why, sizeof why);
        if (rc == FPD_OK && !o.dim) {
            snprintf(why, sizeof why, "--dim is required with a case file (m, n, k or batch)");
            rc = FPD_ERR_INPUT;
        }
        if (rc == FPD_OK)
            cf.chk = file.chk;
    } else if (rc == FPD_OK) {
        rc = from_shapes(&cf, &o, &dim, why, sizeof why);
    }
    if (rc == FPD_OK && o.dim && fpd_dim_parse(o.dim, &dim) != FPD_OK) {
        snprintf(why, sizeof why, "--dim '%s': expected m, n, k or batch", o.dim);
        rc = FPD_ERR_INPUT;
    }
    if (rc == FPD_OK && o.file) {
        const uint32_t dims[] = {cf.chk.c.batch, cf.chk.c.m, cf.chk.c.n, cf.chk.c.k};
        o.lo = o.lo_given ? o.lo : 1;
        o.hi = o.hi_given ? o.hi : dims[dim];
    }
    if (rc == FPD_OK && (o.lo < fpd_case_dim_lowest(dim) || o.lo >= o.hi)) {
        snprintf(why, sizeof why, "the range %" PRIu64 "..%" PRIu64 " is empty: need %u <= lo < hi", o.lo, o.hi,
                 fpd_case_dim_lowest(dim));
        rc = FPD_ERR_INPUT;
    }
    /* --isolate: each probe in a process of its own, so a crash is an error verdict */
    struct fpd_checker ck = {.isolate = cf.isolate, .isolate_timeout = cf.timeout};
    struct fpd_bisector b = {.ck = &ck, .base = cf.chk, .dim = dim, .by = o.by, .max_mem = cf.max_mem, .on_probe = print_probe,
                             .on_start = note_probe};
    struct bisect_run run = {.b = &b};
    b.ctx = &run;
    if (!ck.isolate)
        fpd_crash_note_arm();
    if (rc == FPD_OK)
        rc = fpd_bisect_init(&b, (uint32_t)o.lo, (uint32_t)o.hi, why, sizeof why);
    if (rc != FPD_OK) {
        fpd_console_error("bisect", "%s", why);
        fpd_case_file_free(&file);
        return rc == FPD_ERR_NOMEM ? FPD_EXIT_INTERNAL : FPD_EXIT_USAGE;
    }

    int exit_code = FPD_EXIT_OK;
    char names[160];
    printf("bisect %s on %s, %s from %" PRIu64 " to %" PRIu64 ", by %s\n", cf.chk.relation->name,
           fpd_check_backend_names(&cf.chk, names, sizeof names), fpd_dim_names[dim], o.lo, o.hi,
           o.by == FPD_BY_HASH ? "path A's bits" : "verdict");
    struct fpd_boundary *found = NULL, single;
    size_t n = 0;
    if (o.scan) {
        rc = fpd_bisect_scan(&b, (uint32_t)o.lo, (uint32_t)o.hi, &found, &n);
        if (rc == FPD_OK) {
            printf("%zu transition%s in %zu probes\n", n, n == 1 ? "" : "s", b.probes);
            for (size_t i = 0; rc == FPD_OK && i < n; i++)
                rc = print_boundary(&b, &found[i]);
            if (n == 0)
                exit_code = FPD_EXIT_FINDINGS; /* as without --scan: no change in the range */
        }
    } else {
        struct fpd_shape_probe lo, hi, lo_first, hi_first;
        rc = fpd_bisect_testable_end(&b, (uint32_t)o.lo, (uint32_t)o.hi, &lo, &lo_first);
        if (rc == FPD_OK && lo.tested)
            rc = fpd_bisect_testable_end(&b, (uint32_t)o.hi, lo.value, &hi, &hi_first);
        const char *d = fpd_dim_names[dim];
        if (rc == FPD_OK && !lo.tested) {
            fpd_console_error("bisect", "%s=%u cannot be tested (%s), and no value up to %s=%" PRIu64 " can be", d,
                          lo_first.value, lo_first.skip_reason, d, o.hi);
            exit_code = FPD_EXIT_USAGE;
        } else if (rc == FPD_OK && (!hi.tested || lo.value >= hi.value)) { /* the search from lo reached hi */
            const struct fpd_shape_probe *end = lo_first.tested ? &hi_first : &lo_first; /* the one that cannot */
            fpd_console_error("bisect", "%s=%u cannot be tested (%s): %s=%u is the only value of the range that can",
                          d, end->value, end->skip_reason, d, lo.value);
            exit_code = FPD_EXIT_USAGE;
        } else if (rc == FPD_OK && lo.key == hi.key) {
            char buf[320];
            note_replaced_end(&b, (uint32_t)o.lo, &lo_first, &lo);
            note_replaced_end(&b, (uint32_t)o.hi, &hi_first, &hi);
            printf("no change: %s=%u and %s=%u both give %s (--scan looks for changes in between)\n",
                   fpd_dim_names[dim], lo.value, fpd_dim_names[dim], hi.value, outcome(&b, &lo, buf, sizeof buf));
            exit_code = FPD_EXIT_FINDINGS;
        } else if (rc == FPD_OK) {
            rc = fpd_bisect_find(&b, &lo, &hi, &single);
            if (rc == FPD_OK) {
                printf("%zu probes\n", b.probes);
                note_replaced_end(&b, (uint32_t)o.lo, &lo_first, &lo);
                note_replaced_end(&b, (uint32_t)o.hi, &hi_first, &hi);
                rc = print_boundary(&b, &single);
                if (single.after.key != hi.key) {
                    char after[320], end[320];
                    printf("and more: %s=%u's %s is not %s=%u's %s, so the outcome changes again between them "
                           "(--scan maps the changes)\n", d, single.after.value, outcome(&b, &single.after, after,
                           sizeof after), d, hi.value, outcome(&b, &hi, end, sizeof end));
                }
                found = &single, n = 1;
            }
        }
    }
    if (rc == FPD_OK && run.out_of_memory)
        rc = FPD_ERR_NOMEM;
    if (rc == FPD_OK && o.save_to && exit_code != FPD_EXIT_USAGE) {
        int saved = save(&o, &cf.chk, &b, &ck, &run, found, n, argc, argv);
        exit_code = saved != FPD_EXIT_OK ? saved : exit_code;
    }
    if (found != &single)
        free(found);
    free(run.probes);
    fpd_bisect_free(&b);
    fpd_checker_free(&ck);
    fpd_case_file_free(&file);
    if (rc != FPD_OK) {
        fpd_console_error("bisect", "internal error (out of memory?)");
        return FPD_EXIT_INTERNAL;
    }
    return exit_code;
}
