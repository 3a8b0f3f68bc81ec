/* main.c — the command table, global options, dispatch. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "backends/backend_cblas.h"
#include "backends/backend_framework.h"
#include "backends/backend_pinned.h"
#include "backends/builtin.h"
#include "backends/host.h"
#include "backends/plugin.h"
#include "backends/thread_waits.h"
#include "cli/cmd.h"
#include "common/env_number.h"
#include "common/fpenv.h"
#include "common/table.h"
#include "cpu/vector_width.h"
#include "report/check_report.h"

struct fpd_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary; /* NULL: not for users, and not listed */
};

static const struct fpd_command commands[] = {
    {"fuzz", fpd_cmd_fuzz, "generate random cases and check relations on them; print what diverges"},
    {"check", fpd_cmd_check, "run one relation on one case and report it in full"},
    {"minimize", fpd_cmd_minimize, "shrink a saved case to the smallest one with the same signature"},
    {"replay", fpd_cmd_replay, "re-run saved cases: reproduced, changed, fixed, worse or skipped"},
    {"show", fpd_cmd_show, "show a saved case: what it is, what was recorded, what happens now"},
    {"bisect", fpd_cmd_bisect, "find where a divergence starts as one dimension of a case grows"},
    {"sweep", fpd_cmd_sweep, "run a relation over a range of one dimension; table, CSV and SVG plot"},
    {"explain", fpd_cmd_explain, "reveal the order a backend adds the terms of an output element in"},
    {"merge", fpd_cmd_merge, "merge corpora (of shards) into one: the smallest case per signature"},
    {"judge", fpd_cmd_judge, "judge two results the user has of one product: is their difference expected?"},
    {"export", fpd_cmd_export, "write a saved case as .npy inputs and a NumPy, PyTorch or JAX script"},
    {"report", fpd_cmd_report, "write a corpus and a campaign as one self-contained HTML page"},
    {"list", fpd_cmd_list, "show backends (and why any is unavailable), relations, dtypes, distributions"},
    {"env", fpd_cmd_env, "show the environment results depend on: CPU, libraries, kernel sets, threads"},
    {"__host", fpd_cmd_host, NULL},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: fpdiv [--plugin PATH.so]... [--blas NAME=PATH.so]... [--framework NAME=FILE.py]...\n"
               "             <command> [options]\n"
               "       fpdiv --version | --help\n\n"
               "fpdiv finds GEMM computations that are equal in exact arithmetic but differ in their bits,\n"
               "and tells whether the difference is expected from rounding or beyond its bound.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (commands[i].summary)
            fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'fpdiv <command> --help' describes a command's options. --plugin (repeatable) and\n"
               "FPDIV_PLUGIN_PATH (colon-separated) load backends from shared objects; fpdiv-cuda.so is\n"
               "loaded from beside the binary when present. --blas NAME=PATH.so (repeatable) adds backend\n"
               "NAME from any CBLAS library, or loads a library fpdiv knows (openblas, refblas, blis, mkl)\n"
               "from PATH instead: a library upgrade replayed against a corpus. --framework NAME=FILE.py\n"
               "(repeatable) adds backend NAME from a framework module in Python, served by the bridge.\n"
               "exit status: 0 nothing failed the policy, 1 findings failed it, 2 usage or input error,\n"
               "3 internal error.\n");
}

/* The global options, before the command word: each adds backends. */
static const struct global_option {
    const char *name;
    const char *needs; /* what its value is, for the message when it has none */
    int (*take)(const char *value, char *why, size_t why_size);
} global_options[] = {
    {"--plugin", "a path to a shared object", fpd_plugin_load},
    {"--blas", "NAME=PATH (a CBLAS library's file)", fpd_cblas_give},
    {"--framework", "NAME=FILE.py (a framework module for the bridge)", fpd_framework_give},
};

/* The global option argv[*i] names (its value taken, *i moved past it), or NULL when it is none. */
static const struct global_option *global_option(int argc, char **argv, int *i, const char **value)
{
    for (size_t o = 0; o < sizeof global_options / sizeof global_options[0]; o++) {
        size_t len = strlen(global_options[o].name);
        if (strncmp(argv[*i], global_options[o].name, len) != 0 || (argv[*i][len] != '=' && argv[*i][len] != '\0'))
            continue;
        *value = argv[*i][len] == '=' ? argv[*i] + len + 1 : *i + 1 < argc ? argv[++*i] : NULL;
        return &global_options[o];
    }
    return NULL;
}

/* Backends: --plugin and --blas options first on the command line, then FPDIV_PLUGIN_PATH, then the
 * bundled plugins. Returns the index of the command word. */
static int load_plugins(int argc, char **argv, int *exit_code)
{
    char why[1024];
    int i = 1;
    fpd_registry_init();
    for (const struct global_option *g; i < argc; i++) {
        const char *value = NULL;
        if (!(g = global_option(argc, argv, &i, &value)))
            break;
        if (!value || !*value) {
            fpd_console_error(NULL, "%s needs %s", g->name, g->needs);
            *exit_code = FPD_EXIT_USAGE;
            return -1;
        }
        int rc = g->take(value, why, sizeof why);
        if (rc != FPD_OK) {
            fpd_console_error(NULL, "%s", why);
            *exit_code = rc == FPD_ERR_NOMEM ? FPD_EXIT_INTERNAL : FPD_EXIT_USAGE;
            return -1;
        }
        rc = fpd_host_add_global_option(g->name, value); /* a backend's host process knows the same backends */
        if (rc != FPD_OK) {
            fpd_console_error(NULL, "%s %s: %s", g->name, value,
                    rc == FPD_ERR_NOMEM ? "out of memory"
                                        : "more than 32 of --plugin, --blas and --framework (a host process takes 32)");
            *exit_code = rc == FPD_ERR_NOMEM ? FPD_EXIT_INTERNAL : FPD_EXIT_USAGE;
            return -1;
        }
    }
    if (fpd_plugin_load_env(why, sizeof why) != FPD_OK) {
        fpd_console_error(NULL, "FPDIV_PLUGIN_PATH: %s", why);
        *exit_code = FPD_EXIT_USAGE;
        return -1;
    }
    fpd_registry_defer(fpd_plugin_load_bundled); /* only when a backend of its is asked for */
    return i;
}

/* The variables fpdiv reads seconds from, and whether 0 (no limit) is one: checked before any
 * command runs, so that a typo is said, not read as a default. */
static const struct {
    const char *name;
    double fallback;
    bool zero_allowed;
} seconds_variables[] = {
    {"FPDIV_BRIDGE_TIMEOUT", 600, false},
    {"FPDIV_CUDA_PROBE_TIMEOUT", 120, true},
};

/* The variables that name a directory fpdiv reads from instead of its own: one that is not a
 * directory would be passed over for the default, in silence. */
static const char *const directory_variables[] = {"FPDIV_BRIDGE_DIR"};

/* FPD_OK, or FPD_ERR_INPUT with why: a variable fpdiv reads holds what it cannot take. A host
 * (host.h) is started with a library's variable set by fpdiv, to a set that may be no name fpdiv
 * knows (OpenBLAS's newer cores): the host says which set the library took, and its starter
 * compares (backend_pinned.c). */
static int check_environment(bool host, char *why, size_t why_size)
{
    double ignored;
    for (size_t i = 0; i < sizeof seconds_variables / sizeof seconds_variables[0]; i++)
        if (fpd_env_seconds(seconds_variables[i].name, seconds_variables[i].fallback, seconds_variables[i].zero_allowed,
                            &ignored, why, why_size) != FPD_OK)
            return FPD_ERR_INPUT;
    for (size_t i = 0; i < sizeof directory_variables / sizeof directory_variables[0]; i++) {
        const char *dir = getenv(directory_variables[i]);
        struct stat st;
        if (dir && *dir && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
            snprintf(why, why_size, "%s=%.300s: not a directory", directory_variables[i], dir);
            return FPD_ERR_INPUT;
        }
    }
    return host ? FPD_OK : fpd_kernel_set_variables_check(why, why_size);
}

/* What loading plugins or opening backends did to the floating-point environment (fpenv.h). */
static void print_fpenv_notices(void)
{
    const char *const *notices;
    size_t n = fpd_fpenv_take_notices(&notices);
    for (size_t i = 0; i < n; i++)
        fpd_console_error(NULL, "warning: %s", notices[i]);
}

int main(int argc, char **argv)
{
    int exit_code = FPD_EXIT_OK;
    fpd_cli_remember_argv(argv);
    /* past a file-size limit (ulimit -f) a write fails with EFBIG, which fpdiv reports as the save
     * that failed; the signal's default would kill a worker between a finding and its save */
    signal(SIGXFSZ, SIG_IGN);
    fpd_fpenv_restore_noting("a library loaded with fpdiv (LD_PRELOAD, or a dependency's constructor)", NULL);
    fpd_thread_waits_apply(); /* before any library loads: its runtime reads them as it starts */
    char why[256];
    if (fpd_vector_width_from_environment(why, sizeof why) < 0) {
        fpd_console_error(NULL, "%s", why);
        return FPD_EXIT_USAGE;
    }
    int first = load_plugins(argc, argv, &exit_code);
    if (first < 0 || first >= argc || strcmp(argv[first], "__host") != 0)
        print_fpenv_notices(); /* a host's were the fpdiv's that started it, which said them */
    if (first < 0)
        return exit_code;
    char bad_variable[1024];
    bool host = first < argc && strcmp(argv[first], "__host") == 0;
    if (check_environment(host, bad_variable, sizeof bad_variable) != FPD_OK) {
        fpd_console_error(NULL, "%s", bad_variable);
        return FPD_EXIT_USAGE;
    }
    argc -= first - 1, argv += first - 1; /* argv[1] is now the command */
    if (argc < 2) {
        usage(stderr);
        return FPD_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return FPD_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("fpdiv %s (generator %d, backend ABI %d)\n", FPD_VERSION, FPD_GEN_VERSION, FPDIV_BACKEND_ABI);
        return FPD_EXIT_OK;
    }
    long i = FPD_TABLE_FIND(commands, sizeof commands / sizeof commands[0], argv[1]);
    if (i >= 0) {
        int rc = commands[i].run(argc - 1, argv + 1);
        print_fpenv_notices(); /* the bundled plugin loads, and backends open, as a command needs them */
        fpd_registry_close_all();
        return rc;
    }
    fpd_console_error(NULL, "unknown command '%s'", argv[1]);
    fputc('\n', stderr);
    usage(stderr);
    return FPD_EXIT_USAGE;
}
