/*
 * host.h — a backend served by another fpdiv process: `fpdiv __host NAME`, started with an
 * environment of its own.
 *
 * Some libraries read their configuration once, when they load: OpenBLAS picks its kernel set
 * (core) from OPENBLAS_CORETYPE or the CPU then, and never again. To run such a library on
 * another kernel set, fpdiv starts itself again with the variable set and hands the GEMMs over:
 * a request on a socket, the operands and C in memory shared with the host. The host answers
 * each with the backend's own status and reason; a host that dies (a kernel set this CPU cannot
 * execute dies of SIGILL) makes that GEMM fail, with the signal named, and is started afresh on
 * the next one. A host belongs to the process that started it: a process forked from that one
 * starts its own, since two processes talking over one socket would mix their answers.
 */
#ifndef FPD_HOST_H
#define FPD_HOST_H

#include <stdbool.h>

#include "backends/backend.h"

struct fpd_host;

/* This process is a host (`fpdiv __host`): a backend it serves must not start a host itself. */
void fpd_host_set_serving(void);
bool fpd_host_serving(void);
/* This host is started again (fpd_host_renew) for a library that has loaded and run here before,
 * on the same kernel set: it loads it without trying it in a child first (a host's own death is
 * what such a child's would have been, and the try doubled every start's loading). */
void fpd_host_set_proven(void);
bool fpd_host_proven(void);

/* Starts the host of backend `name` with env_name=env_value in its environment (none when env_name
 * is NULL) and waits (up to
 * timeout seconds; 0: no limit) until it has opened the backend: FPD_OK, FPD_ERR_UNAVAILABLE
 * when the backend cannot open there (its reason in why), FPD_ERR_BACKEND when the host died or
 * did not answer in time. `label` names it in messages ("openblas@Haswell"). */
int fpd_host_start(const char *label, const char *name, const char *env_name, const char *env_value, double timeout,
                   struct fpd_host **out, char *why, size_t why_size);
/* A host as fpd_host_start gives one once it is retired: no process, the provenance a host of the
 * same backend on the same kernel set reported ("key\0value\0" pairs, provenance_len bytes);
 * fpd_host_renew starts it. For a kernel set probed by an earlier run (kernel_set_memory.h).
 * FPD_OK or FPD_ERR_NOMEM. */
int fpd_host_prepare(const char *label, const char *name, const char *env_name, const char *env_value, double timeout,
                     const char *provenance, size_t provenance_len, struct fpd_host **out);
/* One GEMM in the host, as fpd_backend_gemm would run it there. timeout: seconds, 0 for none
 * (the checker's own isolation bounds a check). FPD_ERR_BACKEND with why on any failure, the
 * host's death and a write outside C included. */
int fpd_host_gemm(struct fpd_host *h, const struct fpd_gemm_args *g, double timeout, char *why, size_t why_size);
/* The `count` GEMMs (at most FPD_MAX_CALLERS) in the host at once, from threads of its own, as the
 * backend's gemm_concurrent runs them there, the host started again first where this process may
 * not use it (fpd_host_renew); each GEMM's outcome as fpd_host_gemm's, in status[i] and the
 * why_size bytes at why + i * why_size. */
void fpd_host_gemm_concurrent(struct fpd_host **h, size_t count, const struct fpd_gemm_args *const *g, double timeout,
                              int *status, char *why, size_t why_size);
/* Starts *h again, as it was started, when this process may not use it (retired, dead, or started
 * by the process this one forked from: a worker starts its own). FPD_OK when it is usable, else
 * fpd_host_start's status with why; *h is then as it was. */
int fpd_host_renew(struct fpd_host **h, char *why, size_t why_size);
/* The backend's provenance in the host, as the host reported it when it started. */
void fpd_host_provenance(const struct fpd_host *h, fpd_provenance_fn emit, void *ctx);
/* The same, as the host sent it: "key\0value\0" pairs, *len bytes. */
const char *fpd_host_provenance_pairs(const struct fpd_host *h, size_t *len);
/* Whether this process may use the host: it started it, and the host has not died. */
bool fpd_host_usable(const struct fpd_host *h);
/* How the host ended when it died or was killed ("was killed by signal 4 (Illegal instruction)"),
 * else NULL. */
const char *fpd_host_death(const struct fpd_host *h);
/* Ends the host process (only if this process started it) but keeps what it reported: its
 * provenance stays readable, and it is no longer usable. */
void fpd_host_retire(struct fpd_host *h);
/* Ends the host like fpd_host_retire and frees the handle. NULL is fine. */
void fpd_host_stop(struct fpd_host *h);

/* The fpdiv executable hosts run (default: this process's own, which is fpdiv; a program that
 * links fpdiv's library, such as the unit tests, names one). */
void fpd_host_set_program(const char *path);
/* The program a host runs: the one set, else "/proc/self/exe". */
const char *fpd_host_program(void);
/* The global options that add backends (--plugin PATH, --blas NAME=PATH), in order: a host is
 * given them too, so that it knows the same backends. FPD_ERR_INPUT past the 32 a host's command
 * line takes, FPD_ERR_NOMEM out of memory. */
int fpd_host_add_global_option(const char *option, const char *value);
/* Those options: (*pairs)[2 i] the option, (*pairs)[2 i + 1] its value, for i below the count. */
size_t fpd_host_global_options(const char *const **pairs);

/* The host's side, for `fpdiv __host`: serves the open backend on the socket and shared memory
 * it was started with until the other end goes away. Returns FPD_OK then. */
int fpd_host_serve(struct fpd_backend_slot *slot, const char *why_unavailable);

#endif
