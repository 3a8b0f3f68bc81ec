/* cmd_list.c — `fpdiv list`: what this fpdiv can run here. */
#include <getopt.h>
#include <stdio.h>

#include "cmd.h"
#include "dtype.h"
#include "plugin.h"
#include "report.h"

static const char help[] = "usage: fpdiv list\n\n"
                           "Shows the backends (available here, or why not, with versions), the relations,\n"
                           "the dtypes and the input distributions.\n";

int fpd_cmd_list(int argc, char **argv)
{
    int stop = fpd_cli_only_help("list", argc, argv, help, 0);
    if (stop >= 0)
        return stop;
    static const char *const devices[] = {[FPD_DEVICE_CPU] = "cpu", [FPD_DEVICE_GPU] = "gpu"};
    printf("backends\n");
    for (size_t i = 0; i < fpd_registry_count(); i++) {
        struct fpd_backend_slot *s = fpd_registry_at(i);
        bool ok = fpd_backend_acquire(s) == FPD_OK;
        printf("  %-12s %-3s %-11s %s\n", s->impl->name, devices[s->impl->device], ok ? "available" : "unavailable",
               s->impl->summary);
        if (!ok)
            printf("  %-12s     why: %s\n", "", s->why);
        else if (s->impl->kind == FPD_KIND_VENDOR)
            fpd_report_provenance(stdout, s);
    }
    const char *const *paths, *const *reasons;
    size_t failures = fpd_plugin_failures(&paths, &reasons);
    for (size_t i = 0; i < failures; i++)
        printf("  (plugin %s could not load: %s)\n", paths[i], reasons[i]);
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
