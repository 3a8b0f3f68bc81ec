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
#include <sys/wait.h>

#include "backends/backend_framework.h"
#include "cli/cmd.h"
#include "common/text.h"
#include "report/export_files.h"
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
        default: fpd_console_error("export", "see 'fpdiv export --help'"); return FPD_EXIT_USAGE;
        }
    }
    const struct fpd_export_target *fw = to ? fpd_export_target_find(to) : NULL;
    if (argc - optind != 1 || !fw) {
        fpd_console_error("export", argc - optind != 1 ? "give exactly one case file (see 'fpdiv export --help')"
                                                  : "--to must be numpy, torch or jax");
        return FPD_EXIT_USAGE;
    }
    struct fpd_case_file f;
    char why[1024], dir[4200];
    if (fpd_case_file_load_any(argv[optind], &f, why, sizeof why) != FPD_OK) { /* it runs nothing */
        fpd_console_error("export", "%s", why);
        return FPD_EXIT_USAGE;
    }
    if (!fpd_export_target_takes(fw, &f.chk, why, sizeof why)) {
        fpd_console_error("export", "%s: %s has no counterpart in %s: %s", argv[optind], f.chk.relation->name, fw->name,
                      why);
        fpd_case_file_free(&f);
        return FPD_EXIT_USAGE;
    }
    uint64_t hash = 0;
    fpd_case_file_hash(&f, &hash);
    snprintf(dir, sizeof dir, "%s", out ? out : "");
    if (!out)
        snprintf(dir, sizeof dir, "export-%016" PRIx64, hash);
    int rc = fpd_export_write(dir, fw, &f, why, sizeof why);
    fpd_case_file_free(&f);
    if (rc != FPD_OK) {
        fpd_console_error("export", "%s", rc == FPD_ERR_NOMEM ? "out of memory" : why);
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
