/* cmd_replay.c — `fpdiv replay`: re-run saved cases; what CI runs after a library upgrade. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cmd.h"
#include "common/array.h"
#include "common/clock.h"
#include "common/dtype.h"
#include "common/text.h"
#include "common/workers.h"
#include "engine/campaign.h"
#include "engine/replay.h"
#include "report/check_report.h"
#include "report/ci.h"
#include "report/page_file.h"
#include "store/corpus_dir.h"

static const char help[] =
    "usage: fpdiv replay [options] [PATH...]\n\n"
    "Re-runs every saved case under each PATH (case files or directories; default corpus/) as it was\n"
    "recorded: each library on its recorded kernel set (openblas@Haswell runs OpenBLAS's Haswell\n"
    "kernels on any CPU that can execute them) with its recorded thread count. Each case is\n"
    "reproduced (both output hashes and the verdict as recorded), changed (different bits, or the\n"
    "same bits judged better, verdict not worse), fixed (now same), worse (a higher verdict),\n"
    "elsewhere (recorded on a kernel set this CPU cannot run:\n"
    "not comparable here) or skipped (a backend is not here). A library whose version differs from\n"
    "the recorded one is named: the classes are then the upgrade's effect.\n\n"
    "  --strict     changed and fixed fail too, not only worse\n"
    "  --strict-env elsewhere fails too: every case must be comparable on this machine\n"
    "  --timeout SEC  a case running longer is an `error` (default 300; 0: none)\n"
    "  --junit FILE   JUnit XML: a test case per case file, failed when the case fails the run; with\n"
    "                 GITHUB_ACTIONS=true also ::error annotations and a step-summary table\n"
    "  --json       one JSON line per case, then a summary line\n"
    "  --html FILE  also write the replay, case by case, as one self-contained HTML page with the\n"
    "               cases (as 'fpdiv report --replay' does; the cases of PATH when it is one directory)\n"
    "  -h, --help   this text\n\n"
    "exit status: 0 nothing worse, 1 some case worse (or changed/fixed with --strict, elsewhere with\n"
    "--strict-env), 2 a case file is malformed. For a single case file, as `git bisect run` expects:\n"
    "0 good, 1 bad, 125 skipped or elsewhere.\n"
    "Cases run in a worker process: one that crashes or hangs a backend is `error`, not the end.\n";

static bool did_not_run(enum fpd_replay_class cls) { return cls == FPD_SKIPPED || cls == FPD_ELSEWHERE; }

static json_t *case_line(const char *path, const struct fpd_case_file *f, enum fpd_replay_class cls,
                         const struct fpd_check_result *res, const char *why)
{
    json_t *o = json_pack("{s:s,s:o,s:s,s:s}", "type", "replay", "file", fpd_json_text(path), "class",
                          fpd_replay_class_names[cls], "recorded", fpd_verdict_table[f->recorded.verdict].name);
    if (did_not_run(cls)) {
        json_object_set_new(o, "reason", fpd_json_text(why));
        return o;
    }
    char changes[512];
    if (fpd_replay_environment_changes(f, changes, sizeof changes)[0])
        json_object_set_new(o, "environment_changes", json_string(changes));
    json_t *check = fpd_check_json(&f->chk, res);
    json_object_set_new(o, "verdict", json_string(fpd_verdict_table[res->verdict].name));
    json_object_set(o, "check", check);
    json_decref(check);
    return o;
}

/* The cases to replay, loaded in the parent (parsing is safe; running a backend may not be). */
struct replay_run {
    char **paths;
    struct fpd_case_file *files;
    size_t n, cap_paths, cap_files;
    struct fpd_checker ck; /* the worker's */
};

/* In the worker: run case `index` and send its result. */
static int replay_work(void *ctx, uint32_t index, struct fpd_worker_channel *ch)
{
    struct replay_run *run = ctx;
    struct fpd_check_answer a = {.skipped = true};
    char why[1024];
    enum fpd_replay_class cls;
    if (!fpd_replay_runnable(&run->files[index], &cls, why, sizeof why))
        return fpd_check_answer_send(ch, index, &a); /* the parent reports it as skipped and passes this over */
    a.skipped = false;
    uint64_t start = fpd_ticks();
    if (fpd_check_run(&run->ck, &run->files[index].chk, &a.res) != FPD_OK)
        return FPD_ERR_INTERNAL;
    a.ticks = (float)fpd_ticks_since(start);
    return fpd_check_answer_send(ch, index, &a);
}

/* A case's line for --html's page: the one --json prints, read as report --replay reads it. */
static int page_line(struct fpd_replay_report *page, const char *path, struct fpd_case_file *f,
                     enum fpd_replay_class cls, const struct fpd_check_result *res, const char *why)
{
    json_t *line = case_line(path, f, cls, res, why);
    const char *problem;
    int rc = line ? fpd_replay_report_add(page, line, &problem) : FPD_ERR_NOMEM;
    json_decref(line);
    return rc;
}

static void report(bool json, const char *path, struct fpd_case_file *f, enum fpd_replay_class cls,
                   const struct fpd_check_result *res, const char *why)
{
    if (json) {
        json_t *line = case_line(path, f, cls, res, why);
        json_dumpf(line, stdout, FPD_JSON_LINE);
        fputc('\n', stdout);
        json_decref(line);
        return;
    }
    char dt[32], shape[64], changes[512] = "";
    bool skipped = did_not_run(cls), error = !skipped && res->verdict == FPD_ERROR;
    if (!skipped)
        fpd_replay_environment_changes(f, changes, sizeof changes);
    /* the path and the reasons may quote a file: shown escaped (text.h) */
    char shown_path[4096], shown_why[2048], shown_changes[2048];
    printf("%-10s %s  %s on %s%s%s, %s %s: %s (recorded %s)%s%s%s%s\n", fpd_replay_class_names[cls],
           fpd_printable(path, shown_path, sizeof shown_path), f->chk.relation->name, f->backend_names[0],
           f->backend_names[1][0] ? "," : "", f->backend_names[1], fpd_dtypes_format(&f->chk.c.dt, dt, sizeof dt),
           fpd_shape_format(&f->chk.c, shape, sizeof shape), skipped ? "-" : fpd_verdict_table[res->verdict].name,
           fpd_verdict_table[f->recorded.verdict].name, skipped || error ? "; " : "",
           fpd_printable(skipped ? why : error ? res->error : "", shown_why, sizeof shown_why), changes[0] ? "; " : "",
           fpd_printable(changes, shown_changes, sizeof shown_changes));
}

/* Collects and loads every case file under the paths; malformed ones (and anything in a corpus
 * that cannot be a case file: a symbolic link, a FIFO) are reported and counted. */
/* Whether the file is one already loaded (`replay dir dir/case.json` names a case twice): the
 * files seen, by device and inode. */
struct seen_files {
    struct {
        dev_t dev;
        ino_t ino;
    } *ids;
    size_t n, cap;
};

static bool seen_before(struct seen_files *seen, const char *path, bool *out_of_memory)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return false; /* loading it says why */
    for (size_t i = 0; i < seen->n; i++)
        if (seen->ids[i].dev == st.st_dev && seen->ids[i].ino == st.st_ino)
            return true;
    if (!FPD_ARRAY_RESERVE(seen->ids, seen->cap, seen->n + 1)) {
        *out_of_memory = true;
        return false;
    }
    seen->ids[seen->n].dev = st.st_dev, seen->ids[seen->n++].ino = st.st_ino;
    return false;
}

static int load_all(char **paths, int n_paths, struct replay_run *run, size_t *malformed)
{
    struct seen_files seen = {0};
    bool out_of_memory = false;
    for (int p = 0; p < n_paths && !out_of_memory; p++) {
        struct fpd_corpus_entry *entries;
        char why[1024];
        size_t n_entries;
        int rc = fpd_corpus_list(paths[p], &entries, &n_entries, why, sizeof why);
        if (rc == FPD_ERR_NOMEM)
            return rc;
        if (rc != FPD_OK) {
            fpd_console_error("replay", "%s", why);
            (*malformed)++;
            continue;
        }
        fpd_corpus_clean_stale(paths[p]); /* the temporaries of writers killed mid-save */
        if (!FPD_ARRAY_RESERVE(run->paths, run->cap_paths, run->n + n_entries) ||
            !FPD_ARRAY_RESERVE(run->files, run->cap_files, run->n + n_entries)) {
            fpd_corpus_entries_free(entries, n_entries);
            free(seen.ids);
            return FPD_ERR_NOMEM;
        }
        for (size_t i = 0; i < n_entries && !out_of_memory; i++) {
            if (entries[i].refused) {
                fpd_console_error("replay", "%s: %s", entries[i].path, entries[i].refused);
                (*malformed)++;
                continue;
            }
            if (seen_before(&seen, entries[i].path, &out_of_memory)) {
                fpd_console_error("replay", "%s: named again (replayed once)", entries[i].path);
                continue;
            }
            if (fpd_case_file_load(entries[i].path, &run->files[run->n], why, sizeof why) != FPD_OK) {
                fpd_console_error("replay", "%s", why);
                (*malformed)++;
                continue;
            }
            run->files[run->n].chk.exact = FPD_EXACT_ALWAYS;
            run->paths[run->n++] = entries[i].path;
            entries[i].path = NULL; /* the run's now */
        }
        fpd_corpus_entries_free(entries, n_entries);
    }
    free(seen.ids);
    if (out_of_memory)
        return FPD_ERR_NOMEM;
    /* A case file's check points at its own inline data; the array has moved since: point again. */
    for (size_t i = 0; i < run->n; i++)
        if (run->files[i].has_data)
            run->files[i].chk.c.data = &run->files[i].data;
    return FPD_OK;
}

/* A JUnit test case per case file: failed when the case fails the run (worse; with --strict also
 * changed or fixed). */
static bool fails_run(enum fpd_replay_class cls, bool strict, bool strict_env)
{
    return cls == FPD_WORSE || (strict && (cls == FPD_CHANGED || cls == FPD_FIXED)) ||
           (strict_env && cls == FPD_ELSEWHERE);
}

static int ci_record(struct fpd_ci_report *ci, const char *path, const struct fpd_case_file *f,
                     enum fpd_replay_class cls, const struct fpd_check_result *res, double seconds, double ticks,
                     const char *why, bool strict, bool strict_env)
{
    char classname[64], message[1200], cmd[4200], word[4096];
    snprintf(classname, sizeof classname, "fpdiv.replay.%s", f->chk.relation->name);
    struct fpd_ci_case *c = fpd_ci_case(ci, classname, path);
    if (!c)
        return FPD_ERR_NOMEM;
    c->checks++;
    c->seconds += seconds;
    c->ticks += ticks;
    bool fails = fails_run(cls, strict, strict_env);
    if (!fails && did_not_run(cls)) {
        snprintf(message, sizeof message, "%s: %s", fpd_replay_class_names[cls], why);
        return fpd_ci_skip(c, message);
    }
    if (!fails)
        return FPD_OK;
    if (cls == FPD_ELSEWHERE) {
        snprintf(message, sizeof message, "elsewhere: %s", why);
        snprintf(cmd, sizeof cmd, "fpdiv replay %s", fpd_shell_word(path, word, sizeof word));
        return fpd_ci_fail(c, fpd_replay_class_names[cls], message, cmd);
    }
    snprintf(message, sizeof message, "%s: %s, recorded %s%s%.300s", fpd_replay_class_names[cls],
             fpd_verdict_table[res->verdict].name, fpd_verdict_table[f->recorded.verdict].name,
             res->verdict == FPD_ERROR ? "; " : "", res->verdict == FPD_ERROR ? res->error : "");
    snprintf(cmd, sizeof cmd, "fpdiv replay %s", fpd_shell_word(path, word, sizeof word));
    return fpd_ci_fail(c, fpd_replay_class_names[cls], message, cmd);
}

int fpd_cmd_replay(int argc, char **argv)
{
    static const struct option options[] = {{"strict", no_argument, NULL, 's'},
                                            {"strict-env", no_argument, NULL, 'e'},
                                            {"json", no_argument, NULL, 'j'},
                                            {"timeout", required_argument, NULL, 't'},
                                            {"junit", required_argument, NULL, 'u'},
                                            {"html", required_argument, NULL, 'H'},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    bool strict = false, strict_env = false, json = false;
    double timeout = 300;
    const char *junit = NULL, *html = NULL;
    char why[1024];
    int opt;
    while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        switch (opt) {
        case 's': strict = true; break;
        case 'e': strict_env = true; break;
        case 'j': json = true; break;
        case 't':
            if (fpd_cli_double("--timeout", optarg, 0, 1e9, &timeout, why, sizeof why) != FPD_OK) {
                fpd_console_error("replay", "%s", why);
                return FPD_EXIT_USAGE;
            }
            break;
        case 'u': junit = optarg; break;
        case 'H': html = optarg; break;
        case 'h': fputs(help, stdout); return FPD_EXIT_OK;
        default: fpd_console_error("replay", "see 'fpdiv replay --help'"); return FPD_EXIT_USAGE;
        }
    }
    /* said now, not after the replay */
    if ((html && fpd_cli_can_write_file("--html", html, why, sizeof why) != FPD_OK) ||
        (junit && fpd_cli_can_write_file("--junit", junit, why, sizeof why) != FPD_OK)) {
        fpd_console_error("replay", "%s", why);
        return FPD_EXIT_USAGE;
    }
    char *default_paths[] = {"corpus"};
    char **paths = optind < argc ? argv + optind : default_paths;
    int n_paths = optind < argc ? argc - optind : 1;

    static struct replay_run run; /* inherited by the worker */
    struct fpd_replay_report page = {0}; /* --html's */
    struct fpd_ci_report ci = {.suite = strdup("fpdiv replay")};
    size_t counts[FPD_REPLAY_CLASS_COUNT] = {0}, cases = 0, malformed = 0;
    int exit_code = load_all(paths, n_paths, &run, &malformed) == FPD_OK ? FPD_EXIT_OK : FPD_EXIT_INTERNAL;
    /* a corpus recorded on one kernel set, on a CPU that picks another: run it here, not in hosts */
    struct fpd_backend_slot **all = calloc(2 * run.n + 1, sizeof *all);
    size_t n_all = 0;
    for (size_t i = 0; all && i < run.n; i++)
        for (int b = 0; b < run.files[i].chk.relation->backends; b++)
            all[n_all++] = run.files[i].chk.backends[b];
    if (all && exit_code == FPD_EXIT_OK && !malformed)
        fpd_cli_run_kernel_sets_here(all, n_all);
    free(all);

    /* Cases run one by one, in order, in a worker process: a backend that crashes or hangs on one
     * makes that case `error` (and so `worse`, unless it was recorded as an error) — not the replay. */
    struct fpd_pool pool = {0};
    double start = fpd_now(); /* with start_ticks, the rate of the workers' ticks */
    uint64_t start_ticks = fpd_ticks();
    if (exit_code == FPD_EXIT_OK && run.n > 0 &&
        fpd_pool_start(&pool, 1, 0, 1, run.n, 0, timeout, replay_work, &run) != FPD_OK) {
        fpd_console_error("replay", "cannot start a worker process: %s", strerror(errno));
        exit_code = FPD_EXIT_INTERNAL;
    }
    size_t next = 0; /* the case to report next: skipped ones are reported in turn, without a worker run */
    while (exit_code == FPD_EXIT_OK && next < run.n) {
        struct fpd_case_file *f = &run.files[next];
        struct fpd_check_result res = {0};
        enum fpd_replay_class cls;
        double seconds = 0, ticks = 0; /* a lost case's time is the pool's, an answer's the worker's */
        if (fpd_replay_runnable(f, &cls, why, sizeof why)) {
            struct fpd_pool_event ev;
            /* the worker runs every index in order; results for skipped cases are passed over */
            do {
                if (fpd_pool_next(&pool, 1.0, &ev) != FPD_OK)
                    ev.type = FPD_EVENT_DONE;
            } while (ev.type == FPD_EVENT_IDLE ||
                     (ev.type == FPD_EVENT_MESSAGE && (ev.msg.type != FPD_MSG_ANSWER || ev.msg.index != next)) ||
                     (ev.type == FPD_EVENT_LOST && ev.index != next));
            if (ev.type == FPD_EVENT_DONE) {
                fpd_console_error("replay", "internal error: the worker stopped before %s", run.paths[next]);
                exit_code = FPD_EXIT_INTERNAL;
                break;
            }
            if (ev.type == FPD_EVENT_LOST) {
                fpd_check_result_died(&f->chk, ev.reason, &res);
                seconds = ev.seconds;
            } else {
                struct fpd_check_answer a;
                fpd_check_answer_read(&ev.msg, &a);
                res = a.res;
                ticks = a.ticks;
            }
            cls = fpd_replay_classify(f, &res, why, sizeof why);
        }
        cases++;
        counts[cls]++;
        report(json, run.paths[next], f, cls, &res, why);
        if (html && page_line(&page, run.paths[next], f, cls, &res, why) != FPD_OK)
            exit_code = FPD_EXIT_INTERNAL;
        if (ci_record(&ci, run.paths[next], f, cls, &res, seconds, ticks, why, strict, strict_env) != FPD_OK)
            exit_code = FPD_EXIT_INTERNAL;
        next++;
    }
    fpd_pool_free(&pool);
    for (size_t i = 0; i < run.n; i++) {
        fpd_case_file_free(&run.files[i]);
        free(run.paths[i]);
    }
    free(run.files);
    free(run.paths);
    json_t *summary = json_pack("{s:s,s:I,s:I}", "type", "summary", "cases", (json_int_t)cases, "malformed",
                                (json_int_t)malformed);
    for (int c = 0; c < FPD_REPLAY_CLASS_COUNT; c++)
        json_object_set_new(summary, fpd_replay_class_names[c], json_integer((json_int_t)counts[c]));
    if (json) {
        json_dumpf(summary, stdout, FPD_JSON_LINE);
        fputc('\n', stdout);
    } else {
        printf("\n%zu cases: reproduced %zu, changed %zu, fixed %zu, worse %zu, elsewhere %zu, skipped %zu", cases,
               counts[FPD_REPRODUCED], counts[FPD_CHANGED], counts[FPD_FIXED], counts[FPD_WORSE],
               counts[FPD_ELSEWHERE], counts[FPD_SKIPPED]);
        printf(malformed ? "; %zu malformed\n" : "\n", malformed);
    }
    uint64_t ticks = fpd_ticks_since(start_ticks);
    fpd_ci_settle_ticks(&ci, ticks > 0 ? (fpd_now() - start) / (double)ticks : 0);
    if (junit && fpd_ci_write_junit(&ci, junit, 0, why, sizeof why) != FPD_OK) {
        fpd_console_error("replay", "%s", why);
        exit_code = FPD_EXIT_USAGE;
    }
    if (html && exit_code != FPD_EXIT_INTERNAL) {
        /* the page shows the corpus's cases when the replay was of one directory */
        struct stat st;
        page.summary = summary;
        struct fpd_report_input in = {.corpus_dir = n_paths == 1 && stat(paths[0], &st) == 0 && S_ISDIR(st.st_mode)
                                                        ? paths[0] : NULL,
                                      .replay_from = "of this run", .replay = &page};
        int rc = fpd_report_write(html, &in, why, sizeof why);
        page.summary = NULL;
        if (rc != FPD_OK) {
            fpd_console_error("replay", "%s", rc == FPD_ERR_NOMEM ? "out of memory writing the page" : why);
            exit_code = rc == FPD_ERR_NOMEM ? FPD_EXIT_INTERNAL : FPD_EXIT_USAGE;
        } else if (!json) {
            char shown[4096];
            printf("report %s: the replay and %zu saved case%s\n", fpd_printable(html, shown, sizeof shown),
                   in.case_count, in.case_count == 1 ? "" : "s");
        }
    }
    json_decref(summary);
    fpd_replay_report_free(&page);
    if (fpd_ci_github()) {
        fpd_ci_github_annotate(&ci, stdout);
        char headline[128];
        snprintf(headline, sizeof headline, "fpdiv replay: %zu cases, %zu worse, %zu elsewhere", cases, counts[FPD_WORSE],
                 counts[FPD_ELSEWHERE]);
        if (fpd_ci_github_summary(&ci, headline, why, sizeof why) != FPD_OK)
            fpd_console_error("replay", "%s", why);
    }
    fpd_ci_free(&ci);
    if (exit_code != FPD_EXIT_OK)
        return exit_code;
    if (malformed)
        return FPD_EXIT_USAGE;
    for (int c = 0; c < FPD_REPLAY_CLASS_COUNT; c++)
        if (counts[c] && fails_run((enum fpd_replay_class)c, strict, strict_env))
            return FPD_EXIT_FINDINGS;
    if (cases == 1 && counts[FPD_SKIPPED] + counts[FPD_ELSEWHERE] == 1)
        return 125; /* git bisect run: this revision cannot be tested */
    return FPD_EXIT_OK;
}
