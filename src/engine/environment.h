/*
 * environment.h — what a result depends on besides its case: the CPU, and for each backend its
 * library, version, kernel set and thread count (the backend's provenance, fpdiv_backend.h).
 * Every check's result carries it: in the report, in --json, in a saved case, where replay and
 * show compare it with the machine they run on.
 */
#ifndef FPD_ENVIRONMENT_H
#define FPD_ENVIRONMENT_H

#include <jansson.h>

#include "engine/check.h"

/* A backend's provenance, as a JSON object of strings ({} when it is not open). */
json_t *fpd_backend_environment_json(struct fpd_backend_slot *slot);
/* The check's environment: {"fpdiv", "generator", "cpu": {…}, "backends": {NAME: {…, "threads": N}}};
 * "threads" for a backend that honours a thread count. */
json_t *fpd_environment_json(const struct fpd_check *chk);
/* The same as JSON text (malloc'd), for a checker's `environment`: made where the check ran. */
char *fpd_environment_text(const struct fpd_check *chk);
/* The environment of the check `ck` ran last: the one made where it ran (ck->environment_text),
 * else the one of this process's backends. */
json_t *fpd_checker_environment(const struct fpd_checker *ck, const struct fpd_check *chk);
/* The same for a list of backends run with `threads` (0: none pinned), data from `generator`. */
json_t *fpd_environment_of(struct fpd_backend_slot *const *slots, size_t n, int threads, unsigned generator);

/* One line of a backend's environment: "OpenBLAS 0.3.21, kernel set Haswell; config=…; bf16=…",
 * from its provenance object (threads > 0: the count it ran with). */
const char *fpd_provenance_line(json_t *provenance, int threads, char *buf, size_t size);
/* The same for a backend as this process has it. */
const char *fpd_backend_environment_line(struct fpd_backend_slot *slot, int threads, char *buf, size_t size);

#endif
