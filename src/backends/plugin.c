/* plugin.c — dlopen, one entry point, every backend registered through the same checks. */
#include "backends/plugin.h"

#include <dlfcn.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/backend.h"
#include "common/fpenv.h"

#ifndef FPD_LIBDIR
#define FPD_LIBDIR "/usr/local/lib/fpdiv"
#endif

static const char *bundled[] = {"fpdiv-cuda.so"};

enum { MAX_FAILURES = 8 };
static const char *failure_paths[MAX_FAILURES], *failure_reasons[MAX_FAILURES];
static size_t n_failures;

/* A library built with -ffast-math switches on flush-to-zero when it is loaded; fpdiv's own
 * arithmetic needs IEEE's default (fpenv.h). */
static void restore_fpenv(const char *path)
{
    char who[PATH_MAX + 32];
    snprintf(who, sizeof who, "loading plugin %s", path);
    fpd_fpenv_restore_noting(who, "a library built with -ffast-math does this");
}

/* An older ABI's backend as this one sees it: each older struct is the start of the newer ones
 * (ABI 1 lacks the kernel-set fields, ABI 2 and 3 gemm_many, ABI 4 rounding; what it lacks stays
 * NULL; ABI 5 lacks only a status, FPD_ERR_NOT_APPLICABLE, which its gemm never returns; ABI 6
 * gemm_concurrent; ABI 7 only args->alpha_exp and args->beta_exp, which it never reads; ABI 8 a
 * route, which it is never handed, and alpha's sign, which it would not read: it is handed no
 * scalars), and its
 * feature bits are those it knew (a backend of ABI 2 never reads args->route or
 * args->execution). Kept for the life of the process, like the plugin. */
static const struct fpd_backend *upgraded(const struct fpd_backend *old, int abi)
{
    static const unsigned features_known[] = {
        [1] = FPD_FEAT_FUSED_BIAS | FPD_FEAT_THREADS | FPD_FEAT_ALGOS,
        [2] = FPD_FEAT_FUSED_BIAS | FPD_FEAT_THREADS | FPD_FEAT_ALGOS,
        [3] = FPD_FEAT_FUSED_BIAS | FPD_FEAT_THREADS | FPD_FEAT_ALGOS | FPD_FEAT_ROUTES | FPD_FEAT_VMAP |
              FPD_FEAT_COMPILE | FPD_FEAT_BIAS_ADDED,
        [4] = FPD_FEAT_FUSED_BIAS | FPD_FEAT_THREADS | FPD_FEAT_ALGOS | FPD_FEAT_ROUTES | FPD_FEAT_VMAP |
              FPD_FEAT_COMPILE | FPD_FEAT_BIAS_ADDED,
        [5] = FPD_FEAT_FUSED_BIAS | FPD_FEAT_THREADS | FPD_FEAT_ALGOS | FPD_FEAT_ROUTES | FPD_FEAT_VMAP |
              FPD_FEAT_COMPILE | FPD_FEAT_BIAS_ADDED,
        [6] = FPD_FEAT_FUSED_BIAS | FPD_FEAT_THREADS | FPD_FEAT_ALGOS | FPD_FEAT_ROUTES | FPD_FEAT_VMAP |
              FPD_FEAT_COMPILE | FPD_FEAT_BIAS_ADDED,
        [7] = FPD_FEAT_FUSED_BIAS | FPD_FEAT_THREADS | FPD_FEAT_ALGOS | FPD_FEAT_ROUTES | FPD_FEAT_VMAP |
              FPD_FEAT_COMPILE | FPD_FEAT_BIAS_ADDED | FPD_FEAT_CONCURRENT | FPD_FEAT_SELF | FPD_FEAT_OUT_VIEWS |
              FPD_FEAT_OUT_REVERSED | FPD_FEAT_GEMMT,
        [8] = FPD_FEAT_FUSED_BIAS | FPD_FEAT_THREADS | FPD_FEAT_ALGOS | FPD_FEAT_ROUTES | FPD_FEAT_VMAP |
              FPD_FEAT_COMPILE | FPD_FEAT_BIAS_ADDED | FPD_FEAT_CONCURRENT | FPD_FEAT_SELF | FPD_FEAT_OUT_VIEWS |
              FPD_FEAT_OUT_REVERSED | FPD_FEAT_GEMMT};
    /* how much of the struct each ABI has: the fields after it are NULL in the copy */
    static const size_t size_known[] = {[1] = offsetof(struct fpd_backend, kernel_set_env),
                                        [2] = offsetof(struct fpd_backend, gemm_many),
                                        [3] = offsetof(struct fpd_backend, gemm_many),
                                        [4] = offsetof(struct fpd_backend, rounding),
                                        [5] = offsetof(struct fpd_backend, gemm_concurrent),
                                        [6] = offsetof(struct fpd_backend, gemm_concurrent),
                                        [7] = sizeof(struct fpd_backend),
                                        [8] = sizeof(struct fpd_backend)};
    struct fpd_backend *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    memcpy(b, old, size_known[abi]);
    b->abi = FPDIV_BACKEND_ABI;
    b->features &= features_known[abi];
    return b;
}

int fpd_plugin_load(const char *path, char *why, size_t why_size)
{
    /* RTLD_LOCAL: a plugin's own dependencies (CUDA, …) stay out of everyone else's way */
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    restore_fpenv(path); /* its constructors have run, even if it turns out not to be a plugin */
    if (!handle) {
        snprintf(why, why_size, "cannot load plugin %s: %s", path, dlerror());
        return FPD_ERR_INPUT;
    }
    fpdiv_plugin_init_fn init = (fpdiv_plugin_init_fn)(uintptr_t)dlsym(handle, FPDIV_PLUGIN_ENTRY);
    if (!init) {
        snprintf(why, why_size, "plugin %s does not export %s(): not an fpdiv plugin", path, FPDIV_PLUGIN_ENTRY);
        dlclose(handle);
        return FPD_ERR_INPUT;
    }
    /* The newest ABI first; a plugin that refuses it is asked in each older one fpdiv still loads. */
    size_t count = 0;
    char reason[256] = "";
    const struct fpd_backend *const *backends = NULL;
    int abi = FPDIV_BACKEND_ABI;
    for (; abi >= FPDIV_BACKEND_ABI_OLDEST && !backends; abi--) {
        char refusal[256] = "";
        backends = init(abi, &count, refusal, sizeof refusal);
        restore_fpenv(path);
        if (abi == FPDIV_BACKEND_ABI || !reason[0])
            snprintf(reason, sizeof reason, "%s", refusal); /* the newest ABI's reason says most */
    }
    abi++; /* the one it accepted */
    if (!backends) {
        snprintf(why, why_size, "plugin %s refused to load: %s", path, reason[0] ? reason : "no reason given");
        dlclose(handle);
        return FPD_ERR_INPUT;
    }
    /* Check every backend before registering any, so a bad plugin adds nothing. */
    for (size_t i = 0; i < count; i++) {
        const struct fpd_backend *b = backends[i];
        if (!b || b->abi != abi) {
            snprintf(why, why_size, "plugin %s: backend %zu (%s) was built for backend ABI %d; this fpdiv speaks ABI %d "
                     "(and loads plugins of ABI %d and later)", path, i, b && b->name ? b->name : "?", b ? b->abi : -1,
                     abi, FPDIV_BACKEND_ABI_OLDEST);
            dlclose(handle);
            return FPD_ERR_INPUT;
        }
    }
    for (size_t i = 0; i < count; i++) {
        char msg[256];
        const struct fpd_backend *b = abi == FPDIV_BACKEND_ABI ? backends[i] : upgraded(backends[i], abi);
        if (!b) {
            snprintf(why, why_size, "plugin %s: out of memory", path);
            return FPD_ERR_NOMEM;
        }
        if (fpd_registry_add_upgraded(b, backends[i], msg, sizeof msg) != FPD_OK) {
            if (b != backends[i])
                free((void *)b); /* the upgraded copy, not registered */
            snprintf(why, why_size, "plugin %s: %s", path, msg);
            return FPD_ERR_INPUT; /* the ones before stay: their names are distinct and valid */
        }
    }
    return FPD_OK; /* the handle stays open for the life of the process */
}

int fpd_plugin_load_env(char *why, size_t why_size)
{
    const char *env = getenv("FPDIV_PLUGIN_PATH");
    if (!env || !*env)
        return FPD_OK;
    char *list = strdup(env);
    if (!list)
        return FPD_ERR_NOMEM;
    int rc = FPD_OK;
    for (char *p = list, *item; rc == FPD_OK && (item = strsep(&p, ":")) != NULL;)
        if (*item)
            rc = fpd_plugin_load(item, why, why_size);
    free(list);
    return rc;
}

/* The directory of the running binary (build/ in a checkout, PREFIX/bin once installed). */
static bool binary_dir(char *buf, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (!slash)
        return false;
    *slash = '\0';
    return true;
}

void fpd_plugin_load_bundled(void)
{
    char dir[PATH_MAX];
    bool have_dir = binary_dir(dir, sizeof dir);
    for (size_t i = 0; i < sizeof bundled / sizeof bundled[0]; i++) {
        /* beside the binary (a build tree), in ../lib/fpdiv (an installed tree, wherever it was
         * copied), and where the build said it would be installed */
        char candidates[3][PATH_MAX + 64];
        int n = 0;
        if (have_dir) {
            snprintf(candidates[n++], sizeof candidates[0], "%s/%s", dir, bundled[i]);
            snprintf(candidates[n++], sizeof candidates[0], "%s/../lib/fpdiv/%s", dir, bundled[i]);
        }
        snprintf(candidates[n++], sizeof candidates[0], "%s/%s", FPD_LIBDIR, bundled[i]);
        for (int c = 0; c < n; c++) {
            if (access(candidates[c], F_OK) != 0)
                continue;
            char why[512];
            if (fpd_plugin_load(candidates[c], why, sizeof why) != FPD_OK && n_failures < MAX_FAILURES) {
                failure_paths[n_failures] = strdup(candidates[c]);
                failure_reasons[n_failures++] = strdup(why);
            }
            break;
        }
    }
}

size_t fpd_plugin_failures(const char *const **paths, const char *const **reasons)
{
    *paths = failure_paths;
    *reasons = failure_reasons;
    return n_failures;
}
