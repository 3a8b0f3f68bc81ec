/*
 * cli_case.h — the flags that describe one check (relation, backends, shape, dtypes, layout, data,
 * relation parameters), shared by every command that takes them: check, bisect, sweep.
 */
#ifndef FPD_CLI_CASE_H
#define FPD_CLI_CASE_H

#include <getopt.h>

#include "engine/check.h"

/* Option values start here; a command's own options use values below FPD_CASE_OPT_FIRST. */
#define FPD_CASE_OPT_FIRST 0x1000

/* The long options (terminated by a zero row), and their --help lines. */
extern const struct option fpd_case_options[];
extern const char fpd_case_options_help[];

struct fpd_case_flags {
    struct fpd_check chk;
    const char *relation, *backends, *shape;
    const char *cores; /* --core: kernel sets to pin the backends to (cli.h: fpd_cli_pin_backends) */
    double max_mem;
    bool isolate;   /* each check in a process of its own */
    double timeout; /* per check, seconds; 0: no limit */
};

void fpd_case_flags_init(struct fpd_case_flags *f);
/* Handles one option of fpd_case_options: 1 if it was one (rc in *status), 0 if not. */
int fpd_case_flags_take(struct fpd_case_flags *f, int opt, const char *arg, int *status, char *why, size_t why_size);
/* Names to relation and backends, shape parsed, everything validated. `shape` may be overridden
 * (NULL: f->shape). FPD_ERR_UNAVAILABLE when a backend cannot run the dtypes here. */
int fpd_case_flags_resolve(struct fpd_case_flags *f, const char *shape, char *why, size_t why_size);

/* Merges a command's own options with the case options into out (capacity cap). */
void fpd_case_options_merge(const struct option *own, struct option *out, size_t cap);

#endif
