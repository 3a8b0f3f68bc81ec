/* cmd_env.c — `fpdiv env`: the environment results depend on, here. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "backends/backend_pinned.h"
#include "backends/kernel_set_cache.h"
#include "backends/thread_waits.h"
#include "cli/cmd.h"
#include "common/cpu.h"
#include "common/text.h"
#include "cpu/vector_width.h"
#include "engine/environment.h"
#include "report/check_report.h"

static const char help[] =
    "usage: fpdiv env [--json]\n\n"
    "Shows what a result depends on besides its case, on this machine: the CPU (vendor, model,\n"
    "x86-64 level, the features libraries choose kernels by, L2 cache), fpdiv's versions, and for\n"
    "each available library backend its version, the kernel set it selected, its default thread\n"
    "count, and every kernel set of its list: whether this CPU runs it (each is probed in a\n"
    "process of its own, or was by an earlier run: the sets that ran are remembered in\n"
    "$FPDIV_CACHE_DIR, by default ~/.cache/fpdiv) and, when not, why.\n\n"
    "  --json      one JSON object\n"
    "  -h, --help  this text\n";

/* {"runs": [names], "native": name, "cannot": {name: why}} */
static json_t *kernel_sets_json(struct fpd_backend_slot *base)
{
    struct fpd_kernel_set_report sets[64];
    size_t n = fpd_kernel_sets_survey(base, sets, 64);
    json_t *runs = json_array(), *cannot = json_object(), *o = json_object();
    for (size_t i = 0; i < n; i++) {
        if (sets[i].runs)
            json_array_append_new(runs, json_string(sets[i].name));
        else
            json_object_set_new(cannot, sets[i].name, json_string(sets[i].why));
        if (sets[i].native)
            json_object_set_new(o, "native", json_string(sets[i].name));
    }
    json_object_set_new(o, "runs", runs);
    json_object_set_new(o, "cannot", cannot);
    char path[4096];
    const char *remembered = fpd_kernel_set_cache_file(base, path, sizeof path);
    json_object_set_new(o, "remembered_in", remembered ? fpd_json_text(remembered) : json_null());
    return o;
}

static void print_text(json_t *env)
{
    char line[512];
    const struct fpd_cpu *cpu = fpd_cpu_this();
    printf("cpu        %s\n", fpd_cpu_describe(cpu, line, sizeof line));
    printf("features   %s\n", cpu->features[0] ? cpu->features : "(not read on this architecture)");
    printf("fpdiv      %s (generator %d, backend ABI %d)\n", FPD_VERSION, FPD_GEN_VERSION, FPDIV_BACKEND_ABI);
    printf("vectors    %s (fpdiv's own loops; the CPU's widest: %s)\n",
           json_string_value(json_object_get(env, "vector_width")), fpd_vector_width_name(fpd_vector_width_of_cpu()));
    /* how idle library threads wait (backends/thread_waits.h): the variables fpdiv set, or the user */
    printf("waits     ");
    const char *variable;
    json_t *value;
    json_object_foreach(json_object_get(env, "thread_waits"), variable, value)
        printf(" %s=%s", variable, json_string_value(value));
    printf("\n");
    const char *name;
    json_t *b;
    json_object_foreach(json_object_get(env, "backends"), name, b)
    {
        printf("\n");
        fpd_put_printable(stdout, name);
        printf("\n");
        const char *key;
        json_t *value;
        json_object_foreach(b, key, value)
        {
            if (json_is_string(value)) { /* a library's strings, a host's: shown escaped */
                printf("  %-16s ", key);
                fpd_put_printable(stdout, json_string_value(value));
                printf("\n");
            }
        }
        json_t *sets = json_object_get(b, "kernel_sets");
        if (!sets)
            continue;
        printf("  kernel sets this CPU runs (--core SET, or %s@SET):", name);
        size_t i;
        json_array_foreach(json_object_get(sets, "runs"), i, value) printf(" %s", json_string_value(value));
        printf("\n");
        if (json_object_size(json_object_get(sets, "cannot")))
            printf("  kernel sets it does not run:\n");
        json_object_foreach(json_object_get(sets, "cannot"), key, value)
        {
            /* the reason without the words the heading already says */
            char said[160];
            const char *why = json_string_value(value);
            snprintf(said, sizeof said, "this CPU cannot run %s's kernel set %s: ", name, key);
            if (strncmp(why, said, strlen(said)) == 0)
                why += strlen(said);
            printf("    %-15s ", key);
            fpd_put_printable(stdout, why);
            printf("\n");
        }
        const char *remembered = json_string_value(json_object_get(sets, "remembered_in"));
        if (remembered) { /* what a probe showed here is kept: say where, and how to probe again */
            printf("  the sets that run are remembered in ");
            fpd_put_printable(stdout, remembered);
            printf(" (delete it to probe them again)\n");
        }
    }
}

int fpd_cmd_env(int argc, char **argv)
{
    static const struct option options[] = {
        {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    bool json = false;
    int opt;
    while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        if (opt == 'h') {
            fputs(help, stdout);
            return FPD_EXIT_OK;
        }
        if (opt != 'j') {
            fpd_console_error("env", "see 'fpdiv env --help'");
            return FPD_EXIT_USAGE;
        }
        json = true;
    }
    if (optind < argc) {
        fpd_console_error("env", "unexpected argument '%s'", argv[optind]);
        return FPD_EXIT_USAGE;
    }
    json_t *backends = json_object();
    size_t n = fpd_registry_count();
    for (size_t i = 0; i < n; i++) {
        struct fpd_backend_slot *s = fpd_registry_at(i);
        if ((s->impl->kind != FPD_KIND_VENDOR && s->impl->kind != FPD_KIND_FRAMEWORK) ||
            fpd_backend_pinned_parts(s->impl, NULL, NULL))
            continue;
        fpd_console_status("env", "opening %s%s", s->impl->name,
                       s->impl->kind == FPD_KIND_FRAMEWORK ? " (starting its bridge server)" : "");
        if (fpd_backend_acquire(s) != FPD_OK)
            continue;
        json_t *b = fpd_backend_environment_json(s);
        if (fpd_backend_pinnable(s->impl)) {
            fpd_console_status("env", "probing %s's kernel sets, each in a process of its own", s->impl->name);
            json_object_set_new(b, "kernel_sets", kernel_sets_json(s));
        }
        json_object_set_new(backends, s->impl->name, b);
    }
    fpd_console_status_clear();
    json_t *env = json_pack("{s:s,s:s,s:i,s:i,s:o,s:s,s:o,s:o}", "type", "environment", "fpdiv", FPD_VERSION,
                            "generator", FPD_GEN_VERSION, "backend_abi", FPDIV_BACKEND_ABI, "cpu",
                            fpd_cpu_json(fpd_cpu_this()), "vector_width", fpd_vector_width_name(fpd_vector_width()),
                            "thread_waits", fpd_thread_waits_json(), "backends", backends);
    if (json) {
        json_dumpf(env, stdout, FPD_JSON_LINE);
        fputc('\n', stdout);
    } else {
        print_text(env);
    }
    json_decref(env);
    return FPD_EXIT_OK;
}
