/*
 * bench_structured — the probabilistic tier (improbable) on structured data, where rounding errors
 * are not random (issue 51): every family of gen/structured.h, in f64, f32, bf16 and f16 inputs, at
 * k = 1024 to 65536, on every pair of a backend with seq and with pairwise (fpdiv's own kernels,
 * each library on every kernel set this CPU runs, the frameworks), every pair of the libraries and
 * frameworks as they run here, and every relation of each library and framework that applies. Every check there compares legitimate orders: an
 * `improbable` (or worse) is a false alarm, listed with what it was. Then the true positives, which
 * must stay `improbable` or `bound`: cast-out to bf16 and f16, a planted loss of a part in 1024 in
 * every element, and an order that truncates while it declares round-to-nearest
 * (tests/plugins/lossy.c), on random data at every k, and, for the record, on the structured
 * families. With --size S (S x S outputs, not 4 x 4) the aggregate test (aggregate.h) has elements
 * enough to see partial sums two and three bits short (lossy.c's narrow2, narrow3): true positives
 * too, and every check's largest aggregate is shown.
 *
 * Usage: FPDIV=build/fpdiv bench_structured [--size S] [KS, default 1024,4096,16384,65536]
 * Exits 1 on a false alarm or a missed true positive on random data.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/backend_pinned.h"
#include "backends/builtin.h"
#include "backends/host.h"
#include "backends/plugin.h"
#include "common/dtype.h"
#include "engine/check.h"
#include "gen/gen.h"
#include "gen/structured.h"

enum { MAX_LIST = 128, MAX_CHECKS = 1024 };
static uint32_t M = 4, N = 4; /* the outputs' shape: --size */

static const char *const dtypes[] = {"f64", "f32", "bf16", "f16"};
/* the relations of one library or framework that compare two of its own legitimate orders */
static const char *const own_relations[] = {"slice-rows", "slice-cols", "addmm",     "layout", "repeat",
                                            "threads",    "gemv-rows",  "gemv-cols", "dot",    "cast-in",
                                            "vmap"};

/* A check to run on every data set: a relation on one backend or a pair. */
struct job {
    const char *relation;
    struct fpd_backend_slot *b0, *b1;
};

struct tally {
    size_t checks, by_verdict[FPD_VERDICT_COUNT];
    size_t aggregates; /* paths the aggregate test was taken on */
    double largest_aggregate;
    char largest_where[160]; /* the check that gave it */
};

static struct fpd_backend_slot *resolve(const char *name)
{
    struct fpd_backend_slot *s;
    char why[512];
    return fpd_backend_resolve(name, &s, why, sizeof why) == FPD_OK && fpd_backend_acquire(s) == FPD_OK ? s : NULL;
}

/* One check of `relation` on b0 (and b1), on data (structured, or NULL: generated, dist) of dtype at
 * 4 x 4 x k; false when it does not apply there. */
static bool run(struct fpd_checker *ck, const char *relation, struct fpd_backend_slot *b0, struct fpd_backend_slot *b1,
                const struct fpd_dtypes *dt, uint32_t k, const struct fpd_case_data *data, enum fpd_dist dist,
                struct fpd_check_result *res)
{
    struct fpd_check chk = {.relation = fpd_relation_find(relation), .backends = {b0, b1},
                            .params = {.slice = {0, 1}, .threads = 2, .algo = 1}, .default_threads = 1,
                            .exact = FPD_EXACT_DIVERGING};
    const struct fpd_backend *impls[2] = {b0->impl, b1 ? b1->impl : NULL};
    char why[512];
    if (!chk.relation || !fpd_relation_applies(chk.relation, dt, impls, why, sizeof why) ||
        !fpd_backend_supports(b0, dt, why, sizeof why) || (b1 && !fpd_backend_supports(b1, dt, why, sizeof why)))
        return false;
    fpd_case_defaults(&chk.c);
    chk.c.m = M, chk.c.n = N, chk.c.k = k, chk.c.dt = *dt, chk.c.data = data;
    chk.c.recipe.dist = dist, chk.c.recipe.seed = 51, chk.c.recipe.index = k;
    fpd_relation_prepare_case(chk.relation, &chk.c);
    if (fpd_relation_check_params(chk.relation, &chk.c, &chk.params, why, sizeof why) != FPD_OK ||
        fpd_check_run(ck, &chk, res) != FPD_OK)
        return false;
    return !res->not_applicable && res->verdict != FPD_ERROR;
}

static void count(struct tally *t, const struct fpd_check_result *res)
{
    t->checks++;
    t->by_verdict[res->verdict]++;
    for (int w = 0; w < 2; w++)
        if (res->exact.aggregate[w] > 0) {
            t->aggregates++;
            t->largest_aggregate = res->exact.aggregate[w] > t->largest_aggregate ? res->exact.aggregate[w]
                                                                                   : t->largest_aggregate;
        }
}

/* The backends a legitimate campaign pairs: fpdiv's own, each library on every kernel set this CPU
 * runs, the frameworks that start here. `natives`: each library and framework once, for its own
 * relations. */
static size_t backends(struct fpd_backend_slot **list, struct fpd_backend_slot **natives, size_t *n_natives)
{
    static const char *const own[] = {"seq", "pairwise", "blocked", "splitk"};
    static const char *const libraries[] = {"openblas", "blis", "mkl", "refblas", "numpy", "torch", "jax"};
    size_t n = 0;
    *n_natives = 0;
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        list[n++] = resolve(own[i]);
    for (size_t i = 0; i < sizeof libraries / sizeof libraries[0]; i++) {
        struct fpd_backend_slot *base = resolve(libraries[i]), *plain;
        if (!base)
            continue;
        natives[(*n_natives)++] = base;
        if (!fpd_backend_pinned_parts(base->impl, &plain, NULL)) {
            list[n++] = base;
            continue;
        }
        struct fpd_kernel_set_report sets[64];
        size_t n_sets = fpd_kernel_sets_survey(plain, sets, 64);
        for (size_t s = 0; s < n_sets && n < MAX_LIST; s++)
            if (sets[s].runs)
                list[n++] = sets[s].slot;
    }
    return n;
}

int main(int argc, char **argv)
{
    uint32_t ks[8] = {1024, 4096, 16384, 65536};
    size_t n_ks = 4;
    int arg = 1;
    if (argc > arg + 1 && strcmp(argv[arg], "--size") == 0) {
        M = N = (uint32_t)strtoul(argv[arg + 1], NULL, 10);
        arg += 2;
    }
    if (M < 1 || M > 256) {
        fprintf(stderr, "bench_structured: --size takes 1 to 256\n");
        return 2;
    }
    if (argc > arg) {
        n_ks = 0;
        for (char *p = argv[arg], *item; n_ks < 8 && (item = strsep(&p, ",")) != NULL;)
            ks[n_ks++] = (uint32_t)strtoul(item, NULL, 10);
    }
    const char *fpdiv = getenv("FPDIV") ? getenv("FPDIV") : "build/fpdiv", *slash = strrchr(fpdiv, '/');
    char plugin[4096], why[512];
    snprintf(plugin, sizeof plugin, "%.*s/plugins/lossy.so", slash ? (int)(slash - fpdiv) : 1, slash ? fpdiv : ".");
    fpd_registry_init();
    fpd_host_set_program(fpdiv);
    if (fpd_plugin_load(plugin, why, sizeof why) != FPD_OK || fpd_host_add_global_option("--plugin", plugin) != FPD_OK) {
        fprintf(stderr, "bench_structured: %s (make builds it with the tests)\n", why);
        return 1;
    }
    struct fpd_backend_slot *list[MAX_LIST], *natives[16];
    size_t n_natives, n = backends(list, natives, &n_natives);
    struct fpd_backend_slot *seq = list[0], *pairwise = list[1];
    /* the checks: each backend against seq and pairwise, the libraries and frameworks against each
     * other, and each one's own relations */
    static struct job jobs[MAX_CHECKS];
    size_t n_jobs = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t o = 0; o < 2; o++)
            if (list[i] != (o ? pairwise : seq) && !(o == 0 && list[i] == pairwise))
                jobs[n_jobs++] = (struct job){"vendor", o ? pairwise : seq, list[i]};
    for (size_t i = 0; i < n_natives; i++)
        for (size_t j = i + 1; j < n_natives; j++)
            jobs[n_jobs++] = (struct job){"vendor", natives[i], natives[j]};
    for (size_t i = 0; i < n_natives; i++)
        for (size_t r = 0; r < sizeof own_relations / sizeof own_relations[0]; r++)
            jobs[n_jobs++] = (struct job){own_relations[r], natives[i], NULL};
    printf("structured data, %u x %u x k, k in", M, N);
    for (size_t i = 0; i < n_ks; i++)
        printf(" %u", ks[i]);
    printf(": %zu backends paired with seq and pairwise:", n);
    for (size_t i = 0; i < n; i++)
        printf(" %s", list[i]->impl->name);
    printf("\n\n%-14s %8s %8s %8s %10s %8s %10s %8s\n", "family", "checks", "same", "reorder", "improbable", "worse",
           "aggregate", "largest");

    struct fpd_checker ck = {0};
    struct fpd_check_result res;
    struct tally all = {0};
    size_t false_alarms = 0;
    for (int f = 0; f < FPD_STRUCTURE_COUNT; f++) {
        struct tally t = {0};
        for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
            for (size_t ki = 0; ki < n_ks; ki++) {
                struct fpd_dtypes dt;
                fpd_dtypes_parse(dtypes[d], &dt, why, sizeof why);
                struct fpd_case_data data;
                if (fpd_structured_data((enum fpd_structure)f, &dt, M, N, ks[ki], 51 + ki, &data) != FPD_OK)
                    return 3;
                for (size_t i = 0; i < n_jobs; i++) {
                    const char *relation = jobs[i].relation;
                    struct fpd_backend_slot *b0 = jobs[i].b0, *b1 = jobs[i].b1;
                    if (!run(&ck, relation, b0, b1, &dt, ks[ki], &data, FPD_DIST_NORMAL, &res))
                        continue;
                    double before = t.largest_aggregate;
                    count(&t, &res);
                    if (t.largest_aggregate > before) { /* which path, and against which level */
                        int w = res.exact.aggregate[1] > res.exact.aggregate[0];
                        snprintf(t.largest_where, sizeof t.largest_where, "%s on %s%s%s, %s, k %u: path %c, %s",
                                 relation, b0->impl->name, b1 ? "," : "", b1 ? b1->impl->name : "", dtypes[d], ks[ki],
                                 "AB"[w], res.exact.aggregate_by_orders[w] ? "the orders' level" : "the threshold");
                    }
                    if (res.verdict >= FPD_IMPROBABLE) {
                        false_alarms++;
                        printf("  FALSE ALARM %s: %s on %s%s%s, %s, k %u: %s, %.3g of the bound, %.3g of the "
                               "threshold, aggregates %.3g and %.3g\n",
                               fpd_structure_names[f], relation, b0->impl->name, b1 ? "," : "", b1 ? b1->impl->name : "",
                               dtypes[d], ks[ki], fpd_verdict_table[res.verdict].name, res.metrics.ratio,
                               res.probable_ratio, res.exact.aggregate[0], res.exact.aggregate[1]);
                    }
                }
                fpd_case_data_free(&data);
            }
        printf("%-14s %8zu %8zu %8zu %10zu %8zu %10zu %8.3g\n", fpd_structure_names[f], t.checks,
               t.by_verdict[FPD_SAME], t.by_verdict[FPD_REORDER], t.by_verdict[FPD_IMPROBABLE],
               t.by_verdict[FPD_BOUND] + t.by_verdict[FPD_NONFINITE] + t.by_verdict[FPD_ERROR], t.aggregates,
               t.largest_aggregate);
        if (t.largest_aggregate > 0)
            printf("    largest aggregate: %s\n", t.largest_where);
        all.checks += t.checks;
        all.aggregates += t.aggregates;
        all.largest_aggregate = t.largest_aggregate > all.largest_aggregate ? t.largest_aggregate : all.largest_aggregate;
        for (int v = 0; v < FPD_VERDICT_COUNT; v++)
            all.by_verdict[v] += t.by_verdict[v];
        fflush(stdout);
    }
    printf("%-14s %8zu %8zu %8zu %10zu %8zu %10zu %8.3g\n\n", "all", all.checks, all.by_verdict[FPD_SAME],
           all.by_verdict[FPD_REORDER], all.by_verdict[FPD_IMPROBABLE],
           all.by_verdict[FPD_BOUND] + all.by_verdict[FPD_NONFINITE] + all.by_verdict[FPD_ERROR], all.aggregates,
           all.largest_aggregate);

    /* true positives: on random data every one must be seen; on structured data, for the record
     * (constant data summed in order lose as much as a bf16 output's rounding at large k) */
    static const struct {
        const char *relation, *backend, *dtype;
        uint32_t elements; /* the outputs it takes to be seen: the aggregate test's, for a little lost on each */
    } positives[] = {
        {"cast-out", "seq", "bf16", 1},  {"cast-out", "seq", "f16", 1},    {"vendor", "truncating", "f32", 1},
        {"vendor", "lossy", "f32", 1},   {"vendor", "lossy", "f64", 1},    {"vendor", "narrow2", "f32", 1024},
        {"vendor", "narrow2", "f64", 1024}, {"vendor", "narrow3", "f32", 64}, {"vendor", "narrow3", "f64", 64},
    };
    printf("%-28s %16s %22s\n", "true positive", "random data seen", "structured data seen");
    size_t missed = 0;
    for (size_t p = 0; p < sizeof positives / sizeof positives[0]; p++) {
        if (M * N < positives[p].elements)
            continue;
        struct fpd_backend_slot *b = resolve(positives[p].backend);
        struct fpd_dtypes dt;
        fpd_dtypes_parse(positives[p].dtype, &dt, why, sizeof why);
        bool pair = strcmp(positives[p].relation, "vendor") == 0;
        size_t random_seen = 0, random_all = 0, structured_seen = 0, structured_all = 0;
        for (size_t ki = 0; b && ki < n_ks; ki++) {
            static const enum fpd_dist dists[] = {FPD_DIST_NORMAL, FPD_DIST_UNIFORM};
            for (size_t d = 0; d < 2; d++)
                if (run(&ck, positives[p].relation, pair ? seq : b, pair ? b : NULL, &dt, ks[ki], NULL, dists[d], &res)) {
                    random_all++;
                    random_seen += res.verdict >= FPD_IMPROBABLE;
                }
            for (int f = 0; f < FPD_STRUCTURE_COUNT; f++) {
                struct fpd_case_data data;
                if (fpd_structured_data((enum fpd_structure)f, &dt, M, N, ks[ki], 51 + ki, &data) != FPD_OK)
                    return 3;
                if (run(&ck, positives[p].relation, pair ? seq : b, pair ? b : NULL, &dt, ks[ki], &data,
                        FPD_DIST_NORMAL, &res) &&
                    res.verdict != FPD_SAME) {
                    structured_all++;
                    structured_seen += res.verdict >= FPD_IMPROBABLE;
                }
                fpd_case_data_free(&data);
            }
        }
        char label[64];
        snprintf(label, sizeof label, "%s on %s, %s", positives[p].relation, positives[p].backend, positives[p].dtype);
        printf("%-28s %10zu of %-3zu %16zu of %-3zu\n", label, random_seen, random_all, structured_seen, structured_all);
        missed += random_all - random_seen + (random_all == 0);
    }
    fpd_checker_free(&ck);
    fpd_registry_close_all();
    printf("\n%zu false alarms in %zu checks of legitimate orders; %zu true positives on random data missed\n",
           false_alarms, all.checks, missed);
    return false_alarms || missed ? 1 : 0;
}
