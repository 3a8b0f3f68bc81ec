/* cmd_fuzz.c — `fpdiv fuzz`: a campaign of random checks. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends/backend_pinned.h"
#include "cli/cli_case.h"
#include "cli/cmd.h"
#include "common/dtype.h"
#include "engine/campaign_worker.h"
#include "engine/shard.h"
#include "report/check_report.h"
#include "report/fuzz_report.h"
#include "store/corpus_dir.h"

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
    "  --backends L        comma list (default: every available backend but the frameworks, numpy,\n"
    "                      torch, torch-compile and jax, which run when named); B@SET runs library B on\n"
    "                      its kernel set SET, B alone on the one it picks here\n"
    "  --core L            comma list of kernel sets (OpenBLAS's cores): each library backend runs\n"
    "                      on each, and the core relation pairs them. Default: the one it picks here,\n"
    "                      and for the core relation every other one this CPU runs\n"
    "  --dtypes L          comma list of IN[:OUT[:ACC]] (default f64,f32,f16,bf16)\n"
    "  --dists L           comma list (default normal,uniform,wide,int)\n"
    "  --max-dim D         largest m, n, k (default 256; without it, one case in 64 has a\n"
    "                      shape past it: k at block sizes up to 2^16, sums of 2^21 and 2^22\n"
    "                      terms, 2^21 output rows, within --max-mem). Whatever D, one case in 64\n"
    "                      is the empty product, k = 0, where its relation takes one\n"
    "  --specials P        probability of a special value (±0, ±Inf, NaN, subnormal, the smallest\n"
    "                      normal) per element of every case. Without it, one case in 8 has\n"
    "                      them, at 0.01 (from generator 5; 0: none)\n"
    "  --generator G       the data generator's version (default: the newest; an older one reruns\n"
    "                      a campaign of an older fpdiv)\n"
    "  --threads N         most threads for the threads relation (default: cores, at least 3, so\n"
    "                      that a thread's share lies between two others') and for a concurrent\n"
    "                      caller's library (default: cores, at least 2)\n"
    "  --fail-on V         exit 1 when a check is V or worse: same, reorder, improbable, bound,\n"
    "                      never (default bound: doc/concepts.md says why)\n"
    "  --max-mem SIZE      memory budget, shared by the workers (default half of RAM): a larger case\n"
    "                      has its m, n and k halved to fit; one still too large is skipped, and\n"
    "                      counted\n"
    "  --json              JSON Lines on stdout: a campaign line, one line per check (or skipped\n"
    "                      check, or one that did not apply), a summary line\n"
    "  --junit FILE        JUnit XML: a test case per relation x backends, a failure per check that\n"
    "                      fails the policy (with the command that reproduces it). When\n"
    "                      GITHUB_ACTIONS=true: ::error annotations and a table in the step summary\n"
    "  --html FILE         also write the campaign and its corpus as one self-contained HTML page,\n"
    "                      as 'fpdiv report' does (checked before the run: a directory that is\n"
    "                      missing is made, as for --junit)\n"
    "  --corpus DIR        save findings into DIR (default corpus): the first case of each new\n"
    "                      signature (relation, backends, dtypes, verdict), minimized\n"
    "  --no-corpus         save nothing\n"
    "  --max-per-signature N  cases saved per signature (default 1)\n"
    "  --no-minimize       save the raw case instead of a minimized one\n"
    "  --minimize-time SEC time cap per minimization (default 10)\n"
    "  --inline-max BYTES  cases with inputs up to this size carry them inline (default 64K, at most 1M)\n"
    "  --exact MODE        compare each path with the correctly rounded result: always; sampled\n"
    "                      (default: the checks whose paths differ, the shapes past --max-dim of up\n"
    "                      to 2^19 outputs, and one case in 8 of the rest, where both paths may be\n"
    "                      wrong alike); diverging (only the first); never\n"
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

enum { OPT_CASES = 256, OPT_TIME, OPT_RELATIONS, OPT_BACKENDS, OPT_DTYPES, OPT_DISTS, OPT_MAX_DIM, OPT_THREADS,
       OPT_FAIL_ON, OPT_JSON, OPT_CORPUS, OPT_NO_CORPUS, OPT_MAX_PER_SIG, OPT_NO_MINIMIZE, OPT_MINIMIZE_TIME,
       OPT_INLINE_MAX, OPT_JOBS, OPT_SHARD, OPT_SHARD_COUNT, OPT_JUNIT, OPT_HTML };

/* fuzz's own; fpd_shared_options (cli_case.h) add --seed, --specials, --generator, --max-mem, --exact,
 * --timeout and --core */
static const struct option own_options[] = {
    {"cases", required_argument, NULL, OPT_CASES},       {"time", required_argument, NULL, OPT_TIME},
    {"relations", required_argument, NULL, OPT_RELATIONS}, {"backends", required_argument, NULL, OPT_BACKENDS},
    {"dtypes", required_argument, NULL, OPT_DTYPES},     {"dists", required_argument, NULL, OPT_DISTS},
    {"max-dim", required_argument, NULL, OPT_MAX_DIM},   {"threads", required_argument, NULL, OPT_THREADS},
    {"fail-on", required_argument, NULL, OPT_FAIL_ON},   {"json", no_argument, NULL, OPT_JSON},
    {"corpus", required_argument, NULL, OPT_CORPUS},     {"no-corpus", no_argument, NULL, OPT_NO_CORPUS},
    {"max-per-signature", required_argument, NULL, OPT_MAX_PER_SIG},
    {"no-minimize", no_argument, NULL, OPT_NO_MINIMIZE}, {"minimize-time", required_argument, NULL, OPT_MINIMIZE_TIME},
    {"inline-max", required_argument, NULL, OPT_INLINE_MAX}, {"jobs", required_argument, NULL, OPT_JOBS},
    {"shard", required_argument, NULL, OPT_SHARD},       {"shard-count", required_argument, NULL, OPT_SHARD_COUNT},
    {"junit", required_argument, NULL, OPT_JUNIT},       {"html", required_argument, NULL, OPT_HTML},
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
    const char *html;      /* the report page, or NULL */
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
    *cfg = (struct fpd_campaign_config){.generator = FPD_GEN_VERSION, .max_dim = 256, .reach = true, .max_mem = fpd_cli_default_max_mem(),
                                        .exact = FPD_EXACT_SAMPLED, .special_rate = FPD_SPECIALS_DRAWN};
    /* the threads relation: at least 3, so that one thread's share lies between two others' (a
     * partition's off-by-one in a middle share, seen on no 2-core machine otherwise); a concurrent
     * caller's library: 1 to the cores, as more callers than cores already oversubscribe them */
    int cores = fpd_cli_cores();
    cfg->max_threads = cores < 3 ? 3 : cores;
    cfg->caller_threads = cores < 2 ? 2 : cores;
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

/* Every backend that opens, but for test backends and frameworks, as a comma list of names.
 * Chosen only when --backends is not given: opening them all loads the CUDA plugin and its
 * libraries (0.1 s here) and makes a GPU context. A framework is named to be fuzzed: each worker
 * starts a Python server for it (seconds, for torch), and torch.compile compiles every shape anew. */
static void default_backends(char *names, size_t size)
{
    names[0] = '\0';
    size_t used = 0, n = fpd_registry_count();
    for (size_t i = 0; i < n; i++) {
        struct fpd_backend_slot *s = fpd_registry_at(i);
        if (s->impl->kind == FPD_KIND_TEST || s->impl->kind == FPD_KIND_FRAMEWORK ||
            fpd_backend_pinned_parts(s->impl, NULL, NULL) ||
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
    size_t kept = 0;
    for (size_t i = 0; i < cfg->n_backends; i++) {
        if (fpd_backend_acquire(cfg->backends[i]) == FPD_OK) {
            cfg->backends[kept++] = cfg->backends[i];
            continue;
        }
        if (given) { /* asked for by name */
            snprintf(why, why_size, "backend %s is unavailable: %s", cfg->backends[i]->impl->name,
                     cfg->backends[i]->why);
            return FPD_ERR_INPUT;
        } /* every backend, pinned by --core: a library that cannot pin that set on this CPU is left out */
        if (!fpd_cli_restarted())
            fprintf(stderr, "fpdiv: note: %s is left out: %s\n", cfg->backends[i]->impl->name, cfg->backends[i]->why);
    }
    if (!kept && cfg->n_backends) { /* only --core leaves backends out */
        snprintf(why, why_size, "--core %s: no backend runs that kernel set here", cores ? cores : "");
        return FPD_ERR_INPUT;
    }
    cfg->n_backends = kept;
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
    const struct fpd_shared_flags shared = {.seed = &cfg->seed, .special_rate = &cfg->special_rate,
                                            .generator = &cfg->generator, .max_mem = &cfg->max_mem,
                                            .exact = &cfg->exact, .timeout = &o->timeout, .cores = &cores};
    struct option options[64];
    fpd_options_merge(own_options, fpd_shared_options, options, 64);
    int opt, rc = FPD_OK;
    while (rc == FPD_OK && (opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        if (fpd_shared_flags_take(&shared, opt, optarg, &rc, why, why_size)) {
            o->seed_given |= opt == FPD_OPT_SEED;
            continue;
        }
        switch (opt) {
        case OPT_CASES:
            rc = fpd_cli_count("--cases", optarg, 1, 1ull << 32, &o->cases, why, why_size);
            cases_given = true;
            break;
        case OPT_TIME: rc = fpd_cli_double("--time", optarg, 0.001, 1e9, &o->seconds, why, why_size); break;
        case OPT_RELATIONS:
            rc = fpd_cli_relations(optarg, cfg->relations, FPD_MAX_LIST, &cfg->n_relations, why, why_size);
            break;
        case OPT_BACKENDS: backends = optarg; break;
        case OPT_DTYPES: rc = fpd_cli_dtypes(optarg, cfg->dtypes, FPD_MAX_LIST, &cfg->n_dtypes, why, why_size); break;
        case OPT_DISTS: rc = fpd_cli_dists(optarg, cfg->dists, FPD_DIST_COUNT, &cfg->n_dists, why, why_size); break;
        case OPT_MAX_DIM:
            rc = fpd_cli_count("--max-dim", optarg, 1, FPD_MAX_DIM, &u, why, why_size);
            cfg->max_dim = (uint32_t)u;
            cfg->reach = false; /* a bound the user set holds for every case */
            break;
        case OPT_THREADS:
            rc = fpd_cli_count("--threads", optarg, 2, 1024, &u, why, why_size); /* the relation: 1 against N */
            cfg->max_threads = cfg->caller_threads = (int)u;
            break;
        case OPT_FAIL_ON: rc = fpd_cli_verdict("--fail-on", optarg, true, &o->fail_on, why, why_size); break;
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
        case OPT_INLINE_MAX:
            rc = fpd_cli_bytes("--inline-max", optarg, &o->inline_max, why, why_size);
            if (rc == FPD_OK && o->inline_max > FPD_INLINE_MAX_LIMIT) {
                snprintf(why, why_size, "--inline-max '%s': at most %dM (a larger case keeps its recipe)", optarg,
                         FPD_INLINE_MAX_LIMIT >> 20);
                rc = FPD_ERR_INPUT;
            }
            break;
        case OPT_JOBS:
            rc = fpd_cli_count("--jobs", optarg, 1, 64, &o->jobs, why, why_size);
            break;
        case OPT_SHARD: o->shard = optarg; break;
        case OPT_JUNIT: o->junit = optarg; break;
        case OPT_HTML: o->html = optarg; break;
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

/* --shard I/N, or the scheduler's variables. */
static int find_shard(const struct fuzz_options *o, struct fpd_shard *s, char *why, size_t why_size)
{
    if (!o->shard)
        return fpd_shard_from_environment(o->shard_count, s, why, why_size);
    char index[32] = "", msg[128];
    const char *slash = strchr(o->shard, '/');
    uint64_t i = 0, n = 0;
    if (slash && (size_t)(slash - o->shard) < sizeof index)
        memcpy(index, o->shard, (size_t)(slash - o->shard));
    if (!slash || fpd_cli_u64("--shard", index, UINT64_MAX, &i, msg, sizeof msg) != FPD_OK ||
        fpd_cli_u64("--shard", slash + 1, UINT64_MAX, &n, msg, sizeof msg) != FPD_OK || n == 0 || i >= n ||
        n > FPD_SHARD_COUNT_MAX) {
        snprintf(why, why_size, "--shard '%s': expected I/N with 0 <= I < N <= 2^32 (a campaign's case indices)",
                 o->shard);
        return FPD_ERR_INPUT;
    }
    fpd_shard_given(i, n, s);
    return FPD_OK;
}

/* Options parsed, the campaign prepared, its shard found, the corpus read: FPD_OK, -1 after
 * --help, or an error with why. */
static int set_up(int argc, char **argv, struct fpd_campaign_run *run, struct fuzz_options *o, struct fpd_shard *shard,
                  char *why, size_t why_size)
{
    struct fpd_campaign_config cfg;
    set_defaults(&cfg);
    *o = (struct fuzz_options){.fail_on = FPD_BOUND, .minimize = true, .corpus = "corpus", .max_per_signature = 1,
                               .minimize_seconds = 10, .inline_max = FPD_INLINE_MAX_DEFAULT,
                               .jobs = (uint64_t)fpd_cli_cores(), .timeout = 120};
    int rc = parse(argc, argv, &cfg, o, why, why_size);
    if (rc != FPD_OK)
        return rc;
    /* every output is asked for now, not found unwritable after the run */
    if ((o->html && fpd_cli_can_write_file("--html", o->html, why, why_size) != FPD_OK) ||
        (o->junit && fpd_cli_can_write_file("--junit", o->junit, why, why_size) != FPD_OK) ||
        (o->corpus && fpd_cli_can_write_dir("--corpus", o->corpus, why, why_size) != FPD_OK))
        return FPD_ERR_INPUT;
    /* every worker gets its share of the memory budget and a single-threaded BLAS, so that any
     * number of workers runs exactly the same checks (a BLAS's results can depend on its threads) */
    cfg.max_mem /= (double)o->jobs;
    cfg.default_threads = 1;
    /* hashes are read by --json's lines and by a finding saved as found; a minimized finding is
     * checked once more, hashed, by the minimizer */
    cfg.unhashed = !o->json && (!o->corpus || o->minimize);
    cfg.jobs = (unsigned)o->jobs;
    if ((rc = fpd_campaign_prepare(&run->cp, &cfg, why, why_size)) != FPD_OK ||
        (rc = find_shard(o, shard, why, why_size)) != FPD_OK)
        return rc;
    run->saving = (struct fpd_saving){.corpus = o->corpus, .minimize = o->minimize,
                                      .minimize_seconds = o->minimize_seconds, .inline_max = o->inline_max};
    if (o->corpus) {
        if (fpd_corpus_index_load(&run->corpus, o->corpus, (size_t)o->max_per_signature, why, why_size) != FPD_OK)
            return FPD_ERR_INPUT;
        fpd_corpus_clean_stale(o->corpus);
    }
    return FPD_OK;
}

static volatile sig_atomic_t interrupts;
static long long first_interrupt_ns; /* the handler's own */

/* Counts a request to stop. timeout(1) signals the command and then its whole process group, and
 * a process group's signal reaches a shell's job the same way: one request can arrive twice,
 * microseconds apart. A second signal within SAME_REQUEST_NS of the first is that same request;
 * a person's second Ctrl-C comes later. */
#define SAME_REQUEST_NS 250000000LL
static void on_interrupt(int sig)
{
    (void)sig;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now); /* async-signal-safe */
    long long ns = (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
    if (interrupts == 1 && ns - first_interrupt_ns < SAME_REQUEST_NS)
        return;
    if (interrupts == 0)
        first_interrupt_ns = ns;
    interrupts++;
}

/* A check's answer, or its loss (it crashed or hung its worker: an `error` finding), counted,
 * reported, and when lost with its finding saved here (the worker is gone). FPD_ERR_NOMEM, or
 * FPD_OK. */
static int take_answer(struct fpd_campaign_run *run, const struct fuzz_options *o, const struct fpd_pool_event *ev,
                       struct fpd_stats *st, struct fpd_fuzz_report *r, uint64_t *gemm_ticks)
{
    bool lost = ev->type == FPD_EVENT_LOST;
    struct fpd_check_answer answer;
    if (!lost)
        fpd_check_answer_read(&ev->msg, &answer);
    if (!lost && answer.skipped) {
        fpd_fuzz_report_skipped(r, ev->msg.index, st->skipped++ == 0);
        return FPD_OK;
    }
    if (!lost && answer.res.not_applicable) {
        fpd_fuzz_report_not_applicable(r, ev->msg.index, &answer.res, st->not_applicable++ == 0);
        return FPD_OK;
    }
    uint32_t index = lost ? ev->index : ev->msg.index;
    /* Planning the whole check again costs about what a small check's data does: only a check
     * that is reported, saved or listed needs it; the summary needs its combination alone. */
    struct fpd_check chk;
    if (lost || answer.res.verdict != FPD_SAME || o->json || r->ci_wanted)
        fpd_campaign_plan(&run->cp, index, &chk);
    struct fpd_check_result res;
    double seconds = 0, ticks = 0; /* a lost check's time is the pool's, an answer's the worker's */
    if (lost) {
        fpd_check_result_died(&chk, ev->reason, &res);
        seconds = ev->seconds;
    } else {
        res = answer.res;
        ticks = answer.ticks;
        *gemm_ticks += answer.gemm_ticks;
    }
    int added = fpd_stats_add(st, &run->cp, fpd_campaign_combo(&run->cp, index), &res);
    if (lost)
        fpd_stats_add_case(st, &run->cp, index, chk.c.m, chk.c.n, chk.c.k);
    else
        fpd_stats_add_case(st, &run->cp, index, answer.m, answer.n, answer.k);
    if (added < 0 || fpd_fuzz_report_check(r, &chk, &res, seconds, ticks, added == 1) != FPD_OK)
        return FPD_ERR_NOMEM;
    if (res.verdict != FPD_SAME && o->corpus) {
        struct fpd_signature_key key;
        fpd_signature_of(&chk, res.verdict, &key);
        struct fpd_corpus_index_entry *e = fpd_corpus_index_entry(&run->corpus, &key);
        if (e && e->files)
            run->corpus.known++;
    }
    if (lost && o->corpus) {
        json_t *line;
        if (fpd_campaign_save_finding(run, &chk, &res, &line) == FPD_OK && line)
            fpd_fuzz_report_saved(r, line);
    }
    return FPD_OK;
}

/* The exit status of a campaign stopped at once by a second interrupt, as a shell's for SIGINT. */
enum { EXIT_STOPPED_AT_ONCE = 128 + SIGINT };

/* The workers' events until they are done, or an interrupt: the first lets the checks under way
 * finish, a second stops at once (the checks under way are not counted; the summary and the
 * reports of the others are still written). FPD_EXIT_OK, EXIT_STOPPED_AT_ONCE, or
 * FPD_EXIT_INTERNAL. */
static int run_pool(struct fpd_campaign_run *run, const struct fuzz_options *o, struct fpd_pool *pool,
                    struct fpd_stats *st, struct fpd_fuzz_report *r, uint64_t *gemm_ticks, bool *stopping)
{
    for (;;) {
        if (interrupts >= 2) { /* a second Ctrl-C: now */
            fpd_pool_kill(pool);
            *stopping = true;
            fprintf(stderr, "\nfpdiv fuzz: interrupted twice; stopped at once (the checks under way are not counted)\n");
            return EXIT_STOPPED_AT_ONCE;
        }
        if (interrupts == 1 && !*stopping) {
            *stopping = true;
            fflush(stdout);
            fprintf(stderr, "\nfpdiv fuzz: interrupted; finishing the checks under way (Ctrl-C again to stop now)\n");
            fpd_pool_stop(pool);
        }
        struct fpd_pool_event ev;
        if (fpd_pool_next(pool, 0.1, &ev) != FPD_OK) {
            fpd_console_error("fuzz", "internal error: a worker could not be replaced");
            return FPD_EXIT_INTERNAL;
        }
        if (ev.type == FPD_EVENT_DONE)
            return FPD_EXIT_OK;
        if (ev.type == FPD_EVENT_MESSAGE && ev.msg.type == FPD_MSG_NOTE) {
            /* a saved case's line, with its terminating zero */
            json_t *line = ev.msg.size ? json_loadb((const char *)ev.msg.payload, ev.msg.size - 1, 0, NULL) : NULL;
            if (line)
                fpd_fuzz_report_saved(r, line);
        } else if (ev.type == FPD_EVENT_LOST || (ev.type == FPD_EVENT_MESSAGE && ev.msg.type == FPD_MSG_ANSWER)) {
            if (take_answer(run, o, &ev, st, r, gemm_ticks) != FPD_OK) {
                fpd_console_error("fuzz", "internal error: out of memory");
                return FPD_EXIT_INTERNAL;
            }
        }
        fpd_fuzz_report_progress(r, st, false);
    }
}

int fpd_cmd_fuzz(int argc, char **argv)
{
    static struct fpd_campaign_run run; /* inherited by every worker */
    struct fuzz_options o;
    struct fpd_shard shard;
    char why[512];
    /* from the start: setting up (libraries probed, kernel sets surveyed) takes a second or more,
     * and a Ctrl-C then must still stop the campaign, with its summary (a shell's background job
     * would otherwise ignore it until the handler came) */
    struct sigaction sa = {.sa_handler = on_interrupt}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    int rc = set_up(argc, argv, &run, &o, &shard, why, sizeof why);
    if (rc != FPD_OK) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        if (rc < 0)
            return FPD_EXIT_OK;
        fpd_console_error("fuzz", "%s", why);
        return rc == FPD_ERR_NOMEM ? FPD_EXIT_INTERNAL : FPD_EXIT_USAGE;
    }
    /* the options that rerun this campaign's cases: an older generator must be named */
    char rerun[80], generator[32];
    snprintf(rerun, sizeof rerun, "--seed %" PRIu64 "%s", run.cp.cfg.seed,
             fpd_generator_option(run.cp.cfg.generator, generator));
    struct fpd_fuzz_report r = {.json = o.json, .corpus = o.corpus, .fail_on = o.fail_on, .junit = o.junit,
                                .html = o.html, .ci_wanted = o.junit || fpd_ci_github()};
    fpd_fuzz_report_start(&r, &run.cp, &shard, rerun);
    struct fpd_stats st = {0};
    uint64_t gemm_ticks = 0;
    bool stopping = false;
    int exit_code;
    struct fpd_pool pool;
    double deadline = o.seconds > 0 ? r.start + o.seconds : 0;
    uint64_t end = o.cases < (1ull << 32) ? o.cases : (1ull << 32);
    if (fpd_pool_start(&pool, (unsigned)o.jobs, shard.index, shard.count, end, deadline, o.timeout, fpd_campaign_work,
                       &run) != FPD_OK) {
        fpd_console_error("fuzz", "cannot start the worker processes: %s", strerror(errno));
        exit_code = FPD_EXIT_INTERNAL;
    } else {
        exit_code = run_pool(&run, &o, &pool, &st, &r, &gemm_ticks, &stopping);
        if (pool.cut_short)
            fpd_console_error("fuzz", "%zu check%s still running %.0f s after --time ran out %s stopped unfinished",
                          pool.cut_short, pool.cut_short == 1 ? "" : "s", FPD_POOL_OVERRUN,
                          pool.cut_short == 1 ? "was" : "were");
        fpd_pool_free(&pool);
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    int reported = fpd_fuzz_report_finish(&r, &st, gemm_ticks, run.corpus.known, stopping);
    if (exit_code == FPD_EXIT_OK || (exit_code == EXIT_STOPPED_AT_ONCE && reported != FPD_EXIT_OK))
        exit_code = reported;
    fpd_fuzz_report_free(&r);
    fpd_corpus_index_free(&run.corpus);
    bool tested_nothing = st.checks == 0 && (st.skipped > 0 || st.not_applicable > 0);
    const char *why_nothing = st.not_applicable == 0 ? "every check was over the --max-mem budget"
                              : st.skipped == 0      ? "no check applied"
                                                     : "every check was over the --max-mem budget or did not apply";
    fpd_stats_free(&st);
    fpd_campaign_free(&run.cp);
    if (exit_code != FPD_EXIT_OK)
        return exit_code;
    if (tested_nothing) { /* a budget that lets nothing run is a usage error, not a pass */
        fpd_console_error("fuzz", "%s: nothing was tested", why_nothing);
        return FPD_EXIT_USAGE;
    }
    return r.failed ? FPD_EXIT_FINDINGS : FPD_EXIT_OK;
}
