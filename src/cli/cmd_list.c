/* cmd_list.c — `fpdiv list`: what this fpdiv can run here. */
#include <getopt.h>
#include <stdio.h>

#include "backends/backend_pinned.h"
#include "backends/plugin.h"
#include "cli/cmd.h"
#include "common/dtype.h"
#include "common/text.h"
#include "engine/environment.h"
#include "report/check_report.h"

static const char help[] = "usage: fpdiv list\n\n"
                           "Shows the backends (available here, or why not, with versions, and the kernel\n"
                           "sets this CPU runs for a library that has them), the relations, the dtypes and\n"
                           "the input distributions.\n";

/* The kernel sets this CPU runs, by name; the others counted (`fpdiv env` says why). */
static void list_kernel_sets(struct fpd_backend_slot *base)
{
    struct fpd_kernel_set_report sets[64];
    fpd_console_status("list", "probing %s's kernel sets, each in a process of its own", base->impl->name);
    size_t n = fpd_kernel_sets_survey(base, sets, 64), cannot = 0;
    fpd_console_status_clear();
    printf("  %-12s     kernel sets this CPU runs (--core SET, or %s@SET):", "", base->impl->name);
    for (size_t i = 0; i < n; i++) {
        if (sets[i].runs)
            printf(" %s%s", sets[i].name, sets[i].native ? " (native)" : "");
        cannot += !sets[i].runs;
    }
    printf("\n");
    if (cannot)
        printf("  %-12s     and %zu it cannot (fpdiv env says why)\n", "", cannot);
}

int fpd_cmd_list(int argc, char **argv)
{
    int stop = fpd_cli_only_help("list", argc, argv, help, 0);
    if (stop >= 0)
        return stop;
    static const char *const devices[] = {[FPD_DEVICE_CPU] = "cpu", [FPD_DEVICE_GPU] = "gpu"};
    printf("backends\n");
    size_t n = fpd_registry_count(); /* the pinned ones the survey adds come after: not listed twice */
    for (size_t i = 0; i < n; i++) {
        struct fpd_backend_slot *s = fpd_registry_at(i);
        if (fpd_backend_pinned_parts(s->impl, NULL, NULL))
            continue;
        fpd_console_status("list", "opening %s%s", s->impl->name,
                       s->impl->kind == FPD_KIND_FRAMEWORK ? " (starting its bridge server)" : "");
        bool ok = fpd_backend_acquire(s) == FPD_OK;
        fpd_console_status_clear();
        printf("  %-12s %-3s %-11s ", s->impl->name, devices[s->impl->device], ok ? "available" : "unavailable");
        fpd_put_printable(stdout, s->impl->summary); /* a plugin's, or a --blas file name */
        char line[1024];
        if (!ok) {
            printf("\n  %-12s     why: ", "");
            fpd_put_printable(stdout, s->why);
        } else if (s->impl->kind == FPD_KIND_VENDOR || s->impl->kind == FPD_KIND_FRAMEWORK) {
            printf("\n  %-12s     ", "");
            fpd_put_printable(stdout, fpd_backend_environment_line(s, 0, line, sizeof line));
        }
        printf("\n");
        if (ok && fpd_backend_pinnable(s->impl))
            list_kernel_sets(s);
    }
    const char *const *paths, *const *reasons;
    size_t failures = fpd_plugin_failures(&paths, &reasons);
    for (size_t i = 0; i < failures; i++) {
        printf("  (plugin ");
        fpd_put_printable(stdout, paths[i]);
        printf(" could not load: ");
        fpd_put_printable(stdout, reasons[i]);
        printf(")\n");
    }
    printf("\nrelations (* = in fuzz's default set)\n");
    for (size_t i = 0; i < fpd_relation_count; i++) {
        const struct fpd_relation *r = &fpd_relation_table[i];
        printf("  %-12s %c %s\n", r->name, r->default_campaign ? '*' : ' ', r->doc);
    }
    printf("\ndtypes (--dtype IN[:OUT[:ACC]]; f16 and bf16 alone mean f32 output and accumulation)\n");
    for (int t = 0; t < FPD_DTYPE_COUNT; t++)
        printf("  %-12s %s\n", fpd_dtype_table[t].name, fpd_dtype_table[t].doc);
    printf("\ndistributions (--dist)\n");
    for (int d = 0; d < FPD_DIST_COUNT; d++)
        printf("  %-12s %s\n", fpd_dist_table[d].name, fpd_dist_table[d].doc);
    printf("\nverdicts, by severity\n");
    for (int v = 0; v < FPD_VERDICT_COUNT; v++)
        printf("  %-12s %s\n", fpd_verdict_table[v].name, fpd_verdict_table[v].doc);
    return FPD_EXIT_OK;
}
