/* cli.c — shared option parsing. */
#include "cli/cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/backend_pinned.h"
#include "common/dtype.h"
#include "common/text.h"
#include "gen/gen.h"

int fpd_cli_u64(const char *opt, const char *text, uint64_t max, uint64_t *out, char *why, size_t why_size)
{
    char *end;
    errno = 0;
    /* decimal, or hex with 0x; never octal, so "010" is ten */
    bool hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    unsigned long long v = strtoull(text, &end, hex ? 16 : 10);
    if (!isdigit((unsigned char)text[0]) || *end != '\0' || errno == ERANGE) { /* no sign, no blanks */
        snprintf(why, why_size, "%s '%s': expected a non-negative integer", opt, text);
        return FPD_ERR_INPUT;
    }
    if (v > max) {
        snprintf(why, why_size, "%s '%s': at most %llu", opt, text, (unsigned long long)max);
        return FPD_ERR_INPUT;
    }
    *out = v;
    return FPD_OK;
}

int fpd_cli_count(const char *opt, const char *text, uint64_t min, uint64_t max, uint64_t *out, char *why,
                  size_t why_size)
{
    uint64_t v;
    if (fpd_cli_u64(opt, text, max, &v, why, why_size) != FPD_OK)
        return FPD_ERR_INPUT;
    if (v < min) {
        snprintf(why, why_size, "%s must be at least %llu", opt, (unsigned long long)min);
        return FPD_ERR_INPUT;
    }
    *out = v;
    return FPD_OK;
}

int fpd_cli_int(const char *opt, const char *text, int lo, int hi, int *out, char *why, size_t why_size)
{
    bool negative = text[0] == '-';
    uint64_t magnitude = 0;
    char ignored[8];
    /* a sign, then what fpd_cli_u64 takes: no blanks, no plus */
    int rc = fpd_cli_u64(opt, text + negative, (uint64_t)INT32_MAX, &magnitude, ignored, sizeof ignored);
    int64_t v = negative ? -(int64_t)magnitude : (int64_t)magnitude;
    if (rc != FPD_OK || v < lo || v > hi) {
        snprintf(why, why_size, "%s '%s': expected an integer from %d to %d", opt, text, lo, hi);
        return FPD_ERR_INPUT;
    }
    *out = (int)v;
    return FPD_OK;
}

int fpd_cli_generator(const char *text, unsigned *out, char *why, size_t why_size)
{
    uint64_t v;
    if (fpd_cli_u64("--generator", text, UINT32_MAX, &v, why, why_size) != FPD_OK || !fpd_gen_known((unsigned)v)) {
        snprintf(why, why_size, "--generator '%s': this fpdiv has generators 1 to %d", text, FPD_GEN_VERSION);
        return FPD_ERR_INPUT;
    }
    *out = (unsigned)v;
    return FPD_OK;
}

int fpd_cli_double(const char *opt, const char *text, double lo, double hi, double *out, char *why, size_t why_size)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    /* as the text reads: no blanks around it, no hexadecimal, no infinity or NaN */
    bool plain = text[0] != '\0' && strspn(text, "0123456789.eE+-") == strlen(text);
    if (!plain || *end != '\0' || errno == ERANGE || !(v >= lo && v <= hi)) {
        snprintf(why, why_size, "%s '%s': expected a number from %g to %g", opt, text, lo, hi);
        return FPD_ERR_INPUT;
    }
    *out = v;
    return FPD_OK;
}

int fpd_cli_bytes(const char *opt, const char *text, double *out, char *why, size_t why_size)
{
    static const struct {
        char suffix;
        double factor;
    } units[] = {{'K', 0x1p10}, {'M', 0x1p20}, {'G', 0x1p30}, {'T', 0x1p40}};
    char *end;
    errno = 0;
    /* as a person writes a size: digits and a point, then a unit; no sign, blank, exponent or hex */
    size_t number = strspn(text, "0123456789.");
    double v = number ? strtod(text, &end) : 0;
    if (!number || end != text + number) /* strtod read on: an exponent, or hex */
        end = (char *)"?";
    double factor = 1;
    for (size_t i = 0; i < sizeof units / sizeof units[0] && *end && end == text + number; i++)
        if ((*end & ~0x20) == units[i].suffix) {
            factor = units[i].factor;
            end++;
            break;
        }
    if (text[0] == '\0' || *end != '\0' || errno == ERANGE || !(v * factor >= 1) || !isfinite(v * factor)) {
        snprintf(why, why_size, "%s '%s': expected a size such as 512M or 4G", opt, text);
        return FPD_ERR_INPUT;
    }
    *out = v * factor;
    return FPD_OK;
}

int fpd_cli_slice(const char *text, struct fpd_range *out, char *why, size_t why_size)
{
    uint64_t start, len = 1;
    char buf[64];
    if (strlen(text) >= sizeof buf) {
        snprintf(why, why_size, "--slice '%s' is too long", text);
        return FPD_ERR_INPUT;
    }
    strcpy(buf, text);
    char *colon = strchr(buf, ':');
    if (colon)
        *colon = '\0';
    if (fpd_cli_u64("--slice", buf, UINT32_MAX, &start, why, why_size) != FPD_OK ||
        (colon && fpd_cli_u64("--slice", colon + 1, UINT32_MAX, &len, why, why_size) != FPD_OK))
        return FPD_ERR_INPUT;
    if (len == 0) {
        snprintf(why, why_size, "--slice '%s': the length must be at least 1", text);
        return FPD_ERR_INPUT;
    }
    *out = (struct fpd_range){(uint32_t)start, (uint32_t)len};
    return FPD_OK;
}

int fpd_cli_verdict(const char *opt, const char *text, bool allow_never, int *out, char *why, size_t why_size)
{
    enum fpd_verdict v;
    if (allow_never && strcmp(text, "never") == 0) {
        *out = FPD_FAIL_NEVER;
        return FPD_OK;
    }
    if (fpd_verdict_parse(text, &v) != FPD_OK) {
        snprintf(why, why_size, "%s '%s': expected same, reorder, improbable, bound, nonfinite, error%s", opt, text,
                 allow_never ? " or never" : "");
        return FPD_ERR_INPUT;
    }
    *out = (int)v;
    return FPD_OK;
}

/* Splits a comma list and hands each item to `take`, which parses it into slot `slot` of `out`
 * (items of `item_size` bytes). An item that parses to one already given is refused, however it
 * is spelled (f32 and f32:f32): it would split the campaign's summary rows and double its findings. */
static int for_each_item(const char *opt, const char *text, size_t cap, size_t *n,
                         int (*take)(const char *item, size_t slot, void *out, char *why, size_t why_size), void *out,
                         size_t item_size, char *why, size_t why_size)
{
    char buf[1024];
    if (strlen(text) >= sizeof buf) {
        snprintf(why, why_size, "%s: list too long", opt);
        return FPD_ERR_INPUT;
    }
    strcpy(buf, text);
    *n = 0;
    const char *items[sizeof buf / 2]; /* an item and its comma take two characters at least */
    for (char *p = buf, *item; (item = strsep(&p, ",")) != NULL;) {
        if (*item == '\0') {
            snprintf(why, why_size, "%s '%s': empty item in the list", opt, text);
            return FPD_ERR_INPUT;
        }
        if (*n == cap) {
            snprintf(why, why_size, "%s '%s': at most %zu items", opt, text, cap);
            return FPD_ERR_INPUT;
        }
        items[*n] = item;
        if (take(item, *n, out, why, why_size) != FPD_OK)
            return FPD_ERR_INPUT;
        const char *parsed = (const char *)out;
        for (size_t i = 0; i < *n; i++)
            if (memcmp(parsed + i * item_size, parsed + *n * item_size, item_size) == 0) {
                if (strcmp(items[i], item) == 0)
                    snprintf(why, why_size, "%s '%s': '%s' is listed twice", opt, text, item);
                else
                    snprintf(why, why_size, "%s '%s': '%s' is '%s' again", opt, text, item, items[i]);
                return FPD_ERR_INPUT;
            }
        (*n)++;
    }
    return FPD_OK;
}

static int take_relation(const char *item, size_t slot, void *ctx, char *why, size_t why_size)
{
    const struct fpd_relation *r = fpd_relation_find(item);
    if (!r) {
        snprintf(why, why_size, "unknown relation '%s' (fpdiv list shows them)", item);
        return FPD_ERR_INPUT;
    }
    ((const struct fpd_relation **)ctx)[slot] = r;
    return FPD_OK;
}

static int take_backend(const char *item, size_t slot, void *ctx, char *why, size_t why_size)
{
    return fpd_backend_resolve(item, &((struct fpd_backend_slot **)ctx)[slot], why, why_size);
}

static int take_dtypes(const char *item, size_t slot, void *ctx, char *why, size_t why_size)
{
    return fpd_dtypes_parse(item, &((struct fpd_dtypes *)ctx)[slot], why, why_size);
}

static int take_dist(const char *item, size_t slot, void *ctx, char *why, size_t why_size)
{
    if (fpd_dist_parse(item, &((enum fpd_dist *)ctx)[slot]) != FPD_OK) {
        snprintf(why, why_size, "unknown distribution '%s' (fpdiv list shows them)", item);
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

int fpd_cli_relations(const char *text, const struct fpd_relation **out, size_t cap, size_t *n, char *why,
                      size_t why_size)
{
    return for_each_item("--relations", text, cap, n, take_relation, out, sizeof *out, why, why_size);
}

int fpd_cli_backends(const char *text, struct fpd_backend_slot **out, size_t cap, size_t *n, char *why,
                     size_t why_size)
{
    return for_each_item("--backends", text, cap, n, take_backend, out, sizeof *out, why, why_size);
}

/* Appends "name@set" (or the name alone when set is NULL) to a comma list. */
static int append_name(char *out, size_t size, const char *name, const char *set)
{
    size_t used = strlen(out);
    int n = snprintf(out + used, size - used, "%s%s%s%s", used ? "," : "", name, set ? "@" : "", set ? set : "");
    return n >= 0 && (size_t)n < size - used ? FPD_OK : FPD_ERR_INPUT;
}

/* Set in the process fpd_cli_run_kernel_sets_here starts: it parses the same options again, and
 * what they made the first process say is not said twice. */
#define RESTARTED "FPDIV_RESTARTED_ON_KERNEL_SETS"

bool fpd_cli_restarted(void) { return getenv(RESTARTED) != NULL; }

int fpd_cli_pin_backends(const char *names, const char *cores, bool pair, char *out, size_t out_size, char *why,
                         size_t why_size)
{
    char name_list[1024], core_list[1024];
    if (snprintf(name_list, sizeof name_list, "%s", names) >= (int)sizeof name_list ||
        snprintf(core_list, sizeof core_list, "%s", cores) >= (int)sizeof core_list) {
        snprintf(why, why_size, "--core: list too long");
        return FPD_ERR_INPUT;
    }
    const char *sets[64];
    size_t n_sets = 0;
    for (char *p = core_list, *item; (item = strsep(&p, ",")) != NULL;) {
        if (!*item || n_sets == 64) {
            snprintf(why, why_size, "--core '%s': %s", cores, *item ? "too many kernel sets" : "empty item in the list");
            return FPD_ERR_INPUT;
        }
        sets[n_sets++] = item;
    }
    if (pair && n_sets != 2) {
        snprintf(why, why_size, "--core '%s': the core relation compares two kernel sets: --core A,B", cores);
        return FPD_ERR_INPUT;
    }
    /* a set goes to the libraries that list it, and as its class's set to the others (OpenBLAS's
     * Haswell is oneMKL's AVX2 and BLIS's haswell: backend_pinned.h); a set no library lists and
     * no class has goes to every one, whose probe then says why it does not pin */
    struct fpd_backend_slot *slots[FPD_MAX_BACKENDS];
    size_t n_names = 0;
    for (char *p = name_list, *name; (name = strsep(&p, ",")) != NULL; n_names++) {
        if (n_names == FPD_MAX_BACKENDS) {
            snprintf(why, why_size, "--core: too many backends");
            return FPD_ERR_INPUT;
        }
        slots[n_names] = strchr(name, '@') ? NULL : fpd_registry_find(name);
    }
    bool listed_somewhere[64] = {false};
    for (size_t i = 0; i < n_sets; i++) {
        listed_somewhere[i] = fpd_kernel_set_class_known(sets[i]);
        for (size_t j = 0; j < n_names; j++)
            listed_somewhere[i] |= slots[j] && fpd_backend_lists_kernel_set(slots[j]->impl, sets[i]);
    }
    out[0] = '\0';
    size_t pinned = 0;
    const char *name = name_list;
    for (size_t j = 0; j < n_names; j++, name += strlen(name) + 1) {
        bool pinnable = slots[j] && fpd_backend_pinnable(slots[j]->impl), pins = false;
        int rc = FPD_OK;
        const char *taken[64];
        size_t n_taken = 0;
        for (size_t i = 0; pinnable && i < n_sets && rc == FPD_OK; i++) {
            const char *set = fpd_kernel_set_for(slots[j]->impl, sets[i]);
            set = set ? set : listed_somewhere[i] ? NULL : sets[i];
            bool again = false; /* Haswell and avx2 are one set of oneMKL's */
            for (size_t t = 0; set && t < n_taken; t++)
                again |= strcasecmp(taken[t], set) == 0;
            if (set && !again) {
                pins = true;
                taken[n_taken++] = set;
                rc = append_name(out, out_size, name, set);
            }
        }
        if (rc == FPD_OK && !pins) {
            rc = append_name(out, out_size, name, NULL);
            /* the campaign would not be the same on another machine: say so, once (not again in
             * the process fpd_cli_run_kernel_sets_here starts with the same arguments) */
            if (pinnable && !fpd_cli_restarted())
                fprintf(stderr, "fpdiv: note: --core %s names no kernel set of %s, which runs the one it picks "
                                "here (name a class to pin every library: baseline, sse4, avx, avx2, avx512)\n",
                        cores, name);
        }
        if (rc != FPD_OK) {
            snprintf(why, why_size, "--core: too many backends");
            return FPD_ERR_INPUT;
        }
        pinned += pins;
    }
    if (!pinned) {
        snprintf(why, why_size, "--core pins the kernel set of a library that picks one for the CPU (openblas); "
                                "'%s' has none to pin", names);
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

int fpd_cli_dtypes(const char *text, struct fpd_dtypes *out, size_t cap, size_t *n, char *why, size_t why_size)
{
    return for_each_item("--dtypes", text, cap, n, take_dtypes, out, sizeof *out, why, why_size);
}

int fpd_cli_dists(const char *text, enum fpd_dist *out, size_t cap, size_t *n, char *why, size_t why_size)
{
    return for_each_item("--dists", text, cap, n, take_dist, out, sizeof *out, why, why_size);
}

double fpd_cli_default_max_mem(void) { return fpd_case_default_max_mem(); }

/* "OPT PATH: what[: the system's reason]"; a `what` that starts with "is " reads on without the colon */
static int cannot_write(const char *opt, const char *path, const char *what, int err, char *why, size_t why_size)
{
    char shown[3200];
    snprintf(why, why_size, "%s %s%s%s%s%s", opt, fpd_printable(path, shown, sizeof shown),
             strncmp(what, "is ", 3) == 0 ? " " : ": ", what, err ? ": " : "", err ? strerror(err) : "");
    return FPD_ERR_INPUT;
}

int fpd_cli_can_write_dir(const char *opt, const char *path, char *why, size_t why_size)
{
    char probe[4096];
    struct stat st;
    if (!path[0]) {
        snprintf(why, why_size, "%s needs a directory name", opt);
        return FPD_ERR_INPUT;
    }
    if (snprintf(probe, sizeof probe, "%s", path) >= (int)sizeof probe)
        return cannot_write(opt, path, "too long a name", 0, why, why_size);
    for (;;) {
        if (stat(probe, &st) == 0) {
            if (!S_ISDIR(st.st_mode))
                return cannot_write(opt, path, strcmp(probe, path) == 0 ? "is not a directory" : "a file is in its way",
                                    0, why, why_size);
            if (access(probe, W_OK | X_OK) != 0)
                return cannot_write(opt, path, "cannot write into it", errno, why, why_size);
            return FPD_OK;
        }
        if (errno != ENOENT && errno != ENOTDIR) /* ENOTDIR: a file above it, named below */
            return cannot_write(opt, path, "cannot be examined", errno, why, why_size);
        char *slash = strrchr(probe, '/');
        while (slash && slash > probe && slash[1] == '\0') { /* "a/b/" */
            *slash = '\0';
            slash = strrchr(probe, '/');
        }
        if (!slash)
            snprintf(probe, sizeof probe, ".");
        else
            slash[slash == probe] = '\0'; /* "/a" -> "/" */
    }
}

int fpd_cli_can_write_file(const char *opt, const char *path, char *why, size_t why_size)
{
    struct stat st;
    if (!path[0]) {
        snprintf(why, why_size, "%s needs a file name", opt);
        return FPD_ERR_INPUT;
    }
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return cannot_write(opt, path, "is a directory, not a file", 0, why, why_size);
        if (access(path, W_OK) != 0)
            return cannot_write(opt, path, "cannot be written", errno, why, why_size);
        return FPD_OK;
    }
    /* its directory, made where missing as the corpus's is (ci/run-7/fpdiv.xml) */
    const char *slash = strrchr(path, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash == path ? 1 : slash - path) : 1, slash ? path : ".");
    return fpd_cli_can_write_dir(opt, dir, why, why_size);
}

int fpd_cli_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int fpd_cli_only_help(const char *cmd, int argc, char **argv, const char *help, int positional)
{
    static const struct option options[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        if (opt == 'h') {
            fputs(help, stdout);
            return FPD_EXIT_OK;
        }
        fpd_console_error(cmd, "see 'fpdiv %s --help'", cmd);
        return FPD_EXIT_USAGE;
    }
    if (positional >= 0 && argc - optind != positional) {
        if (positional == 0)
            fpd_console_error(cmd, "unexpected argument '%s'", argv[optind]);
        else
            fpd_console_error(cmd, "expected %d argument%s (see 'fpdiv %s --help')", positional, positional == 1 ? "" : "s",
                          cmd);
        return FPD_EXIT_USAGE;
    }
    return -1;
}

int fpd_cli_exact_mode(const char *text, enum fpd_exact_mode *out, char *why, size_t why_size)
{
    for (int m = 0; m < FPD_EXACT_MODE_COUNT; m++)
        if (strcmp(text, fpd_exact_mode_names[m]) == 0) {
            *out = (enum fpd_exact_mode)m;
            return FPD_OK;
        }
    snprintf(why, why_size, "--exact '%s': expected always, sampled, diverging or never", text);
    return FPD_ERR_INPUT;
}

static char **program_argv;

void fpd_cli_remember_argv(char **argv) { program_argv = argv; }

void fpd_cli_run_kernel_sets_here(struct fpd_backend_slot *const *slots, size_t n)
{
    struct fpd_backend_slot *bases[8];
    const char *sets[8];
    size_t n_bases = 0;
    for (size_t i = 0; i < n; i++) {
        struct fpd_backend_slot *base;
        const char *set;
        if (!fpd_backend_pinned_parts(slots[i]->impl, &base, &set))
            continue;
        if (fpd_backend_acquire(slots[i]) != FPD_OK)
            return; /* not a set to run here at all: its unavailability is reported as it is */
        size_t b = 0;
        while (b < n_bases && bases[b] != base)
            b++;
        if (b == n_bases) {
            if (n_bases == 8)
                return;
            bases[n_bases] = base;
            sets[n_bases++] = set;
        } else if (strcmp(sets[b], set) != 0) {
            return; /* two kernel sets of one library: the hosts stay */
        }
    }
    bool move = false;
    for (size_t b = 0; b < n_bases; b++) {
        const char *native = fpd_backend_native_kernel_set(bases[b]);
        const char *var = bases[b]->impl->kernel_set_env, *now = getenv(var);
        if (native && strcasecmp(native, sets[b]) == 0)
            continue;
        if (now && strcasecmp(now, sets[b]) == 0)
            return; /* already asked for, and the library did not take it: no second exec */
        move = true;
    }
    if (!move || !program_argv)
        return;
    for (size_t b = 0; b < n_bases; b++)
        setenv(bases[b]->impl->kernel_set_env, sets[b], 1);
    setenv(RESTARTED, "1", 1);
    fflush(NULL);
    execv("/proc/self/exe", program_argv); /* only returns when it failed: the hosts it is */
    unsetenv(RESTARTED);
}
