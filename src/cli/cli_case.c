/* cli_case.c — flags describing one check. */
#include "cli/cli_case.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/dtype.h"

enum {
    OPT_RELATION = FPD_CASE_OPT_FIRST, OPT_BACKEND, OPT_SHAPE, OPT_DTYPE, OPT_TRANS_A, OPT_TRANS_B, OPT_BIAS, OPT_PAD,
    OPT_DIST, OPT_INDEX, OPT_SLICE, OPT_THREADS, OPT_ALGO, OPT_ISOLATE, OPT_CALLERS, OPT_SPLIT, OPT_SCALE,
    OPT_ALPHA, OPT_BETA, OPT_NEGATIVE_ALPHA,
};

const struct option fpd_shared_options[] = {
    {"seed", required_argument, NULL, FPD_OPT_SEED},       {"specials", required_argument, NULL, FPD_OPT_SPECIALS},
    {"generator", required_argument, NULL, FPD_OPT_GENERATOR}, {"max-mem", required_argument, NULL, FPD_OPT_MAX_MEM},
    {"exact", required_argument, NULL, FPD_OPT_EXACT},     {"timeout", required_argument, NULL, FPD_OPT_TIMEOUT},
    {"core", required_argument, NULL, FPD_OPT_CORE},
    {NULL, 0, NULL, 0},
};

static const struct option case_only_options[] = {
    {"relation", required_argument, NULL, OPT_RELATION}, {"backend", required_argument, NULL, OPT_BACKEND},
    {"shape", required_argument, NULL, OPT_SHAPE},       {"dtype", required_argument, NULL, OPT_DTYPE},
    {"trans-a", no_argument, NULL, OPT_TRANS_A},         {"trans-b", no_argument, NULL, OPT_TRANS_B},
    {"bias", no_argument, NULL, OPT_BIAS},               {"pad", required_argument, NULL, OPT_PAD},
    {"dist", required_argument, NULL, OPT_DIST},         {"index", required_argument, NULL, OPT_INDEX},
    {"slice", required_argument, NULL, OPT_SLICE},       {"threads", required_argument, NULL, OPT_THREADS},
    {"algo", required_argument, NULL, OPT_ALGO},         {"isolate", no_argument, NULL, OPT_ISOLATE},
    {"callers", required_argument, NULL, OPT_CALLERS},   {"split", required_argument, NULL, OPT_SPLIT},
    {"scale", required_argument, NULL, OPT_SCALE},       {"alpha", required_argument, NULL, OPT_ALPHA},
    {"beta", required_argument, NULL, OPT_BETA},         {"negative-alpha", no_argument, NULL, OPT_NEGATIVE_ALPHA},
    {NULL, 0, NULL, 0},
};

const char fpd_case_options_help[] =
    "  --relation R         relation to check (fpdiv list shows them)\n"
    "  --backend B[,B2]     backend, or two for a relation between backends\n"
    "                       (default openblas; blocked,openblas for vendor). A library that picks\n"
    "                       its kernels for the CPU runs the set named as B@SET (openblas@Haswell);\n"
    "                       without @SET, the set it picks here, and the result names it\n"
    "  --core SET[,SET2]    pin the library backends to kernel set SET (OpenBLAS's core; fpdiv\n"
    "                       list shows those this CPU runs); the core relation compares SET with SET2\n"
    "  --shape S            [BATCHx]MxNxK: C is MxN, the inner dimension K (0: the empty product)\n"
    "  --dtype T            IN[:OUT[:ACC]] (default f32; f16/bf16 alone mean OUT=ACC=f32)\n"
    "  --trans-a, --trans-b store A (B) transposed and pass the transpose flag\n"
    "  --bias               add a bias row (addmm always has one)\n"
    "  --pad N              extra elements at the end of every row of A, B and C (default 0)\n"
    "  --dist D             input distribution: normal, uniform, int, wide (default normal)\n"
    "  --specials P         probability of a special value (±0, ±Inf, NaN, subnormal) per element\n"
    "  --seed S, --index I  the data's seed and case index (default 1 and 0)\n"
    "  --generator G        the data generator's version (default: the newest); a case found by an\n"
    "                       older fpdiv names its own\n"
    "  --slice START[:LEN]  slice-* relations: rows, columns or batch entries (default 0:1)\n"
    "  --threads N          threads a library backend runs with (default 1, so that a result does not\n"
    "                       depend on the machine's cores); the threads relation compares 1 thread\n"
    "                       against N, and concurrent runs every call on N (default there: cores,\n"
    "                       at least 2)\n"
    "  --algo J             algo relation: compare the library's algorithm 0 against its J-th (default 1)\n"
    "  --callers N          concurrent relation: threads calling the library at once, 2 to 8 (default 4)\n"
    "  --split K1           split-k relation: the first part's terms (default: half of k, at least 1)\n"
    "  --scale E            scale relation: A times 2^E or 2^-E, E from 1 to 8 (default 1; the sign\n"
    "                       keeps every value finite and normal)\n"
    "  --alpha E, --beta E  alpha-beta relation: BLAS's alpha = 2^E or 2^-E, E from 0 to 8 (the sign\n"
    "                       keeps every value finite and normal), and beta = 2^E, E from -8 to 8 (with\n"
    "                       --bias; without one beta is 0); default 1 and 1\n"
    "  --negative-alpha     alpha-beta relation: alpha = -2^E (LAPACK's updates, C := C - A B: --alpha 0\n"
    "                       --beta 0 --negative-alpha --bias)\n"
    "  --max-mem SIZE       refuse cases needing more memory than this (default half of RAM)\n"
    "  --isolate            run each check in a process of its own, so a backend that crashes gives\n"
    "                       an `error` instead of ending fpdiv (check always does; a few ms a check\n"
    "                       at large shapes, so bisect and sweep do only when asked)\n"
    "  --timeout SEC        with --isolate (which it implies): a check that takes longer is an\n"
    "                       `error` (default: no limit)\n"
    "  --exact MODE         compare each path with the correctly rounded result: always,\n"
    "                       sampled (when the paths differ, and one case in 8 of the rest),\n"
    "                       diverging (only when the paths differ) or never\n";

void fpd_case_flags_init(struct fpd_case_flags *f)
{
    int cores = fpd_cli_cores();
    *f = (struct fpd_case_flags){.chk = {.params = {.slice = {0, 1}, .threads = cores < 2 ? 2 : cores, .algo = 1, .callers = 4, .scale = 1,
                                                    .alpha = 1, .beta = 1},
                                         .exact = FPD_EXACT_ALWAYS, .default_threads = 1},
                                 .max_mem = fpd_cli_default_max_mem()};
    fpd_case_defaults(&f->chk.c);
}

int fpd_shared_flags_take(const struct fpd_shared_flags *f, int opt, const char *arg, int *status, char *why,
                          size_t why_size)
{
    int rc = FPD_OK;
    switch (opt) {
    case FPD_OPT_SEED: rc = fpd_cli_u64("--seed", arg, UINT64_MAX, f->seed, why, why_size); break;
    case FPD_OPT_SPECIALS: rc = fpd_cli_double("--specials", arg, 0, 1, f->special_rate, why, why_size); break;
    case FPD_OPT_GENERATOR: rc = fpd_cli_generator(arg, f->generator, why, why_size); break;
    case FPD_OPT_MAX_MEM:
        rc = fpd_cli_bytes("--max-mem", arg, f->max_mem, why, why_size);
        /* a budget past the machine's memory would let a case through that cannot be allocated */
        if (rc == FPD_OK && *f->max_mem > fpd_case_physical_memory()) {
            snprintf(why, why_size, "--max-mem '%s': more than this machine's %.0f MiB of memory", arg,
                     fpd_case_physical_memory() / 0x1p20);
            rc = FPD_ERR_INPUT;
        }
        break;
    case FPD_OPT_EXACT: rc = fpd_cli_exact_mode(arg, f->exact, why, why_size); break;
    case FPD_OPT_TIMEOUT: rc = fpd_cli_double("--timeout", arg, 0, 1e9, f->timeout, why, why_size); break;
    case FPD_OPT_CORE: *f->cores = arg; break;
    default: return 0;
    }
    *status = rc;
    return 1;
}

int fpd_case_flags_take(struct fpd_case_flags *f, int opt, const char *arg, int *status, char *why, size_t why_size)
{
    struct fpd_case *c = &f->chk.c;
    const struct fpd_shared_flags shared = {
        .seed = &c->recipe.seed, .special_rate = &c->recipe.special_rate, .generator = &c->recipe.generator,
        .max_mem = &f->max_mem, .exact = &f->chk.exact, .timeout = &f->timeout, .cores = &f->cores};
    if (fpd_shared_flags_take(&shared, opt, arg, status, why, why_size)) {
        if (opt == FPD_OPT_TIMEOUT)
            f->isolate = true; /* a time limit needs a process to stop */
        return 1;
    }
    uint64_t u;
    int rc = FPD_OK;
    switch (opt) {
    case OPT_RELATION: f->relation = arg; break;
    case OPT_BACKEND: f->backends = arg; break;
    case OPT_SHAPE: f->shape = arg; break;
    case OPT_DTYPE:
        f->dtype = arg;
        rc = fpd_dtypes_parse(arg, &c->dt, why, why_size);
        break;
    case OPT_TRANS_A: c->trans_a = true; break;
    case OPT_TRANS_B: c->trans_b = true; break;
    case OPT_BIAS: c->has_bias = true; break;
    case OPT_PAD:
        rc = fpd_cli_u64("--pad", arg, 1u << 16, &u, why, why_size);
        c->pad = (uint32_t)u;
        break;
    case OPT_DIST:
        if (fpd_dist_parse(arg, &c->recipe.dist) != FPD_OK) {
            snprintf(why, why_size, "--dist '%s': expected normal, uniform, int or wide", arg);
            rc = FPD_ERR_INPUT;
        }
        break;
    case OPT_INDEX:
        rc = fpd_cli_u64("--index", arg, UINT32_MAX, &u, why, why_size);
        c->recipe.index = (uint32_t)u;
        break;
    case OPT_SLICE: rc = fpd_cli_slice(arg, &f->chk.params.slice, why, why_size); break;
    case OPT_THREADS:
        rc = fpd_cli_count("--threads", arg, 1, 1024, &u, why, why_size);
        f->chk.params.threads = f->chk.default_threads = (int)u;
        break;
    case OPT_ISOLATE: f->isolate = true; break;
    case OPT_ALGO:
        rc = fpd_cli_u64("--algo", arg, 64, &u, why, why_size);
        f->chk.params.algo = (int)u;
        break;
    case OPT_CALLERS:
        rc = fpd_cli_count("--callers", arg, 2, FPD_MAX_CALLERS, &u, why, why_size);
        f->chk.params.callers = (unsigned)u;
        break;
    case OPT_SPLIT:
        rc = fpd_cli_count("--split", arg, 1, FPD_MAX_DIM, &u, why, why_size);
        f->chk.params.split_k = (uint32_t)u;
        break;
    case OPT_SCALE:
        rc = fpd_cli_count("--scale", arg, 1, FPD_SCALE_MAX, &u, why, why_size);
        f->chk.params.scale = (int)u;
        break;
    case OPT_ALPHA:
        rc = fpd_cli_count("--alpha", arg, 0, FPD_SCALE_MAX, &u, why, why_size);
        f->chk.params.alpha = (int)u;
        break;
    case OPT_BETA: rc = fpd_cli_int("--beta", arg, -FPD_SCALE_MAX, FPD_SCALE_MAX, &f->chk.params.beta, why, why_size); break;
    case OPT_NEGATIVE_ALPHA: f->chk.params.alpha_negative = true; break;
    default: return 0;
    }
    *status = rc;
    return 1;
}

int fpd_case_flags_resolve(struct fpd_case_flags *f, const char *shape, char *why, size_t why_size)
{
    struct fpd_check *chk = &f->chk;
    shape = shape ? shape : f->shape;
    if (!f->relation || !shape) {
        snprintf(why, why_size, "--relation and --shape are required");
        return FPD_ERR_INPUT;
    }
    chk->relation = fpd_relation_find(f->relation);
    if (!chk->relation) {
        snprintf(why, why_size, "unknown relation '%s' (fpdiv list shows them)", f->relation);
        return FPD_ERR_INPUT;
    }
    if (fpd_shape_parse(shape, &chk->c, why, why_size) != FPD_OK)
        return FPD_ERR_INPUT;
    bool pair_of_sets = chk->relation->pairing == FPD_PAIR_KERNEL_SETS;
    const char *names = f->backends                  ? f->backends
                        : pair_of_sets                ? "openblas"
                        : chk->relation->backends == 2 ? "blocked,openblas"
                                                       : "openblas";
    char pinned[1024];
    if (f->cores) {
        bool one_name = !strchr(names, ',');
        if (!pair_of_sets && strchr(f->cores, ',')) {
            snprintf(why, why_size, "--core '%s': one kernel set (two only for the core relation)", f->cores);
            return FPD_ERR_INPUT;
        }
        if (fpd_cli_pin_backends(names, f->cores, pair_of_sets && one_name, pinned, sizeof pinned, why, why_size) !=
            FPD_OK)
            return FPD_ERR_INPUT;
        names = pinned;
    } else if (pair_of_sets && !strchr(names, ',')) {
        snprintf(why, why_size, "core compares two kernel sets of %s: give --core A,B (fpdiv list shows the sets this "
                                "CPU runs)", names);
        return FPD_ERR_INPUT;
    }
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
    if (!chk->params.split_k) /* --split not given: half of k */
        chk->params.split_k = chk->c.k > 1 ? chk->c.k / 2 : 1;
    if (!fpd_relation_applies(chk->relation, &chk->c.dt, impls, why, why_size) ||
        fpd_relation_check_params(chk->relation, &chk->c, &chk->params, why, why_size) != FPD_OK ||
        fpd_case_validate(&chk->c, f->max_mem, why, why_size) != FPD_OK)
        return FPD_ERR_INPUT;
    fpd_cli_run_kernel_sets_here(chk->backends, n);
    return FPD_OK;
}

void fpd_options_merge(const struct option *own, const struct option *shared, struct option *out, size_t cap)
{
    size_t n = 0;
    for (const struct option *o = own; o->name && n + 1 < cap; o++)
        out[n++] = *o;
    for (const struct option *o = shared; o->name && n + 1 < cap; o++)
        out[n++] = *o;
    out[n] = (struct option){NULL, 0, NULL, 0};
}

void fpd_case_options_merge(const struct option *own, struct option *out, size_t cap)
{
    struct option both[64];
    fpd_options_merge(case_only_options, fpd_shared_options, both, 64);
    fpd_options_merge(own, both, out, cap);
}
