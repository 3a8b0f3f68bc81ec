/*
 * cmd.h — subcommands. Each is one file, cmd_<name>.c, with one entry point.
 *
 * Adding a command:
 *   1. write src/cli/cmd_<name>.c with `int fpd_cmd_<name>(int argc, char **argv)`: parse options
 *      with getopt_long (options it shares with check, bisect, sweep and fuzz: cli_case.h's
 *      fpd_shared_options), print --help, run the pipeline (engine/check.h), return an enum
 *      fpd_exit code;
 *   2. declare it below and add one row to the command table in main.c;
 *   3. document it in doc/ (a page of its own, in doc/README.md's index), with an example and its
 *      real output in a ```console block, which tests/doc/examples.py runs;
 *   4. add CLI tests in tests/cli/.
 * Only src/cli/ and what it calls in src/report/ (results, messages: report/console.h) talk to the
 * user (stdout, stderr) or choose an exit status; everything else returns status codes (and writes
 * only to a FILE it is given).
 */
#ifndef FPD_CMD_H
#define FPD_CMD_H

#include "cli/cli.h"

int fpd_cmd_check(int argc, char **argv);
int fpd_cmd_fuzz(int argc, char **argv);
int fpd_cmd_list(int argc, char **argv);
int fpd_cmd_replay(int argc, char **argv);
int fpd_cmd_show(int argc, char **argv);
int fpd_cmd_minimize(int argc, char **argv);
int fpd_cmd_bisect(int argc, char **argv);
int fpd_cmd_sweep(int argc, char **argv);
int fpd_cmd_explain(int argc, char **argv);
int fpd_cmd_merge(int argc, char **argv);
int fpd_cmd_export(int argc, char **argv);
int fpd_cmd_env(int argc, char **argv);
int fpd_cmd_report(int argc, char **argv);
int fpd_cmd_judge(int argc, char **argv);
int fpd_cmd_host(int argc, char **argv); /* hidden: a backend's host process (host.h) */

#endif
