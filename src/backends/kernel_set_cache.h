/*
 * kernel_set_cache.h — the kernel sets an earlier run found this machine runs, remembered.
 *
 * Before a library runs on a kernel set that is not its own here, a host shows the set works
 * (backend_pinned.h): the library loads with it, names it, and gives exact answers to probe GEMMs.
 * That takes a process and a library load per set, ~0.1 s; `fpdiv fuzz`, `list` and `env` survey
 * every set of every library (~35 that run, ~3 s). What a probe showed depends only on the CPU,
 * the library's file and configuration, the environment the library reads and fpdiv's own build,
 * so it is kept, under a key made of all of those, in $FPDIV_CACHE_DIR (default
 * $XDG_CACHE_HOME/fpdiv, else ~/.cache/fpdiv; FPDIV_CACHE_DIR= with nothing after it keeps none):
 * a set remembered there opens without a probe, with the provenance its host reported, and its
 * host starts when its first GEMM comes. Only sets that ran are kept: a set that failed (a signal,
 * a hang, a load refused) is probed again each time, so nothing transient is remembered as final.
 *
 * The file is fpdiv's own, but read like any input: one that does not parse, is not for this key
 * or holds anything but plain text where text belongs is ignored and written afresh.
 */
#ifndef FPD_KERNEL_SET_CACHE_H
#define FPD_KERNEL_SET_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "backends/backend.h"

/* Whether a run before this one probed base's kernel set `set` here and it ran: then
 * *provenance (malloc'd; free() it) holds what its host reported, "key\0value\0" pairs, *len bytes. */
bool fpd_kernel_set_cache_recall(struct fpd_backend_slot *base, const char *set, char **provenance, size_t *len);

/* Keeps that base's kernel set `set` ran here, with its host's provenance ("key\0value\0" pairs).
 * Best effort: a cache that cannot be written is left as it is, and the set probed next time. */
void fpd_kernel_set_cache_keep(struct fpd_backend_slot *base, const char *set, const char *provenance, size_t len);

/* The file that holds base's remembered sets, in buf, or NULL when none is kept (FPDIV_CACHE_DIR
 * empty, no home). For `fpdiv env`. */
const char *fpd_kernel_set_cache_file(struct fpd_backend_slot *base, char *buf, size_t size);

#endif
