/* campaign.c — planning checks from a seed, and counting what they found. */
#include "engine/campaign.h"
#include "engine/reach.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/dtype.h"
#include "common/isolate.h"

static int add_combo(struct fpd_campaign *cp, size_t *cap, struct fpd_combo combo)
{
    if (!FPD_ARRAY_RESERVE(cp->combos, *cap, cp->n_combos + 1))
        return FPD_ERR_NOMEM;
    cp->combos[cp->n_combos++] = combo;
    return FPD_OK;
}

static bool usable(struct fpd_backend_slot *s, const struct fpd_dtypes *dt)
{
    char why[256];
    return fpd_backend_supports(s, dt, why, sizeof why);
}

struct route_probe {
    struct fpd_backend_slot *slot;
    struct fpd_gemm_args g;
};

static int probe_route(void *ctx)
{
    struct route_probe *p = ctx;
    char why[256];
    fpd_stdout_to_stderr();
    return fpd_backend_gemm(p->slot, &p->g, why, sizeof why) == FPD_ERR_NOT_APPLICABLE;
}

/* Whether the backend's library has the routine of the relation's route, for these types: a
 * 1 x 1 x 1 GEMM by it, in a process of its own (a library's fault costs that process), does not
 * come back FPD_ERR_NOT_APPLICABLE. Otherwise every check the campaign drew there would not apply. */
static bool has_route(struct fpd_backend_slot *s, const struct fpd_relation *rel, const struct fpd_dtypes *dt)
{
    if (!rel->route_optional)
        return true;
    double a[1] = {1}, b[1] = {1}, c[2] = {0}; /* room for the widest type */
    struct route_probe p = {s, {.dt = *dt, .batch = 1, .m = 1, .n = 1, .k = 1, .a = a, .lda = 1, .stride_a = 1,
                                .b = b, .ldb = 1, .stride_b = 1, .c = c, .ldc = 1, .stride_c = 1, .route = rel->route}};
    fpd_store(dt->in, a, 0, 1.0), fpd_store(dt->in, b, 0, 1.0);
    char why[256];
    return fpd_run_isolated(probe_route, &p, 60, why, sizeof why) == 0;
}

int fpd_campaign_prepare(struct fpd_campaign *cp, const struct fpd_campaign_config *cfg, char *why, size_t why_size)
{
    *cp = (struct fpd_campaign){.cfg = *cfg};
    size_t cap = 0;
    for (size_t r = 0; r < cfg->n_relations; r++) {
        const struct fpd_relation *rel = cfg->relations[r];
        cp->first[r] = cp->n_combos;
        for (size_t d = 0; d < cfg->n_dtypes; d++) {
            const struct fpd_dtypes *dt = &cfg->dtypes[d];
            for (size_t i = 0; i < cfg->n_backends; i++) {
                /* a pair of kernel sets once, the earlier in the list first: the one the library
                 * picks here, or the first --core names */
                size_t first_j = rel->pairing == FPD_PAIR_KERNEL_SETS ? i + 1 : 0;
                for (size_t j = first_j; j < (rel->backends == 2 ? cfg->n_backends : 1); j++) {
                    struct fpd_backend_slot *b0 = cfg->backends[i], *b1 = cfg->backends[j];
                    /* a backend only there for the core relation runs in no other, and is paired
                     * only with one that is not (the kernel set the library picks here) */
                    bool extra0 = cfg->core_only[i], extra1 = rel->backends == 2 && cfg->core_only[j];
                    if (rel->pairing == FPD_PAIR_KERNEL_SETS ? extra0 && extra1 : extra0 || extra1)
                        continue;
                    const struct fpd_backend *impls[2] = {b0->impl, rel->backends == 2 ? b1->impl : NULL};
                    char ignored[256];
                    if (!usable(b0, dt) || (rel->backends == 2 && (!fpd_relation_pair_wanted(rel, b0->impl, b1->impl) || !usable(b1, dt))))
                        continue;
                    if (!fpd_relation_applies(rel, dt, impls, ignored, sizeof ignored) || !has_route(b0, rel, dt))
                        continue;
                    struct fpd_combo combo = {(uint16_t)r, (uint16_t)d,
                                              {(uint16_t)i, rel->backends == 2 ? (uint16_t)j : UINT16_MAX}};
                    if (add_combo(cp, &cap, combo) != FPD_OK) {
                        snprintf(why, why_size, "out of memory");
                        return FPD_ERR_NOMEM;
                    }
                }
            }
        }
        cp->count[r] = cp->n_combos - cp->first[r];
        if (cp->count[r])
            cp->live[cp->n_live++] = (uint16_t)r;
    }
    if (cp->n_live == 0) {
        snprintf(why, why_size,
                 "no relation can run with these backends and dtypes (fpdiv list shows what is available)");
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

/* The most outputs and terms (batch x m x n, times k) of a shape past --max-dim that gets the exact
 * reference always: its cost is about 2 ns a term and a tenth of a microsecond an output */
#define REACH_EXACT_OUTPUTS (1 << 19)
#define REACH_EXACT_TERMS (1 << 25)

static uint32_t pick_dim(struct fpd_stream *s, const struct fpd_relation *r, enum fpd_slice_dim dim, uint32_t hi)
{
    uint32_t lo = fpd_relation_min_dim(r, dim);
    return fpd_gen_dim(s, lo, hi < lo ? lo : hi);
}

/* The plan's first draws: which relation, then which of its combinations. */
static const struct fpd_combo *draw_combo(const struct fpd_campaign *cp, struct fpd_stream *s)
{
    uint16_t r = cp->live[fpd_stream_below(s, (uint32_t)cp->n_live)];
    return &cp->combos[cp->first[r] + fpd_stream_below(s, (uint32_t)cp->count[r])];
}

const struct fpd_combo *fpd_campaign_combo(const struct fpd_campaign *cp, uint32_t index)
{
    struct fpd_stream s;
    fpd_stream_init(&s, cp->cfg.seed, index);
    return draw_combo(cp, &s);
}

/* Halves the largest of m, n and k, while the case is over the memory budget, never below what the
 * relation needs (ties: m, then n). False when it is over the budget at the smallest such shape. */
static bool shrink_to_budget(const struct fpd_relation *rel, struct fpd_case *c, double max_mem)
{
    uint32_t *const extents[] = {&c->m, &c->n, &c->k};
    static const enum fpd_slice_dim dims[] = {FPD_SLICE_ROWS, FPD_SLICE_COLS, FPD_SLICE_NONE};
    while (fpd_case_bytes(c) > max_mem) {
        uint32_t *largest = NULL;
        for (size_t d = 0; d < sizeof extents / sizeof extents[0]; d++)
            if (*extents[d] / 2 >= fpd_relation_min_dim(rel, dims[d]) && (!largest || *extents[d] > *largest))
                largest = extents[d];
        if (!largest)
            return false;
        *largest /= 2;
        fpd_relation_prepare_case(rel, c); /* a self product's n follows its m */
    }
    return true;
}

/* The empty product (k = 0: C is the bias, or zeros), one case in FPD_EMPTY_K_EVERY: libraries have
 * shipped quick returns that leave C unwritten, or unscaled by beta, there (rocBLAS#753,
 * bluss/matrixmultiply#21, JuliaGPU/oneAPI.jl#628, kokkos-kernels#1091). A draw of its own, the
 * seed mixed with a salt, so that every other case is drawn as it would be without it. */
static bool empty_product_drawn(uint64_t seed, uint32_t index)
{
    return fpd_rng_one_in(seed, 0x2545f4914f6cdd1du, index, FPD_EMPTY_K_EVERY);
}

/* One case in FPD_SPECIALS_EVERY of a campaign not given --specials, from generator 5 on (an older
 * generator reruns an older campaign, which drew none): a draw of its own, as the empty product's. */
static bool specials_drawn(uint64_t seed, uint32_t index)
{
    return fpd_rng_one_in(seed, 0x6a09e667f3bcc909u, index, FPD_SPECIALS_EVERY);
}

double fpd_campaign_special_rate(const struct fpd_campaign_config *cfg, uint32_t index)
{
    if (cfg->special_rate >= 0)
        return cfg->special_rate;
    return cfg->generator >= 5 && specials_drawn(cfg->seed, index) ? FPD_DRAWN_SPECIAL_RATE : 0;
}

int fpd_campaign_plan(const struct fpd_campaign *cp, uint32_t index, struct fpd_check *out)
{
    const struct fpd_campaign_config *cfg = &cp->cfg;
    struct fpd_stream s;
    fpd_stream_init(&s, cfg->seed, index);
    const struct fpd_combo *combo = draw_combo(cp, &s);
    const struct fpd_relation *rel = cfg->relations[combo->relation];
    *out = (struct fpd_check){0}; /* every field the plan does not set is the default (mean: none) */

    struct fpd_case *c = &out->c;
    fpd_case_defaults(c);
    c->dt = cfg->dtypes[combo->dtypes];
    uint32_t batch_cap = cfg->max_dim < 8 ? cfg->max_dim : 8;
    c->batch = rel->slice == FPD_SLICE_BATCH || fpd_stream_chance(&s, 1, 4) ? pick_dim(&s, rel, FPD_SLICE_BATCH, batch_cap)
                                                                              : 1;
    c->m = pick_dim(&s, rel, FPD_SLICE_ROWS, cfg->max_dim);
    c->n = pick_dim(&s, rel, FPD_SLICE_COLS, cfg->max_dim);
    c->k = pick_dim(&s, rel, FPD_SLICE_NONE, cfg->max_dim);
    c->trans_a = fpd_stream_chance(&s, 1, 2);
    c->trans_b = fpd_stream_chance(&s, 1, 2);
    c->pad = fpd_stream_chance(&s, 1, 4) ? 1 + fpd_stream_below(&s, 8) : 0;
    c->has_bias = fpd_stream_chance(&s, 1, 2);
    c->recipe = (struct fpd_recipe){
        .generator = cfg->generator, .seed = cfg->seed, .index = index, .dist = cfg->dists[fpd_stream_below(&s, (uint32_t)cfg->n_dists)],
        .special_rate = fpd_campaign_special_rate(cfg, index),
    };
    struct fpd_case common = *c;
    enum fpd_reach_family family;
    bool reach = cfg->reach && fpd_reach_shape(cfg->seed, index, rel, c, &family);
    if (!reach && !rel->needs_terms && empty_product_drawn(cfg->seed, index))
        c->k = 0;
    fpd_relation_prepare_case(rel, c);
    if (reach && fpd_case_bytes(c) > cfg->max_mem) { /* a reach shape is taken whole or not at all */
        *c = common;
        fpd_relation_prepare_case(rel, c);
    }
    bool fits = shrink_to_budget(rel, c, cfg->max_mem);
    if (cfg->special_rate < 0 && c->k > FPD_SPECIALS_FULL_K) /* drawn: about as many a sum as at that k */
        c->recipe.special_rate *= (double)FPD_SPECIALS_FULL_K / c->k;
    out->relation = rel;
    /* a shape past --max-dim is drawn for what its paths may both get wrong alike (a block's tail, a
     * panel's edge, both paths through one gemm): it gets the reference whether they agree or not,
     * where its outputs and terms are few enough that this costs about what its GEMMs do */
    double outputs = (double)c->batch * c->m * c->n;
    bool reach_exact = reach && outputs <= REACH_EXACT_OUTPUTS && outputs * c->k <= REACH_EXACT_TERMS;
    out->exact = reach_exact && cfg->exact == FPD_EXACT_SAMPLED ? FPD_EXACT_ALWAYS : cfg->exact;
    out->default_threads = cfg->default_threads;
    out->unhashed = cfg->unhashed;
    out->backends[0] = cfg->backends[combo->backend[0]];
    out->backends[1] = rel->backends == 2 ? cfg->backends[combo->backend[1]] : NULL;
    fpd_relation_pick_params(rel, &s, c, cfg->max_threads, cfg->caller_threads, &out->params);
    return fits ? FPD_OK : FPD_ERR_INPUT;
}

void fpd_campaign_free(struct fpd_campaign *cp)
{
    free(cp->combos);
    cp->combos = NULL;
}

int fpd_stats_add(struct fpd_stats *st, const struct fpd_campaign *cp, const struct fpd_combo *combo,
                  const struct fpd_check_result *res)
{
    uint16_t r = combo->relation, b0 = combo->backend[0], b1 = combo->backend[1];
    const struct fpd_dtypes *dt = &cp->cfg.dtypes[combo->dtypes];
    st->checks++;
    st->by_verdict[res->verdict]++;

    struct fpd_tally *t = NULL;
    for (size_t i = 0; i < st->n_tallies && !t; i++)
        if (st->tallies[i].relation == r && st->tallies[i].backend[0] == b0 && st->tallies[i].backend[1] == b1)
            t = &st->tallies[i];
    if (!t) {
        if (!FPD_ARRAY_RESERVE(st->tallies, st->cap_tallies, st->n_tallies + 1))
            return -FPD_ERR_NOMEM;
        t = &st->tallies[st->n_tallies++];
        *t = (struct fpd_tally){.relation = r, .backend = {b0, b1}};
    }
    t->checks++;
    t->by_verdict[res->verdict]++;
    if (res->verdict != FPD_ERROR && res->verdict != FPD_SAME) {
        if (res->metrics.max_ulp > t->max_ulp)
            t->max_ulp = res->metrics.max_ulp;
        if (res->metrics.ratio > t->max_ratio)
            t->max_ratio = res->metrics.ratio;
    }
    if (res->verdict == FPD_SAME)
        return 0;

    for (size_t i = 0; i < st->n_signatures; i++) {
        struct fpd_signature *s = &st->signatures[i];
        if (s->relation == r && s->backend[0] == b0 && s->backend[1] == b1 && fpd_dtypes_equal(&s->dt, dt) &&
            s->verdict == res->verdict) {
            s->count++;
            return 0;
        }
    }
    if (!FPD_ARRAY_RESERVE(st->signatures, st->cap_signatures, st->n_signatures + 1))
        return -FPD_ERR_NOMEM;
    struct fpd_signature *s = &st->signatures[st->n_signatures++];
    *s = (struct fpd_signature){.relation = r, .backend = {b0, b1}, .dt = *dt, .verdict = res->verdict, .count = 1};
    return 1;
}

void fpd_stats_add_case(struct fpd_stats *st, const struct fpd_campaign *cp, uint32_t index, uint32_t m, uint32_t n,
                        uint32_t k)
{
    st->with_specials += fpd_campaign_special_rate(&cp->cfg, index) > 0;
    struct fpd_shape_reach *r = &st->shapes;
    unsigned octave = 31u - (unsigned)__builtin_clz(k ? k : 1);
    if (k && octave < FPD_K_OCTAVES)
        r->k_octaves |= 1u << octave;
    r->empty += k == 0;
    r->longest_k = k > r->longest_k ? k : r->longest_k;
    r->most_rows = m > r->most_rows ? m : r->most_rows;
    uint32_t max_dim = cp->cfg.max_dim;
    r->past_max_dim += m > max_dim || n > max_dim || k > max_dim;
}

void fpd_stats_free(struct fpd_stats *st)
{
    free(st->tallies);
    free(st->signatures);
    *st = (struct fpd_stats){0};
}

_Static_assert(sizeof(struct fpd_check_answer) <= FPD_WORKER_PAYLOAD, "a check's answer must fit a worker's message");

int fpd_check_answer_send(struct fpd_worker_channel *ch, uint32_t index, const struct fpd_check_answer *a)
{
    return fpd_worker_send(ch, FPD_MSG_ANSWER, index, a, sizeof *a);
}

void fpd_check_answer_read(const struct fpd_worker_msg *m, struct fpd_check_answer *a)
{
    memcpy(a, m->payload, sizeof *a); /* bytes, not an object of its type: copied, never cast */
}
