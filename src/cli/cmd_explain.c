/* cmd_explain.c — `fpdiv explain`: the summation order behind one output element, or behind both
 * paths of a saved divergence. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend_pinned.h"
#include "cli/cmd.h"
#include "common/clock.h"
#include "common/dtype.h"
#include "common/isolate.h"
#include "common/text.h"
#include "engine/environment.h"
#include "explain/probe.h"
#include "explain/sumtree.h"
#include "report/saved_result.h"
#include "store/corpus.h"

static const char help[] =
    "usage: fpdiv explain --backend B --shape [BATCHx]MxNxK [--dtype T] [--element I,J] [options]\n"
    "       fpdiv explain CASE.json [options]\n\n"
    "Reveals the order in which a backend adds the k terms of one output element, by asking it\n"
    "GEMMs whose inputs are ones except +M and -M at two terms: where the pair cancels tells how\n"
    "many terms were summed with it first. Prints the order in words, and the tree as Graphviz\n"
    "DOT and SVG. With a saved case, reveals both paths' orders at their own shapes, at the case's\n"
    "worst element, and says how they differ.\n\n"
    "  --backend B          backend to explain (default openblas); B@SET on its kernel set SET\n"
    "  --core SET           the library's kernel set to explain (OpenBLAS's core: fpdiv list)\n"
    "  --shape S            [BATCHx]MxNxK: the GEMM whose element is explained\n"
    "  --dtype T            IN[:OUT[:ACC]] (default f32)\n"
    "  --element I,J        the output element (default 0,0)\n"
    "  --trans-a, --trans-b A (B) stored transposed\n"
    "  --bias               the backend's fused bias is one more term\n"
    "  --threads N          threads the backend runs with (default 1, as a check's)\n"
    "  --algo J             the library's J-th algorithm (default 0)\n"
    "  --route R            how a BLAS library is asked: gemm (default); gemv-rows (a gemv per row,\n"
    "                       numpy's (1,k)@(k,n)), gemv-cols (per column, (m,k)@(k,1)) or dot (per\n"
    "                       element, (k,)@(k,))\n"
    "  --alone              ask every query in its own call at the element itself; by default the\n"
    "                       n columns of B carry n queries per call, and random pairs asked alone\n"
    "                       check the result (on a mismatch the queries are asked again where\n"
    "                       elements are summed as this one, then, failing that, alone)\n"
    "  --dot FILE           write the tree as Graphviz DOT (with a case: FILE-a, FILE-b)\n"
    "  --svg FILE           draw the tree as SVG (with a case: FILE-a, FILE-b)\n"
    "  --save-to DIR        save the tree(s) beside the corpus DIR (DIR/results/explain/), for\n"
    "                       `fpdiv report DIR` to draw\n"
    "  --timeout SEC        give up when the backend takes longer (default: no limit)\n"
    "  -h, --help           this text\n\n"
    "The backend runs in a process of its own: one that crashes or hangs ends the explanation with\n"
    "the signal or the timeout, not fpdiv.\n\n"
    "Exit status: 0 explained, 1 the backend failed, crashed, hung, or its answers fit no summation\n"
    "tree, 2 bad usage or input.\n";

enum { OPT_BACKEND = 1, OPT_SHAPE, OPT_DTYPE, OPT_ELEMENT, OPT_TRANS_A, OPT_TRANS_B, OPT_BIAS, OPT_THREADS,
       OPT_ALGO, OPT_ALONE, OPT_DOT, OPT_SVG, OPT_TIMEOUT, OPT_CORE, OPT_ROUTE, OPT_SAVE_TO };

struct explain_options {
    const char *backend, *core, *shape, *dtype, *dot, *svg, *save_to;
    int argc; /* the command line, for --save-to to record */
    char **argv;
    struct fpd_probe_target target;
    bool alone;
    double timeout;
    const char *case_only_violation; /* an option a case file fixes, when one was given */
};

struct revealed {
    struct fpd_sumtree tree;
    struct fpd_reveal_stats stats;
    struct fpd_probe probe;
    double seconds;
    char order[1024];
};

static int parse_element(const char *text, struct fpd_probe_target *t, char *why, size_t why_size)
{
    const char *comma = strchr(text, ',');
    char row[32];
    uint64_t i = 0, j = 0;
    if (!comma || (size_t)(comma - text) >= sizeof row) {
        snprintf(why, why_size, "--element '%s': expected ROW,COL (two non-negative integers)", text);
        return FPD_ERR_INPUT;
    }
    memcpy(row, text, (size_t)(comma - text));
    row[comma - text] = '\0';
    int rc = fpd_cli_u64("--element row", row, UINT32_MAX, &i, why, why_size);
    if (rc == FPD_OK)
        rc = fpd_cli_u64("--element column", comma + 1, UINT32_MAX, &j, why, why_size);
    t->at_row = (size_t)i, t->at_col = (size_t)j;
    return rc;
}

static int parse(int argc, char **argv, struct explain_options *o, char *why, size_t why_size)
{
    static const struct option options[] = {
        {"backend", required_argument, NULL, OPT_BACKEND}, {"shape", required_argument, NULL, OPT_SHAPE},
        {"dtype", required_argument, NULL, OPT_DTYPE},     {"element", required_argument, NULL, OPT_ELEMENT},
        {"trans-a", no_argument, NULL, OPT_TRANS_A},       {"trans-b", no_argument, NULL, OPT_TRANS_B},
        {"bias", no_argument, NULL, OPT_BIAS},             {"threads", required_argument, NULL, OPT_THREADS},
        {"algo", required_argument, NULL, OPT_ALGO},       {"alone", no_argument, NULL, OPT_ALONE},
        {"dot", required_argument, NULL, OPT_DOT},         {"svg", required_argument, NULL, OPT_SVG},
        {"timeout", required_argument, NULL, OPT_TIMEOUT}, {"core", required_argument, NULL, OPT_CORE},
        {"route", required_argument, NULL, OPT_ROUTE},     {"save-to", required_argument, NULL, OPT_SAVE_TO},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt, rc = FPD_OK;
    uint64_t value;
    while (rc == FPD_OK && (opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        if (opt != OPT_ALONE && opt != OPT_DOT && opt != OPT_SVG && opt != OPT_TIMEOUT && opt != OPT_SAVE_TO &&
            opt != 'h' && opt != '?')
            for (const struct option *x = options; x->name; x++)
                if (x->val == opt)
                    o->case_only_violation = x->name;
        switch (opt) {
        case OPT_BACKEND: o->backend = optarg; break;
        case OPT_CORE: o->core = optarg; break;
        case OPT_SHAPE: o->shape = optarg; break;
        case OPT_DTYPE: o->dtype = optarg; break;
        case OPT_ELEMENT: rc = parse_element(optarg, &o->target, why, why_size); break;
        case OPT_TRANS_A: o->target.trans_a = true; break;
        case OPT_TRANS_B: o->target.trans_b = true; break;
        case OPT_BIAS: o->target.bias = true; break;
        case OPT_THREADS:
            rc = fpd_cli_count("--threads", optarg, 1, 1024, &value, why, why_size);
            o->target.threads = (int)value;
            break;
        case OPT_ALGO:
            rc = fpd_cli_u64("--algo", optarg, 1000, &value, why, why_size);
            o->target.algo = (int)value;
            break;
        case OPT_ROUTE:
            o->target.route = fpd_route_find(optarg);
            if (o->target.route == FPD_ROUTE_COUNT || o->target.route == FPD_ROUTE_SYRK ||
                o->target.route == FPD_ROUTE_GEMMT_UPPER || o->target.route == FPD_ROUTE_GEMMT_LOWER) {
                snprintf(why, why_size, "--route '%s': expected gemm, gemv-rows, gemv-cols or dot", optarg);
                rc = FPD_ERR_INPUT;
            }
            break;
        case OPT_ALONE: o->alone = true; break;
        case OPT_DOT: o->dot = optarg; break;
        case OPT_SVG: o->svg = optarg; break;
        case OPT_SAVE_TO: o->save_to = optarg; break;
        case OPT_TIMEOUT: rc = fpd_cli_double("--timeout", optarg, 0, 1e9, &o->timeout, why, why_size); break;
        case 'h': fputs(help, stdout); return -1;
        default: snprintf(why, why_size, "see 'fpdiv explain --help'"); return FPD_ERR_INPUT;
        }
    }
    if (rc != FPD_OK)
        return rc;
    if (optind + 1 < argc) {
        snprintf(why, why_size, "unexpected argument '%s'", argv[optind + 1]);
        return FPD_ERR_INPUT;
    }
    bool with_case = optind < argc;
    if (with_case && o->case_only_violation) {
        snprintf(why, why_size,
                 "--%s: a case file fixes the backends, shapes and element; give only --alone, --dot, --svg, --save-to, "
                 "--timeout",
                 o->case_only_violation);
        return FPD_ERR_INPUT;
    }
    if (!with_case && !o->shape) {
        snprintf(why, why_size, "give --shape, or a case file (see 'fpdiv explain --help')");
        return FPD_ERR_INPUT;
    }
    if ((o->dot && fpd_cli_can_write_file("--dot", o->dot, why, why_size) != FPD_OK) ||
        (o->svg && fpd_cli_can_write_file("--svg", o->svg, why, why_size) != FPD_OK) ||
        (o->save_to && fpd_cli_can_write_dir("--save-to", o->save_to, why, why_size) != FPD_OK))
        return FPD_ERR_INPUT;
    return FPD_OK;
}

static int resolve_target(struct explain_options *o, char *why, size_t why_size)
{
    struct fpd_probe_target *t = &o->target;
    struct fpd_case c;
    fpd_case_defaults(&c);
    int rc = fpd_shape_parse(o->shape, &c, why, why_size);
    if (rc != FPD_OK)
        return rc;
    t->batch = c.batch, t->m = c.m, t->n = c.n, t->k = c.k;
    rc = fpd_dtypes_parse(o->dtype ? o->dtype : "f32", &t->dt, why, why_size);
    if (rc == FPD_OK && !fpd_dtypes_valid(&t->dt, why, why_size))
        rc = FPD_ERR_INPUT;
    if (rc != FPD_OK)
        return rc;
    const char *name = o->backend ? o->backend : "openblas";
    char pinned[256];
    if (o->core) {
        if (strchr(o->core, ',')) {
            snprintf(why, why_size, "--core '%s': explain takes one kernel set", o->core);
            return FPD_ERR_INPUT;
        }
        if (fpd_cli_pin_backends(name, o->core, false, pinned, sizeof pinned, why, why_size) != FPD_OK)
            return FPD_ERR_INPUT;
        name = pinned;
    }
    if (fpd_backend_resolve(name, &t->backend, why, why_size) != FPD_OK)
        return FPD_ERR_INPUT;
    /* the probe holds A, B and C at this shape in memory */
    double bytes = (double)t->batch * (((double)t->m * t->k + (double)t->k * t->n) * fpd_dtype_info(t->dt.in)->size +
                                       (double)t->m * t->n * fpd_dtype_info(t->dt.out)->size);
    if (bytes > fpd_cli_default_max_mem()) {
        snprintf(why, why_size, "--shape %s needs %.3g GB, over half of this machine's memory", o->shape, bytes / 1e9);
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

/* 0 revealed; else the exit status, with the reason printed. */
static int reveal_target(const struct fpd_probe_target *t, bool alone, struct revealed *r)
{
    char why[1024];
    *r = (struct revealed){0};
    int rc = fpd_probe_open(&r->probe, t, why, sizeof why);
    if (rc != FPD_OK) {
        fpd_console_error("explain", "%s", why);
        return rc == FPD_ERR_NOMEM ? FPD_EXIT_INTERNAL : FPD_EXIT_USAGE;
    }
    struct fpd_reveal_oracle oracle = fpd_probe_oracle(&r->probe);
    double t0 = fpd_now();
    rc = fpd_reveal(r->probe.leaves, t->bias, &oracle, alone, &r->tree, &r->stats, why, sizeof why);
    r->seconds = fpd_now() - t0;
    fpd_probe_close(&r->probe);
    if (rc != FPD_OK) {
        fpd_console_error("explain", "%s at %zux%zux%zu: cannot explain: %s", t->backend->impl->name, t->m, t->n, t->k, why);
        return rc == FPD_ERR_NOMEM ? FPD_EXIT_INTERNAL : FPD_EXIT_FINDINGS;
    }
    fpd_sumtree_describe(&r->tree, r->order, sizeof r->order);
    return FPD_EXIT_OK;
}

static void report(const char *label, const struct fpd_probe_target *t, const struct revealed *r)
{
    char dts[32];
    fpd_dtypes_format(&t->dt, dts, sizeof dts);
    char batch[32] = "";
    if (t->batch > 1)
        snprintf(batch, sizeof batch, "%zux", t->batch);
    char how[96] = "";
    if (t->route != FPD_ROUTE_GEMM) /* the library's gemv or dot, not its gemm */
        snprintf(how, sizeof how, ", %s route", fpd_route_names[t->route]);
    if (t->threads > 0)
        snprintf(how + strlen(how), sizeof how - strlen(how), ", %d thread%s", t->threads, t->threads == 1 ? "" : "s");
    if (t->algo > 0)
        snprintf(how + strlen(how), sizeof how - strlen(how), ", algorithm %d", t->algo);
    printf("%s%s %s %s%zux%zux%zu%s%s%s, element (%zu,%zu):\n", label, t->backend->impl->name, dts, batch, t->m, t->n,
           t->k, t->trans_a ? " trans-a" : "", t->trans_b ? " trans-b" : "", how, t->at_row, t->at_col);
    printf("  order: %s\n", r->order);
    const char *known = fpd_sumtree_known_order(&r->tree);
    if (known)
        printf("  the documented order of: %s\n", known);
    size_t additions = 0, fused = 0;
    for (size_t i = 0; i < r->tree.count; i++)
        if (r->tree.node[i].leaf < 0) {
            additions++;
            fused += r->tree.node[i].children > 2;
        }
    printf("  depth %u, %zu additions", fpd_sumtree_depth(&r->tree), additions);
    if (fused)
        printf(" (%zu of them fused multi-term adds)", fused);
    printf("\n  %zu queries in %zu GEMM calls, %zu rounds, %.2f s; %zu random pairs asked alone agree",
           r->stats.queries + r->stats.verify_queries, r->probe.calls, r->stats.rounds, r->seconds,
           r->stats.verify_queries);
    if (r->stats.batch_mismatch && !r->stats.alone)
        printf(" (batched in every column they did not: other elements are summed in another order; asked again in "
               "the %zu of %zu columns that have an element summed as this one, found by %zu pairs asked in every "
               "column)", r->probe.usable, r->probe.target.n, r->probe.fingerprints);
    else if (r->stats.batch_mismatch)
        printf(" (the batched answers did not: other elements are summed in another order; redone alone)");
    printf("; M = 2^%d, one = 2^%d\n", r->probe.big_exp, r->probe.one_exp);
}

static int write_file(const char *path, const struct fpd_sumtree *t, const char *title, bool svg)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fpd_console_error("explain", "%s: cannot write: %m", path);
        return FPD_EXIT_USAGE;
    }
    int rc = svg ? fpd_sumtree_write_svg(t, f, title) : fpd_sumtree_write_dot(t, f, title);
    if (fclose(f) != 0 || rc != FPD_OK) {
        fpd_console_error("explain", "%s: write failed", path);
        return FPD_EXIT_USAGE;
    }
    char shown[4096];
    printf("wrote %s\n", fpd_printable(path, shown, sizeof shown));
    return FPD_EXIT_OK;
}

/* FILE, or FILE with -a / -b before its extension for the two paths of a case. */
static void path_for(const char *file, const char *suffix, char *buf, size_t size)
{
    const char *dot = strrchr(file, '.'), *slash = strrchr(file, '/');
    if (!suffix[0])
        snprintf(buf, size, "%s", file);
    else if (dot && (!slash || dot > slash))
        snprintf(buf, size, "%.*s-%s%s", (int)(dot - file), file, suffix, dot);
    else
        snprintf(buf, size, "%s-%s", file, suffix);
}

static int write_outputs(const struct explain_options *o, const struct revealed *r, const char *title,
                         const char *suffix)
{
    char path[4200];
    int rc = FPD_EXIT_OK;
    if (o->dot) {
        path_for(o->dot, suffix, path, sizeof path);
        rc = write_file(path, &r->tree, title, false);
    }
    if (rc == FPD_EXIT_OK && o->svg) {
        path_for(o->svg, suffix, path, sizeof path);
        rc = write_file(path, &r->tree, title, true);
    }
    return rc;
}

/* --save-to: the trees (one, or a case's two) beside the corpus, with what they are. `environment` is taken. */
static int save_trees(const struct explain_options *o, const char *title, json_t *environment,
                      const char *const labels[], const struct revealed *r, size_t n)
{
    json_t *trees = json_array();
    for (size_t i = 0; trees && i < n; i++)
        if (json_array_append_new(trees, json_pack("{s:s, s:s, s:s?, s:o}", "label", labels[i], "order", r[i].order,
                                                   "known", fpd_sumtree_known_order(&r[i].tree), "tree",
                                                   fpd_sumtree_json(&r[i].tree))) != 0)
            json_decref(trees), trees = NULL;
    return fpd_saved_result_write(o->save_to, "explain",
                                  fpd_saved_result_new(FPD_SAVED_EXPLAIN, o->argc, o->argv, title, environment,
                                                       json_pack("{s:o}", "trees", trees)));
}

static int explain_one(struct explain_options *o)
{
    char why[1024];
    if (resolve_target(o, why, sizeof why) != FPD_OK) {
        fpd_console_error("explain", "%s", why);
        return FPD_EXIT_USAGE;
    }
    struct revealed r;
    int rc = reveal_target(&o->target, o->alone, &r);
    if (rc == FPD_EXIT_OK) {
        report("", &o->target, &r);
        char title[1200];
        snprintf(title, sizeof title, "%s %s element (%zu,%zu): %s", o->target.backend->impl->name, o->shape,
                 o->target.at_row, o->target.at_col, r.order);
        rc = write_outputs(o, &r, title, "");
        const char *const label[] = {""};
        struct fpd_probe_target *t = &o->target;
        if (rc == FPD_EXIT_OK && o->save_to)
            rc = save_trees(o, title, fpd_environment_of(&t->backend, 1, t->threads, 0), label, &r, 1);
    }
    fpd_sumtree_free(&r.tree);
    return rc;
}

/* A path of a case as a probe target, at the element given in case coordinates. */
static struct fpd_probe_target path_target(const struct fpd_check *chk, const struct fpd_path *p, uint32_t batch,
                                           uint32_t row, uint32_t col)
{
    const struct fpd_case *c = &chk->c;
    return (struct fpd_probe_target){
        .backend = chk->backends[p->backend], .dt = {p->in, p->out, c->dt.acc},
        .batch = p->gemm.batch.len, .m = p->gemm.rows.len, .n = p->gemm.cols.len, .k = c->k,
        .trans_a = c->trans_a ^ p->flip_layout, .trans_b = c->trans_b ^ p->flip_layout,
        .bias = p->bias == FPD_BIAS_FUSED, .threads = p->threads ? p->threads : chk->default_threads,
        .algo = p->algo, .route = p->route,
        .at_batch = batch - p->gemm.batch.start, .at_row = row - p->gemm.rows.start, .at_col = col - p->gemm.cols.start,
    };
}

/* The first pair of terms (in order) the two trees add at different points, or false. */
static bool first_difference(const struct fpd_sumtree *a, const struct fpd_sumtree *b, uint32_t pq[2], uint32_t sizes[2])
{
    uint32_t k = a->leaves < b->leaves ? a->leaves : b->leaves;
    for (uint32_t p = 0; p < k; p++)
        for (uint32_t q = p + 1; q < k; q++) {
            sizes[0] = fpd_sumtree_query_size(a, p, q), sizes[1] = fpd_sumtree_query_size(b, p, q);
            if (sizes[0] != sizes[1]) {
                pq[0] = p, pq[1] = q;
                return true;
            }
        }
    return false;
}

static int explain_case(struct explain_options *o, const char *file)
{
    char why[1024];
    struct fpd_case_file f;
    if (fpd_case_file_load(file, &f, why, sizeof why) != FPD_OK) {
        fpd_console_error("explain", "%s", why);
        return FPD_EXIT_USAGE;
    }
    int exit_code = FPD_EXIT_OK;
    for (int i = 0; i < f.chk.relation->backends; i++)
        if (!fpd_backend_supports(f.chk.backends[i], &f.chk.c.dt, why, sizeof why)) {
            fpd_console_error("explain", "%s: cannot run here: %s", file, why);
            fpd_case_file_free(&f);
            return FPD_EXIT_USAGE;
        }
    /* the worst element of the check as it runs now */
    struct fpd_checker ck = {0};
    struct fpd_check_result res;
    f.chk.exact = FPD_EXACT_NEVER;
    int rc = fpd_check_run(&ck, &f.chk, &res);
    fpd_checker_free(&ck);
    if (rc != FPD_OK) {
        fpd_console_error("explain", "internal error (out of memory?)");
        fpd_case_file_free(&f);
        return FPD_EXIT_INTERNAL;
    }
    char shape[64], shown[4096];
    printf("%s: %s on %s%s%s, %s: %s now, worst element (%u,%u)\n", fpd_printable(file, shown, sizeof shown),
           f.chk.relation->name, f.backend_names[0],
           f.chk.relation->backends > 1 ? "," : "", f.chk.relation->backends > 1 ? f.backend_names[1] : "",
           fpd_shape_format(&f.chk.c, shape, sizeof shape), fpd_verdict_table[res.verdict].name, res.worst_row,
           res.worst_col);
    struct revealed r[2] = {0};
    struct fpd_probe_target targets[2];
    const struct fpd_path *paths[2] = {&res.paths.a, &res.paths.b};
    for (int w = 0; w < 2 && exit_code == FPD_EXIT_OK; w++) {
        targets[w] = path_target(&f.chk, paths[w], res.worst_batch, res.worst_row, res.worst_col);
        exit_code = reveal_target(&targets[w], o->alone, &r[w]);
        if (exit_code != FPD_EXIT_OK)
            break;
        report(w == 0 ? "path A: " : "path B: ", &targets[w], &r[w]);
        if (paths[w]->bias == FPD_BIAS_AFTER) {
            /* fpdiv's own addition after the GEMM: known, not measured */
            if (fpd_sumtree_append_bias(&r[w].tree, why, sizeof why) != FPD_OK) {
                fpd_console_error("explain", "%s", why);
                exit_code = FPD_EXIT_INTERNAL;
                break;
            }
            fpd_sumtree_describe(&r[w].tree, r[w].order, sizeof r[w].order);
            printf("  plus the bias, which fpdiv adds after the GEMM: %s\n", r[w].order);
        }
        char title[1200];
        snprintf(title, sizeof title, "%s path %c: %s", f.chk.relation->name, 'A' + w, r[w].order);
        exit_code = write_outputs(o, &r[w], title, w == 0 ? "a" : "b");
    }
    if (exit_code == FPD_EXIT_OK) {
        uint32_t pq[2], sizes[2];
        if (fpd_sumtree_equal(&r[0].tree, &r[1].tree)) {
            if (res.verdict == FPD_SAME)
                printf("same order: both paths add the terms of this element in one tree, and agree now\n");
            else
                printf("same order: both paths add the terms of this element in one tree; the difference comes "
                       "from elsewhere (a fused multiply-add against a multiply and an add, types, conversions%s)\n",
                       f.chk.relation->takes & FPD_TAKES_SCALARS ? ", BLAS's alpha and beta, which the probes leave at 1 and 0" : "");
        } else if (first_difference(&r[0].tree, &r[1].tree, pq, sizes)) {
            printf("the orders differ: path A: %s; path B: %s\n", r[0].order, r[1].order);
            printf("first difference: terms %u and %u are summed together in a subtree of %u terms in path A, of %u "
                   "in path B\n", pq[0], pq[1], sizes[0], sizes[1]);
        } else {
            printf("the orders differ: path A: %s; path B: %s\n", r[0].order, r[1].order);
        }
        char title[1200];
        snprintf(title, sizeof title, "%s on %s%s%s, %s, element (%u,%u) of batch %u", f.chk.relation->name,
                 f.backend_names[0], f.chk.relation->backends > 1 ? "," : "",
                 f.chk.relation->backends > 1 ? f.backend_names[1] : "", shape, res.worst_row, res.worst_col,
                 res.worst_batch);
        const char *const labels[] = {"path A", "path B"};
        if (o->save_to)
            exit_code = save_trees(o, title, fpd_environment_json(&f.chk), labels, r, 2);
    }
    fpd_sumtree_free(&r[0].tree);
    fpd_sumtree_free(&r[1].tree);
    fpd_case_file_free(&f);
    return exit_code;
}

struct explain_job {
    struct explain_options *o;
    const char *file; /* NULL: explain the target given by flags */
};

static int run_job(void *ctx)
{
    struct explain_job *j = ctx;
    return j->file ? explain_case(j->o, j->file) : explain_one(j->o);
}

int fpd_cmd_explain(int argc, char **argv)
{
    /* no time limit by default: a large shape takes what it takes */
    struct explain_options o = {.target = {.threads = 1}, .argc = argc, .argv = argv};
    char why[512];
    int rc = parse(argc, argv, &o, why, sizeof why);
    if (rc < 0)
        return FPD_EXIT_OK;
    if (rc != FPD_OK) {
        fpd_console_error("explain", "%s", why);
        return FPD_EXIT_USAGE;
    }
    struct explain_job job = {&o, optind < argc ? argv[optind] : NULL};
    rc = fpd_run_isolated(run_job, &job, o.timeout, why, sizeof why);
    if (rc >= 0)
        return rc;
    const char *who = job.file ? "the case's backends" : o.backend ? o.backend : "openblas";
    fpd_console_error("explain", "cannot explain: %s, while %s answered the queries", why, who);
    return FPD_EXIT_FINDINGS;
}
