/*
 * cli_case.h — the flags that describe one check (relation, backends, shape, dtypes, layout, data,
 * relation parameters), shared by every command that takes them: check, bisect, sweep; and the
 * options those share with fuzz, parsed in one place whichever command reads them.
 */
#ifndef FPD_CLI_CASE_H
#define FPD_CLI_CASE_H

#include <getopt.h>

#include "engine/check.h"

/* Option values start here; a command's own options use values below FPD_CASE_OPT_FIRST. */
#define FPD_CASE_OPT_FIRST 0x1000

/* The options of check, bisect, sweep and fuzz alike: the data's seed, its specials and generator,
 * the memory budget, the exact reference, the time limit and the kernel sets. Each command says
 * what they mean for it in its --help; fpd_shared_flags_take parses them. */
enum {
    FPD_OPT_SEED = FPD_CASE_OPT_FIRST + 0x100, FPD_OPT_SPECIALS, FPD_OPT_GENERATOR, FPD_OPT_MAX_MEM, FPD_OPT_EXACT,
    FPD_OPT_TIMEOUT, FPD_OPT_CORE,
};
extern const struct option fpd_shared_options[];

/* Where the shared options' values go. */
struct fpd_shared_flags {
    uint64_t *seed;
    double *special_rate;
    unsigned *generator;
    double *max_mem;
    enum fpd_exact_mode *exact;
    double *timeout;
    const char **cores;
};
/* Handles one option of fpd_shared_options: 1 if it was one (rc in *status), 0 if not. */
int fpd_shared_flags_take(const struct fpd_shared_flags *f, int opt, const char *arg, int *status, char *why,
                          size_t why_size);

/* The case options' --help lines (fpd_case_options_merge adds the options themselves). */
extern const char fpd_case_options_help[];

struct fpd_case_flags {
    struct fpd_check chk;
    const char *relation, *backends, *shape;
    const char *dtype; /* --dtype as given, or NULL */
    const char *cores; /* --core: kernel sets to pin the backends to (cli.h: fpd_cli_pin_backends) */
    double max_mem;
    bool isolate;   /* each check in a process of its own */
    double timeout; /* per check, seconds; 0: no limit */
};

void fpd_case_flags_init(struct fpd_case_flags *f);
/* Handles one case option (the shared ones included): 1 if it was one (rc in *status), 0 if not. */
int fpd_case_flags_take(struct fpd_case_flags *f, int opt, const char *arg, int *status, char *why, size_t why_size);
/* Names to relation and backends, shape parsed, everything validated. `shape` may be overridden
 * (NULL: f->shape). FPD_ERR_UNAVAILABLE when a backend cannot run the dtypes here. */
int fpd_case_flags_resolve(struct fpd_case_flags *f, const char *shape, char *why, size_t why_size);

/* Merges a command's own options with the case options (the shared ones included) into out
 * (capacity cap). */
void fpd_case_options_merge(const struct option *own, struct option *out, size_t cap);
/* own, then shared, into out (capacity cap, a zero row at the end). */
void fpd_options_merge(const struct option *own, const struct option *shared, struct option *out, size_t cap);

#endif
