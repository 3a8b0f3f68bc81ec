/* export_target.c — the frameworks a case can be exported to, as a table. */
#include "report/export_target.h"

#include <stdio.h>
#include <string.h>

#include "backends/backend_framework.h"
#include "common/table.h"

const struct fpd_export_target fpd_export_targets[] = {
    {"numpy", &fpd_backend_numpy, {"numpy"}},
    {"torch", &fpd_backend_torch, {"torch", "torch-compile"}},
    {"jax", &fpd_backend_jax, {"jax"}},
};
const size_t fpd_export_target_count = sizeof fpd_export_targets / sizeof fpd_export_targets[0];

const struct fpd_export_target *fpd_export_target_find(const char *name)
{
    long i = FPD_TABLE_FIND(fpd_export_targets, fpd_export_target_count, name);
    return i < 0 ? NULL : &fpd_export_targets[i];
}

bool fpd_export_target_ran_on(const struct fpd_export_target *t, const char *backend)
{
    for (size_t i = 0; i < sizeof t->runs_as / sizeof t->runs_as[0] && t->runs_as[i]; i++)
        if (strcmp(t->runs_as[i], backend) == 0)
            return true;
    return false;
}

bool fpd_export_target_takes(const struct fpd_export_target *t, const struct fpd_check *chk, char *why,
                             size_t why_size)
{
    if (chk->relation->backends != 1) {
        snprintf(why, why_size, "%s compares two backends, which one framework cannot", chk->relation->name);
        return false;
    }
    if (chk->relation->needs & FPD_FEAT_CONCURRENT) {
        snprintf(why, why_size, "%s calls the framework from several threads at once, which the exported script "
                 "does not (replay the case file instead)", chk->relation->name);
        return false;
    }
    const struct fpd_backend *impls[2] = {t->backend, NULL};
    return fpd_relation_applies(chk->relation, &chk->c.dt, impls, why, why_size);
}
