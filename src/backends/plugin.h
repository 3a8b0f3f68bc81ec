/* plugin.h — loading backends from shared objects (see fpdiv_backend.h for the entry point). */
#ifndef FPD_PLUGIN_H
#define FPD_PLUGIN_H

#include <stddef.h>

/* Loads one plugin and registers its backends. On failure nothing is registered and why names
 * the file and what went wrong. */
int fpd_plugin_load(const char *path, char *why, size_t why_size);
/* Loads every plugin named in FPDIV_PLUGIN_PATH (colon-separated). */
int fpd_plugin_load_env(char *why, size_t why_size);
/* Loads the plugins fpdiv ships (fpdiv-cuda.so) from beside the binary or from the installed
 * library directory, when present. A bundled plugin that is present but cannot load is not an
 * error: the reason is kept for `fpdiv list`. */
void fpd_plugin_load_bundled(void);

/* Bundled plugins that were found but could not load, with their reasons (for `fpdiv list`). */
size_t fpd_plugin_failures(const char *const **paths, const char *const **reasons);

#endif
