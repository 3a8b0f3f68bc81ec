/* cmd_show.c — `fpdiv show`: a saved case, readable, with its recorded and current outcome. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "cli/cmd.h"
#include "common/dtype.h"
#include "common/isolate.h"
#include "common/text.h"
#include "engine/replay.h"
#include "report/check_report.h"

static const char help[] = "usage: fpdiv show [--timeout SEC] CASE.json\n\n"
                           "Shows a saved case: shape, dtypes, layout, relation, where its data come from, the\n"
                           "outcome recorded when it was saved, the outcome here and now (the case is re-run),\n"
                           "and the command that reproduces it.\n\n"
                           "  --timeout SEC  a re-run taking longer is reported as an error (default 300; 0: none)\n";

/* The recorded environment: the CPU, and each backend's library, kernel set and threads. */
static void show_environment(const struct fpd_case_file *f)
{
    json_t *cpu = json_object_get(f->environment, "cpu");
    const char *model = json_string_value(json_object_get(cpu, "model"));
    const char *vendor = json_string_value(json_object_get(cpu, "vendor"));
    const char *isa = json_string_value(json_object_get(cpu, "isa"));
    char shown[3][256];
    printf("  cpu      %s", model ? fpd_printable(model, shown[0], sizeof shown[0]) : "unrecorded");
    if (vendor && *vendor)
        printf(" (%s)", fpd_printable(vendor, shown[1], sizeof shown[1]));
    if (isa && *isa)
        printf(", %s", fpd_printable(isa, shown[2], sizeof shown[2]));
    printf("\n");
    const char *name;
    json_t *b;
    json_object_foreach(json_object_get(f->environment, "backends"), name, b)
    {
        const char *library = json_string_value(json_object_get(b, "library"));
        const char *version = json_string_value(json_object_get(b, "version"));
        const char *set = json_string_value(json_object_get(b, "kernel_set"));
        json_t *threads = json_object_get(b, "threads");
        if (!library && !set)
            continue;
        printf("  %-8s", fpd_printable(name, shown[0], sizeof shown[0]));
        const char *sep = " ";
        if (library) {
            printf("%s%s%s%s", sep, fpd_printable(library, shown[1], sizeof shown[1]), version ? " " : "",
                   version ? fpd_printable(version, shown[2], sizeof shown[2]) : "");
            sep = ", ";
        }
        if (set) {
            printf("%skernel set %s", sep, fpd_printable(set, shown[1], sizeof shown[1]));
            sep = ", ";
        }
        if (json_is_integer(threads))
            printf("%s%d thread%s", sep, (int)json_integer_value(threads), json_integer_value(threads) == 1 ? "" : "s");
        printf("\n");
    }
}

static void show_recorded(const struct fpd_case_file *f)
{
    const char *version = json_string_value(json_object_get(f->environment, "fpdiv"));
    char shown[64];
    printf("recorded %s: %zu of %zu elements differ, max %" PRIu64 " ulp, ratio %.3g\n",
           fpd_verdict_table[f->recorded.verdict].name, f->recorded.diff, f->recorded.count, f->recorded.max_ulp,
           f->recorded.ratio);
    if (f->recorded.probable_ratio > 1)
        printf("  likely   %.3g times the probabilistic threshold\n", f->recorded.probable_ratio);
    if (f->recorded.strict_excess > 1)
        printf("  strict   %.3g times what underflow can make\n", f->recorded.strict_excess);
    for (int w = 0; w < 2; w++)
        if (f->recorded.exact.aggregate[w] > 1)
            printf("  aggregate path %c %.3g times its alarm level (over all the elements)\n", "AB"[w],
                   f->recorded.exact.aggregate[w]);
    printf("  hashes   A %016" PRIx64 "  B %016" PRIx64 "\n", f->recorded.hash_a, f->recorded.hash_b);
    printf("  origin   seed %" PRIu64 " index %" PRIu32 ", generator %u (%zu check%s of this signature), by fpdiv %s\n",
           f->origin_seed, f->origin_index, f->origin_generator, f->signature_count, f->signature_count == 1 ? "" : "s",
           version ? fpd_printable(version, shown, sizeof shown) : "?");
    show_environment(f);
    if (f->sidecar)
        printf("  data     in .npy files beside the case file (.A.npy, .B.npy, .bias.npy), exact; each hash matches\n");
    else if (f->has_data)
        printf("  data     inline, exact\n");
    else
        printf("  data     generated from the recipe by generator %u; the hash of the data matches\n",
               f->chk.c.recipe.generator);
}

struct show_job {
    struct fpd_case_file *f;
};

/* The case re-run and reported, in a process of its own: a backend that crashes is reported. */
static int show_now(void *ctx)
{
    struct fpd_case_file *f = ((struct show_job *)ctx)->f;
    struct fpd_checker ck = {0};
    struct fpd_check_result res;
    enum fpd_replay_class cls;
    char why[1024];
    f->chk.exact = FPD_EXACT_ALWAYS;
    int rc = fpd_replay_case(&ck, f, &res, &cls, why, sizeof why);
    fpd_checker_free(&ck);
    if (rc != FPD_OK) {
        fpd_console_error("show", "internal error (out of memory?)");
        return FPD_EXIT_INTERNAL;
    }
    char changes[512], shown[2048];
    printf("now: %s\n", fpd_replay_class_names[cls]);
    if (cls == FPD_SKIPPED || cls == FPD_ELSEWHERE) {
        printf("  %s\n", fpd_printable(why, shown, sizeof shown));
    } else {
        if (fpd_replay_environment_changes(f, changes, sizeof changes)[0])
            printf("  changed since it was recorded: %s\n", fpd_printable(changes, shown, sizeof shown));
        fpd_report_check(stdout, &f->chk, &res, NULL);
    }
    return FPD_EXIT_OK;
}

int fpd_cmd_show(int argc, char **argv)
{
    static const struct option options[] = {{"timeout", required_argument, NULL, 't'},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    double timeout = 300;
    char why[1024];
    int opt;
    while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        switch (opt) {
        case 't':
            if (fpd_cli_double("--timeout", optarg, 0, 1e9, &timeout, why, sizeof why) != FPD_OK) {
                fpd_console_error("show", "%s", why);
                return FPD_EXIT_USAGE;
            }
            break;
        case 'h': fputs(help, stdout); return FPD_EXIT_OK;
        default: fpd_console_error("show", "see 'fpdiv show --help'"); return FPD_EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        fpd_console_error("show", "expected 1 argument, a case file (see 'fpdiv show --help')");
        return FPD_EXIT_USAGE;
    }
    const char *path = argv[optind];
    struct fpd_case_file f;
    if (fpd_case_file_load(path, &f, why, sizeof why) != FPD_OK) {
        fpd_console_error("show", "%s", why);
        return FPD_EXIT_USAGE;
    }
    char shown[4096];
    fpd_printable(path, shown, sizeof shown);
    printf("case %s\n", shown);
    show_recorded(&f);
    struct show_job job = {&f};
    int rc = fpd_run_isolated(show_now, &job, timeout, why, sizeof why);
    if (rc < 0) /* the backend took the re-run's process down, or hung: that is what happens now */
        printf("now: error: %s\n", why);
    else if (rc != FPD_EXIT_OK) {
        fpd_case_file_free(&f);
        return rc;
    }
    printf("reproduce: fpdiv replay %s\n", fpd_shell_word(path, shown, sizeof shown));
    fpd_case_file_free(&f);
    return FPD_EXIT_OK;
}
