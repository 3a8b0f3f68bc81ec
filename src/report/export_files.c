/* export_files.c — a case as files for a framework's users: its inputs as .npy, and a script that
 * runs the relation's two paths with the operations fpdiv's bridge runs for that framework. */
#include "report/export_files.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/backend_framework.h"
#include "backends/backend_pinned.h"
#include "common/dtype.h"
#include "common/file_write.h"
#include "common/text.h"
#include "engine/poison.h"
#include "engine/scale.h"
#include "gen/gen.h"
#include "store/npy.h"

static json_t *range(struct fpd_range r) { return json_pack("[I,I]", (json_int_t)r.start, (json_int_t)(r.start + r.len)); }

/* One path as the export driver reads it (scripts/bridge/export_driver.py). `compiled_by_default`:
 * the case ran on torch-compile, whose operations are compiled unless a path says otherwise. */
static json_t *path_json(const struct fpd_path *p, bool compiled_by_default)
{
    static const char *const bias_names[] = {[FPD_BIAS_NONE] = "none", [FPD_BIAS_FUSED] = "fused",
                                             [FPD_BIAS_AFTER] = "after"};
    enum fpd_execution e = p->execution == FPD_EXEC_DEFAULT && compiled_by_default ? FPD_EXEC_COMPILED : p->execution;
    return json_pack("{s:o,s:o,s:o,s:b,s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:I,s:i,s:i,s:b}", "batch", range(p->gemm.batch),
                     "rows", range(p->gemm.rows), "cols", range(p->gemm.cols), "flip_layout", p->flip_layout, "in",
                     fpd_dtype_info(p->in)->name, "out", fpd_dtype_info(p->out)->name, "bias", bias_names[p->bias],
                     "route", fpd_route_names[p->route], "execution", fpd_execution_names[e], "threads", p->threads,
                     "scale_exp", p->scale_exp, "split_k", (json_int_t)p->split_k, "alpha_exp", p->alpha_exp,
                     "beta_exp", p->beta_exp, "alpha_negative", p->alpha_negative);
}

/* What the driver needs of the case: types, layout, the two paths, the compared region, what C
 * held before a product that must not read it (alpha-beta's beta 0), and what fpdiv saw. */
static json_t *case_json(const struct fpd_export_target *fw, const struct fpd_case_file *f)
{
    const struct fpd_check *chk = &f->chk;
    struct fpd_paths paths; /* path B's scale, as the check chose it from the data */
    if (fpd_scale_paths_as_run(chk->relation, &chk->c, &chk->params, &paths) != FPD_OK)
        return NULL;
    bool compiled = strcmp(f->backend_names[0], "torch-compile") == 0;
    const struct fpd_region *cmp = &paths.compare;
    char poison[24]; /* its bits in the output type, in hex: a float64's sign bit would make JSON's integer negative */
    snprintf(poison, sizeof poison, "%" PRIx64,
             fpd_poison_bits(fpd_poison_of(chk->c.recipe.seed, chk->c.recipe.index), chk->c.dt.out));
    return json_pack("{s:[s,s,s],s:b,s:b,s:I,s:i,s:[o,o],s:{s:o,s:o,s:o},s:s,s:{s:I,s:I,s:s,s:s},s:b}", "dtype",
                     fpd_dtype_info(chk->c.dt.in)->name, fpd_dtype_info(chk->c.dt.out)->name,
                     fpd_dtype_info(chk->c.dt.acc)->name, "trans_a", chk->c.trans_a, "trans_b", chk->c.trans_b, "pad",
                     (json_int_t)chk->c.pad, "threads", fpd_check_threads(chk), "paths", path_json(&paths.a, compiled),
                     path_json(&paths.b, compiled), "compare", "batch", range(cmp->batch), "rows", range(cmp->rows),
                     "cols", range(cmp->cols), "poison_bits", poison, "recorded", "diff", (json_int_t)f->recorded.diff,
                     "count", (json_int_t)f->recorded.count, "verdict", fpd_verdict_table[f->recorded.verdict].name, "backends",
                     f->backend_names[0], "matching", fpd_export_target_ran_on(fw, f->backend_names[0]));
}

/* Copies a file of the bridge's into the script: the operations are the bridge's own. */
static int append_bridge_file(FILE *s, const char *name, char *why, size_t why_size)
{
    char path[4200];
    if (!fpd_bridge_file(name, path, sizeof path)) {
        snprintf(why, why_size, "the bridge's %s is in none of $FPDIV_BRIDGE_DIR and the places fpdiv knows", name);
        return FPD_ERR_INPUT;
    }
    FILE *in = fopen(path, "r");
    if (!in) {
        snprintf(why, why_size, "cannot read %.900s: %s", path, strerror(errno));
        return FPD_ERR_INPUT;
    }
    char buf[8192];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, got, s);
    fclose(in);
    return FPD_OK;
}

/* Text from the case file reaches the script only inside string literals, escaped for Python
 * (fpd_put_python_literal): never in a comment, never in a raw string. The comments hold numbers
 * and fpdiv's own table names. */
static int write_script(const char *dir, const struct fpd_export_target *fw, const struct fpd_case_file *f, char *why,
                        size_t why_size)
{
    const struct fpd_check *chk = &f->chk;
    char path[4200], module[64];
    snprintf(path, sizeof path, "%.4000s/repro_%.16s.py", dir, fw->name);
    snprintf(module, sizeof module, "frameworks/%s.py", fw->name);
    json_t *case_data = case_json(fw, f);
    char *case_text = case_data ? json_dumps(case_data, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    char *env = case_text ? json_dumps(f->environment, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_SORT_KEYS) : NULL;
    json_decref(case_data);
    FILE *s = env ? fopen(path, "w") : NULL;
    if (!s) {
        snprintf(why, why_size, "%s%.900s%s%s", env ? "cannot write " : "out of memory", env ? path : "",
                 env ? ": " : "", env ? strerror(errno) : "");
        free(case_text), free(env);
        return FPD_ERR_INPUT;
    }
    char dt[32], shape[64];
    fprintf(s, "#!/usr/bin/env python3\n# Reproduces an fpdiv finding in %s: the relation's two paths, each the\n"
               "# operations fpdiv's bridge runs for %s, on the inputs beside this file.\n", fw->name, fw->name);
    fprintf(s, "# relation %s: %s\n", chk->relation->name, chk->relation->doc);
    fprintf(s, "# case: --shape %s (batch %u, m %u, n %u, k %u), dtype %s%s%s, pad %u, recorded by fpdiv: %s, %zu of "
               "%zu elements differ\n",
            fpd_shape_format(&chk->c, shape, sizeof shape), chk->c.batch, chk->c.m, chk->c.n, chk->c.k,
            fpd_dtypes_format(&chk->c.dt, dt, sizeof dt), chk->c.trans_a ? ", A transposed" : "",
            chk->c.trans_b ? ", B transposed" : "", chk->c.pad, fpd_verdict_table[f->recorded.verdict].name,
            f->recorded.diff, f->recorded.count);
    fprintf(s, "# the backends and the environment fpdiv recorded: CASE['recorded'] and RECORDED_ENVIRONMENT below\n");
    fprintf(s, "import os\n\nRECORDED_ENVIRONMENT = ");
    fpd_put_python_literal(s, env);
    fprintf(s, "\n");
    free(env);
    /* the kernel set and thread count fpdiv ran, for a framework on the same library: set before
     * the framework loads it (a library reads them once, then), over any of the caller's, which
     * would run other kernels and give other bits */
    struct fpd_backend_slot *base;
    const char *set;
    if (fpd_backend_pinned_parts(chk->backends[0]->impl, &base, &set)) {
        fprintf(s, "os.environ[");
        fpd_put_python_literal(s, base->impl->kernel_set_env);
        fprintf(s, "] = ");
        fpd_put_python_literal(s, set);
        fprintf(s, "  # the kernel set fpdiv ran\n");
    }
    if (fpd_check_threads(chk) > 0)
        fprintf(s, "for v in ('OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS', 'OMP_NUM_THREADS'):\n"
                   "    os.environ[v] = '%d'  # fpdiv's thread count\n",
                fpd_check_threads(chk));
    fprintf(s, "\n# ---- the operations, as fpdiv's bridge runs them (scripts/bridge/%s) ----\n", module);
    int rc = append_bridge_file(s, module, why, why_size);
    if (rc == FPD_OK) {
        fprintf(s, "\nCASE = __import__('json').loads(");
        fpd_put_python_literal(s, case_text);
        fprintf(s, ")\n\n");
        rc = append_bridge_file(s, "export_driver.py", why, why_size);
    }
    free(case_text);
    int closed = fpd_file_close_written(s, path, why, why_size);
    return rc != FPD_OK ? rc : closed;
}

int fpd_export_write(const char *dir, const struct fpd_export_target *fw, const struct fpd_case_file *f, char *why,
                     size_t why_size)
{
    const struct fpd_case *c = &f->chk.c;
    struct fpd_case_data data = {0};
    int rc = fpd_case_data_capture(c, &data);
    if (rc == FPD_OK)
        rc = fpd_make_dirs(dir, why, why_size);
    const struct {
        const char *name;
        enum fpd_dtype type;
        size_t shape[3];
        int ndim;
        const void *data;
    } arrays[] = {{"A.npy", c->dt.in, {c->batch, c->m, c->k}, 3, data.a},
                  {"B.npy", c->dt.in, {c->batch, c->k, c->n}, 3, data.b},
                  {"bias.npy", c->dt.out, {c->n}, 1, data.bias}};
    char path[4200];
    for (size_t i = 0; rc == FPD_OK && i < sizeof arrays / sizeof arrays[0]; i++) {
        snprintf(path, sizeof path, "%.4000s/%s", dir, arrays[i].name);
        rc = fpd_npy_write(path, arrays[i].type, arrays[i].shape, arrays[i].ndim, arrays[i].data, why, why_size);
    }
    if (rc == FPD_OK)
        rc = write_script(dir, fw, f, why, why_size);
    fpd_case_data_free(&data);
    return rc;
}
