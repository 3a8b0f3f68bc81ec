/* cmd_check.c — `fpdiv check`: one relation on one case, reported in full. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "corpus.h"
#include "dtype.h"
#include "report.h"

static const char help[] =
    "usage: fpdiv check --relation R --shape [BATCHx]MxNxK [options]\n\n"
    "Runs one relation on one case and reports the verdict, the difference metrics, the worst\n"
    "element and the provenance of both paths.\n\n"
    "  --relation R         relation to check (fpdiv list shows them)\n"
    "  --backend B[,B2]     backend, or two for a relation between backends\n"
    "                       (default openblas; blocked,openblas for vendor)\n"
    "  --shape S            [BATCHx]MxNxK: C is MxN, the inner dimension K\n"
    "  --dtype T            IN[:OUT[:ACC]] (default f32; f16/bf16 alone mean OUT=ACC=f32)\n"
    "  --trans-a, --trans-b store A (B) transposed and pass the transpose flag\n"
    "  --bias               add a bias row (addmm always has one)\n"
    "  --pad N              extra elements at the end of every row of A, B and C (default 0)\n"
    "  --dist D             input distribution: normal, uniform, int, wide (default normal)\n"
    "  --specials P         probability of a special value (±0, ±Inf, NaN, subnormal) per element\n"
    "  --seed S, --index I  the data's seed and case index (default 1 and 0)\n"
    "  --slice START[:LEN]  slice-* relations: rows, columns or batch entries (default 0:1)\n"
    "  --threads N          threads relation: compare 1 thread against N (default: cores, at least 2)\n"
    "  --fail-on V          exit 1 when the verdict is V or worse: same, reorder, bound, never\n"
    "                       (default bound)\n"
    "  --max-mem SIZE       refuse cases needing more memory than this (default half of RAM)\n"
    "  --json               print one JSON object instead of the report\n"
    "  --save DIR           save the case (as it is, not minimized) into the corpus DIR\n"
    "  -h, --help           this text\n";

enum { OPT_RELATION = 256, OPT_BACKEND, OPT_SHAPE, OPT_DTYPE, OPT_TRANS_A, OPT_TRANS_B, OPT_BIAS, OPT_PAD, OPT_DIST,
       OPT_SPECIALS, OPT_SEED, OPT_INDEX, OPT_SLICE, OPT_THREADS, OPT_FAIL_ON, OPT_MAX_MEM, OPT_JSON, OPT_SAVE };

static const struct option options[] = {
    {"relation", required_argument, NULL, OPT_RELATION}, {"backend", required_argument, NULL, OPT_BACKEND},
    {"shape", required_argument, NULL, OPT_SHAPE},       {"dtype", required_argument, NULL, OPT_DTYPE},
    {"trans-a", no_argument, NULL, OPT_TRANS_A},         {"trans-b", no_argument, NULL, OPT_TRANS_B},
    {"bias", no_argument, NULL, OPT_BIAS},               {"pad", required_argument, NULL, OPT_PAD},
    {"dist", required_argument, NULL, OPT_DIST},         {"specials", required_argument, NULL, OPT_SPECIALS},
    {"seed", required_argument, NULL, OPT_SEED},         {"index", required_argument, NULL, OPT_INDEX},
    {"slice", required_argument, NULL, OPT_SLICE},       {"threads", required_argument, NULL, OPT_THREADS},
    {"fail-on", required_argument, NULL, OPT_FAIL_ON},   {"max-mem", required_argument, NULL, OPT_MAX_MEM},
    {"json", no_argument, NULL, OPT_JSON},               {"save", required_argument, NULL, OPT_SAVE},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

struct check_options {
    const char *relation, *backends, *shape, *save;
    int fail_on;
    double max_mem;
    bool json;
};

static int parse(int argc, char **argv, struct fpd_check *chk, struct check_options *o, char *why, size_t why_size)
{
    uint64_t u;
    int opt, rc = FPD_OK;
    while (rc == FPD_OK && (opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        struct fpd_case *c = &chk->c;
        switch (opt) {
        case OPT_RELATION: o->relation = optarg; break;
        case OPT_BACKEND: o->backends = optarg; break;
        case OPT_SHAPE: o->shape = optarg; break;
        case OPT_DTYPE: rc = fpd_dtypes_parse(optarg, &c->dt, why, why_size); break;
        case OPT_TRANS_A: c->trans_a = true; break;
        case OPT_TRANS_B: c->trans_b = true; break;
        case OPT_BIAS: c->has_bias = true; break;
        case OPT_PAD:
            rc = fpd_cli_u64("--pad", optarg, 1u << 16, &u, why, why_size);
            c->pad = (uint32_t)u;
            break;
        case OPT_DIST:
            if (fpd_dist_parse(optarg, &c->recipe.dist) != FPD_OK) {
                snprintf(why, why_size, "--dist '%s': expected normal, uniform, int or wide", optarg);
                rc = FPD_ERR_INPUT;
            }
            break;
        case OPT_SPECIALS: rc = fpd_cli_double("--specials", optarg, 0, 1, &c->recipe.special_rate, why, why_size); break;
        case OPT_SEED: rc = fpd_cli_u64("--seed", optarg, UINT64_MAX, &c->recipe.seed, why, why_size); break;
        case OPT_INDEX:
            rc = fpd_cli_u64("--index", optarg, UINT32_MAX, &u, why, why_size);
            c->recipe.index = (uint32_t)u;
            break;
        case OPT_SLICE: rc = fpd_cli_slice(optarg, &chk->params.slice, why, why_size); break;
        case OPT_THREADS:
            rc = fpd_cli_u64("--threads", optarg, 1024, &u, why, why_size);
            chk->params.threads = (int)u;
            break;
        case OPT_FAIL_ON: rc = fpd_cli_verdict("--fail-on", optarg, true, &o->fail_on, why, why_size); break;
        case OPT_MAX_MEM: rc = fpd_cli_bytes("--max-mem", optarg, &o->max_mem, why, why_size); break;
        case OPT_JSON: o->json = true; break;
        case OPT_SAVE: o->save = optarg; break;
        case 'h': fputs(help, stdout); return -1;
        default: snprintf(why, why_size, "see 'fpdiv check --help'"); return FPD_ERR_INPUT;
        }
    }
    if (rc != FPD_OK)
        return rc;
    if (optind < argc) {
        snprintf(why, why_size, "unexpected argument '%s'", argv[optind]);
        return FPD_ERR_INPUT;
    }
    if (!o->relation || !o->shape) {
        snprintf(why, why_size, "--relation and --shape are required (see 'fpdiv check --help')");
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

/* Names → relation and backends; the case made fit for the relation; everything validated. */
static int resolve(struct fpd_check *chk, const struct check_options *o, char *why, size_t why_size)
{
    chk->relation = fpd_relation_find(o->relation);
    if (!chk->relation) {
        snprintf(why, why_size, "unknown relation '%s' (fpdiv list shows them)", o->relation);
        return FPD_ERR_INPUT;
    }
    if (fpd_shape_parse(o->shape, &chk->c, why, why_size) != FPD_OK)
        return FPD_ERR_INPUT;
    const char *names = o->backends ? o->backends : chk->relation->backends == 2 ? "blocked,openblas" : "openblas";
    struct fpd_backend_slot *slots[2] = {NULL, NULL};
    size_t n;
    if (fpd_cli_backends(names, slots, 2, &n, why, why_size) != FPD_OK)
        return FPD_ERR_INPUT;
    if ((int)n != chk->relation->backends) {
        snprintf(why, why_size, "%s takes %d backend%s, --backend gave %zu", chk->relation->name,
                 chk->relation->backends, chk->relation->backends == 2 ? "s (B1,B2)" : "", n);
        return FPD_ERR_INPUT;
    }
    const struct fpd_backend *impls[2] = {NULL, NULL};
    for (size_t i = 0; i < n; i++) {
        chk->backends[i] = slots[i];
        impls[i] = slots[i]->impl;
        if (!fpd_backend_supports(slots[i], &chk->c.dt, why, why_size))
            return FPD_ERR_UNAVAILABLE;
    }
    fpd_relation_prepare_case(chk->relation, &chk->c);
    if (!fpd_relation_applies(chk->relation, &chk->c.dt, impls, why, why_size) ||
        fpd_relation_check_params(chk->relation, &chk->c, &chk->params, why, why_size) != FPD_OK ||
        fpd_case_validate(&chk->c, o->max_mem, why, why_size) != FPD_OK)
        return FPD_ERR_INPUT;
    return FPD_OK;
}

static int save_case(const struct fpd_check *chk, const struct fpd_check_result *res, const char *dir)
{
    struct fpd_case_file f;
    char path[4200], why[512];
    bool existed;
    int rc = fpd_case_file_from_check(&f, chk, res, FPD_INLINE_MAX_DEFAULT, fpd_environment_json(chk));
    if (rc == FPD_OK)
        rc = fpd_case_file_save(dir, &f, path, sizeof path, &existed, why, sizeof why);
    else
        snprintf(why, sizeof why, "out of memory");
    fpd_case_file_free(&f);
    if (rc != FPD_OK)
        fpd_cli_error("check", "%s", why);
    else
        fprintf(stderr, "%s %s\n", existed ? "already saved:" : "saved", path);
    return rc;
}

int fpd_cmd_check(int argc, char **argv)
{
    struct fpd_check chk = {.params = {.slice = {0, 1}, .threads = fpd_cli_cores() < 2 ? 2 : fpd_cli_cores()}};
    fpd_case_defaults(&chk.c);
    struct check_options o = {.fail_on = FPD_BOUND, .max_mem = fpd_cli_default_max_mem()};
    char why[512];
    int rc = parse(argc, argv, &chk, &o, why, sizeof why);
    if (rc < 0)
        return FPD_EXIT_OK; /* --help */
    if (rc == FPD_OK)
        rc = resolve(&chk, &o, why, sizeof why);
    if (rc != FPD_OK) {
        fpd_cli_error("check", "%s", why);
        return FPD_EXIT_USAGE;
    }

    struct fpd_checker ck = {0};
    struct fpd_check_result res;
    rc = fpd_check_run(&ck, &chk, &res);
    fpd_checker_free(&ck);
    if (rc != FPD_OK) {
        fpd_cli_error("check", "internal error (status %d): out of memory?", rc);
        return FPD_EXIT_INTERNAL;
    }
    if (o.json) {
        json_t *j = fpd_check_json(&chk, &res);
        json_t *prov = json_object();
        for (int i = 0; i < chk.relation->backends; i++)
            json_object_set_new(prov, chk.backends[i]->impl->name, fpd_provenance_json(chk.backends[i]));
        json_object_set_new(j, "provenance", prov);
        json_dumpf(j, stdout, JSON_COMPACT);
        fputc('\n', stdout);
        json_decref(j);
    } else {
        fpd_report_check(stdout, &chk, &res);
    }
    if (o.save && save_case(&chk, &res, o.save) != FPD_OK)
        return FPD_EXIT_USAGE;
    return fpd_fails_policy(res.verdict, o.fail_on) ? FPD_EXIT_FINDINGS : FPD_EXIT_OK;
}
