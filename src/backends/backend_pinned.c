/* backend_pinned.c — NAME@SET: a backend on one kernel set, in fpdiv's process or in a host. */
#include "backends/backend_pinned.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backends/host.h"
#include "backends/kernel_set_cache.h"
#include "common/dtype.h"

/* A pinned backend's row in the registry; made on first use, kept for the life of the process. */
struct pinned {
    struct fpd_backend impl; /* first: the registry's pointer is this struct's */
    char name[96], summary[320];
    struct fpd_backend_slot *base;
    char kernel_set[48];
};

struct pinned_state {
    const struct pinned *p;
    bool in_process;      /* the base already runs this kernel set here */
    struct fpd_host *host; /* else the host that runs it (started by this process, or to be) */
};

/* Seconds a host may take to start, and to answer a probe's GEMM: a set that hangs is no set. */
#define PROBE_TIMEOUT 60.0

static int pinned_open(const struct fpd_backend *self, void **state, char *why, size_t why_size);

bool fpd_backend_pinnable(const struct fpd_backend *b)
{
    return b->kernel_set_env && b->kernel_sets && b->kernel_sets[0];
}

bool fpd_backend_pinned_parts(const struct fpd_backend *b, struct fpd_backend_slot **base, const char **kernel_set)
{
    if (b->open != pinned_open)
        return false;
    const struct pinned *p = (const struct pinned *)b;
    if (base)
        *base = p->base;
    if (kernel_set)
        *kernel_set = p->kernel_set;
    return true;
}

/* A host's kernel set, from the provenance it sent (ctx: char[48]). */
static void find_kernel_set(void *ctx, const char *key, const char *value)
{
    if (strcmp(key, "kernel_set") == 0)
        snprintf(ctx, 48, "%s", value ? value : "");
}

const char *fpd_backend_native_kernel_set(struct fpd_backend_slot *base)
{
    static char found[48];
    if (fpd_backend_acquire(base) != FPD_OK)
        return NULL;
    const char *set = fpd_backend_provenance_value(base, "kernel_set", found, sizeof found);
    return set && set[0] ? set : NULL;
}

/* ---- the backend --------------------------------------------------------------------------------- */

/* GEMMs a probe runs on a host: every type the backend computes, tiny to a few hundred, every
 * layout, one thread and two (a library's threaded and small-matrix paths use other kernels).
 * Small integers: every order gives the exact answer, so a wrong result is seen too. */
static const struct probe_shape {
    size_t m, n, k;
    bool trans_a, trans_b;
    int threads;
} probe_shapes[] = {
    {1, 1, 1, false, false, 1},   {3, 5, 7, false, false, 1},     {17, 33, 65, true, false, 1},
    {17, 33, 65, false, true, 2}, {96, 80, 200, true, true, 2},   {160, 160, 160, false, false, 1},
    {160, 160, 160, false, false, 2},
};

static const struct fpd_dtypes probe_types[] = {
    {FPD_F32, FPD_F32, FPD_F32}, {FPD_F64, FPD_F64, FPD_F64}, {FPD_BF16, FPD_F32, FPD_F32}, {FPD_F16, FPD_F32, FPD_F32},
};

static int probe_one(struct fpd_host *h, const struct fpd_dtypes *dt, const struct probe_shape *s, double *a, double *b,
                     void *ta, void *tb, void *tc, char *why, size_t why_size)
{
    for (size_t i = 0; i < s->m * s->k; i++)
        a[i] = (double)((int)(i * 7 % 11) - 5);
    for (size_t i = 0; i < s->k * s->n; i++)
        b[i] = (double)((int)(i * 5 % 7) - 3);
    size_t lda = s->trans_a ? s->m : s->k, ldb = s->trans_b ? s->k : s->n;
    for (size_t i = 0; i < s->m; i++)
        for (size_t p = 0; p < s->k; p++)
            fpd_store(dt->in, ta, s->trans_a ? p * lda + i : i * lda + p, a[i * s->k + p]);
    for (size_t p = 0; p < s->k; p++)
        for (size_t j = 0; j < s->n; j++)
            fpd_store(dt->in, tb, s->trans_b ? j * ldb + p : p * ldb + j, b[p * s->n + j]);
    struct fpd_gemm_args g = {
        .dt = *dt, .batch = 1, .m = s->m, .n = s->n, .k = s->k, .trans_a = s->trans_a, .trans_b = s->trans_b,
        .a = ta, .lda = lda, .stride_a = s->m * s->k, .b = tb, .ldb = ldb, .stride_b = s->k * s->n,
        .c = tc, .ldc = s->n, .stride_c = s->m * s->n, .threads = s->threads,
    };
    int rc = fpd_host_gemm(h, &g, PROBE_TIMEOUT, why, why_size);
    if (rc != FPD_OK)
        return rc;
    for (size_t i = 0; i < s->m; i++)
        for (size_t j = 0; j < s->n; j++) {
            double want = 0; /* |terms| <= 15, k <= 200: exact in every type's accumulator */
            for (size_t p = 0; p < s->k; p++)
                want += a[i * s->k + p] * b[p * s->n + j];
            double got = fpd_load(dt->out, tc, i * s->n + j);
            if (got < want || got > want) {
                snprintf(why, why_size, "it computes wrong results (a %s %zux%zux%zu GEMM gave %g, not %g, at [%zu, %zu])",
                         fpd_dtype_info(dt->in)->name, s->m, s->n, s->k, got, want, i, j);
                return FPD_ERR_BACKEND;
            }
        }
    return FPD_OK;
}

/* Every probe GEMM on the host, for each type the base computes. */
static int probe(struct fpd_backend_slot *base, struct fpd_host *h, char *why, size_t why_size)
{
    size_t most = 0;
    for (size_t s = 0; s < sizeof probe_shapes / sizeof probe_shapes[0]; s++) {
        const struct probe_shape *p = &probe_shapes[s];
        size_t largest = p->m * p->k > p->k * p->n ? p->m * p->k : p->k * p->n;
        most = largest > most ? largest : most;
        most = p->m * p->n > most ? p->m * p->n : most;
    }
    double *a = malloc(most * sizeof *a), *b = malloc(most * sizeof *b);
    void *ta = malloc(most * 8), *tb = malloc(most * 8), *tc = malloc(most * 8);
    int rc = a && b && ta && tb && tc ? FPD_OK : FPD_ERR_NOMEM;
    if (rc != FPD_OK)
        snprintf(why, why_size, "out of memory");
    for (size_t t = 0; rc == FPD_OK && t < sizeof probe_types / sizeof probe_types[0]; t++) {
        char ignored[256];
        if (!base->impl->supports(base->handle, &probe_types[t], ignored, sizeof ignored))
            continue;
        for (size_t s = 0; rc == FPD_OK && s < sizeof probe_shapes / sizeof probe_shapes[0]; s++)
            rc = probe_one(h, &probe_types[t], &probe_shapes[s], a, b, ta, tb, tc, why, why_size);
    }
    free(a), free(b), free(ta), free(tb), free(tc);
    return rc;
}

/* Starts a host of the base pinned to the set: FPD_OK, or FPD_ERR_UNAVAILABLE and why. */
static int start_host(const struct pinned *p, struct fpd_host **h, char *why, size_t why_size)
{
    const struct fpd_backend *b = p->base->impl;
    char reason[512];
    int rc = fpd_host_start(p->name, b->name, b->kernel_set_env, p->kernel_set, PROBE_TIMEOUT, h, reason,
                            sizeof reason);
    if (rc != FPD_OK)
        snprintf(why, why_size, "%s", reason);
    return rc == FPD_OK ? FPD_OK : rc == FPD_ERR_NOMEM ? FPD_ERR_NOMEM : FPD_ERR_UNAVAILABLE;
}

bool fpd_backend_lists_kernel_set(const struct fpd_backend *b, const char *set)
{
    for (const char *const *s = b->kernel_sets; s && *s; s++)
        if (strcasecmp(*s, set) == 0)
            return true;
    return false;
}

static int pinned_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    const struct pinned *p = (const struct pinned *)self;
    struct pinned_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    s->p = p;
    int rc = FPD_OK;
    if (fpd_backend_acquire(p->base) != FPD_OK) {
        snprintf(why, why_size, "%s", p->base->why);
        rc = FPD_ERR_UNAVAILABLE;
        goto done;
    }
    /* A set the library picked for this CPU itself runs here. One it was made to pick, through the
     * variable in fpdiv's environment, is probed first like any other: a set this CPU cannot
     * execute would take down every check that ran it. */
    const char *native = fpd_backend_native_kernel_set(p->base), *env = p->base->impl->kernel_set_env;
    const char *forced = getenv(env);
    s->in_process = native && strcasecmp(native, p->kernel_set) == 0;
    if (s->in_process && !(forced && *forced))
        goto done;
    char *known;
    size_t known_len;
    if (fpd_kernel_set_cache_recall(p->base, p->kernel_set, &known, &known_len)) { /* shown by a run before */
        rc = fpd_host_prepare(p->name, p->base->impl->name, env, p->kernel_set, PROBE_TIMEOUT, known, known_len,
                              &s->host);
        free(known);
        if (rc != FPD_OK)
            snprintf(why, why_size, "out of memory");
        goto done;
    }
    char reason[512];
    if ((rc = start_host(p, &s->host, reason, sizeof reason)) != FPD_OK) {
        snprintf(why, why_size, "%s cannot start on its kernel set %s: %s", p->base->impl->name, p->kernel_set, reason);
        goto done;
    }
    char selected[48] = "";
    fpd_host_provenance(s->host, find_kernel_set, selected);
    if (strcasecmp(selected, p->kernel_set) != 0) {
        snprintf(why, why_size, "%s cannot pin %s here: %s=%s selects %s%s", p->base->impl->name, p->kernel_set, env,
                 p->kernel_set, selected[0] ? selected : "a kernel set it does not name",
                 fpd_backend_lists_kernel_set(p->base->impl, p->kernel_set) ? "" : " (not a kernel set fpdiv knows it by: fpdiv env lists them)");
        rc = FPD_ERR_UNAVAILABLE;
    } else if ((rc = probe(p->base, s->host, reason, sizeof reason)) != FPD_OK) {
        const char *death = fpd_host_death(s->host);
        if (death)
            snprintf(why, why_size, "this CPU cannot run %s's kernel set %s: a probe GEMM there %s", p->base->impl->name,
                     p->kernel_set, death);
        else
            snprintf(why, why_size, "this CPU cannot run %s's kernel set %s: %s", p->base->impl->name, p->kernel_set,
                     reason);
        rc = rc == FPD_ERR_NOMEM ? FPD_ERR_NOMEM : FPD_ERR_UNAVAILABLE;
    } else {
        size_t len;
        const char *pairs = fpd_host_provenance_pairs(s->host, &len);
        fpd_kernel_set_cache_keep(p->base, p->kernel_set, pairs, len);
    }
    /* The host that passed the probe is ended, its provenance kept: the GEMMs will come from a
     * process forked from this one (a worker, a check's child), which starts a host of its own. */
    fpd_host_retire(s->host);
done:
    if (rc != FPD_OK) {
        fpd_host_stop(s->host);
        free(s);
        return rc;
    }
    *state = s;
    return FPD_OK;
}

static bool pinned_supports(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    struct pinned_state *s = state;
    struct fpd_backend_slot *base = s->p->base; /* the same library: the same answer */
    return base->impl->supports(base->handle, dt, why, why_size);
}

static int pinned_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    struct pinned_state *s = state;
    struct fpd_backend_slot *base = s->p->base;
    if (s->in_process)
        return base->impl->gemm(base->handle, g, why, why_size);
    int rc = fpd_host_renew(&s->host, why, why_size); /* retired, dead, or its parent's: started again */
    if (rc != FPD_OK)
        return rc == FPD_ERR_NOMEM ? FPD_ERR_NOMEM : FPD_ERR_BACKEND;
    return fpd_host_gemm(s->host, g, 0, why, why_size);
}

static void pinned_gemm_concurrent(void *state, size_t count, const struct fpd_gemm_args *const *args, int *status,
                                   char *why, size_t why_size)
{
    struct pinned_state *s = state;
    struct fpd_backend_slot *base = s->p->base;
    if (s->in_process) {
        base->impl->gemm_concurrent(base->handle, count, args, status, why, why_size);
        return;
    }
    fpd_host_gemm_concurrent(&s->host, count, args, 0, status, why, why_size);
}

static void pinned_provenance(void *state, fpd_provenance_fn emit, void *ctx)
{
    struct pinned_state *s = state;
    struct fpd_backend_slot *base = s->p->base;
    if (s->in_process)
        base->impl->provenance(base->handle, emit, ctx);
    else
        fpd_host_provenance(s->host, emit, ctx);
}

static void pinned_close(void *state)
{
    struct pinned_state *s = state;
    fpd_host_stop(s->host);
    free(s);
}

/* ---- classes of CPU -------------------------------------------------------------------------------- */

/* By the variable each library's set is picked with, so that an OpenBLAS given with --blas is
 * OpenBLAS here too. */
static const struct kernel_set_class {
    const char *name;
    struct {
        const char *variable, *set;
    } sets[3];
} classes[] = {
    {"baseline", {{"OPENBLAS_CORETYPE", "Prescott"}, {"BLIS_ARCH_TYPE", "generic"}, {"MKL_CBWR", "COMPATIBLE"}}},
    {"sse4", {{"OPENBLAS_CORETYPE", "Nehalem"}, {"BLIS_ARCH_TYPE", "penryn"}, {"MKL_CBWR", "SSE4_2"}}},
    {"avx", {{"OPENBLAS_CORETYPE", "Sandybridge"}, {"BLIS_ARCH_TYPE", "sandybridge"}, {"MKL_CBWR", "AVX"}}},
    {"avx2", {{"OPENBLAS_CORETYPE", "Haswell"}, {"BLIS_ARCH_TYPE", "haswell"}, {"MKL_CBWR", "AVX2"}}},
    {"avx512", {{"OPENBLAS_CORETYPE", "SkylakeX"}, {"BLIS_ARCH_TYPE", "skx"}, {"MKL_CBWR", "AVX512"}}},
};

static const struct kernel_set_class *class_of(const char *item)
{
    for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++) {
        if (strcasecmp(classes[c].name, item) == 0)
            return &classes[c];
        for (size_t s = 0; s < sizeof classes[c].sets / sizeof classes[c].sets[0]; s++)
            if (strcasecmp(classes[c].sets[s].set, item) == 0)
                return &classes[c];
    }
    return NULL;
}

bool fpd_kernel_set_class_known(const char *item) { return class_of(item) != NULL; }

const char *fpd_kernel_set_for(const struct fpd_backend *b, const char *item)
{
    if (!fpd_backend_pinnable(b))
        return NULL;
    if (fpd_backend_lists_kernel_set(b, item))
        return item;
    const struct kernel_set_class *c = class_of(item);
    for (size_t s = 0; c && s < sizeof c->sets / sizeof c->sets[0]; s++)
        if (strcmp(c->sets[s].variable, b->kernel_set_env) == 0)
            return c->sets[s].set;
    return NULL;
}

/* How a library reads its variable where it is stricter than a set's name in any letter case:
 * oneMKL takes its code paths' names as they are spelled, and ",STRICT" after one (anything else
 * it reads as AUTO). */
static const struct {
    const char *variable;
    const char *suffix; /* that may follow the set's name */
} exact_variables[] = {{"MKL_CBWR", ",STRICT"}};

/* Whether `value` of b's variable names one of b's sets as the library reads it. */
static bool names_a_set(const struct fpd_backend *b, const char *value)
{
    for (size_t v = 0; v < sizeof exact_variables / sizeof exact_variables[0]; v++) {
        if (strcmp(exact_variables[v].variable, b->kernel_set_env) != 0)
            continue;
        for (const char *const *k = b->kernel_sets; *k; k++) {
            size_t len = strlen(*k);
            if (strncmp(value, *k, len) == 0 && (!value[len] || strcmp(value + len, exact_variables[v].suffix) == 0))
                return true;
        }
        return false;
    }
    return fpd_backend_lists_kernel_set(b, value);
}

int fpd_kernel_set_variables_check(char *why, size_t why_size)
{
    for (size_t i = 0; fpd_registry_at(i); i++) { /* those loaded: the deferred (CUDA) ones pin no set */
        const struct fpd_backend *b = fpd_registry_at(i)->impl;
        const char *value = fpd_backend_pinnable(b) ? getenv(b->kernel_set_env) : NULL;
        if (value && !*value) /* a library reads "" as a set of its own choosing (OpenBLAS: Cooperlake) */
            unsetenv(b->kernel_set_env);
        if (!value || !*value)
            continue;
        bool known = false;
        for (size_t j = 0; fpd_registry_at(j) && !known; j++) {
            const struct fpd_backend *other = fpd_registry_at(j)->impl;
            known = fpd_backend_pinnable(other) && strcmp(other->kernel_set_env, b->kernel_set_env) == 0 &&
                    names_a_set(other, value);
        }
        if (!known) {
            size_t used = (size_t)snprintf(why, why_size, "%s='%.40s' is no kernel set of %s that fpdiv knows (a "
                                           "library runs this CPU's own for a name it does not know); %s's sets:",
                                           b->kernel_set_env, value, b->name, b->name);
            for (const char *const *k = b->kernel_sets; *k && used < why_size; k++)
                used += (size_t)snprintf(why + used, why_size - used, " %s", *k);
            return FPD_ERR_INPUT;
        }
    }
    return FPD_OK;
}

/* ---- names --------------------------------------------------------------------------------------- */

/* A kernel set's name as the base's list spells it, else as given: [A-Za-z0-9_]+, or NULL. */
static const char *canonical_set(const struct fpd_backend *b, const char *set)
{
    for (const char *const *s = b->kernel_sets; *s; s++)
        if (strcasecmp(*s, set) == 0)
            return *s;
    if (!*set || strlen(set) >= 48)
        return NULL;
    for (const char *c = set; *c; c++)
        if (!(*c == '_' || (*c >= '0' && *c <= '9') || ((*c | 0x20) >= 'a' && (*c | 0x20) <= 'z')))
            return NULL;
    return set;
}

static int pinned_slot(struct fpd_backend_slot *base, const char *set, struct fpd_backend_slot **out, char *why,
                       size_t why_size)
{
    char name[96];
    snprintf(name, sizeof name, "%s@%s", base->impl->name, set);
    if ((*out = fpd_registry_find_loaded(name)) != NULL) /* pinned ones are made here, never deferred */
        return FPD_OK;
    struct pinned *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    const struct fpd_backend *b = base->impl;
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->kernel_set, sizeof p->kernel_set, "%s", set);
    snprintf(p->summary, sizeof p->summary, "%s, on its kernel set %s", b->summary ? b->summary : b->name, set);
    p->base = base;
    p->impl = (struct fpd_backend){
        .abi = FPDIV_BACKEND_ABI, .name = p->name, .summary = p->summary, .device = b->device, .kind = b->kind,
        .features = b->features, .twin = b->twin, .open = pinned_open,
        .supports = pinned_supports, .gemm = pinned_gemm, .provenance = pinned_provenance, .close = pinned_close,
        .gemm_concurrent = b->gemm_concurrent ? pinned_gemm_concurrent : NULL,
    };
    int rc = fpd_registry_add(&p->impl, why, why_size);
    if (rc != FPD_OK) {
        free(p);
        return rc;
    }
    *out = fpd_registry_find_loaded(name);
    return FPD_OK;
}

int fpd_backend_resolve(const char *spec, struct fpd_backend_slot **out, char *why, size_t why_size)
{
    const char *at = strchr(spec, '@');
    char base_name[64];
    snprintf(base_name, sizeof base_name, "%.*s", at ? (int)(at - spec) : (int)strlen(spec), spec);
    struct fpd_backend_slot *base = fpd_registry_find(base_name);
    if (!base || fpd_backend_pinned_parts(base->impl, NULL, NULL)) {
        snprintf(why, why_size, "unknown backend '%.64s' (fpdiv list shows them)", base_name);
        return FPD_ERR_INPUT;
    }
    if (!at) {
        const char *native = fpd_backend_pinnable(base->impl) ? fpd_backend_native_kernel_set(base) : NULL;
        const char *set = native ? canonical_set(base->impl, native) : NULL;
        if (!set) { /* not pinnable, unavailable, or silent about its set: as it is */
            *out = base;
            return FPD_OK;
        }
        return pinned_slot(base, set, out, why, why_size);
    }
    if (!fpd_backend_pinnable(base->impl)) {
        snprintf(why, why_size, "'%s' has no kernel sets to pin (%s): only a library that picks its kernels for "
                                "the CPU has", spec, base->impl->name);
        return FPD_ERR_INPUT;
    }
    const char *set = canonical_set(base->impl, at + 1);
    if (!set) {
        snprintf(why, why_size, "'%.100s': a kernel set is a name of letters, digits and '_' (%s's: fpdiv list)",
                 spec, base->impl->name);
        return FPD_ERR_INPUT;
    }
    return pinned_slot(base, set, out, why, why_size);
}

size_t fpd_kernel_sets_survey(struct fpd_backend_slot *base, struct fpd_kernel_set_report *out, size_t cap)
{
    size_t n = 0;
    const char *native = fpd_backend_native_kernel_set(base);
    char here[48];
    snprintf(here, sizeof here, "%s", native ? native : "");
    for (const char *const *set = base->impl->kernel_sets; set && *set && n < cap; set++) {
        struct fpd_kernel_set_report *r = &out[n++];
        *r = (struct fpd_kernel_set_report){.name = *set, .native = strcasecmp(*set, here) == 0};
        if (pinned_slot(base, *set, &r->slot, r->why, sizeof r->why) != FPD_OK)
            continue;
        r->runs = fpd_backend_acquire(r->slot) == FPD_OK;
        if (!r->runs)
            snprintf(r->why, sizeof r->why, "%s", r->slot->why);
    }
    return n;
}
