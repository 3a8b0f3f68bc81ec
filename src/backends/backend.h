/* backend.h — the backend registry: the built-in backends (builtin.h) plus any added at run time
 * (--blas, --framework, plugins, tests), and calls on a registered backend. */
#ifndef FPD_BACKEND_H
#define FPD_BACKEND_H

#include "fpdiv_backend.h"

enum fpd_slot_state { FPD_SLOT_CLOSED, FPD_SLOT_OPEN, FPD_SLOT_UNAVAILABLE };

/* A registered backend and its run-time state: opened at most once per process, on first use. */
struct fpd_backend_slot {
    const struct fpd_backend *impl;
    const struct fpd_backend *own; /* what impl->open is handed: the plugin's own struct, where impl is
                                      an older ABI's copy upgraded (plugin.c), else impl */
    enum fpd_slot_state state;
    void *handle; /* what impl->open returned */
    char why[256]; /* why unavailable */
};

#define FPD_MAX_BACKENDS 128

/* Whether a name is one fpdiv writes for a backend: a letter or digit, then letters, digits, '-',
 * '_', '.' or '+' (at most 63 bytes in all), and for a library pinned to a kernel set, '@' and the
 * set's letters, digits and '_'. Names go into case files, the commands fpdiv prints and the
 * scripts export writes: a name outside this grammar is refused wherever it comes from. */
bool fpd_backend_name_valid(const char *name);
/* Adds a backend (ABI and name checked). */
int fpd_registry_add(const struct fpd_backend *b, char *why, size_t why_size);
/* The same for an older ABI's backend, upgraded into b: its open() is handed `own`, the struct the
 * plugin made (a plugin may tell its backends apart by address). */
int fpd_registry_add_upgraded(const struct fpd_backend *b, const struct fpd_backend *own, char *why, size_t why_size);
/* Backends whose loading costs time (the bundled CUDA plugin: about 0.1 s) are loaded by `load` the
 * first time a name is not found among the others, or the whole list is asked for. */
void fpd_registry_defer(void (*load)(void));
size_t fpd_registry_count(void);
struct fpd_backend_slot *fpd_registry_at(size_t i);
struct fpd_backend_slot *fpd_registry_find(const char *name);
/* The same among the backends registered so far, without loading the deferred ones. */
struct fpd_backend_slot *fpd_registry_find_loaded(const char *name);
/* The routes and executions of fpdiv_backend.h by name ("gemv-rows", "compiled"), as options,
 * case files and the bridge's protocol spell them; fpd_route_find gives FPD_ROUTE_COUNT for a
 * name that is none. */
extern const char *const fpd_route_names[FPD_ROUTE_COUNT];
extern const char *const fpd_execution_names[FPD_EXEC_COMPILED + 1];
enum fpd_route fpd_route_find(const char *name);

/* A stand-in for a backend this process has not loaded (a plugin's, named in a case file that is
 * only read): listed under that name, always unavailable. NULL when out of memory. */
struct fpd_backend_slot *fpd_registry_placeholder(const char *name);
/* Opens the backend if it is not yet; FPD_OK, or FPD_ERR_UNAVAILABLE with slot->why set. */
int fpd_backend_acquire(struct fpd_backend_slot *s);
/* Whether the backend can compute these dtypes here; when not, why says so. */
bool fpd_backend_supports(struct fpd_backend_slot *s, const struct fpd_dtypes *dt, char *why, size_t why_size);
/* One value of an open backend's provenance ("version", "kernel_set", …) in buf; NULL when the
 * slot is not open or the backend does not say. */
const char *fpd_backend_provenance_value(const struct fpd_backend_slot *s, const char *key, char *buf, size_t size);
void fpd_registry_close_all(void);
/* One GEMM on an open backend: FPD_OK, or FPD_ERR_BACKEND with why naming the backend, when it
 * failed or returned with the floating-point environment changed (a rounding mode, flush-to-zero,
 * a trap: fpenv.h). Either way IEEE's default environment is back afterwards. */
int fpd_backend_gemm(const struct fpd_backend_slot *s, const struct fpd_gemm_args *args, char *why, size_t why_size);
/* How an open backend's GEMM rounds for these dtypes (fpdiv_backend.h): FPD_ROUNDING_NEAREST
 * unless it says otherwise. */
void fpd_backend_rounding(const struct fpd_backend_slot *s, const struct fpd_dtypes *dt, struct fpd_rounding *out);
/* Several GEMMs on an open backend, each with its own outcome as fpd_backend_gemm's (status[i], its
 * reason in the why_size bytes at why + i * why_size): in one call where the backend has
 * gemm_many, else one at a time. */
void fpd_backend_gemm_many(const struct fpd_backend_slot *s, size_t count, const struct fpd_gemm_args *const *args,
                           int *status, char *why, size_t why_size);
/* GEMMs called from several threads at once (the backend's gemm_concurrent, fpdiv_backend.h), each
 * with its own outcome as fpd_backend_gemm_many's; FPD_ERR_NOT_APPLICABLE for every one where the
 * backend does not take concurrent calls. */
void fpd_backend_gemm_concurrent(const struct fpd_backend_slot *s, size_t count,
                                 const struct fpd_gemm_args *const *args, int *status, char *why, size_t why_size);

#endif
