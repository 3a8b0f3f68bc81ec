/*
 * backend_pinned.h — a backend pinned to one of its kernel sets: `openblas@Haswell`.
 *
 * A library that chooses its kernels for the CPU when it loads (fpdiv_backend.h: kernel_set_env)
 * gives different bits on different machines for one and the same call. fpdiv names a result's
 * kernel set with its backend, NAME@SET, so the result says what it needs to be reproduced, and
 * runs any kernel set this CPU can execute: in its own process when the library here already
 * runs that set, else in a host (host.h) started with kernel_set_env=SET. A kernel set is usable
 * only once a host has shown it: the library reports that set, and GEMMs of every type and of
 * several shapes, on one thread and on two, run and give the right answer. A set this CPU lacks
 * the instructions for dies of SIGILL there, and is unavailable with that reason. A set shown to
 * run is remembered for later runs on this machine (kernel_set_cache.h).
 *
 * A plain name, `openblas`, means the kernel set the library runs in fpdiv's own process
 * (`openblas@Haswell` on a Haswell), so every result names its kernel set.
 */
#ifndef FPD_BACKEND_PINNED_H
#define FPD_BACKEND_PINNED_H

#include "backends/backend.h"

/* Whether the backend names kernel sets to pin (it has kernel_set_env and a candidate list). */
bool fpd_backend_pinnable(const struct fpd_backend *b);
/* Whether `set` is one of the kernel sets the backend names (any case). */
bool fpd_backend_lists_kernel_set(const struct fpd_backend *b, const char *set);

/*
 * Kernel sets of one class of CPU, across libraries: each library names its own (OpenBLAS's
 * Haswell, BLIS's haswell and oneMKL's AVX2 are the AVX2 class's), and `--core Haswell` pins every
 * library, not OpenBLAS alone. The classes: baseline (SSE2), sse4, avx, avx2, avx512, as
 * FPDIV_VECTOR_WIDTH names fpdiv's own.
 *
 * The set of backend b for `item` (a set b lists, a class's name, or another library's set of a
 * class): the set itself when b lists it, else the set b has in the item's class; NULL when b
 * has none (the item is no set of b's and in no class).
 */
const char *fpd_kernel_set_for(const struct fpd_backend *b, const char *item);
/* Whether `item` names a class, or a set that is in one. */
bool fpd_kernel_set_class_known(const char *item);

/* Each library's variable that picks its kernel set (OPENBLAS_CORETYPE, MKL_CBWR, BLIS_ARCH_TYPE),
 * where it is set in fpdiv's environment, must name a set of that library's as the library reads it
 * (MKL_CBWR: exactly as spelled, with ",STRICT" or nothing after it): a library ignores a name it
 * does not know and runs the CPU's own kernels, whose results would then be recorded under another
 * name. One set to "" is removed (a library would read it as a set of its own choosing).
 * FPD_ERR_INPUT with why naming the variable. */
int fpd_kernel_set_variables_check(char *why, size_t why_size);

/* A backend by the name users give: NAME, or NAME@SET for a kernel set of a pinnable backend (in
 * any letter case; a name from the backend's list is spelled as the list spells it). A pinnable
 * backend's plain name resolves to its kernel set in this process. FPD_ERR_INPUT with why for an
 * unknown backend, or a kernel set of a backend that has none. Whether the kernel set can run here
 * is the slot's to say when it is opened (fpd_backend_acquire). */
int fpd_backend_resolve(const char *spec, struct fpd_backend_slot **out, char *why, size_t why_size);

/* For a pinned backend: the backend it pins and its kernel set (true); false for any other. */
bool fpd_backend_pinned_parts(const struct fpd_backend *b, struct fpd_backend_slot **base, const char **kernel_set);

/* The kernel set a pinnable backend runs in this process ("Haswell"), or NULL when it is not
 * open or does not say. */
const char *fpd_backend_native_kernel_set(struct fpd_backend_slot *base);

/* What each kernel set of a pinnable backend's list does on this CPU: probed in turn (opening
 * NAME@SET), the one this process runs marked native. Returns how many were written. */
struct fpd_kernel_set_report {
    const char *name;
    struct fpd_backend_slot *slot; /* NAME@SET */
    bool runs, native;
    char why[384]; /* why it does not run */
};
size_t fpd_kernel_sets_survey(struct fpd_backend_slot *base, struct fpd_kernel_set_report *out, size_t cap);

#endif
