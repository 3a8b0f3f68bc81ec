/*
 * cmd_export.c — `fpdiv export CASE.json --to numpy|torch|jax [-o DIR]`: a finding as a small,
 * self-contained script for an upstream bug report: the inputs as .npy files and the relation's
 * two paths written in that framework, printing how many elements differ and by how much.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend_pinned.h"
#include "cli/cmd.h"
#include "common/dtype.h"
#include "common/table.h"
#include "common/text.h"
#include "store/corpus.h"

static const char help[] =
    "usage: fpdiv export CASE.json --to numpy|torch|jax [-o DIR]\n\n"
    "Writes the case's inputs as A.npy (batch x m x k), B.npy (batch x k x n) and bias.npy (n), and\n"
    "repro_<framework>.py, which runs the relation's two paths in that framework and prints the\n"
    "number of differing elements and the largest difference, with the environment fpdiv recorded.\n"
    "bf16 arrays are stored as their uint16 bits (NumPy has no bfloat16); the scripts turn them\n"
    "into bfloat16 (torch, jax) or into the float32 values they stand for (numpy).\n\n"
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
static const char *const torch_dtype[FPD_DTYPE_COUNT] = {
    [FPD_F64] = "torch.float64", [FPD_F32] = "torch.float32", [FPD_F16] = "torch.float16", [FPD_BF16] = "torch.bfloat16"};
static const char *const jax_dtype[FPD_DTYPE_COUNT] = {
    [FPD_F64] = "jnp.float64", [FPD_F32] = "jnp.float32", [FPD_F16] = "jnp.float16", [FPD_BF16] = "jnp.bfloat16"};
static const char *const np_dtype[FPD_DTYPE_COUNT] = {
    [FPD_F64] = "np.float64", [FPD_F32] = "np.float32", [FPD_F16] = "np.float16", [FPD_BF16] = "np.float32"};

/* The two paths of a relation in one framework: Python expressions over a, b, bias (already
 * tensors of the input type), s0:s1 the slice. NULL: not expressible there. */
struct framework {
    const char *name, *module, *matmul, *load, *matmul_note;
    const char *const *dtype_names; /* the framework's name of each input type, for the bias */
    const char *bias_cast;          /* a format taking that name */
    const char *setup;              /* after loading: device placement, helpers */
    const char *to_float64;         /* p and q as float64 NumPy arrays */
    const char *paths[24][2];
};

static const struct framework frameworks[] = {
    {"numpy", "np", "np.matmul",
     "import numpy as np\n"
     "def load(name, bf16):\n"
     "    x = np.load(name)\n"
     "    # bf16 bits -> the float32 values they stand for (NumPy has no bfloat16)\n"
     "    return (x.astype(np.uint32) << 16).view(np.float32) if bf16 else x\n",
     "NumPy computes 16-bit inputs in their own type or after an explicit upcast; it has no fused addmm, so\n"
     "# addmm's second path adds the bias as one more term of the product ([A, 1] @ [B; bias]). NumPy may\n"
     "# call gemv instead of gemm when an operand is a single row or column.",
     np_dtype, "bias = bias.astype(%s)\n",
     "def to_bf16(x):  # round float32 to bfloat16 (nearest even) and back\n"
     "    u = x.view(np.uint32).astype(np.uint64)\n"
     "    u = (u + 0x7fff + ((u >> 16) & 1)) >> 16 << 16\n"
     "    return u.astype(np.uint32).view(np.float32)\n",
     "p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)\n",
     {{"slice-rows", "mm(a, b)[:, s0:s1]"}, {"slice-rows", "mm(a[:, s0:s1], b)"},
      {"slice-cols", "mm(a, b)[:, :, s0:s1]"}, {"slice-cols", "mm(a, b[:, :, s0:s1], bias[s0:s1])"},
      {"slice-batch", "mm(a, b)[s0:s1]"}, {"slice-batch", "mm(a[s0:s1], b[s0:s1])"},
      {"gemv-rows", "mm(a, b)[:, s0:s1]"},
      {"gemv-rows", "np.concatenate([mm(a[:, i:i + 1], b) for i in range(s0, s1)], 1)"},
      {"gemv-cols", "mm(a, b)[:, :, s0:s1]"},
      {"gemv-cols", "np.concatenate([mm(a, b[:, :, j:j + 1], bias[j:j + 1]) for j in range(s0, s1)], 2)"},
      {"dot", "mm(a, b)[:, s0:s1]"},
      {"dot", "np.stack([np.stack([np.stack([a[e, i] @ b[e, :, j] for j in range(b.shape[2])]) for i in range(s0, s1)]) "
              "for e in range(a.shape[0])]) + (bias if HAS_BIAS else 0)"},
      {"addmm", "a @ b + bias"},
      {"addmm", "np.concatenate([a, np.ones(a.shape[:-1] + (1,), a.dtype)], -1) @ np.concatenate([b, np.broadcast_to(bias, (b.shape[0], 1, b.shape[2]))], 1)"},
      {"layout", "mm(a, b)"}, {"layout", "mm(np.asfortranarray(a), np.asfortranarray(b))"},
      {"repeat", "mm(a, b)"}, {"repeat", "mm(a, b)"},
      {"cast-out", "mm(a, b).astype(np.float32)"}, {"cast-out", "to_bf16(mm(a, b).astype(np.float32))"}}},
    {"torch", "torch", "torch.matmul",
     "import numpy as np\nimport torch\n"
     "def load(name, bf16):\n"
     "    x = np.load(name)\n"
     "    # bf16 bits: int16 (which every torch reads from NumPy) reinterpreted as bfloat16\n"
     "    return torch.from_numpy(x.view(np.int16)).view(torch.bfloat16) if bf16 else torch.from_numpy(x)\n",
     "PyTorch on the CPU (DEVICE=cuda for the GPU). Its 16-bit GEMMs return 16-bit results, so a case with a\n"
     "# wide output compares PyTorch's own rounding, not fpdiv's output type; the bias is cast to the input type.",
     torch_dtype, "bias = bias.to(%s)\n",
     "DEVICE = os.environ.get('DEVICE', 'cpu')\na, b, bias = a.to(DEVICE), b.to(DEVICE), bias.to(DEVICE)\n",
     "p, q = p.double().cpu().numpy(), q.double().cpu().numpy()\n",
     {{"slice-rows", "mm(a, b)[:, s0:s1]"}, {"slice-rows", "mm(a[:, s0:s1], b)"},
      {"slice-cols", "mm(a, b)[:, :, s0:s1]"}, {"slice-cols", "mm(a, b[:, :, s0:s1], bias[s0:s1])"},
      {"slice-batch", "mm(a, b)[s0:s1]"}, {"slice-batch", "mm(a[s0:s1], b[s0:s1])"},
      {"gemv-rows", "mm(a, b)[:, s0:s1]"},
      {"gemv-rows", "torch.cat([mm(a[:, i:i + 1], b) for i in range(s0, s1)], 1)"},
      {"gemv-cols", "mm(a, b)[:, :, s0:s1]"},
      {"gemv-cols", "torch.cat([mm(a, b[:, :, j:j + 1], bias[j:j + 1]) for j in range(s0, s1)], 2)"},
      {"dot", "mm(a, b)[:, s0:s1]"},
      {"dot", "torch.stack([torch.stack([torch.stack([a[e, i] @ b[e, :, j] for j in range(b.shape[2])]) for i in range(s0, s1)]) "
              "for e in range(a.shape[0])]) + (bias if HAS_BIAS else 0)"},
      {"addmm", "a @ b + bias"}, {"addmm", "torch.baddbmm(bias.expand(a.shape[0], a.shape[1], -1), a, b)"},
      {"layout", "mm(a, b)"},
      {"layout", "mm(a.transpose(1, 2).contiguous().transpose(1, 2), b.transpose(1, 2).contiguous().transpose(1, 2))"},
      {"repeat", "mm(a, b)"}, {"repeat", "mm(a, b)"},
      {"cast-in", "mm(a, b)"}, {"cast-in", "mm(a.float(), b.float(), bias.float())"},
      {"cast-out", "mm(a.float(), b.float(), bias.float())"}, {"cast-out", "mm(a, b).float()"}}},
    {"jax", "jax", "jnp.matmul",
     "import numpy as np\nimport jax\nimport jax.numpy as jnp\n"
     "jax.config.update('jax_enable_x64', True)\n"
     "def load(name, bf16):\n"
     "    x = jnp.asarray(np.load(name))\n"
     "    return jax.lax.bitcast_convert_type(x, jnp.bfloat16) if bf16 else x\n",
     "XLA on the default device; the second addmm path is jit-compiled, where XLA may fuse the bias. 16-bit\n"
     "# products are 16-bit unless preferred_element_type asks for float32 (the cast-* paths do).",
     jax_dtype, "bias = bias.astype(%s)\n", "",
     "p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)\n",
     {{"slice-rows", "mm(a, b)[:, s0:s1]"}, {"slice-rows", "mm(a[:, s0:s1], b)"},
      {"slice-cols", "mm(a, b)[:, :, s0:s1]"}, {"slice-cols", "mm(a, b[:, :, s0:s1], bias[s0:s1])"},
      {"slice-batch", "mm(a, b)[s0:s1]"}, {"slice-batch", "mm(a[s0:s1], b[s0:s1])"},
      {"gemv-rows", "mm(a, b)[:, s0:s1]"},
      {"gemv-rows", "jnp.concatenate([mm(a[:, i:i + 1], b) for i in range(s0, s1)], 1)"},
      {"gemv-cols", "mm(a, b)[:, :, s0:s1]"},
      {"gemv-cols", "jnp.concatenate([mm(a, b[:, :, j:j + 1], bias[j:j + 1]) for j in range(s0, s1)], 2)"},
      {"dot", "mm(a, b)[:, s0:s1]"},
      {"dot", "jnp.stack([jnp.stack([jnp.stack([a[e, i] @ b[e, :, j] for j in range(b.shape[2])]) for i in range(s0, s1)]) "
              "for e in range(a.shape[0])]) + (bias if HAS_BIAS else 0)"},
      {"addmm", "a @ b + bias"}, {"addmm", "jax.jit(lambda x, y, z: x @ y + z)(a, b, bias)"},
      {"repeat", "mm(a, b)"}, {"repeat", "mm(a, b)"},
      {"cast-in", "mm(a, b, bias.astype(jnp.float32), preferred_element_type=jnp.float32)"},
      {"cast-in", "mm(a.astype(jnp.float32), b.astype(jnp.float32), bias.astype(jnp.float32))"},
      {"cast-out", "mm(a, b, bias.astype(jnp.float32), preferred_element_type=jnp.float32)"},
      {"cast-out", "mm(a, b).astype(jnp.float32)"}}},
};

static const struct framework *find_framework(const char *name)
{
    long i = FPD_TABLE_FIND(frameworks, sizeof frameworks / sizeof frameworks[0], name);
    return i < 0 ? NULL : &frameworks[i];
}

/* The framework's two expressions for the relation, or false when it has none. */
static bool find_paths(const struct framework *fw, const struct fpd_relation *relation, const char **path_a,
                       const char **path_b)
{
    for (size_t i = 0; i + 1 < sizeof fw->paths / sizeof fw->paths[0] && fw->paths[i][0]; i += 2)
        if (strcmp(fw->paths[i][0], relation->name) == 0) {
            *path_a = fw->paths[i][1], *path_b = fw->paths[i + 1][1];
            return true;
        }
    return false;
}

static int write_script(const char *dir, const struct framework *fw, const struct fpd_case_file *f,
                        const char *path_a, const char *path_b, char *why, size_t why_size)
{
    const struct fpd_check *chk = &f->chk;
    char path[4200];
    snprintf(path, sizeof path, "%.4000s/repro_%.16s.py", dir, fw->name);
    FILE *s = fopen(path, "w");
    if (!s) {
        snprintf(why, why_size, "cannot write %.900s: %s", path, strerror(errno));
        return FPD_ERR_INPUT;
    }
    char dt[32], shape[64], *env = json_dumps(f->environment, JSON_COMPACT);
    bool bf16_in = chk->c.dt.in == FPD_BF16, bf16_out = chk->c.dt.out == FPD_BF16;
    fprintf(s, "#!/usr/bin/env python3\n# Reproduces an fpdiv finding in %s.\n", fw->name);
    fprintf(s, "# relation %s: %s\n", chk->relation->name, chk->relation->doc);
    fprintf(s, "# case: --shape %s (batch %u, m %u, n %u, k %u), dtype %s, recorded by fpdiv: %s, %zu of %zu elements differ\n",
            fpd_shape_format(&chk->c, shape, sizeof shape), chk->c.batch, chk->c.m, chk->c.n, chk->c.k,
            fpd_dtypes_format(&chk->c.dt, dt, sizeof dt),
            fpd_verdict_table[f->recorded.verdict].name, f->recorded.diff, f->recorded.count);
    fprintf(s, "# backends in fpdiv: %s%s%s\n# environment: %s\n# %s\n", f->backend_names[0],
            f->backend_names[1][0] ? "," : "", f->backend_names[1], env ? env : "{}", fw->matmul_note);
    free(env);
    fprintf(s, "import os\n");
    /* the kernel sets and thread count fpdiv ran, for a framework on the same library: set before
     * the framework loads it (a library reads them once, then), over any of the caller's, which
     * would run other kernels and give other bits */
    for (int i = 0; i < chk->relation->backends; i++) {
        struct fpd_backend_slot *base;
        const char *set;
        if (fpd_backend_pinned_parts(chk->backends[i]->impl, &base, &set) && (i == 0 || chk->backends[1] != chk->backends[0]))
            fprintf(s, "os.environ['%s'] = '%s'  # fpdiv ran %s\n", base->impl->kernel_set_env, set,
                    chk->backends[i]->impl->name);
    }
    if (fpd_check_threads(chk) > 0)
        fprintf(s, "for v in ('OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS', 'OMP_NUM_THREADS'):\n"
                   "    os.environ[v] = '%d'  # fpdiv's thread count\n",
                fpd_check_threads(chk));
    fputs(fw->load, s);
    fprintf(s, "here = os.path.dirname(os.path.abspath(__file__))\n");
    fprintf(s, "a = load(os.path.join(here, 'A.npy'), %s)\nb = load(os.path.join(here, 'B.npy'), %s)\n",
            bf16_in ? "True" : "False", bf16_in ? "True" : "False");
    fprintf(s, "bias = load(os.path.join(here, 'bias.npy'), %s)\n", bf16_out ? "True" : "False");
    fputs(fw->setup, s);
    fprintf(s, fw->bias_cast, fw->dtype_names[chk->c.dt.in]);
    /* The product as fpdiv forms it: with the bias row added when the case has one. */
    fprintf(s, "HAS_BIAS = %s\n"
               "def mm(x, y, bias=bias, **kw):\n"
               "    p = %s(x, y, **kw)\n"
               "    return p + bias if HAS_BIAS else p\n",
            chk->c.has_bias ? "True" : "False", fw->matmul);
    fprintf(s, "s0, s1 = %u, %u\n", chk->params.slice.start, chk->params.slice.start + chk->params.slice.len);
    /* A framework that lacks the operation for this dtype or device says so, not with a traceback. */
    fprintf(s, "try:\n    p = %s\n    q = %s\n"
               "except (RuntimeError, TypeError, NotImplementedError) as e:\n"
               "    import sys\n"
               "    print(f'%s {%s.__version__} cannot run this case here: {e}')\n"
               "    sys.exit(2)\n",
            path_a, path_b, fw->name, fw->module);
    fputs(fw->to_float64, s);
    fprintf(s, "differ = int(np.sum(~((p == q) | (np.isnan(p) & np.isnan(q)))))\n"
               "print(f'{differ} of {p.size} elements differ; largest difference "
               "{np.nanmax(np.abs(p - q)) if differ else 0:.3g}')\n");
    /* Say whether the framework shows what fpdiv saw, and when not, which BLAS it ran instead. */
    fprintf(s, "print('fpdiv saw %zu of %zu differ (%s) on %s%s%s')\n", f->recorded.diff, f->recorded.count,
            fpd_verdict_table[f->recorded.verdict].name, f->backend_names[0], f->backend_names[1][0] ? " vs " : "",
            f->backend_names[1]);
    fprintf(s, "if %s:\n"
               "    print('reproduced in %s')\n"
               "else:\n"
               "    maps = open('/proc/self/maps').read().splitlines() if os.path.exists('/proc/self/maps') else []\n"
               "    libs = sorted({l.split()[-1] for l in maps if 'blas' in l.lower() or 'mkl' in l.lower()})\n"
               "    print('not reproduced in %s, which ran ' + (', '.join(libs) or 'its own kernels') + '. Where that is'\n"
               "          ' the BLAS in the environment above, the framework called it differently (gemv for a single row'\n"
               "          ' or column, a copy of a strided operand, its own loop for 16-bit types); otherwise the two'\n"
               "          ' libraries (or cores) order the sums differently.')\n",
            f->recorded.diff > 0 ? "differ > 0" : "differ == 0", fw->name, fw->name);
    return close_written(s, path, why, why_size);
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
    const struct framework *fw = to ? find_framework(to) : NULL;
    if (argc - optind != 1 || !fw) {
        fpd_cli_error("export", argc - optind != 1 ? "give exactly one case file (see 'fpdiv export --help')"
                                                  : "--to must be numpy, torch or jax");
        return FPD_EXIT_USAGE;
    }
    struct fpd_case_file f;
    char why[1024], dir[4200];
    if (fpd_case_file_load(argv[optind], &f, why, sizeof why) != FPD_OK) {
        fpd_cli_error("export", "%s", why);
        return FPD_EXIT_USAGE;
    }
    const char *path_a, *path_b;
    if (!find_paths(fw, f.chk.relation, &path_a, &path_b)) {
        char known[256] = "";
        for (size_t i = 0; i < sizeof fw->paths / sizeof fw->paths[0] && fw->paths[i][0]; i += 2)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", *known ? ", " : "", fw->paths[i][0]);
        fpd_cli_error("export", "%s: %s has no counterpart in %s (it compares what %s does not expose); %s can show %s",
                      argv[optind], f.chk.relation->name, fw->name, fw->name, fw->name, known);
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
        rc = write_script(dir, fw, &f, path_a, path_b, why, sizeof why);
    fpd_case_data_free(&data);
    fpd_case_file_free(&f);
    if (rc != FPD_OK) {
        fpd_cli_error("export", "%s", rc == FPD_ERR_NOMEM ? "out of memory" : why);
        return rc == FPD_ERR_NOMEM ? FPD_EXIT_INTERNAL : FPD_EXIT_USAGE;
    }
    char shown[4096], script[4200], word[4096];
    snprintf(script, sizeof script, "%.4000s/repro_%.16s.py", dir, fw->name);
    printf("wrote %s/A.npy, B.npy, bias.npy and repro_%s.py; run: python3 %s\n",
           fpd_printable(dir, shown, sizeof shown), fw->name, fpd_shell_word(script, word, sizeof word));
    return FPD_EXIT_OK;
}
