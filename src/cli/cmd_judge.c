/* cmd_judge.c — `fpdiv judge`: two results a user already has, of one product, judged as a check's
 * two paths are. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/given.h"
#include "cli/cmd.h"
#include "store/array_file.h"
#include "store/judge_arrays.h"
#include "common/dtype.h"
#include "common/text.h"
#include "report/check_report.h"

static const char help[] =
    "usage: fpdiv judge --a A.npy --b B.npy --outputs Y1.npy,Y2.npy [options]\n"
    "       fpdiv judge --op sum|mean --a X.npy [--axes LIST] --outputs S1.npy,S2.npy [options]\n\n"
    "Tells whether two results of one product that the user already has differ as rounding\n"
    "explains: Y1 and Y2 are A @ B (+ bias) computed two ways (a slice before or after, a fused\n"
    "bias or not, eager or compiled, another device). It reports what `check` does: the verdict\n"
    "(same, reorder, improbable, bound, nonfinite), the elements that differ, the largest\n"
    "difference in ulps and relative, its ratio to the worst-case bound and to the probabilistic\n"
    "threshold, each output's distance from the correctly rounded product and which is closer, and\n"
    "the worst element. The rounding model is a sum of the k products in any order, each addition\n"
    "rounded to nearest in the accumulator's type. A sum of X's elements is the product of X and a\n"
    "column of ones: x.sum() against x.sum(0).sum(0) is judged as any dot; a mean is that sum divided\n"
    "by its count, which rounds once more.\n\n"
    "Each FILE is a .npy file, or an array of a .npz archive (np.savez): ARCHIVE.npz:NAME, or the\n"
    "archive alone where it holds one array or one named as the option is (a, b, bias); --outputs\n"
    "ARCHIVE.npz takes an archive of exactly two arrays, in its order.\n\n"
    "  --op OP              matmul (default: A @ B, A or B a vector included), dot (two vectors),\n"
    "                       gemv (a matrix and a vector), sum or mean (of --a over --axes)\n"
    "  --axes LIST          the axes a sum (mean) adds over, comma-separated, negative from the last\n"
    "                       (default: all): the outputs hold one sum (mean) per element of the others\n"
    "  --a FILE             A: m x k, with any batch dimensions before, or a vector of k;\n"
    "                       a sum's X: any shape\n"
    "  --b FILE             B: k x n, with any batch dimensions before, or a vector of k; the batch\n"
    "                       dimensions broadcast as matmul's do (equal, 1, or missing on one side)\n"
    "  --bias FILE          a row of n added to every row of the product (both outputs hold it)\n"
    "  --trans-a            A.npy holds k x m (A transposed)\n"
    "  --trans-b            B.npy holds n x k, as a Linear layer's weight does (F.linear(x, W, b))\n"
    "  --outputs Y1,Y2      the two results (or an archive of two): the product's shape (the\n"
    "                       batch's dimensions, m, n; dimensions of 1 aside), or one row of n with --row\n"
    "  --row I              the outputs are row I of the product (over batch x m): (A @ B)[I] vs A[I] @ B\n"
    "  --dtype IN[:OUT[:ACC]] the types; from the files where not given (bf16 arrays, stored as uint16\n"
    "                       or ml_dtypes' 2-byte void, must be named); ACC as frameworks accumulate:\n"
    "                       f64 where IN or OUT is f64, else f32\n"
    "  --fail-on V          exit 1 when the verdict is V or worse: same, reorder, improbable,\n"
    "                       bound, never (default bound)\n"
    "  --json               print one JSON object instead of the report\n"
    "  -h, --help           this text\n";

enum {
    OPT_A = 1, OPT_B, OPT_BIAS, OPT_TRANS_A, OPT_TRANS_B, OPT_OUTPUTS, OPT_ROW, OPT_DTYPE, OPT_FAIL_ON, OPT_JSON,
    OPT_OP, OPT_AXES
};

static const struct {
    const char *name;
    enum fpd_judge_op op;
} ops[] = {{"matmul", FPD_JUDGE_MATMUL}, {"dot", FPD_JUDGE_DOT}, {"gemv", FPD_JUDGE_GEMV}, {"sum", FPD_JUDGE_SUM},
             {"mean", FPD_JUDGE_MEAN}};

static int parse_op(const char *text, enum fpd_judge_op *op, char *why, size_t why_size)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(text, ops[i].name) == 0) {
            *op = ops[i].op;
            return FPD_OK;
        }
    char shown[128];
    snprintf(why, why_size, "--op '%s': expected matmul, dot, gemv, sum or mean",
             fpd_printable(text, shown, sizeof shown));
    return FPD_ERR_INPUT;
}

struct judge_options {
    struct fpd_judge_files files;
    char outputs[2][4096];
    int fail_on;
    bool json;
};

/* One archive of two arrays, which are the outputs; or Y1,Y2, split at the comma whose two sides
 * both name files (a file's own name may hold a comma), else at the only one. */
static int parse_outputs(const char *text, struct judge_options *o, char *why, size_t why_size)
{
    if (fpd_array_file_is_archive(text)) { /* one archive, whatever its name holds */
        int rc = fpd_array_file_members(text, 2, o->outputs, why, why_size);
        if (rc == FPD_OK)
            o->files.outputs[0] = o->outputs[0], o->files.outputs[1] = o->outputs[1];
        return rc;
    }
    const char *split = NULL;
    size_t commas = 0;
    for (const char *c = strchr(text, ','); c; c = strchr(c + 1, ',')) {
        commas++;
        char left[sizeof o->outputs[0]];
        size_t n = (size_t)(c - text);
        if (!split && n < sizeof left) {
            memcpy(left, text, n);
            left[n] = '\0';
            if (fpd_array_file_exists(left) && fpd_array_file_exists(c + 1))
                split = c;
        }
    }
    if (!split && commas == 1)
        split = strchr(text, ',');
    if (!split || split == text || !split[1] || (size_t)(split - text) >= sizeof o->outputs[0] ||
        strlen(split + 1) >= sizeof o->outputs[1]) {
        char shown[256];
        snprintf(why, why_size, "--outputs '%s': expected two files, Y1.npy,Y2.npy, or an archive of two arrays",
                 fpd_printable(text, shown, sizeof shown));
        return FPD_ERR_INPUT;
    }
    snprintf(o->outputs[0], sizeof o->outputs[0], "%.*s", (int)(split - text), text);
    snprintf(o->outputs[1], sizeof o->outputs[1], "%s", split + 1);
    o->files.outputs[0] = o->outputs[0], o->files.outputs[1] = o->outputs[1];
    return FPD_OK;
}

static int parse(int argc, char **argv, struct judge_options *o, char *why, size_t why_size)
{
    static const struct option options[] = {
        {"a", required_argument, NULL, OPT_A},          {"b", required_argument, NULL, OPT_B},
        {"bias", required_argument, NULL, OPT_BIAS},    {"trans-a", no_argument, NULL, OPT_TRANS_A},
        {"trans-b", no_argument, NULL, OPT_TRANS_B},    {"outputs", required_argument, NULL, OPT_OUTPUTS},
        {"row", required_argument, NULL, OPT_ROW},      {"dtype", required_argument, NULL, OPT_DTYPE},
        {"fail-on", required_argument, NULL, OPT_FAIL_ON}, {"json", no_argument, NULL, OPT_JSON},
        {"op", required_argument, NULL, OPT_OP},        {"axes", required_argument, NULL, OPT_AXES},
        {"help", no_argument, NULL, 'h'},               {NULL, 0, NULL, 0},
    };
    int opt, rc = FPD_OK;
    uint64_t row;
    while (rc == FPD_OK && (opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        switch (opt) {
        case OPT_A: o->files.a = optarg; break;
        case OPT_B: o->files.b = optarg; break;
        case OPT_BIAS: o->files.bias = optarg; break;
        case OPT_TRANS_A: o->files.trans_a = true; break;
        case OPT_TRANS_B: o->files.trans_b = true; break;
        case OPT_OUTPUTS: rc = parse_outputs(optarg, o, why, why_size); break;
        case OPT_ROW:
            rc = fpd_cli_u64("--row", optarg, (uint64_t)1 << 62, &row, why, why_size);
            o->files.row = (long)row;
            break;
        case OPT_DTYPE: o->files.dtype = optarg; break;
        case OPT_FAIL_ON: rc = fpd_cli_verdict("--fail-on", optarg, true, &o->fail_on, why, why_size); break;
        case OPT_JSON: o->json = true; break;
        case OPT_OP: rc = parse_op(optarg, &o->files.op, why, why_size); break;
        case OPT_AXES: o->files.axes = optarg; break;
        case 'h': fputs(help, stdout); return -1;
        default: snprintf(why, why_size, "see 'fpdiv judge --help'"); return FPD_ERR_INPUT;
        }
    }
    if (rc != FPD_OK)
        return rc;
    if (optind < argc) {
        snprintf(why, why_size, "unexpected argument '%s'", argv[optind]);
        return FPD_ERR_INPUT;
    }
    bool sum = fpd_judge_reduces(o->files.op);
    if (!o->files.a || (!sum && !o->files.b) || !o->files.outputs[0]) {
        snprintf(why, why_size, "%s are required (see 'fpdiv judge --help')",
                 sum ? "--a and --outputs" : "--a, --b and --outputs");
        return FPD_ERR_INPUT;
    }
    const char *not_for = sum && o->files.b ? "--b" : sum && o->files.bias ? "--bias" : sum && o->files.row >= 0 ? "--row"
                        : sum && o->files.trans_a ? "--trans-a" : sum && o->files.trans_b ? "--trans-b"
                        : !sum && o->files.axes ? "--axes" : NULL;
    if (not_for) {
        snprintf(why, why_size, "%s is not for %s", not_for,
                 sum ? "a sum or a mean (--op sum, mean)" : "a product (--axes: --op sum or mean)");
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

/* The two given backends, registered and open, as the check's. */
static int given_backends(const struct fpd_judge_arrays *j, struct fpd_check *chk, char *why, size_t why_size)
{
    for (int i = 0; i < 2; i++) {
        fpd_given_set(i, j->c.dt.out, j->outputs[i].data, j->c.batch, j->c.m, j->c.n);
        int rc = fpd_registry_add(&fpd_backend_given[i], why, why_size);
        if (rc != FPD_OK)
            return rc;
        chk->backends[i] = fpd_registry_find(fpd_backend_given[i].name);
        if (fpd_backend_acquire(chk->backends[i]) != FPD_OK) {
            snprintf(why, why_size, "%s", chk->backends[i]->why);
            return FPD_ERR_INPUT;
        }
    }
    return FPD_OK;
}

/* "x.npy @ w.npyᵀ + b.npy: 64 x 128 x 512 (m x n x k), ..." */
static void print_product(const struct judge_options *o, const struct fpd_judge_arrays *j, const struct fpd_case *c)
{
    char shown[3][4200], dt[32];
    printf("  product  %s%s @ %s%s", fpd_printable(o->files.a, shown[0], sizeof shown[0]), o->files.trans_a ? "ᵀ" : "",
           fpd_printable(o->files.b, shown[1], sizeof shown[1]), o->files.trans_b ? "ᵀ" : "");
    if (o->files.bias)
        printf(" + %s", fpd_printable(o->files.bias, shown[2], sizeof shown[2]));
    if (j->batch > 1)
        printf(": %zu x %zu x %u x %u (batch x m x n x k)", j->batch, j->m, c->n, c->k);
    else
        printf(": %zu x %u x %u (m x n x k)", j->m, c->n, c->k);
    printf(", %s (in %s, out %s, acc %s)\n", fpd_dtypes_format(&c->dt, dt, sizeof dt), fpd_dtype_info(c->dt.in)->name,
           fpd_dtype_info(c->dt.out)->name, fpd_dtype_info(c->dt.acc)->name);
}

/* The elements that differ most, in ulps of the output type: first those whose classes differ
 * (Inf or NaN against a number, or Inf against NaN: no count of ulps says how far), then by ulps.
 * Two NaNs are equal, as the comparison counts them. The report's single worst element is the
 * check's; a user wants a few to look at. */
enum { LARGEST = 5 };
#define CLASSES_DIFFER UINT64_MAX /* a difference's ulp where its classes differ: before any count */
struct difference {
    size_t at[3]; /* batch, row, column of the product */
    uint64_t ulp, bits[2];
};

static size_t largest_differences(const struct judge_options *o, const struct fpd_judge_arrays *j,
                                  const struct fpd_case *c, struct difference out[LARGEST])
{
    size_t found = 0, n = c->n, rows = (size_t)c->batch * c->m;
    enum fpd_dtype t = c->dt.out;
    for (size_t e = 0; e < rows * n; e++) {
        uint64_t a = fpd_bits(t, j->outputs[0].data, e), b = fpd_bits(t, j->outputs[1].data, e);
        if (fpd_same_value_bits(t, a, b))
            continue;
        bool classes = fpd_classify_bits(t, a) != FPD_CLASS_FINITE || fpd_classify_bits(t, b) != FPD_CLASS_FINITE;
        uint64_t d = classes ? CLASSES_DIFFER : fpd_ulp_distance(t, a, b);
        if (found == LARGEST && d <= out[LARGEST - 1].ulp)
            continue;
        size_t at = found < LARGEST ? found++ : LARGEST - 1;
        for (; at > 0 && out[at - 1].ulp < d; at--)
            out[at] = out[at - 1];
        size_t row = o->files.row >= 0 ? (size_t)o->files.row : e / n; /* over batch x m */
        out[at] = (struct difference){{row / j->m, row % j->m, e % n}, d, {a, b}};
    }
    return found;
}

static void report_largest(const struct judge_options *o, const struct fpd_judge_arrays *j, const struct fpd_case *c,
                           const char *const names[2])
{
    struct difference d[LARGEST];
    size_t found = largest_differences(o, j, c, d);
    for (size_t i = 0; i < found; i++) {
        char a[96], b[96], far[32] = "classes differ";
        if (d[i].ulp != CLASSES_DIFFER)
            snprintf(far, sizeof far, "%" PRIu64 " ulp", d[i].ulp);
        printf("%s[%zu, %zu, %zu]: %s, %s = %s, %s = %s\n", i ? "           " : "  largest  ", d[i].at[0], d[i].at[1],
               d[i].at[2], far, names[0], fpd_format_value(c->dt.out, d[i].bits[0], a, sizeof a), names[1],
               fpd_format_value(c->dt.out, d[i].bits[1], b, sizeof b));
    }
}

/* "judge Y1.npy against Y2.npy: reorder", and what was judged. */
static void report(const struct judge_options *o, const struct fpd_judge_arrays *j, const struct fpd_check *chk,
                   const struct fpd_check_result *res, const char *const names[2])
{
    const struct fpd_case *c = &chk->c;
    char shown[2][4200], dt[32];
    printf("judge %s against %s: %s\n", names[0], names[1], fpd_verdict_table[res->verdict].name);
    bool mean = o->files.op == FPD_JUDGE_MEAN;
    if (fpd_judge_reduces(o->files.op)) {
        printf("  %s     %s over %s%s: %u %s%s of %u terms, %s (in %s, out %s, acc %s)\n", mean ? "mean" : "sum ",
               fpd_printable(o->files.a, shown[0], sizeof shown[0]), o->files.axes ? "axes " : "all its axes",
               o->files.axes ? fpd_printable(o->files.axes, shown[1], sizeof shown[1]) : "", c->m,
               mean ? "mean" : "sum", c->m == 1 ? "" : "s", c->k, fpd_dtypes_format(&c->dt, dt, sizeof dt),
               fpd_dtype_info(c->dt.in)->name,
               fpd_dtype_info(c->dt.out)->name, fpd_dtype_info(c->dt.acc)->name);
    } else {
        print_product(o, j, c);
    }
    for (int i = 0; i < 2; i++)
        if (j->widened[i] != FPD_DTYPE_COUNT)
            printf("  output   %s is %s: judged in %s, which holds its values exactly (its rounding to %s is its own)\n",
                   names[i], fpd_dtype_info(j->widened[i])->name, fpd_dtype_info(c->dt.out)->name,
                   fpd_dtype_info(j->widened[i])->name);
    if (o->files.row >= 0)
        printf("  row      %ld of the product (batch %zu, row %zu): the outputs are its %u elements\n", o->files.row,
               (size_t)o->files.row / j->m, (size_t)o->files.row % j->m, c->n);
    printf("  model    any order of the k %s sum, each addition rounded to nearest in %s%s\n",
           fpd_judge_reduces(o->files.op) ? "terms'" : "products'", fpd_dtype_info(c->dt.acc)->name,
           mean ? "; then divided by k (or times 1/k), rounded once more" : "");
    fpd_report_judgement(stdout, chk, res, names);
    if (res->verdict != FPD_ERROR)
        report_largest(o, j, c, names);
}


static json_t *judgement_json(const struct judge_options *o, const struct fpd_judge_arrays *j,
                              const struct fpd_check *chk, const struct fpd_check_result *res)
{
    json_t *out = fpd_check_json(chk, res);
    json_object_set_new(out, "type", json_string("judge"));
    /* a check's identity (relation, backends, the generator's seed) and its stored layout (the
     * inputs' is under "inputs"): none of them a judgement's */
    static const char *const of_a_check[] = {"relation", "backends", "reproduce", "seed",    "index",
                                             "generator", "dist",     "trans_a",   "trans_b", "pad"};
    for (size_t i = 0; i < sizeof of_a_check / sizeof of_a_check[0]; i++)
        json_object_del(out, of_a_check[i]);
    json_object_set_new(out, "outputs", json_pack("[o,o]", fpd_json_text(o->files.outputs[0]),
                                                  fpd_json_text(o->files.outputs[1])));
    const char *op = "matmul";
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        op = ops[i].op == o->files.op ? ops[i].name : op;
    json_object_set_new(out, "op", json_string(op));
    json_object_set_new(out, "axes", o->files.axes ? fpd_json_text(o->files.axes) : json_null());
    json_object_set_new(out, "inputs", json_pack("{s:o,s:o,s:o,s:b,s:b}", "a", fpd_json_text(o->files.a), "b",
                                                 o->files.b ? fpd_json_text(o->files.b) : json_null(), "bias",
                                                 o->files.bias ? fpd_json_text(o->files.bias) : json_null(),
                                                 "trans_a", o->files.trans_a, "trans_b", o->files.trans_b));
    json_object_set_new(out, "product", json_pack("{s:I,s:I,s:I,s:I}", "batch", (json_int_t)j->batch, "m",
                                                  (json_int_t)j->m, "n", (json_int_t)chk->c.n, "k", (json_int_t)chk->c.k));
    json_object_set_new(out, "row", o->files.row >= 0 ? json_integer(o->files.row) : json_null());
    struct difference d[LARGEST];
    size_t found = largest_differences(o, j, &chk->c, d);
    json_t *largest = json_array();
    for (size_t i = 0; i < found; i++) {
        char a[96], b[96];
        /* "ulp": null where the classes differ */
        json_array_append_new(largest, json_pack("{s:[I,I,I],s:o,s:s,s:s}", "at", (json_int_t)d[i].at[0],
                                                 (json_int_t)d[i].at[1], (json_int_t)d[i].at[2], "ulp",
                                                 d[i].ulp == CLASSES_DIFFER ? json_null()
                                                 : json_integer(d[i].ulp > INT64_MAX ? INT64_MAX : (json_int_t)d[i].ulp),
                                                 "a", fpd_format_value(chk->c.dt.out, d[i].bits[0], a, sizeof a),
                                                 "b", fpd_format_value(chk->c.dt.out, d[i].bits[1], b, sizeof b)));
    }
    json_object_set_new(out, "largest", largest);
    return out;
}

int fpd_cmd_judge(int argc, char **argv)
{
    struct judge_options o = {.files = {.row = -1}, .fail_on = FPD_BOUND};
    char why[8192]; /* a long path and, after it, what is wrong */
    int rc = parse(argc, argv, &o, why, sizeof why);
    if (rc < 0)
        return FPD_EXIT_OK; /* --help */
    struct fpd_judge_arrays j;
    if (rc == FPD_OK)
        rc = fpd_judge_arrays_load(&o.files, &j, why, sizeof why);
    if (rc != FPD_OK) {
        fpd_console_error("judge", "%s", why);
        return rc == FPD_ERR_NOMEM ? FPD_EXIT_INTERNAL : FPD_EXIT_USAGE;
    }
    struct fpd_check chk = {.relation = fpd_relation_find("vendor"), .c = j.c, .exact = FPD_EXACT_ALWAYS,
                            .mean = o.files.op == FPD_JUDGE_MEAN};
    if ((rc = given_backends(&j, &chk, why, sizeof why)) != FPD_OK) {
        fpd_console_error("judge", "%s", why);
        fpd_judge_arrays_free(&j);
        return FPD_EXIT_INTERNAL;
    }
    /* in a process of its own, as check runs: a crash in the exact reference on hostile data costs it */
    struct fpd_checker ck = {.isolate = true};
    struct fpd_check_result res;
    rc = fpd_check_run(&ck, &chk, &res);
    fpd_checker_free(&ck);
    if (rc != FPD_OK) {
        fpd_console_error("judge", "internal error (status %d): out of memory?", rc);
        fpd_judge_arrays_free(&j);
        return FPD_EXIT_INTERNAL;
    }
    if (o.files.row >= 0) { /* the worst element in the product's coordinates, not the row's */
        res.worst_batch = (uint32_t)((size_t)o.files.row / j.m);
        res.worst_row = (uint32_t)((size_t)o.files.row % j.m);
    }
    char names[2][4200];
    const char *shown[2] = {fpd_printable(o.files.outputs[0], names[0], sizeof names[0]),
                            fpd_printable(o.files.outputs[1], names[1], sizeof names[1])};
    if (o.json) {
        json_t *out = judgement_json(&o, &j, &chk, &res);
        json_dumpf(out, stdout, FPD_JSON_LINE);
        fputc('\n', stdout);
        json_decref(out);
    } else {
        report(&o, &j, &chk, &res, shown);
    }
    fpd_judge_arrays_free(&j);
    return fpd_fails_policy(res.verdict, o.fail_on) ? FPD_EXIT_FINDINGS : FPD_EXIT_OK;
}
