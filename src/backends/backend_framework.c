/*
 * backend_framework.c — frameworks as backends, each served by a Python process of its own
 * (bridge.h): numpy, torch, torch-compile and jax, and any framework a user writes as a page of
 * Python (--framework NAME=FILE.py, the interface in scripts/bridge/fpdiv_bridge.py).
 *
 * The interpreter is $FPDIV_PYTHON, else the project's Python environment (where
 * scripts/install-deps.sh installs NumPy, JAX and PyTorch), else python3; a framework missing
 * there is `unavailable`, with the server's reason. Each path's operation is the framework's own
 * (torch.addmm for a fused bias, numpy.matmul's gemv for one row), so that a verdict on a framework
 * is what its users see. A server is started when the backend is first used, by each process that
 * uses it (a campaign's workers start their own).
 */
#include "backends/backend_framework.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/backend.h"
#include "backends/backend_util.h"
#include "backends/bridge.h"
#include "common/dtype.h"
#include "common/env_number.h"
#include "common/table.h"

#ifndef FPD_BRIDGE_DIR
#define FPD_BRIDGE_DIR "scripts/bridge"
#endif
#ifndef FPD_BRIDGE_INSTALLED
#define FPD_BRIDGE_INSTALLED "/usr/local/share/fpdiv/bridge"
#endif

/* A framework's backend: which module of the bridge serves it, and how it runs an operation a
 * path leaves to it (torch-compile compiles; its server is torch's). */
struct framework {
    const char *module; /* scripts/bridge/frameworks/<module>.py, or a file */
    enum fpd_execution by_default;
    const char *execution; /* in provenance */
    bool given;            /* --framework: its features are what its server says */
};

/* One server per module in a process: torch and torch-compile share one. */
struct shared_server {
    const char *module;
    struct fpd_bridge *bridge;
    int users;
};
static struct shared_server servers[8];

/* The features a server must say it has for a backend to claim them. */
static const struct {
    unsigned feature;
    const char *name;
} feature_names[] = {
    {FPD_FEAT_FUSED_BIAS, "fused_bias"}, {FPD_FEAT_THREADS, "threads"}, {FPD_FEAT_ROUTES, "routes"},
    {FPD_FEAT_VMAP, "vmap"},             {FPD_FEAT_COMPILE, "compile"}, {FPD_FEAT_BIAS_ADDED, "bias_added"},
    {FPD_FEAT_OUT_VIEWS, "out_views"},   {FPD_FEAT_OUT_REVERSED, "out_reversed"}, {FPD_FEAT_CONCURRENT, "concurrent"},
    {FPD_FEAT_SCALARS, "scalars"},
};

/* A program named without a '/' found on PATH, as a shell finds it: its path in buf, or false. */
static bool on_path(const char *name, char *buf, size_t size)
{
    const char *path = getenv("PATH");
    for (const char *dir = path && *path ? path : "/usr/local/bin:/usr/bin:/bin"; *dir;) {
        size_t len = strcspn(dir, ":");
        if (snprintf(buf, size, "%.*s/%s", len ? (int)len : 1, len ? dir : ".", name) < (int)size &&
            access(buf, X_OK) == 0)
            return true;
        dir += len + (dir[len] == ':');
    }
    return false;
}

int fpd_bridge_python(char *buf, size_t size, char *why, size_t why_size)
{
    const char *env = getenv("FPDIV_PYTHON");
    if (env && *env) {
        if (strchr(env, '/') ? access(env, X_OK) == 0 && snprintf(buf, size, "%s", env) < (int)size
                             : on_path(env, buf, size))
            return FPD_OK;
        snprintf(why, why_size, "FPDIV_PYTHON=%.200s: %s", env,
                 strchr(env, '/') ? "no program there that fpdiv can run" : "no such program on PATH");
        return FPD_ERR_UNAVAILABLE;
    }
    snprintf(buf, size, "%s/bin/python", fpd_python_environment());
    if (fpd_python_environment()[0] && access(buf, X_OK) == 0)
        return FPD_OK;
    if (on_path("python3", buf, size))
        return FPD_OK;
    snprintf(why, why_size, "no Python: neither the project's environment (scripts/install-deps.sh makes it) nor "
                            "python3 on PATH; FPDIV_PYTHON names one");
    return FPD_ERR_UNAVAILABLE;
}

bool fpd_bridge_file(const char *name, char *buf, size_t size)
{
    const char *dirs[] = {getenv("FPDIV_BRIDGE_DIR"), FPD_BRIDGE_DIR, FPD_BRIDGE_INSTALLED};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        if (!dirs[i] || !*dirs[i])
            continue;
        snprintf(buf, size, "%s/%s", dirs[i], name);
        if (access(buf, R_OK) == 0)
            return true;
    }
    return false;
}

/* Seconds a server has for its hello and for each GEMM of a request: $FPDIV_BRIDGE_TIMEOUT, or
 * 600 (the first torch.compile of a shape takes tens of seconds). main refuses a value that is no
 * such number before any backend opens (env_number.h). */
static double answer_timeout(void)
{
    double t;
    char why[160];
    return fpd_env_seconds("FPDIV_BRIDGE_TIMEOUT", 600, false, &t, why, sizeof why) == FPD_OK ? t : 600;
}

struct framework_state {
    struct shared_server *server;
    const struct framework *fw;
    char interpreter[1024];
};

/* The module's server in this process: started now, or the one another backend started. */
static int share_server(const struct fpd_backend *self, struct framework_state *s, char *why, size_t why_size)
{
    const struct framework *fw = self->data;
    struct shared_server *free_slot = NULL;
    for (size_t i = 0; i < sizeof servers / sizeof servers[0]; i++) {
        if (servers[i].users > 0 && strcmp(servers[i].module, fw->module) == 0) {
            servers[i].users++;
            s->server = &servers[i];
            return FPD_OK;
        }
        if (servers[i].users == 0 && !free_slot)
            free_slot = &servers[i];
    }
    char server[1100];
    if (!free_slot) {
        snprintf(why, why_size, "too many frameworks in one process");
        return FPD_ERR_UNAVAILABLE;
    }
    if (!fpd_bridge_file("fpdiv_bridge.py", server, sizeof server)) {
        snprintf(why, why_size, "the bridge's server (fpdiv_bridge.py) is in none of $FPDIV_BRIDGE_DIR, %s, %s",
                 FPD_BRIDGE_DIR, FPD_BRIDGE_INSTALLED);
        return FPD_ERR_UNAVAILABLE;
    }
    struct fpd_bridge_spec spec = {self->name, s->interpreter, server, fw->module, answer_timeout()};
    int rc = fpd_bridge_start(&spec, &free_slot->bridge, why, why_size);
    if (rc != FPD_OK)
        return rc;
    *free_slot = (struct shared_server){fw->module, free_slot->bridge, 1};
    s->server = free_slot;
    return FPD_OK;
}

static void unshare_server(struct shared_server *server)
{
    if (server && --server->users == 0) {
        fpd_bridge_stop(server->bridge);
        server->bridge = NULL;
    }
}

static int framework_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    struct framework_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    s->fw = self->data;
    int rc = fpd_bridge_python(s->interpreter, sizeof s->interpreter, why, why_size);
    if (rc == FPD_OK)
        rc = share_server(self, s, why, why_size);
    if (rc == FPD_OK && s->fw->given) { /* a backend --framework made: its server says what it does */
        unsigned features = 0;
        for (size_t i = 0; i < sizeof feature_names / sizeof feature_names[0]; i++)
            if (fpd_bridge_has_feature(s->server->bridge, feature_names[i].name))
                features |= feature_names[i].feature;
        ((struct fpd_backend *)self)->features = features; /* fpd_framework_give's own copy */
    }
    for (size_t i = 0; rc == FPD_OK && i < sizeof feature_names / sizeof feature_names[0]; i++)
        if ((self->features & feature_names[i].feature) &&
            !fpd_bridge_has_feature(s->server->bridge, feature_names[i].name)) {
            snprintf(why, why_size, "its bridge server lacks the feature \"%s\" %s has", feature_names[i].name,
                     self->name);
            rc = FPD_ERR_UNAVAILABLE;
        }
    if (rc != FPD_OK) {
        if (s->server)
            unshare_server(s->server);
        free(s);
        return rc == FPD_ERR_NOMEM ? rc : FPD_ERR_UNAVAILABLE;
    }
    *state = s;
    return FPD_OK;
}

static bool framework_supports(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    struct framework_state *s = state;
    if (!fpd_dtypes_valid(dt, why, why_size))
        return false;
    if (fpd_bridge_supports(s->server->bridge, dt))
        return true;
    char name[32];
    snprintf(why, why_size, "the framework does not compute %s", fpd_dtypes_format(dt, name, sizeof name));
    return false;
}

/* The GEMMs in the backend's server, which is started (a worker's own) or started again (after a
 * death) as often as it takes: each server settles at least one. `concurrent`: all of them in one
 * request, run from as many of the server's threads at once; a server that dies then fails them
 * all (they ran together, so none is to blame more than another). */
static void framework_gemms(void *state, size_t count, const struct fpd_gemm_args *const *args, int *status, char *why,
                            size_t why_size, bool concurrent)
{
    struct framework_state *s = state;
    struct fpd_gemm_args *run = malloc(count * sizeof *run);
    const struct fpd_gemm_args **given = malloc(count * sizeof *given);
    for (size_t i = 0; i < count; i++) {
        status[i] = run && given ? FPD_BRIDGE_UNSETTLED : FPD_ERR_NOMEM;
        if (!run || !given) {
            snprintf(why + i * why_size, why_size, "out of memory");
            continue;
        }
        run[i] = *args[i];
        if (run[i].execution == FPD_EXEC_DEFAULT)
            run[i].execution = s->fw->by_default;
        given[i] = &run[i];
    }
    for (size_t left = run && given ? count : 0; left > 0;) {
        char renewal[256];
        int rc = fpd_bridge_renew(&s->server->bridge, renewal, sizeof renewal);
        if (rc == FPD_OK)
            (concurrent ? fpd_bridge_gemm_concurrent : fpd_bridge_gemm_many)(s->server->bridge, count, given, status,
                                                                            why, why_size);
        left = 0;
        for (size_t i = 0; i < count; i++) {
            if (status[i] == FPD_BRIDGE_UNSETTLED && (rc != FPD_OK || concurrent)) {
                status[i] = rc == FPD_ERR_NOMEM ? rc : FPD_ERR_BACKEND;
                snprintf(why + i * why_size, why_size, "%s",
                         rc != FPD_OK ? renewal : "its server died while the callers ran at once");
            }
            left += status[i] == FPD_BRIDGE_UNSETTLED;
        }
    }
    free(run);
    free(given);
}

static void framework_gemm_many(void *state, size_t count, const struct fpd_gemm_args *const *args, int *status,
                                char *why, size_t why_size)
{
    framework_gemms(state, count, args, status, why, why_size, false);
}

static void framework_gemm_concurrent(void *state, size_t count, const struct fpd_gemm_args *const *args, int *status,
                                      char *why, size_t why_size)
{
    framework_gemms(state, count, args, status, why, why_size, true);
}

static int framework_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    int status;
    framework_gemm_many(state, 1, &g, &status, why, why_size);
    return status;
}

static void framework_provenance(void *state, fpd_provenance_fn emit, void *ctx)
{
    struct framework_state *s = state;
    fpd_bridge_provenance(s->server->bridge, emit, ctx);
    emit(ctx, "execution", s->fw->execution);
    emit(ctx, "process", "a bridge server (scripts/bridge/fpdiv_bridge.py)");
    emit(ctx, "python", s->interpreter);
}

static void framework_close(void *state)
{
    struct framework_state *s = state;
    unshare_server(s->server);
    free(s);
}

#define FRAMEWORK_BACKEND(backend_name, text, feats, fw)                                                          \
    {                                                                                                              \
        .abi = FPDIV_BACKEND_ABI, .name = backend_name, .summary = text, .device = FPD_DEVICE_CPU,                \
        .kind = FPD_KIND_FRAMEWORK, .features = feats, .data = fw, .open = framework_open,                        \
        .supports = framework_supports, .gemm = framework_gemm, .provenance = framework_provenance,               \
        .close = framework_close, .gemm_many = framework_gemm_many, .gemm_concurrent = framework_gemm_concurrent,  \
    }

static const struct framework numpy_fw = {"numpy", FPD_EXEC_EAGER, "eager", false},
                              torch_fw = {"torch", FPD_EXEC_EAGER, "eager", false},
                              torch_compile_fw = {"torch", FPD_EXEC_COMPILED, "torch.compile (inductor)", false},
                              jax_fw = {"jax", FPD_EXEC_COMPILED, "jax.jit (XLA)", false};

const struct fpd_backend fpd_backend_numpy = FRAMEWORK_BACKEND(
    "numpy", "NumPy's matmul as NumPy routes it (gemv for one row, dot for one element; out= views); bias added after",
    FPD_FEAT_ROUTES | FPD_FEAT_BIAS_ADDED | FPD_FEAT_OUT_VIEWS | FPD_FEAT_OUT_REVERSED | FPD_FEAT_CONCURRENT, &numpy_fw);
const struct fpd_backend fpd_backend_torch = FRAMEWORK_BACKEND(
    "torch",
    "PyTorch eager: torch.mm/bmm; fused torch.addmm, F.linear, baddbmm, their alpha and beta; torch.func.vmap; "
    "torch.compile; out=",
    FPD_FEAT_FUSED_BIAS | FPD_FEAT_THREADS | FPD_FEAT_ROUTES | FPD_FEAT_VMAP | FPD_FEAT_COMPILE | FPD_FEAT_OUT_VIEWS |
        FPD_FEAT_CONCURRENT | FPD_FEAT_SCALARS,
    &torch_fw);
const struct fpd_backend fpd_backend_torch_compile = FRAMEWORK_BACKEND(
    "torch-compile", "PyTorch under torch.compile (inductor): the same operations, compiled",
    FPD_FEAT_FUSED_BIAS | FPD_FEAT_THREADS | FPD_FEAT_ROUTES | FPD_FEAT_VMAP | FPD_FEAT_SCALARS, &torch_compile_fw);
const struct fpd_backend fpd_backend_jax = FRAMEWORK_BACKEND(
    "jax", "JAX under jax.jit (XLA); jax.vmap; 16-bit inputs with a wide output; bias added after",
    FPD_FEAT_ROUTES | FPD_FEAT_VMAP | FPD_FEAT_COMPILE | FPD_FEAT_BIAS_ADDED | FPD_FEAT_CONCURRENT, &jax_fw);

int fpd_framework_give(const char *spec, char *why, size_t why_size)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1]) {
        snprintf(why, why_size, "--framework '%s': expected NAME=FILE.py (a framework module: see doc/frameworks.md)", spec);
        return FPD_ERR_INPUT;
    }
    for (const char *c = spec; c < eq; c++)
        if (!(*c == '-' || *c == '_' || (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z'))) {
            snprintf(why, why_size, "--framework '%s': a name of lower-case letters, digits, '-' and '_'", spec);
            return FPD_ERR_INPUT;
        }
    struct fpd_backend *b = malloc(sizeof *b);
    struct framework *fw = malloc(sizeof *fw);
    char *name = strndup(spec, (size_t)(eq - spec)), *path = realpath(eq + 1, NULL), summary[1200];
    if (!path) {
        snprintf(why, why_size, "--framework %s: %s: %s", name ? name : spec, eq + 1, strerror(errno));
        free(b), free(fw), free(name);
        return FPD_ERR_INPUT;
    }
    snprintf(summary, sizeof summary, "the framework in %s (--framework)", path);
    char *text = strdup(summary);
    if (!b || !fw || !name || !text) {
        free(b), free(fw), free(name), free(path), free(text);
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    *fw = (struct framework){path, FPD_EXEC_DEFAULT, "its own", true};
    *b = (struct fpd_backend)FRAMEWORK_BACKEND(name, text, 0, fw);
    int rc = fpd_registry_add(b, why, why_size); /* refused: a name another backend has */
    if (rc != FPD_OK)
        free(b), free(fw), free(name), free(path), free(text);
    return rc;
}
