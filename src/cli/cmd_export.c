/*
 * cmd_export.c — `fpdiv export CASE.json --to numpy|torch|jax [-o DIR]`: a finding as a small,
 * self-contained script for an upstream bug report: the inputs as .npy files and the relation's
 * two paths written in that framework, printing how many elements differ and by how much.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "backends/backend.h"
#include "backends/backend_pinned.h"
#include "cli/cmd.h"
#include "cli/export_target.h"
#include "common/dtype.h"
#include "common/text.h"
#include "engine/check.h"
#include "store/corpus.h"

extern char **environ;

static const char help[] =
    "usage: fpdiv export CASE.json --to numpy|torch|jax [-o DIR]\n\n"
    "Writes the case's inputs as A.npy (batch x m x k), B.npy (batch x k x n) and bias.npy (n), and\n"
    "repro_<framework>.py, which runs the relation's two paths with the operations fpdiv's bridge\n"
    "runs for that framework (its code is in the script), on operands stored as fpdiv stored them\n"
    "(transposed, padded), and prints the number of differing elements and the largest difference,\n"
    "with the environment fpdiv recorded. For a case fpdiv ran on that framework it says\n"
    "\"reproduced\" only for the same count (exit 0; else 1); for another backend's it says whether\n"
    "the framework diverges too. bf16 arrays are stored as their uint16 bits (NumPy has no bfloat16).\n"
    "A relation the framework has no counterpart for (between backends, a fused bias NumPy lacks)\n"
    "is refused, and nothing is written.\n\n"
    "  --to FRAMEWORK  numpy, torch or jax\n"
    "  -o, --output DIR  where to write (default: export-<case hash>)\n";

/* Closes a file written with stdio: FPD_OK only if every write reached it (a full disk or a file
 * size limit fails a write, and then the file is named). */
static int close_written(FILE *f, const char *path, char *why, size_t why_size)
{
    int failed = ferror(f) ? (errno ? errno : EIO) : 0;
    if (fclose(f) != 0 && !failed)
        failed = errno ? errno : EIO;
    if (failed) {
        snprintf(why, why_size, "cannot write %.900s: %s", path, strerror(failed));
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

/* .npy version 1.0: magic, header length, a Python dict literal padded to 64 bytes, raw data. */
static int write_npy(const char *dir, const char *name, const char *descr, const size_t *shape, int ndim,
                     const void *data, size_t bytes, char *why, size_t why_size)
{
    char path[4200], header[256], dims[128] = "";
    snprintf(path, sizeof path, "%.4000s/%.64s", dir, name);
    for (int i = 0; i < ndim; i++)
        snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%zu%s", shape[i], ndim == 1 ? "," : i + 1 < ndim ? ", " : "");
    int len = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, dims);
    int total = 10 + len + 1, pad = (64 - total % 64) % 64;
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(why, why_size, "cannot write %.900s: %s", path, strerror(errno));
        return FPD_ERR_INPUT;
    }
    uint16_t header_len = (uint16_t)(len + pad + 1);
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc(header_len & 0xff, f);
    fputc(header_len >> 8, f);
    fprintf(f, "%s%*s\n", header, pad, "");
    if (bytes)
        fwrite(data, 1, bytes, f);
    return close_written(f, path, why, why_size);
}

/* NumPy's name for each storage type (bf16 as its bits). */
static const char *const npy_descr[FPD_DTYPE_COUNT] = {[FPD_F64] = "<f8", [FPD_F32] = "<f4", [FPD_F16] = "<f2",
                                                       [FPD_BF16] = "<u2"};
static json_t *range(struct fpd_range r) { return json_pack("[I,I]", (json_int_t)r.start, (json_int_t)(r.start + r.len)); }

/* One path as the export driver reads it (scripts/bridge/export_driver.py). `compiled_by_default`:
 * the case ran on torch-compile, whose operations are compiled unless a path says otherwise. */
static json_t *path_json(const struct fpd_path *p, bool compiled_by_default)
{
    static const char *const bias_names[] = {[FPD_BIAS_NONE] = "none", [FPD_BIAS_FUSED] = "fused",
                                             [FPD_BIAS_AFTER] = "after"};
    enum fpd_execution e = p->execution == FPD_EXEC_DEFAULT && compiled_by_default ? FPD_EXEC_COMPILED : p->execution;
    return json_pack("{s:o,s:o,s:o,s:b,s:s,s:s,s:s,s:s,s:s,s:i}", "batch", range(p->gemm.batch), "rows",
                     range(p->gemm.rows), "cols", range(p->gemm.cols), "flip_layout", p->flip_layout, "in",
                     fpd_dtype_info(p->in)->name, "out", fpd_dtype_info(p->out)->name, "bias", bias_names[p->bias],
                     "route", fpd_route_names[p->route], "execution", fpd_execution_names[e], "threads", p->threads);
}

/* What the driver needs of the case: types, layout, the two paths, the compared region, and what
 * fpdiv saw. */
static json_t *case_json(const struct fpd_export_target *fw, const struct fpd_case_file *f)
{
    const struct fpd_check *chk = &f->chk;
    struct fpd_paths paths;
    fpd_relation_build(chk->relation, &chk->c, &chk->params, &paths);
    bool compiled = strcmp(f->backend_names[0], "torch-compile") == 0;
    const struct fpd_region *cmp = &paths.compare;
    return json_pack("{s:[s,s,s],s:b,s:b,s:I,s:i,s:[o,o],s:{s:o,s:o,s:o},s:{s:I,s:I,s:s,s:s},s:b}", "dtype",
                     fpd_dtype_info(chk->c.dt.in)->name, fpd_dtype_info(chk->c.dt.out)->name,
                     fpd_dtype_info(chk->c.dt.acc)->name, "trans_a", chk->c.trans_a, "trans_b", chk->c.trans_b, "pad",
                     (json_int_t)chk->c.pad, "threads", fpd_check_threads(chk), "paths", path_json(&paths.a, compiled),
                     path_json(&paths.b, compiled), "compare", "batch", range(cmp->batch), "rows", range(cmp->rows),
                     "cols", range(cmp->cols), "recorded", "diff", (json_int_t)f->recorded.diff, "count",
                     (json_int_t)f->recorded.count, "verdict", fpd_verdict_table[f->recorded.verdict].name, "backends",
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
    int closed = close_written(s, path, why, why_size);
    return rc != FPD_OK ? rc : closed;
}

/* Whether the Python at `python` can import `module` (asked without importing it: torch takes
 * seconds to import). */
static bool python_has(const char *python, const char *module)
{
    char *const argv[] = {(char *)python, "-c",
                          "import importlib.util, sys; sys.exit(importlib.util.find_spec(sys.argv[1]) is None)",
                          (char *)module, NULL};
    posix_spawn_file_actions_t quiet;
    posix_spawn_file_actions_init(&quiet);
    posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&quiet, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int status = 1;
    bool started = posix_spawn(&pid, python, &quiet, NULL, argv, environ) == 0;
    posix_spawn_file_actions_destroy(&quiet);
    while (started && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return started && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int fpd_cmd_export(int argc, char **argv)
{
    static const struct option options[] = {{"to", required_argument, NULL, 't'},
                                            {"output", required_argument, NULL, 'o'},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    const char *to = NULL, *out = NULL;
    int opt;
    while ((opt = getopt_long(argc, argv, "ho:", options, NULL)) != -1) {
        switch (opt) {
        case 't': to = optarg; break;
        case 'o': out = optarg; break;
        case 'h': fputs(help, stdout); return FPD_EXIT_OK;
        default: fpd_cli_error("export", "see 'fpdiv export --help'"); return FPD_EXIT_USAGE;
        }
    }
    const struct fpd_export_target *fw = to ? fpd_export_target_find(to) : NULL;
    if (argc - optind != 1 || !fw) {
        fpd_cli_error("export", argc - optind != 1 ? "give exactly one case file (see 'fpdiv export --help')"
                                                  : "--to must be numpy, torch or jax");
        return FPD_EXIT_USAGE;
    }
    struct fpd_case_file f;
    char why[1024], dir[4200];
    if (fpd_case_file_load_any(argv[optind], &f, why, sizeof why) != FPD_OK) { /* it runs nothing */
        fpd_cli_error("export", "%s", why);
        return FPD_EXIT_USAGE;
    }
    if (!fpd_export_target_takes(fw, &f.chk, why, sizeof why)) {
        fpd_cli_error("export", "%s: %s has no counterpart in %s: %s", argv[optind], f.chk.relation->name, fw->name,
                      why);
        fpd_case_file_free(&f);
        return FPD_EXIT_USAGE;
    }
    uint64_t hash = 0;
    fpd_case_file_hash(&f, &hash);
    snprintf(dir, sizeof dir, "%s", out ? out : "");
    if (!out)
        snprintf(dir, sizeof dir, "export-%016" PRIx64, hash);
    struct fpd_case_data data;
    int rc = fpd_case_data_capture(&f.chk.c, &data);
    if (rc == FPD_OK)
        rc = fpd_make_dirs(dir, why, sizeof why);
    const struct fpd_case *c = &f.chk.c;
    size_t in = fpd_dtype_info(c->dt.in)->size, outsz = fpd_dtype_info(c->dt.out)->size;
    size_t sa[3] = {c->batch, c->m, c->k}, sb[3] = {c->batch, c->k, c->n}, sbias[1] = {c->n};
    if (rc == FPD_OK)
        rc = write_npy(dir, "A.npy", npy_descr[c->dt.in], sa, 3, data.a, (size_t)c->batch * c->m * c->k * in, why,
                       sizeof why);
    if (rc == FPD_OK)
        rc = write_npy(dir, "B.npy", npy_descr[c->dt.in], sb, 3, data.b, (size_t)c->batch * c->k * c->n * in, why,
                       sizeof why);
    if (rc == FPD_OK)
        rc = write_npy(dir, "bias.npy", npy_descr[c->dt.out], sbias, 1, data.bias, c->n * outsz, why, sizeof why);
    if (rc == FPD_OK)
        rc = write_script(dir, fw, &f, why, sizeof why);
    fpd_case_data_free(&data);
    fpd_case_file_free(&f);
    if (rc != FPD_OK) {
        fpd_cli_error("export", "%s", rc == FPD_ERR_NOMEM ? "out of memory" : why);
        return rc == FPD_ERR_NOMEM ? FPD_EXIT_INTERNAL : FPD_EXIT_USAGE;
    }
    char shown[4096], script[4200], word[4096], python[1024], python_word[2048];
    snprintf(script, sizeof script, "%.4000s/repro_%.16s.py", dir, fw->name);
    bool has_python = fpd_bridge_python(python, sizeof python, why, sizeof why) == FPD_OK;
    printf("wrote %s/A.npy, B.npy, bias.npy and repro_%s.py; run: %s %s\n", fpd_printable(dir, shown, sizeof shown),
           fw->name, has_python ? fpd_shell_word(python, python_word, sizeof python_word) : "python3",
           fpd_shell_word(script, word, sizeof word));
    if (!has_python || !python_has(python, fw->name))
        printf("(%s has no %s: scripts/install-deps.sh installs it into the project's .venv, or set FPDIV_PYTHON to a "
               "Python that has it)\n", has_python ? python_word : "this machine's Python", fw->name);
    return FPD_EXIT_OK;
}
