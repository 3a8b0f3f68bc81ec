/* cli.h — option parsing shared by the subcommands. Each returns FPD_OK or FPD_ERR_INPUT and
 * writes a one-line reason naming the option and the offending text. */
#ifndef FPD_CLI_H
#define FPD_CLI_H

#include <stdint.h>

#include "engine/check.h"
#include "report/console.h"

int fpd_cli_u64(const char *opt, const char *text, uint64_t max, uint64_t *out, char *why, size_t why_size);
/* A count from min to max ("--jobs must be at least 1"): a zero that would do nothing is refused. */
int fpd_cli_count(const char *opt, const char *text, uint64_t min, uint64_t max, uint64_t *out, char *why,
                  size_t why_size);
/* A small signed integer, lo to hi: digits with an optional leading minus, nothing else. */
int fpd_cli_int(const char *opt, const char *text, int lo, int hi, int *out, char *why, size_t why_size);
int fpd_cli_double(const char *opt, const char *text, double lo, double hi, double *out, char *why, size_t why_size);
/* "512M", "4G", "1073741824" */
int fpd_cli_bytes(const char *opt, const char *text, double *out, char *why, size_t why_size);
/* "START:LEN" or "START" (length 1) */
int fpd_cli_slice(const char *text, struct fpd_range *out, char *why, size_t why_size);
int fpd_cli_verdict(const char *opt, const char *text, bool allow_never, int *out, char *why, size_t why_size);

int fpd_cli_exact_mode(const char *text, enum fpd_exact_mode *out, char *why, size_t why_size);
/* --generator: a generator version this fpdiv has (1 .. FPD_GEN_VERSION). */
int fpd_cli_generator(const char *text, unsigned *out, char *why, size_t why_size);

/* Comma-separated lists; each item validated. */
int fpd_cli_relations(const char *text, const struct fpd_relation **out, size_t cap, size_t *n, char *why,
                      size_t why_size);
int fpd_cli_backends(const char *text, struct fpd_backend_slot **out, size_t cap, size_t *n, char *why,
                     size_t why_size);
/* --core: each name of a pinnable backend in the comma list `names` becomes NAME@SET for every
 * kernel set in `cores` (so "seq,openblas" with "Haswell" is "seq,openblas@Haswell"); names
 * already pinned, and others, stay. `pair` (the core relation): exactly two sets. FPD_ERR_INPUT
 * with why when nothing was pinnable or the list is malformed. */
int fpd_cli_pin_backends(const char *names, const char *cores, bool pair, char *out, size_t out_size, char *why,
                         size_t why_size);
int fpd_cli_dtypes(const char *text, struct fpd_dtypes *out, size_t cap, size_t *n, char *why, size_t why_size);
int fpd_cli_dists(const char *text, enum fpd_dist *out, size_t cap, size_t *n, char *why, size_t why_size);

/* Option parsing for commands whose only option is --help, expecting `positional` arguments
 * (-1: any number). Returns -1 to go on, or the exit status to return (help shown, or an error). */
int fpd_cli_only_help(const char *cmd, int argc, char **argv, const char *help, int positional);

/* main's argv, for fpd_cli_run_kernel_sets_here. */
void fpd_cli_remember_argv(char **argv);
/* When the backends pin each library to one kernel set that this process does not run, starts
 * fpdiv again (the same arguments, same process) with those sets in the libraries' variables
 * (OPENBLAS_CORETYPE), so that they run here and not in hosts, where a GEMM's round trip costs
 * tens of microseconds. Returns when there is nothing to gain, or the exec failed. */
void fpd_cli_run_kernel_sets_here(struct fpd_backend_slot *const *slots, size_t n);
/* Whether this process is the one fpd_cli_run_kernel_sets_here started: a note the first process
 * printed while parsing the same options is not printed again. */
bool fpd_cli_restarted(void);

/* Whether an output named by an option can be written, asked before a long run rather than found
 * out after it: a DIR that is a writable directory or can be made in the nearest directory above
 * it that exists (its writer makes it, as `mkdir -p` does), or a FILE that, where it exists, can be
 * written, in such a directory. FPD_ERR_INPUT with why naming the option and the path. */
int fpd_cli_can_write_file(const char *opt, const char *path, char *why, size_t why_size);
int fpd_cli_can_write_dir(const char *opt, const char *path, char *why, size_t why_size);

/* The default memory budget: half of physical memory. */
double fpd_cli_default_max_mem(void);
int fpd_cli_cores(void);

#endif
