/* cmd_replay.c — `fpdiv replay`: re-run saved cases; what CI runs after a library upgrade. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "dtype.h"
#include "replay.h"
#include "report.h"

static const char help[] =
    "usage: fpdiv replay [options] [PATH...]\n\n"
    "Re-runs every saved case under each PATH (case files or directories; default corpus/) and\n"
    "classifies it: reproduced (both output hashes as recorded), changed (different bits, verdict\n"
    "not worse), fixed (now same), worse (a higher verdict), skipped (cannot run here).\n\n"
    "  --strict     changed and fixed fail too, not only worse\n"
    "  --json       one JSON line per case, then a summary line\n"
    "  -h, --help   this text\n\n"
    "exit status: 0 nothing worse, 1 some case worse (or changed/fixed with --strict), 2 a case file\n"
    "is malformed. For a single case file, as `git bisect run` expects: 0 good, 1 bad, 125 skipped.\n";

static json_t *case_line(const char *path, const struct fpd_case_file *f, enum fpd_replay_class cls,
                         const struct fpd_check_result *res, const char *why)
{
    json_t *o = json_pack("{s:s,s:s,s:s,s:s}", "type", "replay", "file", path, "class", fpd_replay_class_names[cls],
                          "recorded", fpd_verdict_table[f->recorded.verdict].name);
    if (cls == FPD_SKIPPED) {
        json_object_set_new(o, "reason", json_string(why));
        return o;
    }
    json_t *check = fpd_check_json(&f->chk, res);
    json_object_set_new(o, "verdict", json_string(fpd_verdict_table[res->verdict].name));
    json_object_set(o, "check", check);
    json_decref(check);
    return o;
}

int fpd_cmd_replay(int argc, char **argv)
{
    static const struct option options[] = {{"strict", no_argument, NULL, 's'},
                                            {"json", no_argument, NULL, 'j'},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    bool strict = false, json = false;
    int opt;
    while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        switch (opt) {
        case 's': strict = true; break;
        case 'j': json = true; break;
        case 'h': fputs(help, stdout); return FPD_EXIT_OK;
        default: fpd_cli_error("replay", "see 'fpdiv replay --help'"); return FPD_EXIT_USAGE;
        }
    }
    char *default_paths[] = {"corpus"};
    char **paths = optind < argc ? argv + optind : default_paths;
    int n_paths = optind < argc ? argc - optind : 1;

    size_t counts[FPD_REPLAY_CLASS_COUNT] = {0}, cases = 0, malformed = 0;
    struct fpd_checker ck = {0};
    int exit_code = FPD_EXIT_OK;
    for (int p = 0; p < n_paths && exit_code != FPD_EXIT_INTERNAL; p++) {
        char **files, why[1024];
        size_t n_files;
        if (fpd_corpus_list(paths[p], &files, &n_files, why, sizeof why) != FPD_OK) {
            fpd_cli_error("replay", "%s", why);
            malformed++;
            continue;
        }
        for (size_t i = 0; i < n_files; i++) {
            struct fpd_case_file f;
            struct fpd_check_result res;
            enum fpd_replay_class cls;
            if (fpd_case_file_load(files[i], &f, why, sizeof why) != FPD_OK) {
                fpd_cli_error("replay", "%s", why);
                malformed++;
            } else if ((f.chk.exact = FPD_EXACT_ALWAYS, fpd_replay_case(&ck, &f, &res, &cls, why, sizeof why)) != FPD_OK) {
                fpd_cli_error("replay", "%s: internal error (out of memory?)", files[i]);
                exit_code = FPD_EXIT_INTERNAL;
            } else {
                cases++;
                counts[cls]++;
                if (json) {
                    json_t *line = case_line(files[i], &f, cls, &res, why);
                    json_dumpf(line, stdout, JSON_COMPACT);
                    fputc('\n', stdout);
                    json_decref(line);
                } else {
                    char dt[32], shape[64];
                    printf("%-10s %s  %s on %s%s%s, %s %s: %s (recorded %s)%s%s\n", fpd_replay_class_names[cls],
                           files[i], f.chk.relation->name, f.backend_names[0], f.backend_names[1][0] ? "," : "",
                           f.backend_names[1], fpd_dtypes_format(&f.chk.c.dt, dt, sizeof dt),
                           fpd_shape_format(&f.chk.c, shape, sizeof shape),
                           cls == FPD_SKIPPED ? "-" : fpd_verdict_table[res.verdict].name,
                           fpd_verdict_table[f.recorded.verdict].name, cls == FPD_SKIPPED ? "; " : "",
                           cls == FPD_SKIPPED ? why : "");
                }
                fpd_case_file_free(&f);
            }
            free(files[i]);
        }
        free(files);
    }
    fpd_checker_free(&ck);
    if (json) {
        json_t *summary = json_pack("{s:s,s:I,s:I}", "type", "summary", "cases", (json_int_t)cases, "malformed",
                                    (json_int_t)malformed);
        for (int c = 0; c < FPD_REPLAY_CLASS_COUNT; c++)
            json_object_set_new(summary, fpd_replay_class_names[c], json_integer((json_int_t)counts[c]));
        json_dumpf(summary, stdout, JSON_COMPACT);
        fputc('\n', stdout);
        json_decref(summary);
    } else {
        printf("\n%zu cases: reproduced %zu, changed %zu, fixed %zu, worse %zu, skipped %zu", cases,
               counts[FPD_REPRODUCED], counts[FPD_CHANGED], counts[FPD_FIXED], counts[FPD_WORSE], counts[FPD_SKIPPED]);
        printf(malformed ? "; %zu malformed\n" : "\n", malformed);
    }
    if (exit_code != FPD_EXIT_OK)
        return exit_code;
    if (malformed)
        return FPD_EXIT_USAGE;
    if (counts[FPD_WORSE] || (strict && (counts[FPD_CHANGED] || counts[FPD_FIXED])))
        return FPD_EXIT_FINDINGS;
    if (cases == 1 && counts[FPD_SKIPPED] == 1)
        return 125; /* git bisect run: this revision cannot be tested */
    return FPD_EXIT_OK;
}
