/* check_report.c — formatting of check results. */
#include "report/check_report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host.h"
#include "common/cpu.h"
#include "common/dtype.h"
#include "common/text.h"
#include "engine/environment.h"
#include "store/corpus.h"

const char *fpd_format_value(enum fpd_dtype t, uint64_t bits, char *buf, size_t size)
{
    double v = fpd_value_of_bits(t, bits);
    snprintf(buf, size, "%a (%.*g)", v, t == FPD_F64 ? 17 : 9, v);
    return buf;
}

const char *fpd_check_backend_names(const struct fpd_check *chk, char *buf, size_t size)
{
    if (chk->relation->backends == 2)
        snprintf(buf, size, "%s,%s", chk->backends[0]->impl->name, chk->backends[1]->impl->name);
    else
        snprintf(buf, size, "%s", chk->backends[0]->impl->name);
    return buf;
}

const char *fpd_generator_option(unsigned generator, char buf[32])
{
    buf[0] = '\0';
    if (generator != FPD_GEN_VERSION)
        snprintf(buf, 32, " --generator %u", generator);
    return buf;
}

/* " --plugin P --blas N=P": what made this fpdiv's backends, for a command that reruns a check. */
static const char *global_options(char *buf, size_t size)
{
    const char *const *pairs;
    size_t n = fpd_host_global_options(&pairs), used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < size; i++) {
        char word[2100];
        int w = snprintf(buf + used, size - used, " %s %s", pairs[2 * i],
                         fpd_shell_word(pairs[2 * i + 1], word, sizeof word));
        used += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

const char *fpd_reproduce_command(const struct fpd_check *chk, char *buf, size_t size)
{
    const struct fpd_case *c = &chk->c;
    if (c->data)
        return NULL; /* explicit inputs do not fit on a command line: replay the case file */
    char shape[64], dt[32], backends[160], extra[96] = "";
    if (chk->relation->slice != FPD_SLICE_NONE)
        snprintf(extra, sizeof extra, " --slice %u:%u", chk->params.slice.start, chk->params.slice.len);
    else if (fpd_relation_takes_threads(chk->relation))
        snprintf(extra, sizeof extra, " --threads %d", chk->params.threads);
    else if (chk->relation->needs & FPD_FEAT_ALGOS)
        snprintf(extra, sizeof extra, " --algo %d", chk->params.algo);
    size_t used = strlen(extra);
    if (chk->relation->needs & FPD_FEAT_CONCURRENT)
        snprintf(extra + used, sizeof extra - used, " --callers %u", chk->params.callers);
    else if (chk->relation->takes & FPD_TAKES_SPLIT)
        snprintf(extra + used, sizeof extra - used, " --split %u", chk->params.split_k);
    else if (chk->relation->takes & FPD_TAKES_SCALE)
        snprintf(extra + used, sizeof extra - used, " --scale %d", chk->params.scale);
    else if (chk->relation->takes & FPD_TAKES_SCALARS)
        snprintf(extra + used, sizeof extra - used, " --alpha %d --beta %d%s", chk->params.alpha, chk->params.beta,
                 chk->params.alpha_negative ? " --negative-alpha" : "");
    if (fpd_check_threads(chk) > 0) { /* a library's bits can depend on its thread count */
        size_t used = strlen(extra);
        snprintf(extra + used, sizeof extra - used, " --threads %d", fpd_check_threads(chk));
    }
    char specials[48] = "";
    if (c->recipe.special_rate > 0)
        snprintf(specials, sizeof specials, " --specials %.17g", c->recipe.special_rate);
    char pad[32] = "", generator[32];
    if (c->pad)
        snprintf(pad, sizeof pad, " --pad %u", c->pad);
    /* plugins loaded from FPDIV_PLUGIN_PATH come back the same way: given again as --plugin,
     * with the variable still set, they would load twice */
    char global[2048], plugin_path[2100] = "", word[2100], backend_word[400];
    const char *env = getenv("FPDIV_PLUGIN_PATH");
    if (env && *env)
        snprintf(plugin_path, sizeof plugin_path, "FPDIV_PLUGIN_PATH=%s ", fpd_shell_word(env, word, sizeof word));
    snprintf(buf, size, "%sfpdiv%s check --relation %s --backend %s --shape %s --dtype %s%s%s%s%s --dist %s%s%s --seed %" PRIu64
             " --index %" PRIu32 "%s",
             plugin_path, global_options(global, sizeof global), chk->relation->name,
             fpd_shell_word(fpd_check_backend_names(chk, backends, sizeof backends), backend_word, sizeof backend_word),
             fpd_shape_format(c, shape, sizeof shape),
             fpd_dtypes_format(&c->dt, dt, sizeof dt), c->trans_a ? " --trans-a" : "", c->trans_b ? " --trans-b" : "",
             c->has_bias ? " --bias" : "", pad, fpd_dist_table[c->recipe.dist].name, specials, extra, c->recipe.seed,
             c->recipe.index, fpd_generator_option(c->recipe.generator, generator));
    return buf;
}

void fpd_path_words(FILE *f, const struct fpd_check *chk, const struct fpd_path *p, const struct fpd_region *cmp)
{
    static const char *const bias_words[] = {[FPD_BIAS_NONE] = "", [FPD_BIAS_FUSED] = ", fused bias",
                                             [FPD_BIAS_AFTER] = ", then + bias"};
    const struct fpd_region *g = &p->gemm;
    struct fpd_case sub = chk->c;
    sub.batch = g->batch.len, sub.m = g->rows.len, sub.n = g->cols.len;
    char shape[64];
    fprintf(f, "%s: %s %s", chk->backends[p->backend]->impl->name, fpd_route_words[p->route],
            fpd_shape_format(&sub, shape, sizeof shape));
    if (g->batch.start || g->rows.start || g->cols.start)
        fprintf(f, " at batch %u, row %u, col %u", g->batch.start, g->rows.start, g->cols.start);
    fprintf(f, ", %s in, %s out%s", fpd_dtype_info(p->in)->name, fpd_dtype_info(p->out)->name, bias_words[p->bias]);
    if (p->flip_layout)
        fprintf(f, ", operands re-stored in the other order");
    if (p->execution != FPD_EXEC_DEFAULT)
        fprintf(f, ", %s", fpd_execution_names[p->execution]);
    if (p->threads)
        fprintf(f, ", %d thread%s", p->threads, p->threads == 1 ? "" : "s");
    if (chk->relation->needs & FPD_FEAT_ALGOS)
        fprintf(f, ", algorithm %d", p->algo);
    if (p->callers > 1)
        fprintf(f, ", while %u other threads call the library at once", p->callers - 1);
    if (p->split_k)
        fprintf(f, ", as two gemms of the first %u terms and the other %u, added", p->split_k, chk->c.k - p->split_k);
    if (p->scale_exp)
        fprintf(f, ", A%s times 2^%d, C times 2^%d", p->bias != FPD_BIAS_NONE ? " and the bias" : "", p->scale_exp,
                -p->scale_exp);
    const char *sign = p->alpha_negative ? "-" : "";
    if (p->bias != FPD_BIAS_NONE && (p->alpha_exp || p->beta_exp || p->alpha_negative)) /* alpha-beta's */
        fprintf(f, ", alpha %s2^%d, beta 2^%d on C holding the bias times %s2^%d, then times %s2^%d", sign,
                p->alpha_exp, p->beta_exp, sign, p->alpha_exp - p->beta_exp, sign, -p->alpha_exp);
    else if (p->alpha_exp || p->alpha_negative)
        fprintf(f, ", alpha %s2^%d, beta 0, then times %s2^%d", sign, p->alpha_exp, sign, -p->alpha_exp);
    if (g->batch.len != cmp->batch.len || g->rows.len != cmp->rows.len || g->cols.len != cmp->cols.len)
        fprintf(f, "; then take batch %u:%u, rows %u:%u, cols %u:%u (start:length)", cmp->batch.start,
                cmp->batch.len, cmp->rows.start, cmp->rows.len, cmp->cols.start, cmp->cols.len);
    if (p->out != chk->c.dt.out)
        fprintf(f, "; cast to %s", fpd_dtype_info(chk->c.dt.out)->name);
}

static void describe_path(FILE *f, const char *label, const struct fpd_check *chk, const struct fpd_path *p,
                          const struct fpd_region *cmp)
{
    fprintf(f, "  path %s   ", label);
    fpd_path_words(f, chk, p, cmp);
    fputc('\n', f);
}

/* What the report calls its two sides: a check's paths ("path A", and "A" where it is short), the
 * outputs a judge was given (their files). */
struct sides {
    const char *name[2], *letter[2];
};

/* Which path is farther from the correctly rounded result, and whether either exceeds its bound. */
static void report_exact(FILE *f, const struct fpd_check *chk, const struct fpd_check_result *res, const struct sides *s)
{
    const struct fpd_exact_report *x = &res->exact;
    if (!x->computed)
        return;
    const char *out = fpd_dtype_info(chk->c.dt.out)->name;
    fprintf(f, "  exact    %s is %.3g ulp from the correctly rounded result, %s %.3g (%s ulps)", s->name[0],
            x->err_ulp[0], s->name[1], x->err_ulp[1], out);
    if (x->err_ulp[0] > x->err_ulp[1])
        fprintf(f, ": %s is the farther, %s the closer", s->name[0], s->letter[1]);
    else if (x->err_ulp[1] > x->err_ulp[0])
        fprintf(f, ": %s is the farther, %s the closer", s->name[1], s->letter[0]);
    fputc('\n', f);
    /* one output judged against itself (a judge given one file twice): its paragraphs once */
    int sides = strcmp(s->name[0], s->name[1]) == 0 ? 1 : 2;
    for (int w = 0; w < sides; w++) {
        if (x->threshold[w]) /* a class change that rounding explains: say so, not "overflowed" */
            fprintf(f, "           %s is ±Inf where the correctly rounded result is finite, or finite where it\n"
                       "           is ±Inf, at %zu element%s: the exact sum lies within the path's rounding bound of\n"
                       "           %s's overflow threshold (its largest value, %.9g, and half an ulp), and its\n"
                       "           rounding carried it across\n",
                    s->name[w], x->threshold[w], x->threshold[w] == 1 ? "" : "s", fpd_dtype_info(chk->c.dt.out)->name,
                    fpd_dtype_info(chk->c.dt.out)->max_finite);
        if (x->wrong_class[w] && x->overflowed[w] == x->wrong_class[w]) /* what an overflowing order gives */
            fprintf(f, "           %s is Inf or NaN where the correctly rounded result is not, at %zu element%s:\n"
                       "           its terms' magnitudes sum past %s's range there, so a partial sum of some order\n"
                       "           overflows (Inf, or Inf - Inf's NaN), and no rounding bound holds: the order loses\n"
                       "           the result\n",
                    s->name[w], x->wrong_class[w], x->wrong_class[w] == 1 ? "" : "s",
                    fpd_dtype_info(chk->c.dt.acc)->name);
        else if (x->wrong_class[w] && !x->overflowed[w]) /* no order overflows: the class itself is wrong */
            fprintf(f, "           %s is Inf, NaN or finite where the correctly rounded result is not, at %zu\n"
                       "           element%s, where no partial sum of any order can overflow: it lost or made an Inf\n"
                       "           or NaN\n",
                    s->name[w], x->wrong_class[w], x->wrong_class[w] == 1 ? "" : "s");
        else if (x->wrong_class[w]) /* the ratio is infinite: say why, not "lost precision" */
            fprintf(f, "           %s is Inf, NaN or finite where the correctly rounded result is not, at %zu\n"
                       "           element%s, beyond what rounding explains: a partial sum overflowed (which the\n"
                       "           magnitudes allow only where sum |a||b| exceeds the accumulator's range), it lost\n"
                       "           an Inf or NaN, or it is wrong\n",
                    s->name[w], x->wrong_class[w], x->wrong_class[w] == 1 ? "" : "s");
        else if (x->own_ratio[w] > 1)
            fprintf(f, "           %s exceeds its own rounding bound (%.3g times it): it lost precision\n",
                    s->name[w], x->own_ratio[w]);
        if (x->flushed & (1u << w))
            fprintf(f, "           %s is what arithmetic flushing subnormals to zero gives, at every one of\n"
                       "           them: inputs and products below %s's smallest normal value taken as 0\n"
                       "           (denormals-are-zero, flush-to-zero: a library built with -ffast-math, XLA\n"
                       "           on the CPU, PyTorch's CPU matmul on bf16 inputs)\n",
                    s->name[w], fpd_dtype_info(chk->c.dt.acc)->name);
        if (x->zero_sign[w])
            fprintf(f, "           %s is -0 where the exact sum is 0, at %zu element%s: nonzero terms that cancel\n"
                       "           exactly sum to +0 in every order round-to-nearest arithmetic takes, so the sign\n"
                       "           is wrong\n",
                    s->name[w], x->zero_sign[w], x->zero_sign[w] == 1 ? "" : "s");
    }
    for (int w = 0; w < sides; w++) /* the aggregate test's alarm, where the bound's says nothing already */
        if (x->aggregate[w] > 1 && !(x->beyond & (1u << w)) && !x->wrong_class[w])
            fprintf(f, "  aggregate %s is farther from the exact sums than rounding makes, over its %zu elements:\n"
                       "           its squared errors, each against the model's scale, sum to %.3g times %s\n"
                       "           (odds below 1e-13 under independent, mean-zero rounding errors): it lost a\n"
                       "           little precision on many elements, too little on each for one alone to tell\n",
                    s->name[w], x->aggregate_elements[w], x->aggregate[w],
                    x->aggregate_by_orders[w] ? "four times what the legitimate orders' give these data"
                                               : "what they reach but for negligible odds");
}

/* Who called at once, and which probe path B is (callers.h). */
static void report_concurrency(FILE *f, const struct fpd_concurrency *cc)
{
    if (!cc->callers)
        return;
    fprintf(f, "  callers  %u at once, %u round%s: %u computing this GEMM or its mirror (of -A)", cc->callers, cc->rounds,
            cc->rounds == 1 ? "" : "s", cc->probes);
    if (cc->callers > cc->probes)
        fprintf(f, ", %u other GEMM%s", cc->callers - cc->probes, cc->callers - cc->probes == 1 ? "" : "s");
    fprintf(f, "; ");
    if (!cc->differing)
        fprintf(f, "each gave path A's bits\n");
    else
        fprintf(f, "%u of them gave bits other than path A's; path B is caller %u's output%s%s\n", cc->differing,
                cc->shown, cc->shown_mirror ? ", negated" : "", cc->differing == 1 ? "" : " (the one most elements differ in)");
}

/* The outcome: the verdict and the metrics behind it, or the error. */
static void report_outcome(FILE *f, const struct fpd_check *chk, const struct fpd_check_result *res,
                           const struct sides *s)
{
    const struct fpd_case *c = &chk->c;
    const struct fpd_metrics *m = &res->metrics;
    char a[96], b[96];
    if (res->verdict == FPD_ERROR) {
        if (res->failed_path < 0) /* the check's process died: no path to blame */
            fprintf(f, "  error    ");
        else
            fprintf(f, "  error    %s: ", s->name[res->failed_path]);
        fpd_put_printable(f, res->error); /* a framework's exception, a host's reason: not fpdiv's words */
        fputc('\n', f);
        return;
    }
    fprintf(f, "  verdict  %s (%s)\n", fpd_verdict_table[res->verdict].name, fpd_verdict_table[res->verdict].doc);
    fprintf(f, "  differ   %zu of %zu elements", m->diff, m->count);
    if (m->nonfinite_mismatch)
        fprintf(f, " (%zu with a different NaN/Inf class)", m->nonfinite_mismatch);
    if (m->threshold_crossings) /* counted within the bound: the ratio has their distance to the threshold */
        fprintf(f, " (%zu ±Inf on one path, finite on the other: within the bound of the overflow threshold, "
                   "which an order's rounding may cross)", m->threshold_crossings);
    fputc('\n', f);
    if (m->diff) {
        fprintf(f, "  max      %" PRIu64 " ulp, abs %.3g, rel %.3g\n", m->max_ulp, m->max_abs, m->max_rel);
        fprintf(f, "  ratio    %.3g of the rounding bound (<= 1: any summation order may give it)\n", m->ratio);
        if (res->probable_ratio > 1)
            fprintf(f, "  likely   %.3g of the probabilistic threshold (> 1: no reordering gives it, but with odds\n"
                       "           below 1e-13 an element, under independent, mean-zero rounding errors%s)\n",
                    res->probable_ratio,
                    res->probable_order_free ? "; its data are not exchangeable, so the order-free threshold" : "");
        fprintf(f, "  worst    [%u, %u, %u]: %s = %s, %s = %s\n", res->worst_batch, res->worst_row, res->worst_col,
                s->letter[0], fpd_format_value(c->dt.out, m->worst_bits_a, a, sizeof a), s->letter[1],
                fpd_format_value(c->dt.out, m->worst_bits_b, b, sizeof b));
    }
    fprintf(f, "  hashes   %s %016" PRIx64 "  %s %016" PRIx64 " (XXH3-64 of the compared outputs)\n", s->letter[0],
            m->hash_a, s->letter[1], m->hash_b);
    report_concurrency(f, &res->concurrency);
    if (res->strict_excess > 1)
        fprintf(f, "  strict   the paths must agree bit for bit but for underflow; they differ by %.3g times what "
                   "underflow can make\n", res->strict_excess);
    else if (res->strict_excess > 0)
        fprintf(f, "  strict   the paths differ by no more than underflow can make (%.3g of it)\n", res->strict_excess);
    report_exact(f, chk, res, s);
}

void fpd_report_check(FILE *f, const struct fpd_check *chk, const struct fpd_check_result *res, json_t *environment)
{
    const struct fpd_case *c = &chk->c;
    char shape[64], dt[32], backends[160], cmd[FPD_COMMAND_MAX];
    fprintf(f, "check %s on %s: %s\n", chk->relation->name, fpd_check_backend_names(chk, backends, sizeof backends),
            fpd_verdict_table[res->verdict].name);
    char source[96];
    if (c->data)
        snprintf(source, sizeof source, "%s", fpd_data_origin_words[c->data->origin]);
    else
        snprintf(source, sizeof source, "%s data, seed %" PRIu64 " index %" PRIu32, fpd_dist_table[c->recipe.dist].name,
                 c->recipe.seed, c->recipe.index);
    fprintf(f, "  case     %s (%sm x n x k), %s (in %s, out %s, acc %s)%s%s%s, %s\n",
            fpd_shape_format(c, shape, sizeof shape), c->batch > 1 ? "batch x " : "", fpd_dtypes_format(&c->dt, dt, sizeof dt),
            fpd_dtype_info(c->dt.in)->name, fpd_dtype_info(c->dt.out)->name, fpd_dtype_info(c->dt.acc)->name,
            c->trans_a ? ", A transposed" : "", c->trans_b ? ", B transposed" : "", c->has_bias ? ", bias" : "", source);
    describe_path(f, "A", chk, &res->paths.a, &res->paths.compare);
    describe_path(f, "B", chk, &res->paths.b, &res->paths.compare);
    static const struct sides paths = {{"path A", "path B"}, {"A", "B"}};
    report_outcome(f, chk, res, &paths);
    if (fpd_reproduce_command(chk, cmd, sizeof cmd))
        fprintf(f, "  rerun    %s\n", cmd);
    fpd_report_environment(f, chk, environment);
}

void fpd_report_judgement(FILE *f, const struct fpd_check *chk, const struct fpd_check_result *res,
                          const char *const outputs[2])
{
    const struct sides given = {{outputs[0], outputs[1]}, {outputs[0], outputs[1]}};
    report_outcome(f, chk, res, &given);
}

static json_t *hex64(uint64_t x)
{
    char buf[17];
    snprintf(buf, sizeof buf, "%016" PRIx64, x);
    return json_string(buf);
}

/* JSON has no Inf or NaN: non-finite numbers become null. */
double fpd_reported_ratio(const struct fpd_metrics *m) { return m->bounded || m->diff == 0 ? m->ratio : NAN; }

json_t *fpd_check_json(const struct fpd_check *chk, const struct fpd_check_result *res)
{
    const struct fpd_case *c = &chk->c;
    const struct fpd_metrics *m = &res->metrics;
    char shape[64], dt[32], a[96], b[96], cmd[FPD_COMMAND_MAX];
    json_t *backends = json_array();
    for (int i = 0; i < chk->relation->backends; i++)
        json_array_append_new(backends, json_string(chk->backends[i]->impl->name));
    json_t *o = json_object();
    json_object_set_new(o, "type", json_string("check"));
    json_object_set_new(o, "relation", json_string(chk->relation->name));
    json_object_set_new(o, "backends", backends);
    json_object_set_new(o, "verdict", json_string(fpd_verdict_table[res->verdict].name));
    json_object_set_new(o, "diff", json_integer((json_int_t)m->diff));
    json_object_set_new(o, "count", json_integer((json_int_t)m->count));
    json_object_set_new(o, "nonfinite_mismatch", json_integer((json_int_t)m->nonfinite_mismatch));
    json_object_set_new(o, "threshold_crossings", json_integer((json_int_t)m->threshold_crossings));
    json_object_set_new(o, "max_ulp", json_integer((json_int_t)(m->max_ulp > INT64_MAX ? INT64_MAX : m->max_ulp)));
    json_object_set_new(o, "max_abs", fpd_json_finite(m->max_abs));
    json_object_set_new(o, "max_rel", fpd_json_finite(m->max_rel));
    json_object_set_new(o, "ratio", fpd_json_finite(fpd_reported_ratio(m)));
    /* against the probabilistic threshold: a number where it is over 1 (improbable), else null */
    json_object_set_new(o, "probable_ratio", res->probable_ratio > 0 ? json_real(res->probable_ratio) : json_null());
    json_object_set_new(o, "probable_order_free", json_boolean(res->probable_order_free));
    json_object_set_new(o, "hash_a", hex64(m->hash_a));
    json_object_set_new(o, "hash_b", hex64(m->hash_b));
    json_object_set_new(o, "seed", fpd_seed_json(c->recipe.seed));
    json_object_set_new(o, "index", json_integer(c->recipe.index));
    json_object_set_new(o, "generator", json_integer(c->recipe.generator));
    json_object_set_new(o, "shape", json_string(fpd_shape_format(c, shape, sizeof shape)));
    json_object_set_new(o, "dtype", json_string(fpd_dtypes_format(&c->dt, dt, sizeof dt)));
    json_object_set_new(o, "trans_a", json_boolean(c->trans_a));
    json_object_set_new(o, "trans_b", json_boolean(c->trans_b));
    json_object_set_new(o, "bias", json_boolean(c->has_bias));
    json_object_set_new(o, "pad", json_integer(c->pad));
    json_object_set_new(o, "dist", json_string(fpd_dist_table[c->recipe.dist].name));
    if (c->recipe.special_rate > 0)
        json_object_set_new(o, "specials", json_real(c->recipe.special_rate));
    if (chk->relation->slice != FPD_SLICE_NONE)
        json_object_set_new(o, "slice", json_pack("{s:I,s:I}", "start", (json_int_t)chk->params.slice.start, "len",
                                                  (json_int_t)chk->params.slice.len));
    if (fpd_relation_takes_threads(chk->relation))
        json_object_set_new(o, "threads", json_integer(chk->params.threads));
    else if (fpd_check_threads(chk) > 0)
        json_object_set_new(o, "threads", json_integer(fpd_check_threads(chk))); /* as the library ran */
    if (chk->relation->needs & FPD_FEAT_ALGOS)
        json_object_set_new(o, "algo", json_integer(chk->params.algo));
    if (chk->relation->needs & FPD_FEAT_CONCURRENT)
        json_object_set_new(o, "callers", json_integer(chk->params.callers));
    if (chk->relation->takes & FPD_TAKES_SPLIT)
        json_object_set_new(o, "split_k", json_integer(chk->params.split_k));
    if (chk->relation->takes & FPD_TAKES_SCALE)
        json_object_set_new(o, "scale", json_integer(chk->params.scale));
    if (chk->relation->takes & FPD_TAKES_SCALARS) { /* as asked, and as the data let path B run them */
        json_object_set_new(o, "alpha", json_integer(chk->params.alpha));
        json_object_set_new(o, "beta", json_integer(chk->params.beta));
        json_object_set_new(o, "alpha_negative", json_boolean(chk->params.alpha_negative));
        json_object_set_new(o, "scalars", json_pack("{s:i,s:i,s:b}", "alpha_exp", res->paths.b.alpha_exp, "beta_exp",
                                                    res->paths.b.beta_exp, "alpha_negative",
                                                    res->paths.b.alpha_negative));
    }
    if (res->strict_excess > 0)
        json_object_set_new(o, "strict_excess", json_real(res->strict_excess));
    if (res->concurrency.callers)
        /* not the rounds: how many ran is the scheduler's, and a check's line is the same every run */
        json_object_set_new(o, "concurrency",
                            json_pack("{s:i,s:i,s:i,s:b}", "probes", res->concurrency.probes, "differing",
                                      res->concurrency.differing, "shown", res->concurrency.shown, "shown_mirror",
                                      res->concurrency.shown_mirror));
    if (res->verdict == FPD_ERROR) {
        json_object_set_new(o, "error", json_string(res->error));
        json_object_set_new(o, "failed_path",
                            res->failed_path < 0 ? json_null() : json_string(res->failed_path == 0 ? "A" : "B"));
    } else if (m->diff) {
        json_object_set_new(o, "worst",
                            json_pack("{s:[I,I,I],s:s,s:s}", "at", (json_int_t)res->worst_batch,
                                      (json_int_t)res->worst_row, (json_int_t)res->worst_col, "a",
                                      fpd_format_value(c->dt.out, m->worst_bits_a, a, sizeof a), "b",
                                      fpd_format_value(c->dt.out, m->worst_bits_b, b, sizeof b)));
    }
    if (res->exact.computed) {
        const struct fpd_exact_report *x = &res->exact;
        json_t *beyond = json_array(), *exact = fpd_exact_report_json(x); /* as a case file keeps it */
        for (int w = 0; w < 2; w++)
            if (x->beyond & (1u << w))
                json_array_append_new(beyond, json_string(w ? "B" : "A"));
        json_object_set_new(exact, "beyond_bound", beyond);
        if (x->flushed) {
            json_t *flushed = json_array();
            for (int w = 0; w < 2; w++)
                if (x->flushed & (1u << w))
                    json_array_append_new(flushed, json_string(w ? "B" : "A"));
            json_object_set_new(exact, "as_flushed", flushed);
        }
        json_object_set_new(o, "exact", exact);
    }
    const char *rerun = fpd_reproduce_command(chk, cmd, sizeof cmd);
    json_object_set_new(o, "reproduce", rerun ? json_string(rerun) : json_null());
    return o;
}

void fpd_report_environment(FILE *f, const struct fpd_check *chk, json_t *environment)
{
    char line[1024];
    int width = 10; /* the names' column: as wide as the widest */
    for (int i = 0; i < chk->relation->backends; i++)
        width = (int)strlen(chk->backends[i]->impl->name) > width ? (int)strlen(chk->backends[i]->impl->name) : width;
    fprintf(f, "environment\n  %-*s %s\n", width, "cpu", fpd_cpu_describe(fpd_cpu_this(), line, sizeof line));
    json_t *made_there = json_object_get(environment, "backends");
    for (int i = 0; i < chk->relation->backends; i++) {
        struct fpd_backend_slot *s = chk->backends[i];
        if (i == 1 && s == chk->backends[0])
            break;
        json_t *p = json_object_get(made_there, s->impl->name);
        const char *text = p ? fpd_provenance_line(p, (int)json_integer_value(json_object_get(p, "threads")), line,
                                                   sizeof line)
                             : fpd_backend_environment_line(s, fpd_check_threads(chk), line, sizeof line);
        fprintf(f, "  %-*s ", width, s->impl->name);
        fpd_put_printable(f, text); /* a library's and a host's own strings */
        fputc('\n', f);
    }
}
