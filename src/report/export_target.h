/* export_target.h — the frameworks `fpdiv export` writes a case for, and which cases each can
 * take: `export` writes them, and `report` lists only the export commands that will work. */
#ifndef FPD_EXPORT_TARGET_H
#define FPD_EXPORT_TARGET_H

#include <stdbool.h>
#include <stddef.h>

#include "backends/backend.h"
#include "engine/check.h"

/* A framework to export to: the bridge's module that runs its operations, and the backends that
 * are it (a case fpdiv ran on one of them reproduces with the same count). */
struct fpd_export_target {
    const char *name;
    const struct fpd_backend *backend; /* its features say which relations it has */
    const char *runs_as[2];            /* fpdiv's backends that are this framework */
};

extern const struct fpd_export_target fpd_export_targets[];
extern const size_t fpd_export_target_count;

const struct fpd_export_target *fpd_export_target_find(const char *name);
/* Whether fpdiv ran the case on this framework itself. */
bool fpd_export_target_ran_on(const struct fpd_export_target *t, const char *backend);
/* Whether the framework has a counterpart of the check's relation; else why not. */
bool fpd_export_target_takes(const struct fpd_export_target *t, const struct fpd_check *chk, char *why,
                             size_t why_size);

#endif
