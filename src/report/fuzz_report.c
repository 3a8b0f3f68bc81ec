/* fuzz_report.c — what `fpdiv fuzz` shows: progress, findings, JSON Lines, the summary, JUnit. */
#include "report/fuzz_report.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/dtype.h"
#include "common/text.h"
#include "common/version.h"
#include "engine/environment.h"
#include "report/check_report.h"
#include "report/console.h"
#include "report/page_file.h"
#include "store/corpus.h"

static const char *combo_backends(const struct fpd_campaign *cp, const uint16_t b[2], char *buf, size_t size)
{
    if (b[1] == UINT16_MAX)
        snprintf(buf, size, "%s", cp->cfg.backends[b[0]]->impl->name);
    else
        snprintf(buf, size, "%s,%s", cp->cfg.backends[b[0]]->impl->name, cp->cfg.backends[b[1]]->impl->name);
    return buf;
}

void fpd_fuzz_report_progress(struct fpd_fuzz_report *r, const struct fpd_stats *st, bool final)
{
    double t = fpd_now_coarse(); /* asked after every check, to say something every 0.25 s at most */
    if (!final && t - r->last < (r->tty ? 0.25 : 10))
        return;
    if (final && !r->tty)
        return;
    r->last = t;
    double rate = st->checks / (t - r->start > 0 ? t - r->start : 1e-9);
    fflush(stdout); /* between stdout's lines (fpd_console_error says why) */
    fprintf(stderr, "%s%zu checks, %.0f/s", r->tty ? "\r\033[K" : "", st->checks, rate);
    for (int v = FPD_REORDER; v < FPD_VERDICT_COUNT; v++) /* every verdict but same */
        fprintf(stderr, "%s %s %zu", v == FPD_REORDER ? ";" : ",", fpd_verdict_table[v].name, st->by_verdict[v]);
    fputs(r->tty && !final ? "" : "\n", stderr);
    fflush(stderr);
}

/* "ratio R" to the worst-case bound; an improbable check also says what made it so, since its
 * ratio alone (at most 1) reads as a reordering: how far past the probabilistic threshold one
 * element is, past a strict relation's tolerance, or a path's aggregate past its alarm level. */
static const char *ratio_words(const struct fpd_check_result *res, char *buf, size_t size)
{
    int len = snprintf(buf, size, "ratio %.3g", res->metrics.ratio);
    if (res->verdict != FPD_IMPROBABLE || len < 0 || (size_t)len >= size)
        return buf;
    char *rest = buf + len;
    size_t room = size - (size_t)len;
    const struct fpd_exact_report *x = &res->exact;
    if (res->probable_ratio > 1)
        snprintf(rest, room, ", %.3g times the probabilistic threshold", res->probable_ratio);
    else if (res->strict_excess > 1)
        snprintf(rest, room, ", %.3g times what underflow can make", res->strict_excess);
    else /* the aggregate test's: the farther path */
        snprintf(rest, room, ", path %c's aggregate %.3g times its alarm level", x->aggregate[1] > x->aggregate[0] ? 'B' : 'A',
                 fmax(x->aggregate[0], x->aggregate[1]));
    return buf;
}

static void print_finding(const struct fpd_check *chk, const struct fpd_check_result *res)
{
    char dt[32], cmd[FPD_COMMAND_MAX], backends[160], ratio[96], error[4 * sizeof res->error];
    fpd_check_backend_names(chk, backends, sizeof backends);
    fpd_printable(res->error, error, sizeof error); /* a framework's or a host's words */
    const struct fpd_metrics *m = &res->metrics;
    printf("finding %-9s %-11s %-24s %-8s seed %" PRIu64 " index %" PRIu32 ": %zu of %zu differ, max %" PRIu64
           " ulp, %s%s%s\n  rerun: %s\n",
           fpd_verdict_table[res->verdict].name, chk->relation->name, backends,
           fpd_dtypes_format(&chk->c.dt, dt, sizeof dt), chk->c.recipe.seed, chk->c.recipe.index, m->diff, m->count,
           m->max_ulp, ratio_words(res, ratio, sizeof ratio), res->verdict == FPD_ERROR ? "; " : "", res->verdict == FPD_ERROR ? error : "",
           fpd_reproduce_command(chk, cmd, sizeof cmd));
}

/* Table rows in the relation table's order, then by backend. */
static int tally_order(const void *x, const void *y)
{
    const struct fpd_tally *a = x, *b = y;
    if (a->relation != b->relation)
        return a->relation < b->relation ? -1 : 1;
    if (a->backend[0] != b->backend[0])
        return a->backend[0] < b->backend[0] ? -1 : 1;
    return (a->backend[1] > b->backend[1]) - (a->backend[1] < b->backend[1]);
}

/* A verdict's column in the summary table: as wide as its name, 7 at least. */
static int verdict_width(int v)
{
    int len = (int)strlen(fpd_verdict_table[v].name);
    return len > 7 ? len : 7;
}

static void print_summary(const struct fpd_campaign *cp, struct fpd_stats *st, double seconds, int fail_on,
                          size_t failed, double gemm_seconds)
{
    char backends[160];
    if (st->n_tallies) /* none when no check ran, and qsort may not be given NULL */
        qsort(st->tallies, st->n_tallies, sizeof *st->tallies, tally_order);
    int width = 18; /* the backends column: as wide as its widest row (a core pair names two kernel sets) */
    for (size_t i = 0; i < st->n_tallies; i++) {
        int len = (int)strlen(combo_backends(cp, st->tallies[i].backend, backends, sizeof backends));
        width = len > width ? len : width;
    }
    printf("\n%-12s %-*s %7s", "relation", width, "backends", "checks");
    for (int v = 0; v < FPD_VERDICT_COUNT; v++)
        printf(" %*s", verdict_width(v), fpd_verdict_table[v].name);
    printf(" %9s %9s\n", "max ulp", "max ratio");
    for (size_t i = 0; i < st->n_tallies; i++) {
        const struct fpd_tally *t = &st->tallies[i];
        printf("%-12s %-*s %7zu", cp->cfg.relations[t->relation]->name, width,
               combo_backends(cp, t->backend, backends, sizeof backends), t->checks);
        for (int v = 0; v < FPD_VERDICT_COUNT; v++)
            printf(" %*zu", verdict_width(v), t->by_verdict[v]);
        printf(" %9" PRIu64 " %9.3g\n", t->max_ulp, t->max_ratio);
    }
    printf("\n%zu checks in %.1f s (%.0f/s):", st->checks, seconds, st->checks / (seconds > 0 ? seconds : 1e-9));
    for (int v = 0; v < FPD_VERDICT_COUNT; v++)
        printf("%s %s %zu", v ? "," : "", fpd_verdict_table[v].name, st->by_verdict[v]);
    printf("; %zu signatures\n", st->n_signatures);
    if (st->skipped)
        printf("skipped %zu check%s over the --max-mem budget at the smallest shape (the first is named on stderr)\n",
               st->skipped, st->skipped == 1 ? "" : "s");
    if (st->not_applicable)
        printf("did not apply: %zu check%s, whose backend cannot compute a GEMM of them or whose data leave "
               "nothing to scale (the first is named on stderr)\n", st->not_applicable, st->not_applicable == 1 ? "" : "s");
    const struct fpd_shape_reach *reach = &st->shapes;
    printf("shapes: k in %d of the %d octaves below 2^%d, the longest sum %" PRIu32 " terms, the most rows %" PRIu32
           "; %zu check%s past --max-dim %" PRIu32 "%s; %zu of the empty product (k = 0)\n",
           __builtin_popcount(reach->k_octaves), FPD_K_OCTAVES, FPD_K_OCTAVES, reach->longest_k, reach->most_rows,
           reach->past_max_dim, reach->past_max_dim == 1 ? "" : "s", cp->cfg.max_dim,
           cp->cfg.reach ? " (one case in 64 is drawn there)" : "", reach->empty);
    if (cp->cfg.special_rate < 0 && cp->cfg.generator >= 5)
        printf("special values: in %zu check%s' inputs (one case in %d is drawn with them, at %g per element, "
               "%g/k past k = %d; --specials P sets P for every case)\n", st->with_specials,
               st->with_specials == 1 ? "" : "s", FPD_SPECIALS_EVERY, FPD_DRAWN_SPECIAL_RATE,
               FPD_DRAWN_SPECIAL_RATE * FPD_SPECIALS_FULL_K, FPD_SPECIALS_FULL_K);
    else if (cp->cfg.special_rate < 0)
        printf("special values: none (generators before 5 draw none unless --specials P)\n");
    else
        printf("special values: in %zu check%s' inputs (--specials %g)\n", st->with_specials,
               st->with_specials == 1 ? "" : "s", cp->cfg.special_rate);
    static const char *const exact_words[] = {[FPD_EXACT_NEVER] = "not computed",
                                              [FPD_EXACT_DIVERGING] = "computed for the checks whose paths differ",
                                              [FPD_EXACT_SAMPLED] = ("computed for the checks whose paths differ, "
                                                                     "the shapes past --max-dim and one case in 8 of "
                                                                     "the rest"),
                                              [FPD_EXACT_ALWAYS] = "computed for every check"};
    printf("exact reference: %s (--exact %s)\n", exact_words[cp->cfg.exact], fpd_exact_mode_names[cp->cfg.exact]);
    printf("time in GEMM arithmetic (the paths' products and the bound's |A||B|): %.1f%% of the workers' time\n",
           100 * gemm_seconds / (seconds > 0 ? seconds * (double)cp->cfg.jobs : 1e-9));
    if (fail_on == FPD_FAIL_NEVER)
        printf("policy: --fail-on never; nothing fails\n");
    else
        printf("policy: fail on %s or worse; %zu check%s failed\n", fpd_verdict_table[fail_on].name, failed,
               failed == 1 ? "" : "s");
}

static json_t *summary_json(const struct fpd_campaign *cp, const struct fpd_stats *st, double seconds, size_t failed,
                            double gemm_seconds, size_t saved, size_t save_failures)
{
    char backends[160];
    json_t *rows = json_array();
    for (size_t i = 0; i < st->n_tallies; i++) {
        const struct fpd_tally *t = &st->tallies[i];
        json_t *counts = json_object();
        for (int v = 0; v < FPD_VERDICT_COUNT; v++)
            json_object_set_new(counts, fpd_verdict_table[v].name, json_integer((json_int_t)t->by_verdict[v]));
        json_array_append_new(rows, json_pack("{s:s,s:s,s:I,s:o,s:I,s:f}", "relation",
                                              cp->cfg.relations[t->relation]->name, "backends",
                                              combo_backends(cp, t->backend, backends, sizeof backends), "checks",
                                              (json_int_t)t->checks, "verdicts", counts, "max_ulp",
                                              (json_int_t)t->max_ulp, "max_ratio", t->max_ratio));
    }
    json_t *shapes = json_pack("{s:i,s:i,s:I,s:I,s:I,s:b,s:I}", "k_octaves", __builtin_popcount(st->shapes.k_octaves),
                               "k_octaves_of", FPD_K_OCTAVES, "longest_k", (json_int_t)st->shapes.longest_k, "most_rows",
                               (json_int_t)st->shapes.most_rows, "past_max_dim", (json_int_t)st->shapes.past_max_dim,
                               "reach", cp->cfg.reach, "empty_products", (json_int_t)st->shapes.empty);
    return json_pack("{s:s,s:o,s:I,s:I,s:I,s:f,s:f,s:I,s:I,s:I,s:I,s:o,s:I,s:o}", "type", "summary", "seed",
                     fpd_seed_json(cp->cfg.seed), "checks", (json_int_t)st->checks, "skipped",
                     (json_int_t)st->skipped, "not_applicable", (json_int_t)st->not_applicable, "seconds", seconds, "gemm_seconds", gemm_seconds, "failed",
                     (json_int_t)failed, "signatures", (json_int_t)st->n_signatures, "saved", (json_int_t)saved,
                     "save_failures", (json_int_t)save_failures, "shapes", shapes, "with_specials",
                     (json_int_t)st->with_specials, "rows", rows);
}

void fpd_fuzz_print_json(json_t *j)
{
    json_dumpf(j, stdout, FPD_JSON_LINE);
    fputc('\n', stdout);
    json_decref(j);
}

void fpd_fuzz_report_skipped(struct fpd_fuzz_report *r, uint32_t index, bool first)
{
    const struct fpd_campaign *cp = r->cp;
    bool json = r->json;
    if (!json && !first)
        return;
    struct fpd_check chk;
    char why[256], shared[64] = "", cmd[FPD_COMMAND_MAX];
    fpd_campaign_plan(cp, index, &chk);
    fpd_case_validate(&chk.c, cp->cfg.max_mem, why, sizeof why);
    if (cp->cfg.jobs > 1)
        snprintf(shared, sizeof shared, " (each of the %u workers' share)", cp->cfg.jobs);
    if (json)
        fpd_fuzz_print_json(json_pack("{s:s,s:o,s:I,s:s+,s:s}", "type", "skipped", "seed", fpd_seed_json(cp->cfg.seed), "index",
                             (json_int_t)index, "reason", why, shared, "reproduce",
                             fpd_reproduce_command(&chk, cmd, sizeof cmd)));
    else
        fpd_console_error("fuzz", "skipped seed %" PRIu64 " index %" PRIu32 ": %s%s; the summary counts any more",
                      cp->cfg.seed, index, why, shared);
}

void fpd_fuzz_report_not_applicable(struct fpd_fuzz_report *r, uint32_t index, const struct fpd_check_result *res,
                                    bool first)
{
    const struct fpd_campaign *cp = r->cp;
    if (!r->json && !first)
        return;
    struct fpd_check chk;
    char cmd[FPD_COMMAND_MAX];
    fpd_campaign_plan(cp, index, &chk);
    if (r->json)
        fpd_fuzz_print_json(json_pack("{s:s,s:o,s:I,s:s,s:s}", "type", "not_applicable", "seed",
                                      fpd_seed_json(cp->cfg.seed), "index", (json_int_t)index, "reason", res->error,
                                      "reproduce", fpd_reproduce_command(&chk, cmd, sizeof cmd)));
    else
        fpd_console_error("fuzz", "did not apply, seed %" PRIu64 " index %" PRIu32 ": %s; the summary counts any more",
                      cp->cfg.seed, index, res->error);
}

void fpd_fuzz_report_saved(struct fpd_fuzz_report *r, json_t *line)
{
    const char *type = json_string_value(json_object_get(line, "type"));
    if (type && strcmp(type, "save_failed") == 0) {
        r->save_failures++;
        fpd_console_error("fuzz", "cannot save a finding: %s", json_string_value(json_object_get(line, "reason")));
        if (r->json)
            fpd_fuzz_print_json(line);
        else
            json_decref(line);
        return;
    }
    r->saved++;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", r->corpus, json_string_value(json_object_get(line, "name")));
    if (r->json) {
        fpd_fuzz_print_json(json_pack("{s:s,s:o,s:O,s:O,s:O,s:O}", "type", "saved", "path", fpd_json_text(path), "before",
                             json_object_get(line, "before"), "after", json_object_get(line, "after"),
                             "minimizing_checks", json_object_get(line, "minimizing_checks"), "time_cap_reached",
                             json_object_get(line, "time_cap_reached")));
    } else {
        char shown[4400];
        printf("  saved %s (%s -> %s, %" JSON_INTEGER_FORMAT " minimizing checks%s)\n",
               fpd_printable(path, shown, sizeof shown),
               json_string_value(json_object_get(line, "before")), json_string_value(json_object_get(line, "after")),
               json_integer_value(json_object_get(line, "minimizing_checks")),
               json_is_true(json_object_get(line, "time_cap_reached")) ? ", time cap reached" : "");
    }
    json_decref(line);
}

/* One JUnit test case per relation x backends; a failure per check that fails the policy. */
static int ci_record(struct fpd_ci_report *ci, const struct fpd_check *chk, const struct fpd_check_result *res,
                     double seconds, double ticks, bool fails)
{
    char classname[64], backends[160], dt[32], message[512], cmd[FPD_COMMAND_MAX], ratio[96];
    snprintf(classname, sizeof classname, "fpdiv.%s", chk->relation->name);
    fpd_check_backend_names(chk, backends, sizeof backends);
    struct fpd_ci_case *c = fpd_ci_case(ci, classname, backends);
    if (!c)
        return FPD_ERR_NOMEM;
    c->checks++;
    c->seconds += seconds;
    c->ticks += ticks;
    if (!fails)
        return FPD_OK;
    snprintf(message, sizeof message,
             "%s: %s on %s, %s, seed %" PRIu64 " index %" PRIu32 ": %zu of %zu elements differ, %s%s%s",
             fpd_verdict_table[res->verdict].name, chk->relation->name, backends,
             fpd_dtypes_format(&chk->c.dt, dt, sizeof dt), chk->c.recipe.seed, chk->c.recipe.index, res->metrics.diff,
             res->metrics.count, ratio_words(res, ratio, sizeof ratio), res->verdict == FPD_ERROR ? "; " : "",
             res->verdict == FPD_ERROR ? res->error : "");
    return fpd_ci_fail(c, fpd_verdict_table[res->verdict].name, message, fpd_reproduce_command(chk, cmd, sizeof cmd));
}

void fpd_fuzz_report_start(struct fpd_fuzz_report *r, const struct fpd_campaign *cp, const struct fpd_shard *shard,
                          const char *rerun)
{
    const struct fpd_campaign_config *cfg = &cp->cfg;
    r->cp = cp;
    if (r->json || r->html)
        r->campaign_line = json_pack("{s:s,s:o,s:i,s:s,s:I,s:{s:I,s:I,s:s},s:o}", "type", "campaign", "seed",
                                     fpd_seed_json(cfg->seed), "generator", (int)cfg->generator, "version",
                                     FPD_VERSION, "jobs", (json_int_t)cfg->jobs, "shard", "index",
                                     (json_int_t)shard->index, "count", (json_int_t)shard->count, "from",
                                     shard->source, "environment",
                                     fpd_environment_of(cfg->backends, cfg->n_backends, cfg->default_threads,
                                                        cfg->generator));
    if (r->json)
        fpd_fuzz_print_json(json_incref(r->campaign_line));
    else
        printf("seed %" PRIu64 "  (rerun this campaign with %s; %u worker%s)\n", cfg->seed, rerun, cfg->jobs,
               cfg->jobs == 1 ? "" : "s");
    if (shard->count > 1)
        fprintf(stderr, "fpdiv fuzz: shard %" PRIu64 " of %" PRIu64 " (0-based, from %s): case indices %" PRIu64
                        ", %" PRIu64 ", ...\n", shard->index, shard->count, shard->source, shard->index,
                shard->index + shard->count); /* at most 2^32 shards: no wrap */
    fflush(stdout);
    char suite[96];
    snprintf(suite, sizeof suite, "fpdiv fuzz %s", rerun);
    r->ci.suite = strdup(suite);
    r->tty = isatty(STDERR_FILENO);
    r->start = r->last = fpd_now();
    r->start_ticks = fpd_ticks();
}

int fpd_fuzz_report_check(struct fpd_fuzz_report *r, const struct fpd_check *chk, const struct fpd_check_result *res,
                          double seconds, double ticks, bool first_of_signature)
{
    bool fails = fpd_fails_policy(res->verdict, r->fail_on);
    if (fails)
        r->failed++;
    if (r->ci_wanted && ci_record(&r->ci, chk, res, seconds, ticks, fails) != FPD_OK)
        return FPD_ERR_NOMEM;
    /* the page's: a check that differs (planned: take_answer plans those); the equal ones are
     * counted from the summary's tallies at the end, without planning each */
    const struct fpd_metrics *m = &res->metrics;
    if (r->html && res->verdict != FPD_SAME &&
        fpd_campaign_digest_add(&r->digest, chk->relation->name, fpd_reported_ratio(m), chk->c.m, chk->c.k, m->diff,
                                m->count, res->verdict) != FPD_OK)
        return FPD_ERR_NOMEM;
    if (r->json)
        fpd_fuzz_print_json(fpd_check_json(chk, res));
    else if (first_of_signature)
        print_finding(chk, res);
    return FPD_OK;
}

int fpd_fuzz_report_finish(struct fpd_fuzz_report *r, struct fpd_stats *st, uint64_t gemm_ticks, size_t known,
                           bool interrupted)
{
    int exit_code = FPD_EXIT_OK;
    char why[512], shown[4096];
    fpd_fuzz_report_progress(r, st, true);
    double seconds = fpd_now() - r->start;
    uint64_t ticks = fpd_ticks_since(r->start_ticks); /* the whole campaign measures the rate of ticks */
    double per_tick = ticks > 0 ? seconds / (double)ticks : 0;
    double gemm_seconds = (double)gemm_ticks * per_tick;
    fpd_ci_settle_ticks(&r->ci, per_tick); /* the checks' own times */
    json_t *summary = r->json || r->html
                          ? summary_json(r->cp, st, seconds, r->failed, gemm_seconds, r->saved, r->save_failures)
                          : NULL;
    if (r->json)
        fpd_fuzz_print_json(json_incref(summary));
    else
        print_summary(r->cp, st, seconds, r->fail_on, r->failed, gemm_seconds);
    if (r->corpus && !r->json)
        printf("corpus %s: %zu new case%s saved; %zu finding%s of signatures it already had%s\n",
               fpd_printable(r->corpus, shown, sizeof shown), r->saved,
               r->saved == 1 ? "" : "s", known, known == 1 ? "" : "s",
               r->save_failures ? "; SOME FINDINGS COULD NOT BE SAVED (see above)" : "");
    if (r->save_failures) {
        fpd_console_error("fuzz", "%zu finding%s could not be saved in %s", r->save_failures,
                      r->save_failures == 1 ? "" : "s", r->corpus);
        exit_code = FPD_EXIT_INTERNAL;
    }
    if (interrupted && !r->json)
        printf("stopped early by an interrupt: %zu checks ran\n", st->checks);
    if (r->junit && fpd_ci_write_junit(&r->ci, r->junit, seconds, why, sizeof why) != FPD_OK) {
        fpd_console_error("fuzz", "%s", why);
        exit_code = FPD_EXIT_USAGE;
    }
    for (size_t i = 0; r->html && i < st->n_tallies; i++)
        if (fpd_campaign_digest_add_equal(&r->digest, r->cp->cfg.relations[st->tallies[i].relation]->name,
                                          st->tallies[i].by_verdict[FPD_SAME]) != FPD_OK)
            exit_code = FPD_EXIT_INTERNAL;
    if (r->html) {
        struct fpd_report_input page = {.corpus_dir = r->corpus, .campaign_from = "this run",
                                        .campaign = r->campaign_line, .summary = summary, .digest = &r->digest};
        int rc = fpd_report_write(r->html, &page, why, sizeof why);
        size_t cases = page.case_count;
        if (rc != FPD_OK) {
            fpd_console_error("fuzz", "%s", rc == FPD_ERR_NOMEM ? "out of memory writing the page" : why);
            exit_code = rc == FPD_ERR_NOMEM ? FPD_EXIT_INTERNAL : FPD_EXIT_USAGE;
        } else if (!r->json) {
            printf("report %s: the campaign and %zu saved case%s\n", fpd_printable(r->html, shown, sizeof shown), cases,
                   cases == 1 ? "" : "s");
        }
    }
    json_decref(summary);
    if (fpd_ci_github()) {
        fpd_ci_github_annotate(&r->ci, stdout);
        char headline[160];
        snprintf(headline, sizeof headline, "fpdiv fuzz, seed %" PRIu64 ": %zu checks, %zu failed", r->cp->cfg.seed,
                 st->checks, r->failed);
        if (fpd_ci_github_summary(&r->ci, headline, why, sizeof why) != FPD_OK)
            fpd_console_error("fuzz", "%s", why);
    }
    return exit_code;
}

void fpd_fuzz_report_free(struct fpd_fuzz_report *r)
{
    fpd_ci_free(&r->ci);
    json_decref(r->campaign_line);
    fpd_campaign_digest_free(&r->digest);
}
