/* cmd_check.c — `fpdiv check`: one relation on one case, reported in full. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_case.h"
#include "cli/cmd.h"
#include "common/dtype.h"
#include "common/text.h"
#include "engine/environment.h"
#include "report/check_report.h"
#include "store/corpus.h"
#include "store/corpus_dir.h"
#include "store/inputs_dir.h"

static const char help_head[] =
    "usage: fpdiv check --relation R --shape [BATCHx]MxNxK [options]\n\n"
    "Runs one relation on one case and reports the verdict, the difference metrics, the worst\n"
    "element, and the environment both paths ran in (CPU, library, kernel set, threads).\n\n";
static const char help_tail[] =
    "  --inputs DIR         the user's data instead of generated data: DIR/A.npy (batch x m x k, or\n"
    "                       m x k), DIR/B.npy (batch x k x n, or k x n) and, with --bias, DIR/bias.npy,\n"
    "                       as fpdiv export writes them, or a .npz archive of them (A, B, bias); they\n"
    "                       give the shape (--shape, if given, must agree) and the input type (bf16\n"
    "                       bits: say --dtype bf16); --save keeps them with the case\n"
    "  --fail-on V          exit 1 when the verdict is V or worse: same, reorder, improbable,\n"
    "                       bound, never (default bound: doc/concepts.md says why)\n"
    "  --json               print one JSON object instead of the report\n"
    "  --save DIR           save the case (as it is, not minimized) into the corpus DIR\n"
    "  -h, --help           this text\n";

enum { OPT_FAIL_ON = 1, OPT_JSON, OPT_SAVE, OPT_INPUTS };

static const struct option own_options[] = {
    {"fail-on", required_argument, NULL, OPT_FAIL_ON}, {"json", no_argument, NULL, OPT_JSON},
    {"save", required_argument, NULL, OPT_SAVE},       {"inputs", required_argument, NULL, OPT_INPUTS},
    {"help", no_argument, NULL, 'h'},                  {NULL, 0, NULL, 0},
};

struct check_options {
    const char *save, *inputs;
    int fail_on;
    bool json;
};

static int parse(int argc, char **argv, struct fpd_case_flags *cf, struct check_options *o, char *why,
                 size_t why_size)
{
    struct option options[64];
    fpd_case_options_merge(own_options, options, 64);
    /* what makes generated data: nothing for the user's own (--inputs), which a user must be told */
    static const char *const generator_options[] = {"seed", "index", "dist", "specials"};
    const char *generating = NULL;
    int opt, at = -1, rc = FPD_OK;
    while (rc == FPD_OK && (opt = getopt_long(argc, argv, "h", options, &at)) != -1) {
        for (size_t i = 0; opt != '?' && at >= 0 && i < sizeof generator_options / sizeof generator_options[0]; i++)
            generating = strcmp(options[at].name, generator_options[i]) == 0 ? generator_options[i] : generating;
        at = -1;
        if (fpd_case_flags_take(cf, opt, optarg, &rc, why, why_size))
            continue;
        switch (opt) {
        case OPT_FAIL_ON: rc = fpd_cli_verdict("--fail-on", optarg, true, &o->fail_on, why, why_size); break;
        case OPT_JSON: o->json = true; break;
        case OPT_SAVE: o->save = optarg; break;
        case OPT_INPUTS: o->inputs = optarg; break;
        case 'h': printf("%s%s%s", help_head, fpd_case_options_help, help_tail); return -1;
        default: snprintf(why, why_size, "see 'fpdiv check --help'"); return FPD_ERR_INPUT;
        }
    }
    if (rc != FPD_OK)
        return rc;
    if (optind < argc) {
        snprintf(why, why_size, "unexpected argument '%s'", argv[optind]);
        return FPD_ERR_INPUT;
    }
    if (!cf->relation || (!cf->shape && !o->inputs)) {
        snprintf(why, why_size, "--relation and --shape (or --inputs) are required (see 'fpdiv check --help')");
        return FPD_ERR_INPUT;
    }
    if (o->inputs && generating) {
        snprintf(why, why_size, "--%s is not for --inputs: the data are the arrays given, not generated", generating);
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

static int save_case(const struct fpd_check *chk, const struct fpd_check_result *res, json_t *environment,
                     const char *dir)
{
    struct fpd_case_file f;
    char path[4200], why[512];
    bool existed;
    int rc = fpd_case_file_from_check(&f, chk, res, FPD_INLINE_MAX_DEFAULT, environment);
    if (rc == FPD_OK)
        rc = fpd_case_file_save(dir, &f, path, sizeof path, &existed, why, sizeof why);
    else
        snprintf(why, sizeof why, "out of memory");
    fpd_case_file_free(&f);
    char shown[4400];
    if (rc != FPD_OK)
        fpd_console_error("check", "%s", why);
    else
        fprintf(stderr, "%s %s\n", existed ? "already saved:" : "saved", fpd_printable(path, shown, sizeof shown));
    return rc;
}

/* Prints the result (report or JSON), saves the case when asked: the exit status. `environment`
 * is the one the check ran in (a reference is taken). */
static int finish(struct fpd_check *chk, const struct fpd_check_result *res, json_t *environment,
                  const struct check_options *o)
{
    if (o->json) {
        json_t *j = fpd_check_json(chk, res);
        json_object_set(j, "environment", environment);
        json_dumpf(j, stdout, FPD_JSON_LINE);
        fputc('\n', stdout);
        json_decref(j);
    } else {
        fpd_report_check(stdout, chk, res, environment);
    }
    if (o->save && save_case(chk, res, json_incref(environment), o->save) != FPD_OK)
        return FPD_EXIT_USAGE;
    return fpd_fails_policy(res->verdict, o->fail_on) ? FPD_EXIT_FINDINGS : FPD_EXIT_OK;
}

/* --inputs DIR: the case's types and shape from the arrays (what --shape says, if given, must agree),
 * its data theirs; the shape as fpd_case_flags_resolve reads it, in shape. */
static int use_inputs(const struct check_options *o, struct fpd_case_flags *cf, struct fpd_inputs *in, char *shape,
                      size_t shape_size, char *why, size_t why_size)
{
    int rc = fpd_inputs_load(o->inputs, cf->dtype, cf->chk.c.has_bias, in, why, why_size);
    if (rc != FPD_OK)
        return rc;
    cf->chk.c.dt = in->dt;
    const struct fpd_case_data *d = &in->data;
    snprintf(shape, shape_size, "%ux%ux%ux%u", d->batch, d->m, d->n, d->k);
    struct fpd_case given = cf->chk.c;
    char dir[200]; /* shown shortened: what is wrong comes after it, in why's 512 bytes */
    fpd_printable(o->inputs, dir, sizeof dir);
    if (cf->shape && (fpd_shape_parse(cf->shape, &given, why, why_size) != FPD_OK || given.batch != d->batch ||
                      given.m != d->m || given.n != d->n || given.k != d->k)) {
        char shown[128];
        snprintf(why, why_size, "--shape %s, but the arrays in %s make a %s product",
                 fpd_printable(cf->shape, shown, sizeof shown), dir, shape);
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

int fpd_cmd_check(int argc, char **argv)
{
    struct fpd_case_flags cf;
    fpd_case_flags_init(&cf);
    struct check_options o = {.fail_on = FPD_BOUND}; /* improbable is reported, not failed: doc/concepts.md */
    char why[512];
    int rc = parse(argc, argv, &cf, &o, why, sizeof why);
    if (rc < 0)
        return FPD_EXIT_OK; /* --help */
    struct fpd_inputs inputs = {0};
    char shape[96];
    if (rc == FPD_OK && o.inputs)
        rc = use_inputs(&o, &cf, &inputs, shape, sizeof shape, why, sizeof why);
    if (rc == FPD_OK)
        rc = fpd_case_flags_resolve(&cf, o.inputs ? shape : NULL, why, sizeof why);
    if (rc == FPD_OK && o.inputs)
        cf.chk.c.data = &inputs.data;
    if (rc != FPD_OK) {
        fpd_console_error("check", "%s", why);
        fpd_case_data_free(&inputs.data);
        return FPD_EXIT_USAGE;
    }
    /* in a process of its own (the checker's isolation): a crash, or a hang past --timeout, is an
     * `error` verdict reported like any other */
    struct fpd_checker ck = {.isolate = true, .isolate_timeout = cf.timeout, .environment = fpd_environment_text};
    struct fpd_check_result res;
    rc = fpd_check_run(&ck, &cf.chk, &res);
    json_t *environment = rc == FPD_OK ? fpd_checker_environment(&ck, &cf.chk) : NULL;
    fpd_checker_free(&ck);
    int exit_code;
    if (rc != FPD_OK || !environment) {
        fpd_console_error("check", "internal error (status %d): out of memory?", rc);
        exit_code = FPD_EXIT_INTERNAL;
    } else if (res.not_applicable) { /* as a backend that does not take the dtypes: the request cannot be */
        fpd_console_error("check", "does not apply: %s", res.error);
        exit_code = FPD_EXIT_USAGE;
    } else {
        exit_code = finish(&cf.chk, &res, environment, &o);
    }
    json_decref(environment);
    fpd_case_data_free(&inputs.data);
    return exit_code;
}
