/* cmd_fuzz.c — `fpdiv fuzz`: a campaign of random checks. */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <errno.h>
#include <signal.h>

#include "backends/backend_pinned.h"
#include "engine/campaign.h"
#include "cli/ci.h"
#include "cli/cmd.h"
#include "store/corpus.h"
#include "store/corpus_dir.h"
#include "engine/minimize.h"
#include "common/dtype.h"
#include "engine/environment.h"
#include "cli/report.h"
#include "cli/text.h"
#include "common/clock.h"
#include "common/workers.h"

static const char help[] =
    "usage: fpdiv fuzz [options]\n\n"
    "Generates cases from a seed and checks one relation on one backend (or pair) per case. The\n"
    "seed is printed first; every finding carries seed and case index and the command that\n"
    "reruns it alone.\n\n"
    "  --seed S            campaign seed (default: random, printed)\n"
    "  --cases N           number of checks (default 1000 unless --time is given)\n"
    "  --time SEC          stop after SEC seconds (with --cases: whichever comes first); with\n"
    "                      --timeout 0, a check still running 10 s later is stopped unfinished\n"
    "  --relations L       comma list (default: every relation but cast-out)\n"
    "  --backends L        comma list (default: every available backend); B@SET runs library B on\n"
    "                      its kernel set SET, B alone on the one it picks here\n"
    "  --core L            comma list of kernel sets (OpenBLAS's cores): each library backend runs\n"
    "                      on each, and the core relation pairs them. Default: the one it picks here,\n"
    "                      and for the core relation every other one this CPU runs\n"
    "  --dtypes L          comma list of IN[:OUT[:ACC]] (default f64,f32,f16,bf16)\n"
    "  --dists L           comma list (default normal,uniform,wide,int)\n"
    "  --max-dim D         largest m, n, k (default 256)\n"
    "  --specials P        probability of a special value per element (default 0)\n"
    "  --generator G       the data generator's version (default: the newest; an older one reruns\n"
    "                      a campaign of an older fpdiv)\n"
    "  --threads N         most threads for the threads relation (default: cores, at least 2)\n"
    "  --fail-on V         exit 1 when a check is V or worse: same, reorder, bound, never\n"
    "                      (default bound)\n"
    "  --max-mem SIZE      memory budget, shared by the workers (default half of RAM): a larger case\n"
    "                      has its m, n and k halved to fit; one still too large is skipped, and\n"
    "                      counted\n"
    "  --json              JSON Lines on stdout: a campaign line, one line per check (or skipped\n"
    "                      check), a summary line\n"
    "  --junit FILE        JUnit XML: a test case per relation x backends, a failure per check that\n"
    "                      fails the policy (with the command that reproduces it). When\n"
    "                      GITHUB_ACTIONS=true: ::error annotations and a table in the step summary\n"
    "  --corpus DIR        save findings into DIR (default corpus): the first case of each new\n"
    "                      signature (relation, backends, dtypes, verdict), minimized\n"
    "  --no-corpus         save nothing\n"
    "  --max-per-signature N  cases saved per signature (default 1)\n"
    "  --no-minimize       save the raw case instead of a minimized one\n"
    "  --minimize-time SEC time cap per minimization (default 10)\n"
    "  --inline-max BYTES  cases with inputs up to this size carry them inline (default 64K)\n"
    "  --exact MODE        compare each path with the correctly rounded result: always,\n"
    "                      diverging (default: only checks whose paths differ) or never\n"
    "  --shard I/N         run shard I (0-based) of N: case indices I, I+N, I+2N, ...; together the\n"
    "                      N shards run exactly the cases of one run. Without it, the scheduler's\n"
    "                      variables are read: SLURM_ARRAY_TASK_ID/_COUNT (and _MIN), Kubernetes'\n"
    "                      JOB_COMPLETION_INDEX (with --shard-count N), GitLab's CI_NODE_INDEX/_TOTAL\n"
    "  --shard-count N     the shard count for JOB_COMPLETION_INDEX\n"
    "  --jobs N            worker processes (default: cores); each has a single-threaded BLAS, so\n"
    "                      the checks and their results do not depend on N\n"
    "  --timeout SEC       a check running longer is an `error` finding; its worker is replaced\n"
    "                      (default 120; 0: none). A worker that crashes costs only its check.\n"
    "  -h, --help          this text\n";

enum { OPT_SEED = 256, OPT_CASES, OPT_TIME, OPT_RELATIONS, OPT_BACKENDS, OPT_DTYPES, OPT_DISTS, OPT_MAX_DIM,
       OPT_SPECIALS, OPT_THREADS, OPT_FAIL_ON, OPT_MAX_MEM, OPT_JSON, OPT_CORPUS, OPT_NO_CORPUS, OPT_MAX_PER_SIG,
       OPT_NO_MINIMIZE, OPT_MINIMIZE_TIME, OPT_INLINE_MAX, OPT_EXACT, OPT_JOBS, OPT_TIMEOUT, OPT_SHARD,
       OPT_SHARD_COUNT, OPT_JUNIT, OPT_GENERATOR, OPT_CORE };

static const struct option options[] = {
    {"seed", required_argument, NULL, OPT_SEED},         {"cases", required_argument, NULL, OPT_CASES},
    {"time", required_argument, NULL, OPT_TIME},         {"relations", required_argument, NULL, OPT_RELATIONS},
    {"backends", required_argument, NULL, OPT_BACKENDS}, {"dtypes", required_argument, NULL, OPT_DTYPES},
    {"dists", required_argument, NULL, OPT_DISTS},       {"max-dim", required_argument, NULL, OPT_MAX_DIM},
    {"specials", required_argument, NULL, OPT_SPECIALS}, {"threads", required_argument, NULL, OPT_THREADS},
    {"fail-on", required_argument, NULL, OPT_FAIL_ON},   {"max-mem", required_argument, NULL, OPT_MAX_MEM},
    {"json", no_argument, NULL, OPT_JSON},               {"corpus", required_argument, NULL, OPT_CORPUS},
    {"no-corpus", no_argument, NULL, OPT_NO_CORPUS},     {"max-per-signature", required_argument, NULL, OPT_MAX_PER_SIG},
    {"no-minimize", no_argument, NULL, OPT_NO_MINIMIZE}, {"minimize-time", required_argument, NULL, OPT_MINIMIZE_TIME},
    {"inline-max", required_argument, NULL, OPT_INLINE_MAX}, {"exact", required_argument, NULL, OPT_EXACT},
    {"jobs", required_argument, NULL, OPT_JOBS},         {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"shard", required_argument, NULL, OPT_SHARD},       {"shard-count", required_argument, NULL, OPT_SHARD_COUNT},
    {"junit", required_argument, NULL, OPT_JUNIT},       {"generator", required_argument, NULL, OPT_GENERATOR},
    {"core", required_argument, NULL, OPT_CORE},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

struct fuzz_options {
    uint64_t cases;
    double seconds; /* 0: no time limit */
    int fail_on;
    bool json, seed_given, minimize;
    const char *corpus; /* NULL: save nothing */
    uint64_t max_per_signature, jobs;
    double minimize_seconds, inline_max, timeout;
    const char *shard;     /* "I/N", or NULL */
    const char *junit;     /* JUnit XML file, or NULL */
    uint64_t shard_count;  /* for JOB_COMPLETION_INDEX */
};

static uint64_t random_seed(void)
{
    uint64_t seed = 0;
    int fd = open("/dev/urandom", O_RDONLY);
    if (fd >= 0) {
        if (read(fd, &seed, sizeof seed) != (ssize_t)sizeof seed)
            seed = 0;
        close(fd);
    }
    if (seed == 0)
        seed = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid();
    return seed & ((1ull << 53) - 1); /* exact in every JSON reader, JavaScript's included */
}

static void set_defaults(struct fpd_campaign_config *cfg)
{
    *cfg = (struct fpd_campaign_config){.generator = FPD_GEN_VERSION, .max_dim = 256, .max_mem = fpd_cli_default_max_mem(),
                                        .exact = FPD_EXACT_DIVERGING};
    cfg->max_threads = fpd_cli_cores() < 2 ? 2 : fpd_cli_cores();
    for (size_t i = 0; i < fpd_relation_count; i++)
        if (fpd_relation_table[i].default_campaign)
            cfg->relations[cfg->n_relations++] = &fpd_relation_table[i];
    static const enum fpd_dtype inputs[] = {FPD_F64, FPD_F32, FPD_F16, FPD_BF16};
    char why[128];
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++)
        fpd_dtypes_parse(fpd_dtype_info(inputs[i])->name, &cfg->dtypes[cfg->n_dtypes++], why, sizeof why);
    static const enum fpd_dist dists[] = {FPD_DIST_NORMAL, FPD_DIST_UNIFORM, FPD_DIST_WIDE, FPD_DIST_INT};
    for (size_t i = 0; i < sizeof dists / sizeof dists[0]; i++)
        cfg->dists[cfg->n_dists++] = dists[i];
}

/* Every backend that opens, but for test backends, as a comma list of names. Chosen only when
 * --backends is not given: opening them all loads the CUDA plugin and its libraries (0.1 s here)
 * and makes a GPU context. */
static void default_backends(char *names, size_t size)
{
    names[0] = '\0';
    size_t used = 0, n = fpd_registry_count();
    for (size_t i = 0; i < n; i++) {
        struct fpd_backend_slot *s = fpd_registry_at(i);
        if (s->impl->kind == FPD_KIND_TEST || fpd_backend_pinned_parts(s->impl, NULL, NULL) ||
            fpd_backend_acquire(s) != FPD_OK)
            continue;
        int w = snprintf(names + used, size - used, "%s%s", used ? "," : "", s->impl->name);
        if (w > 0 && (size_t)w < size - used)
            used += (size_t)w;
    }
}

static bool has_core_relation(const struct fpd_campaign_config *cfg)
{
    for (size_t r = 0; r < cfg->n_relations; r++)
        if (cfg->relations[r]->pairing == FPD_PAIR_KERNEL_SETS)
            return true;
    return false;
}

/* Without --core, a library named without a kernel set runs on the one it picks here; for the
 * core relation it also runs every other kernel set this CPU runs (probed), in that relation only. */
static int add_other_kernel_sets(struct fpd_campaign_config *cfg, const char *names)
{
    size_t given = cfg->n_backends;
    for (size_t i = 0; i < given; i++) {
        struct fpd_backend_slot *base;
        const char *native;
        if (!fpd_backend_pinned_parts(cfg->backends[i]->impl, &base, &native))
            continue;
        char plain[80];
        snprintf(plain, sizeof plain, ",%s,", base->impl->name);
        char list[1100];
        snprintf(list, sizeof list, ",%s,", names);
        if (!strstr(list, plain)) /* named with its kernel set: as given */
            continue;
        struct fpd_kernel_set_report sets[64];
        size_t n = fpd_kernel_sets_survey(base, sets, 64);
        for (size_t k = 0; k < n && cfg->n_backends < FPD_MAX_BACKENDS; k++)
            if (sets[k].runs && sets[k].slot != cfg->backends[i]) {
                cfg->core_only[cfg->n_backends] = true;
                cfg->backends[cfg->n_backends++] = sets[k].slot;
            }
    }
    return FPD_OK;
}

/* The campaign's backends: --backends or every one, pinned by --core, with the core relation's
 * other kernel sets. */
static int choose_backends(struct fpd_campaign_config *cfg, const char *given, const char *cores, char *why,
                           size_t why_size)
{
    char names[1024], pinned[1024];
    if (given)
        snprintf(names, sizeof names, "%s", given);
    else
        default_backends(names, sizeof names);
    const char *list = names;
    if (cores) {
        if (fpd_cli_pin_backends(names, cores, false, pinned, sizeof pinned, why, why_size) != FPD_OK)
            return FPD_ERR_INPUT;
        list = pinned;
    }
    if (fpd_cli_backends(list, cfg->backends, FPD_MAX_BACKENDS, &cfg->n_backends, why, why_size) != FPD_OK)
        return FPD_ERR_INPUT;
    for (size_t i = 0; i < cfg->n_backends; i++)
        if (fpd_backend_acquire(cfg->backends[i]) != FPD_OK) {
            snprintf(why, why_size, "backend %s is unavailable: %s", cfg->backends[i]->impl->name,
                     cfg->backends[i]->why);
            return FPD_ERR_INPUT;
        }
    if (!cores && has_core_relation(cfg))
        return add_other_kernel_sets(cfg, names);
    fpd_cli_run_kernel_sets_here(cfg->backends, cfg->n_backends);
    return FPD_OK;
}

static int parse(int argc, char **argv, struct fpd_campaign_config *cfg, struct fuzz_options *o, char *why,
                 size_t why_size)
{
    uint64_t u;
    bool cases_given = false;
    const char *backends = NULL, *cores = NULL;
    int opt, rc = FPD_OK;
    while (rc == FPD_OK && (opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        switch (opt) {
        case OPT_SEED:
            rc = fpd_cli_u64("--seed", optarg, UINT64_MAX, &cfg->seed, why, why_size);
            o->seed_given = true;
            break;
        case OPT_CASES:
            rc = fpd_cli_count("--cases", optarg, 1, 1ull << 32, &o->cases, why, why_size);
            cases_given = true;
            break;
        case OPT_TIME: rc = fpd_cli_double("--time", optarg, 0.001, 1e9, &o->seconds, why, why_size); break;
        case OPT_RELATIONS:
            rc = fpd_cli_relations(optarg, cfg->relations, FPD_MAX_LIST, &cfg->n_relations, why, why_size);
            break;
        case OPT_BACKENDS: backends = optarg; break;
        case OPT_CORE: cores = optarg; break;
        case OPT_DTYPES: rc = fpd_cli_dtypes(optarg, cfg->dtypes, FPD_MAX_LIST, &cfg->n_dtypes, why, why_size); break;
        case OPT_DISTS: rc = fpd_cli_dists(optarg, cfg->dists, FPD_DIST_COUNT, &cfg->n_dists, why, why_size); break;
        case OPT_MAX_DIM:
            rc = fpd_cli_count("--max-dim", optarg, 1, FPD_MAX_DIM, &u, why, why_size);
            cfg->max_dim = (uint32_t)u;
            break;
        case OPT_SPECIALS: rc = fpd_cli_double("--specials", optarg, 0, 1, &cfg->special_rate, why, why_size); break;
        case OPT_GENERATOR: rc = fpd_cli_generator(optarg, &cfg->generator, why, why_size); break;
        case OPT_THREADS:
            rc = fpd_cli_count("--threads", optarg, 2, 1024, &u, why, why_size); /* the relation: 1 against N */
            cfg->max_threads = (int)u;
            break;
        case OPT_FAIL_ON: rc = fpd_cli_verdict("--fail-on", optarg, true, &o->fail_on, why, why_size); break;
        case OPT_MAX_MEM: rc = fpd_cli_bytes("--max-mem", optarg, &cfg->max_mem, why, why_size); break;
        case OPT_JSON: o->json = true; break;
        case OPT_CORPUS: o->corpus = optarg; break;
        case OPT_NO_CORPUS: o->corpus = NULL; break;
        case OPT_MAX_PER_SIG:
            rc = fpd_cli_count("--max-per-signature", optarg, 1, 1u << 20, &o->max_per_signature, why, why_size);
            break;
        case OPT_NO_MINIMIZE: o->minimize = false; break;
        case OPT_MINIMIZE_TIME:
            rc = fpd_cli_double("--minimize-time", optarg, 0.001, 1e6, &o->minimize_seconds, why, why_size);
            break;
        case OPT_INLINE_MAX: rc = fpd_cli_bytes("--inline-max", optarg, &o->inline_max, why, why_size); break;
        case OPT_EXACT: rc = fpd_cli_exact_mode(optarg, &cfg->exact, why, why_size); break;
        case OPT_JOBS:
            rc = fpd_cli_count("--jobs", optarg, 1, 64, &o->jobs, why, why_size);
            break;
        case OPT_TIMEOUT: rc = fpd_cli_double("--timeout", optarg, 0, 1e9, &o->timeout, why, why_size); break;
        case OPT_SHARD: o->shard = optarg; break;
        case OPT_JUNIT: o->junit = optarg; break;
        case OPT_SHARD_COUNT:
            rc = fpd_cli_count("--shard-count", optarg, 1, 1u << 20, &o->shard_count, why, why_size);
            break;
        case 'h': fputs(help, stdout); return -1;
        default: snprintf(why, why_size, "see 'fpdiv fuzz --help'"); return FPD_ERR_INPUT;
        }
    }
    if (rc != FPD_OK)
        return rc;
    if (optind < argc) {
        snprintf(why, why_size, "unexpected argument '%s'", argv[optind]);
        return FPD_ERR_INPUT;
    }
    if (!cases_given)
        o->cases = o->seconds > 0 ? 1ull << 32 : 1000;
    if (!o->seed_given)
        cfg->seed = random_seed();
    return choose_backends(cfg, backends, cores, why, why_size);
}

static const char *combo_backends(const struct fpd_campaign *cp, const uint16_t b[2], char *buf, size_t size)
{
    if (b[1] == UINT16_MAX)
        snprintf(buf, size, "%s", cp->cfg.backends[b[0]]->impl->name);
    else
        snprintf(buf, size, "%s,%s", cp->cfg.backends[b[0]]->impl->name, cp->cfg.backends[b[1]]->impl->name);
    return buf;
}

/* Progress on stderr: a live line on a terminal, a plain line every 10 s otherwise. */
struct progress {
    bool tty;
    double start, last;
};

static void progress_show(struct progress *p, const struct fpd_stats *st, bool final)
{
    double t = fpd_now();
    if (!final && t - p->last < (p->tty ? 0.25 : 10))
        return;
    if (final && !p->tty)
        return;
    p->last = t;
    double rate = st->checks / (t - p->start > 0 ? t - p->start : 1e-9);
    fprintf(stderr, "%s%zu checks, %.0f/s; reorder %zu, bound %zu, nonfinite %zu, error %zu%s", p->tty ? "\r\033[K" : "",
            st->checks, rate, st->by_verdict[FPD_REORDER], st->by_verdict[FPD_BOUND], st->by_verdict[FPD_NONFINITE],
            st->by_verdict[FPD_ERROR], p->tty && !final ? "" : "\n");
    fflush(stderr);
}

static void print_finding(const struct fpd_check *chk, const struct fpd_check_result *res)
{
    char dt[32], cmd[768], backends[160];
    fpd_check_backend_names(chk, backends, sizeof backends);
    const struct fpd_metrics *m = &res->metrics;
    printf("finding %-9s %-11s %-24s %-8s seed %" PRIu64 " index %" PRIu32 ": %zu of %zu differ, max %" PRIu64
           " ulp, ratio %.3g%s%s\n  rerun: %s\n",
           fpd_verdict_table[res->verdict].name, chk->relation->name, backends,
           fpd_dtypes_format(&chk->c.dt, dt, sizeof dt), chk->c.recipe.seed, chk->c.recipe.index, m->diff, m->count,
           m->max_ulp, m->ratio, res->verdict == FPD_ERROR ? "; " : "", res->verdict == FPD_ERROR ? res->error : "",
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
    printf("\n%-12s %-*s %7s %7s %7s %7s %9s %6s %9s %9s\n", "relation", width, "backends", "checks", "same", "reorder",
           "bound", "nonfinite", "error", "max ulp", "max ratio");
    for (size_t i = 0; i < st->n_tallies; i++) {
        const struct fpd_tally *t = &st->tallies[i];
        printf("%-12s %-*s %7zu %7zu %7zu %7zu %9zu %6zu %9" PRIu64 " %9.3g\n", cp->cfg.relations[t->relation]->name,
               width, combo_backends(cp, t->backend, backends, sizeof backends), t->checks, t->by_verdict[FPD_SAME],
               t->by_verdict[FPD_REORDER], t->by_verdict[FPD_BOUND], t->by_verdict[FPD_NONFINITE],
               t->by_verdict[FPD_ERROR], t->max_ulp, t->max_ratio);
    }
    printf("\n%zu checks in %.1f s (%.0f/s): same %zu, reorder %zu, bound %zu, nonfinite %zu, error %zu; "
           "%zu signatures\n",
           st->checks, seconds, st->checks / (seconds > 0 ? seconds : 1e-9), st->by_verdict[FPD_SAME],
           st->by_verdict[FPD_REORDER], st->by_verdict[FPD_BOUND], st->by_verdict[FPD_NONFINITE],
           st->by_verdict[FPD_ERROR], st->n_signatures);
    if (st->skipped)
        printf("skipped %zu check%s over the --max-mem budget at the smallest shape (the first is named on stderr)\n",
               st->skipped, st->skipped == 1 ? "" : "s");
    static const char *const exact_words[] = {[FPD_EXACT_NEVER] = "not computed",
                                              [FPD_EXACT_DIVERGING] = "computed for the checks whose paths differ",
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
    return json_pack("{s:s,s:o,s:I,s:I,s:f,s:f,s:I,s:I,s:I,s:I,s:o}", "type", "summary", "seed",
                     fpd_seed_json(cp->cfg.seed), "checks", (json_int_t)st->checks, "skipped",
                     (json_int_t)st->skipped, "seconds", seconds, "gemm_seconds", gemm_seconds, "failed",
                     (json_int_t)failed, "signatures", (json_int_t)st->n_signatures, "saved", (json_int_t)saved,
                     "save_failures", (json_int_t)save_failures, "rows", rows);
}

static void print_json(json_t *j)
{
    json_dumpf(j, stdout, JSON_COMPACT);
    fputc('\n', stdout);
    json_decref(j);
}

/* A check over the memory budget at its smallest shape: a `skipped` line with --json, else a note
 * on stderr for the first (the summary counts them all). */
static void report_skipped(const struct fpd_campaign *cp, uint32_t index, bool json, bool first)
{
    if (!json && !first)
        return;
    struct fpd_check chk;
    char why[256], shared[64] = "", cmd[768];
    fpd_campaign_plan(cp, index, &chk);
    fpd_case_validate(&chk.c, cp->cfg.max_mem, why, sizeof why);
    if (cp->cfg.jobs > 1)
        snprintf(shared, sizeof shared, " (each of the %u workers' share)", cp->cfg.jobs);
    if (json)
        print_json(json_pack("{s:s,s:o,s:I,s:s+,s:s}", "type", "skipped", "seed", fpd_seed_json(cp->cfg.seed), "index",
                             (json_int_t)index, "reason", why, shared, "reproduce",
                             fpd_reproduce_command(&chk, cmd, sizeof cmd)));
    else
        fprintf(stderr, "fpdiv fuzz: skipped seed %" PRIu64 " index %" PRIu32 ": %s%s; the summary counts any more\n",
                cp->cfg.seed, index, why, shared);
}

/* What the corpus holds, by signature, and what this run adds. */
struct corpus_entry {
    struct fpd_signature_key key;
    size_t files, saved, seen;
    bool full; /* this worker found every slot taken: it does not ask again */
};

struct corpus_index {
    struct corpus_entry *entries;
    size_t n, cap, saved, known; /* known: findings whose signature the corpus already had */
};

static struct corpus_entry *corpus_entry(struct corpus_index *ix, const struct fpd_signature_key *key)
{
    for (size_t i = 0; i < ix->n; i++)
        if (fpd_signature_equal(&ix->entries[i].key, key))
            return &ix->entries[i];
    if (ix->n == ix->cap) {
        size_t grown = ix->cap ? ix->cap * 2 : 32;
        struct corpus_entry *p = realloc(ix->entries, grown * sizeof *p);
        if (!p)
            return NULL;
        ix->entries = p, ix->cap = grown;
    }
    ix->entries[ix->n] = (struct corpus_entry){.key = *key};
    return &ix->entries[ix->n++];
}

/* Reads the signatures of every case already in the corpus (a missing directory is an empty one). */
static int corpus_index_load(struct corpus_index *ix, const char *dir, char *why, size_t why_size)
{
    struct stat st;
    if (!dir[0]) {
        snprintf(why, why_size, "--corpus needs a directory name (--no-corpus saves nothing)");
        return FPD_ERR_INPUT;
    }
    if (stat(dir, &st) != 0)
        return FPD_OK; /* created by the first save */
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, why_size, "--corpus %.400s is not a directory", dir);
        return FPD_ERR_INPUT;
    }
    struct fpd_corpus_entry *files = NULL;
    size_t n = 0;
    int rc = fpd_corpus_list(dir, &files, &n, why, why_size);
    for (size_t i = 0; rc == FPD_OK && i < n; i++) {
        struct fpd_signature_key key;
        if (files[i].refused) {
            snprintf(why, why_size, "%.400s: %s", files[i].path, files[i].refused);
            rc = FPD_ERR_INPUT;
        } else if ((rc = fpd_case_file_signature(files[i].path, &key, why, why_size)) == FPD_OK) {
            struct corpus_entry *e = corpus_entry(ix, &key);
            if (e)
                e->files++;
            else
                rc = FPD_ERR_NOMEM;
        }
    }
    fpd_corpus_entries_free(files, n);
    return rc;
}

/* Which shard this run is: from --shard, else from the scheduler's environment, else 0 of 1.
 * `source` says where it came from. */
struct shard {
    uint64_t index, count;
    char source[96];
};

static int env_u64(const char *name, uint64_t *out)
{
    const char *v = getenv(name);
    char *end;
    if (!v || !*v)
        return 0;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (*end || errno || v[0] == '-')
        return -1;
    *out = x;
    return 1;
}

static int find_shard(const struct fuzz_options *o, struct shard *s, char *why, size_t why_size)
{
    *s = (struct shard){.index = 0, .count = 1};
    snprintf(s->source, sizeof s->source, "no sharding");
    uint64_t id, count, min = 0;
    if (o->shard) {
        char index[32] = "", msg[128];
        const char *slash = strchr(o->shard, '/');
        uint64_t i = 0, n = 0;
        if (slash && (size_t)(slash - o->shard) < sizeof index)
            memcpy(index, o->shard, (size_t)(slash - o->shard));
        if (!slash || fpd_cli_u64("--shard", index, UINT64_MAX, &i, msg, sizeof msg) != FPD_OK ||
            fpd_cli_u64("--shard", slash + 1, UINT64_MAX, &n, msg, sizeof msg) != FPD_OK || n == 0 || i >= n) {
            snprintf(why, why_size, "--shard '%s': expected I/N with 0 <= I < N", o->shard);
            return FPD_ERR_INPUT;
        }
        *s = (struct shard){.index = i, .count = n};
        snprintf(s->source, sizeof s->source, "--shard");
    } else if (env_u64("SLURM_ARRAY_TASK_ID", &id) > 0 && env_u64("SLURM_ARRAY_TASK_COUNT", &count) > 0) {
        env_u64("SLURM_ARRAY_TASK_MIN", &min);
        *s = (struct shard){.index = id - min, .count = count};
        snprintf(s->source, sizeof s->source, "SLURM_ARRAY_TASK_ID/_COUNT/_MIN");
    } else if (env_u64("JOB_COMPLETION_INDEX", &id) > 0) {
        if (!o->shard_count) {
            snprintf(why, why_size, "JOB_COMPLETION_INDEX is set: give the number of indexes with --shard-count");
            return FPD_ERR_INPUT;
        }
        *s = (struct shard){.index = id, .count = o->shard_count};
        snprintf(s->source, sizeof s->source, "JOB_COMPLETION_INDEX and --shard-count");
    } else if (env_u64("CI_NODE_INDEX", &id) > 0 && env_u64("CI_NODE_TOTAL", &count) > 0) {
        *s = (struct shard){.index = id - 1, .count = count}; /* GitLab counts from 1 */
        snprintf(s->source, sizeof s->source, "CI_NODE_INDEX/CI_NODE_TOTAL");
    }
    if (s->count == 0 || s->index >= s->count) {
        snprintf(why, why_size, "shard %" PRIu64 " of %" PRIu64 " (from %s) does not exist", s->index, s->count,
                 s->source);
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

/* The campaign's state: set up by the parent before the workers fork, so each inherits it. */
struct fuzz_run {
    struct fpd_campaign cp;
    struct fuzz_options o;
    struct corpus_index corpus; /* signatures in the corpus when the campaign started */
    struct fpd_checker ck;      /* each worker's own, after the fork */
};

/* Claims a free slot of the signature in the corpus (corpus_dir.h: shared with every fuzzer
 * writing there). FPD_OK with claim->slot -1 when every slot is taken; a worker that found that
 * does not ask again. */
static int claim_slot(struct fuzz_run *run, const struct fpd_signature_key *key, struct fpd_corpus_claim *claim,
                      char *why, size_t why_size)
{
    *claim = (struct fpd_corpus_claim){.slot = -1};
    struct corpus_entry *e = corpus_entry(&run->corpus, key);
    if (e && (e->full || e->files >= run->o.max_per_signature))
        return FPD_OK;
    int rc = fpd_corpus_claim(run->o.corpus, key, e ? e->files : 0, run->o.max_per_signature, claim, why, why_size);
    if (rc == FPD_OK && claim->slot < 0 && e)
        e->full = true;
    return rc;
}

/* A saved case's line (save_finding's), as a worker's note carries it. */
#define FPD_SAVED_LINE_MAX 512
_Static_assert(FPD_SAVED_LINE_MAX <= FPD_WORKER_PAYLOAD, "a saved case's line must fit a worker's message");

/* A save_failed line for a worker's message, whatever the reason's bytes (text.h makes them valid
 * UTF-8) and length: a long one keeps its start and its end, where the system's error is, and
 * fits the message even with every character escaped in JSON. */
static json_t *save_failed_line(const char *prefix, const char *reason)
{
    char text[600], shown[2400], cut[220];
    snprintf(text, sizeof text, "%s%.560s", prefix, reason);
    size_t len = strlen(fpd_printable(text, shown, sizeof shown));
    if (len >= sizeof cut) {
        size_t head = 90, tail = len - 110;
        while (head > 0 && ((unsigned char)shown[head] & 0xc0) == 0x80) /* not inside a character */
            head--;
        while (((unsigned char)shown[tail] & 0xc0) == 0x80)
            tail++;
        snprintf(cut, sizeof cut, "%.*s ... %s", (int)head, shown, shown + tail);
    } else {
        memcpy(cut, shown, len + 1);
    }
    return json_pack("{s:s,s:s}", "type", "save_failed", "reason", cut);
}

/* A finding with a free slot: minimized (errors are saved as they are) and saved. *line gets a JSON
 * line for the parent: what was saved ("saved", its name inside the corpus), or why it could not
 * be ("save_failed"); NULL when the signature had no free slot. */
static int save_finding(struct fuzz_run *run, const struct fpd_check *chk, const struct fpd_check_result *res,
                        json_t **line)
{
    *line = NULL;
    struct fpd_signature_key key;
    struct fpd_corpus_claim claim;
    char why[512];
    fpd_signature_of(chk, res->verdict, &key);
    if (claim_slot(run, &key, &claim, why, sizeof why) != FPD_OK) {
        *line = save_failed_line("cannot claim a slot: ", why);
        return FPD_OK;
    }
    if (claim.slot < 0)
        return FPD_OK;
    struct fpd_check small = *chk;
    struct fpd_check_result small_res = *res;
    struct fpd_case_data data = {0};
    struct fpd_minimize_result mr = {.before = chk->c};
    int rc = FPD_OK;
    if (run->o.minimize && res->verdict != FPD_ERROR) {
        rc = fpd_minimize(&run->ck, &small, res->verdict, run->o.minimize_seconds, &data, &mr);
        small_res = mr.final;
    }
    struct fpd_case_file f;
    char path[4200], before[64], after[64];
    const char *saved = NULL; /* its name inside the corpus */
    bool existed = false;
    if (rc == FPD_OK)
        rc = fpd_case_file_from_check(&f, &small, &small_res, (size_t)run->o.inline_max, fpd_environment_json(&small));
    if (rc == FPD_OK) {
        if (fpd_case_file_save(run->o.corpus, &f, path, sizeof path, &existed, why, sizeof why) != FPD_OK) {
            /* the campaign goes on; the parent counts it, and the run fails */
            *line = save_failed_line("", why);
        } else if (!existed) { /* else another fuzzer sharing the corpus saved the very same case first */
            /* its name inside the corpus: the parent knows the corpus, and a long path would not fit
             * the message that carries the line */
            saved = path + strlen(run->o.corpus) + 1;
            *line = json_pack("{s:s,s:s,s:s,s:s,s:I,s:b}", "type", "saved", "name", saved, "before",
                              fpd_shape_format(&mr.before, before, sizeof before), "after",
                              fpd_shape_format(&small.c, after, sizeof after), "minimizing_checks",
                              (json_int_t)mr.checks, "time_cap_reached", mr.timed_out);
        }
        fpd_case_file_free(&f);
    }
    fpd_corpus_unclaim(&claim, saved);
    fpd_case_data_free(&data);
    return rc;
}

/* In a worker: one check, its result to the parent, and the finding saved when it is new. */
static int fuzz_work(void *ctx, uint32_t index, struct fpd_worker_channel *ch)
{
    struct fuzz_run *run = ctx;
    struct fpd_check chk;
    struct fpd_check_answer a; /* not zeroed first: fpd_check_run writes the whole result */
    a.skipped = fpd_campaign_plan(&run->cp, index, &chk) != FPD_OK; /* over the budget even at its smallest shape */
    if (a.skipped)
        return fpd_check_answer_send(ch, index, &a) == FPD_OK ? FPD_OK : FPD_ERR_INTERNAL;
    uint64_t gemm_before = run->ck.gemm_ticks;
    if (fpd_check_run(&run->ck, &chk, &a.res) != FPD_OK)
        return FPD_ERR_INTERNAL;
    a.gemm_ticks = run->ck.gemm_ticks - gemm_before;
    if (fpd_check_answer_send(ch, index, &a) != FPD_OK)
        return FPD_ERR_INTERNAL;
    if (!run->o.corpus || a.res.verdict == FPD_SAME)
        return FPD_OK;
    json_t *line;
    if (save_finding(run, &chk, &a.res, &line) != FPD_OK)
        return FPD_ERR_INTERNAL;
    if (!line)
        return FPD_OK;
    char text[FPD_SAVED_LINE_MAX];
    char *dumped = json_dumps(line, JSON_COMPACT);
    json_decref(line);
    if (dumped && strlen(dumped) < sizeof text) /* save_finding's lines fit: this is for certainty */
        strcpy(text, dumped);
    else
        snprintf(text, sizeof text, "{\"type\":\"save_failed\",\"reason\":\"%s\"}",
                 dumped ? "the report of a save did not fit its message" : "out of memory");
    free(dumped);
    return fpd_worker_send(ch, FPD_MSG_NOTE, index, text, strlen(text) + 1);
}

/* What saving a finding came to, from a worker's line: the case saved (its path put back in front),
 * or why it could not be, counted (the run then fails). */
static void print_saved(const struct fuzz_options *o, json_t *line, size_t *saved, size_t *save_failures)
{
    const char *type = json_string_value(json_object_get(line, "type"));
    if (type && strcmp(type, "save_failed") == 0) {
        (*save_failures)++;
        fpd_cli_error("fuzz", "cannot save a finding: %s", json_string_value(json_object_get(line, "reason")));
        if (o->json)
            print_json(line);
        else
            json_decref(line);
        return;
    }
    (*saved)++;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", o->corpus, json_string_value(json_object_get(line, "name")));
    if (o->json) {
        print_json(json_pack("{s:s,s:o,s:O,s:O,s:O,s:O}", "type", "saved", "path", fpd_json_text(path), "before",
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
                     bool fails)
{
    char classname[64], backends[160], dt[32], message[512], cmd[768];
    snprintf(classname, sizeof classname, "fpdiv.%s", chk->relation->name);
    fpd_check_backend_names(chk, backends, sizeof backends);
    struct fpd_ci_case *c = fpd_ci_case(ci, classname, backends);
    if (!c)
        return FPD_ERR_NOMEM;
    c->checks++;
    if (!fails)
        return FPD_OK;
    snprintf(message, sizeof message,
             "%s: %s on %s, %s, seed %" PRIu64 " index %" PRIu32 ": %zu of %zu elements differ, ratio %.3g%s%s",
             fpd_verdict_table[res->verdict].name, chk->relation->name, backends,
             fpd_dtypes_format(&chk->c.dt, dt, sizeof dt), chk->c.recipe.seed, chk->c.recipe.index, res->metrics.diff,
             res->metrics.count, res->metrics.ratio, res->verdict == FPD_ERROR ? "; " : "",
             res->verdict == FPD_ERROR ? res->error : "");
    return fpd_ci_fail(c, fpd_verdict_table[res->verdict].name, message, fpd_reproduce_command(chk, cmd, sizeof cmd));
}

static volatile sig_atomic_t interrupts;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupts++;
}

int fpd_cmd_fuzz(int argc, char **argv)
{
    static struct fuzz_run run; /* inherited by every worker */
    struct fpd_campaign_config cfg;
    set_defaults(&cfg);
    run.o = (struct fuzz_options){.fail_on = FPD_BOUND, .minimize = true, .corpus = "corpus", .max_per_signature = 1,
                                  .minimize_seconds = 10, .inline_max = FPD_INLINE_MAX_DEFAULT,
                                  .jobs = (uint64_t)fpd_cli_cores(), .timeout = 120};
    struct fuzz_options *o = &run.o;
    char why[512];
    int rc = parse(argc, argv, &cfg, o, why, sizeof why);
    if (rc < 0)
        return FPD_EXIT_OK;
    if (rc == FPD_OK) {
        /* every worker gets its share of the memory budget and a single-threaded BLAS, so that any
         * number of workers runs exactly the same checks (a BLAS's results can depend on its threads) */
        cfg.max_mem /= (double)o->jobs;
        cfg.default_threads = 1;
        /* hashes are read by --json's lines and by a finding saved as found; a minimized finding is
         * checked once more, hashed, by the minimizer */
        cfg.unhashed = !o->json && (!o->corpus || o->minimize);
        cfg.jobs = (unsigned)o->jobs;
        rc = fpd_campaign_prepare(&run.cp, &cfg, why, sizeof why);
    }
    struct shard shard;
    if (rc == FPD_OK)
        rc = find_shard(o, &shard, why, sizeof why);
    if (rc == FPD_OK && o->corpus && corpus_index_load(&run.corpus, o->corpus, why, sizeof why) != FPD_OK)
        rc = FPD_ERR_INPUT;
    if (rc == FPD_OK && o->corpus)
        fpd_corpus_clean_stale(o->corpus);
    if (rc != FPD_OK) {
        fpd_cli_error("fuzz", "%s", why);
        return rc == FPD_ERR_NOMEM ? FPD_EXIT_INTERNAL : FPD_EXIT_USAGE;
    }

    /* the options that rerun this campaign's cases: an older generator must be named */
    char rerun[80], generator[32];
    snprintf(rerun, sizeof rerun, "--seed %" PRIu64 "%s", cfg.seed, fpd_generator_option(cfg.generator, generator));
    if (o->json)
        print_json(json_pack("{s:s,s:o,s:i,s:s,s:I,s:{s:I,s:I,s:s},s:o}", "type", "campaign", "seed",
                             fpd_seed_json(cfg.seed), "generator", (int)cfg.generator, "version", FPD_VERSION, "jobs",
                             (json_int_t)o->jobs, "shard", "index", (json_int_t)shard.index, "count",
                             (json_int_t)shard.count, "from", shard.source, "environment",
                             fpd_environment_of(cfg.backends, cfg.n_backends, cfg.default_threads, cfg.generator)));
    else
        printf("seed %" PRIu64 "  (rerun this campaign with %s; %" PRIu64 " worker%s)\n", cfg.seed, rerun, o->jobs,
               o->jobs == 1 ? "" : "s");
    if (shard.count > 1)
        fprintf(stderr, "fpdiv fuzz: shard %" PRIu64 " of %" PRIu64 " (0-based, from %s): case indices %" PRIu64
                        ", %" PRIu64 ", ...\n", shard.index, shard.count, shard.source, shard.index,
                shard.index + shard.count);
    fflush(stdout);

    struct sigaction sa = {.sa_handler = on_interrupt}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    struct fpd_stats st = {0};
    struct fpd_ci_report ci = {0};
    char suite[96];
    snprintf(suite, sizeof suite, "fpdiv fuzz %s", rerun);
    ci.suite = strdup(suite);
    struct progress prog = {.tty = isatty(STDERR_FILENO), .start = fpd_now()};
    uint64_t start_ticks = fpd_ticks(), gemm_ticks = 0;
    prog.last = prog.start;
    size_t failed = 0, saved = 0, save_failures = 0;
    int exit_code = FPD_EXIT_OK;
    struct fpd_pool pool;
    double deadline = o->seconds > 0 ? prog.start + o->seconds : 0;
    uint64_t end = o->cases < (1ull << 32) ? o->cases : (1ull << 32);
    if (fpd_pool_start(&pool, (unsigned)o->jobs, shard.index, shard.count, end, deadline, o->timeout, fuzz_work,
                       &run) != FPD_OK) {
        fpd_cli_error("fuzz", "cannot start the worker processes: %s", strerror(errno));
        exit_code = FPD_EXIT_INTERNAL;
    }
    bool stopping = false, ci_wanted = o->junit || fpd_ci_github();
    while (exit_code == FPD_EXIT_OK) {
        if (interrupts >= 2) { /* a second Ctrl-C: now */
            fpd_pool_kill(&pool);
            fprintf(stderr, "\nfpdiv fuzz: interrupted twice; stopped at once\n");
            _exit(130);
        }
        if (interrupts == 1 && !stopping) {
            stopping = true;
            fprintf(stderr, "\nfpdiv fuzz: interrupted; finishing the checks under way (Ctrl-C again to stop now)\n");
            fpd_pool_stop(&pool);
        }
        struct fpd_pool_event ev;
        if (fpd_pool_next(&pool, 0.1, &ev) != FPD_OK) {
            fpd_cli_error("fuzz", "internal error: a worker could not be replaced");
            exit_code = FPD_EXIT_INTERNAL;
            break;
        }
        if (ev.type == FPD_EVENT_DONE)
            break;
        if (ev.type == FPD_EVENT_IDLE) {
            progress_show(&prog, &st, false);
            continue;
        }
        if (ev.type == FPD_EVENT_MESSAGE && ev.msg.type == FPD_MSG_NOTE) {
            /* a saved case's line, with its terminating zero */
            json_t *line = ev.msg.size ? json_loadb((const char *)ev.msg.payload, ev.msg.size - 1, 0, NULL) : NULL;
            if (line)
                print_saved(o, line, &saved, &save_failures);
            continue;
        }
        if (ev.type == FPD_EVENT_MESSAGE && ev.msg.type != FPD_MSG_ANSWER)
            continue;
        bool lost = ev.type == FPD_EVENT_LOST; /* the check crashed or hung its worker: an `error` finding */
        struct fpd_check_answer answer;
        if (!lost)
            fpd_check_answer_read(&ev.msg, &answer);
        if (!lost && answer.skipped) {
            report_skipped(&run.cp, ev.msg.index, o->json, st.skipped++ == 0);
            continue;
        }
        uint32_t index = lost ? ev.index : ev.msg.index;
        /* Planning the whole check again costs about what a small check's data does: only a check
         * that is reported, saved or listed needs it; the summary needs its combination alone. */
        struct fpd_check chk;
        if (lost || answer.res.verdict != FPD_SAME || o->json || ci_wanted)
            fpd_campaign_plan(&run.cp, index, &chk);
        struct fpd_check_result res;
        if (lost) {
            fpd_check_result_died(&chk, ev.reason, &res);
        } else {
            res = answer.res;
            gemm_ticks += answer.gemm_ticks;
        }
        int added = fpd_stats_add(&st, &run.cp, fpd_campaign_combo(&run.cp, index), &res);
        if (added < 0) {
            fpd_cli_error("fuzz", "internal error: out of memory");
            exit_code = FPD_EXIT_INTERNAL;
            break;
        }
        bool fails = fpd_fails_policy(res.verdict, o->fail_on);
        if (fails)
            failed++;
        if (ci_wanted && ci_record(&ci, &chk, &res, fails) != FPD_OK) {
            fpd_cli_error("fuzz", "internal error: out of memory");
            exit_code = FPD_EXIT_INTERNAL;
            break;
        }
        if (res.verdict != FPD_SAME && o->corpus) {
            struct fpd_signature_key key;
            fpd_signature_of(&chk, res.verdict, &key);
            struct corpus_entry *e = corpus_entry(&run.corpus, &key);
            if (e && e->files)
                run.corpus.known++;
        }
        if (o->json)
            print_json(fpd_check_json(&chk, &res));
        else if (added == 1)
            print_finding(&chk, &res);
        if (ev.type == FPD_EVENT_LOST && o->corpus) { /* the parent saves it: the worker is gone */
            json_t *line;
            if (save_finding(&run, &chk, &res, &line) == FPD_OK && line)
                print_saved(o, line, &saved, &save_failures);
        }
        progress_show(&prog, &st, false);
    }
    if (pool.cut_short)
        fprintf(stderr, "fpdiv fuzz: %zu check%s still running %.0f s after --time ran out %s stopped unfinished\n",
                pool.cut_short, pool.cut_short == 1 ? "" : "s", FPD_POOL_OVERRUN, pool.cut_short == 1 ? "was" : "were");
    fpd_pool_free(&pool);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    progress_show(&prog, &st, true);
    double seconds = fpd_now() - prog.start;
    uint64_t ticks = fpd_ticks() - start_ticks; /* the whole campaign measures the rate of ticks */
    double gemm_seconds = ticks > 0 ? (double)gemm_ticks * (seconds / (double)ticks) : 0;
    if (o->json)
        print_json(summary_json(&run.cp, &st, seconds, failed, gemm_seconds, saved, save_failures));
    else
        print_summary(&run.cp, &st, seconds, o->fail_on, failed, gemm_seconds);
    if (o->corpus && !o->json)
        printf("corpus %s: %zu new case%s saved; %zu finding%s of signatures it already had%s\n", o->corpus, saved,
               saved == 1 ? "" : "s", run.corpus.known, run.corpus.known == 1 ? "" : "s",
               save_failures ? "; SOME FINDINGS COULD NOT BE SAVED (see above)" : "");
    if (save_failures) {
        fpd_cli_error("fuzz", "%zu finding%s could not be saved in %s", save_failures, save_failures == 1 ? "" : "s",
                      o->corpus);
        exit_code = FPD_EXIT_INTERNAL;
    }
    if (stopping && !o->json)
        printf("stopped early by an interrupt: %zu checks ran\n", st.checks);
    if (o->junit && fpd_ci_write_junit(&ci, o->junit, seconds, why, sizeof why) != FPD_OK) {
        fpd_cli_error("fuzz", "%s", why);
        exit_code = FPD_EXIT_USAGE;
    }
    if (fpd_ci_github()) {
        fpd_ci_github_annotate(&ci, stdout);
        char headline[160];
        snprintf(headline, sizeof headline, "fpdiv fuzz, seed %" PRIu64 ": %zu checks, %zu failed", cfg.seed, st.checks,
                 failed);
        if (fpd_ci_github_summary(&ci, headline, why, sizeof why) != FPD_OK)
            fpd_cli_error("fuzz", "%s", why);
    }
    fpd_ci_free(&ci);
    free(run.corpus.entries);
    bool tested_nothing = st.checks == 0 && st.skipped > 0;
    fpd_stats_free(&st);
    fpd_campaign_free(&run.cp);
    if (exit_code != FPD_EXIT_OK)
        return exit_code;
    if (tested_nothing) { /* a budget that lets nothing run is a usage error, not a pass */
        fpd_cli_error("fuzz", "every check was over the --max-mem budget: nothing was tested");
        return FPD_EXIT_USAGE;
    }
    return failed ? FPD_EXIT_FINDINGS : FPD_EXIT_OK;
}
