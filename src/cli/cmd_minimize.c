/* cmd_minimize.c — `fpdiv minimize`: shrink a saved case and save the result. */
#include <getopt.h>
#include <stdio.h>

#include "cli/cmd.h"
#include "common/dtype.h"
#include "common/text.h"
#include "engine/environment.h"
#include "engine/minimize.h"
#include "report/check_report.h"
#include "store/corpus_dir.h"

static const char help[] =
    "usage: fpdiv minimize CASE.json [-o DIR] [--minimize-time SEC] [--timeout SEC]\n\n"
    "Shrinks a saved case to the smallest, simplest one whose check keeps its signature (relation,\n"
    "backends, dtypes, verdict): dimensions first, then transposes, padding and bias, then values.\n"
    "The result is saved into the corpus DIR (default corpus) and reported.\n\n"
    "  -o, --output DIR        corpus to save into (default corpus)\n"
    "  --minimize-time SEC     stop after SEC seconds with the best case so far (default 10)\n"
    "  --timeout SEC           a check that takes longer is an `error` (default: no limit); each\n"
    "                          check runs in a process of its own, so a backend that crashes is one\n"
    "                          too (a crashing case minimizes to the smallest one that still crashes)\n"
    "  -h, --help              this text\n";

int fpd_cmd_minimize(int argc, char **argv)
{
    static const struct option options[] = {{"output", required_argument, NULL, 'o'},
                                            {"minimize-time", required_argument, NULL, 't'},
                                            {"timeout", required_argument, NULL, 'T'},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    const char *out_dir = "corpus";
    double seconds = 10, timeout = 0;
    char why[1024];
    int opt;
    while ((opt = getopt_long(argc, argv, "ho:", options, NULL)) != -1) {
        switch (opt) {
        case 'o': out_dir = optarg; break;
        case 't':
            if (fpd_cli_double("--minimize-time", optarg, 0.001, 1e6, &seconds, why, sizeof why) != FPD_OK) {
                fpd_console_error("minimize", "%s", why);
                return FPD_EXIT_USAGE;
            }
            break;
        case 'T':
            if (fpd_cli_double("--timeout", optarg, 0, 1e9, &timeout, why, sizeof why) != FPD_OK) {
                fpd_console_error("minimize", "%s", why);
                return FPD_EXIT_USAGE;
            }
            break;
        case 'h': fputs(help, stdout); return FPD_EXIT_OK;
        default: fpd_console_error("minimize", "see 'fpdiv minimize --help'"); return FPD_EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        fpd_console_error("minimize", "give exactly one case file (see 'fpdiv minimize --help')");
        return FPD_EXIT_USAGE;
    }
    if (fpd_cli_can_write_dir("--output", out_dir, why, sizeof why) != FPD_OK) { /* said before minimizing */
        fpd_console_error("minimize", "%s", why);
        return FPD_EXIT_USAGE;
    }
    struct fpd_case_file f;
    if (fpd_case_file_load(argv[optind], &f, why, sizeof why) != FPD_OK) {
        fpd_console_error("minimize", "%s", why);
        return FPD_EXIT_USAGE;
    }
    int exit_code = FPD_EXIT_OK;
    /* a crash is an error verdict; the environment is recorded where each check ran, so the final
     * case's is that of its own run, fpd_minimize's last (a backend's provenance can be state of
     * the process that ran it: fpd_checker.environment) */
    struct fpd_checker ck = {.isolate = true, .isolate_timeout = timeout, .environment = fpd_environment_text};
    struct fpd_check_result now;
    struct fpd_case_data data = {0};
    struct fpd_minimize_result mr;
    struct fpd_case_file out = {0};
    for (int i = 0; i < f.chk.relation->backends; i++)
        if (!fpd_backend_supports(f.chk.backends[i], &f.chk.c.dt, why, sizeof why)) {
            fpd_console_error("minimize", "%s: cannot run here: %s", argv[optind], why);
            exit_code = FPD_EXIT_USAGE;
            goto done;
        }
    fpd_cli_run_kernel_sets_here(f.chk.backends, (size_t)f.chk.relation->backends);
    f.chk.exact = FPD_EXACT_SAMPLED; /* as fuzz judges findings */
    if (fpd_check_run(&ck, &f.chk, &now) != FPD_OK)
        goto internal;
    if (now.verdict == FPD_SAME) {
        fpd_console_error("minimize", "%s: nothing diverges here now (recorded %s): nothing to minimize", argv[optind],
                      fpd_verdict_table[f.recorded.verdict].name);
        exit_code = FPD_EXIT_FINDINGS;
        goto done;
    }
    struct fpd_check chk = f.chk;
    if (fpd_minimize(&ck, &chk, now.verdict, seconds, &data, &mr) != FPD_OK)
        goto internal;
    char before[64], after[64], path[4200], shown_path[4096];
    bool existed;
    printf("minimized %s: %s -> %s in %zu checks%s\n", fpd_printable(argv[optind], shown_path, sizeof shown_path),
           fpd_shape_format(&mr.before, before, sizeof before),
           fpd_shape_format(&chk.c, after, sizeof after), mr.checks,
           mr.timed_out ? " (time cap reached: the best case so far)" : "");
    json_t *environment = fpd_checker_environment(&ck, &chk);
    fpd_report_check(stdout, &chk, &mr.final, environment);
    if (fpd_case_file_from_check(&out, &chk, &mr.final, FPD_INLINE_MAX_DEFAULT, environment) != FPD_OK)
        goto internal;
    out.origin_seed = f.origin_seed, out.origin_index = f.origin_index, out.origin_generator = f.origin_generator;
    if (fpd_case_file_save(out_dir, &out, path, sizeof path, &existed, why, sizeof why) != FPD_OK) {
        fpd_console_error("minimize", "%s", why);
        exit_code = FPD_EXIT_USAGE;
        goto done;
    }
    char shown[4400];
    printf("%s %s\n", existed ? "already saved:" : "saved", fpd_printable(path, shown, sizeof shown));
    goto done;
internal:
    fpd_console_error("minimize", "internal error (out of memory?)");
    exit_code = FPD_EXIT_INTERNAL;
done:
    fpd_case_file_free(&out);
    fpd_case_data_free(&data);
    fpd_checker_free(&ck);
    fpd_case_file_free(&f);
    return exit_code;
}
