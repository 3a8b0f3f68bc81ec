/* helpers.h — what several unit tests share: the fpdiv binary that hosts pinned kernel sets, and
 * the test plugins (tests/plugins) beside it. */
#ifndef FPD_TEST_HELPERS_H
#define FPD_TEST_HELPERS_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host.h"
#include "backends/plugin.h"

/* make runs the tests with FPDIV set */
static inline const char *fpdiv_binary(void) { return getenv("FPDIV") ? getenv("FPDIV") : "build/fpdiv"; }

/* Loads a test plugin (build/plugins/NAME), here and in every host this process starts. */
static inline void load_plugin(const char *name)
{
    char path[4096], why[512];
    const char *fpdiv = fpdiv_binary(), *slash = strrchr(fpdiv, '/');
    snprintf(path, sizeof path, "%.*s/plugins/%s", slash ? (int)(slash - fpdiv) : 1, slash ? fpdiv : ".", name);
    fpd_host_set_program(fpdiv);
    cr_assert_eq(fpd_plugin_load(path, why, sizeof why), FPD_OK, "%s", why);
    cr_assert_eq(fpd_host_add_global_option("--plugin", path), FPD_OK);
}

/* The kernel-set test plugin (tests/plugins/kernelsets.c). */
static inline void load_kernel_sets_plugin(void) { load_plugin("kernelsets.so"); }

#endif
