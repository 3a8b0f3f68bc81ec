/* backend.c — the registry, and calls on a registered backend. The built-ins (builtin.c) come first;
 * run-time additions go after them. */
#include "backends/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fpenv.h"
#include "common/oversubscribed.h"
#include "common/text.h"


const char *const fpd_route_names[FPD_ROUTE_COUNT] = {
    [FPD_ROUTE_GEMM] = "gemm", [FPD_ROUTE_GEMV_ROWS] = "gemv-rows", [FPD_ROUTE_GEMV_COLS] = "gemv-cols",
    [FPD_ROUTE_DOT] = "dot", [FPD_ROUTE_VMAP_ROWS] = "vmap-rows", [FPD_ROUTE_SYRK] = "syrk",
    [FPD_ROUTE_OUT_STRIDED] = "out-strided", [FPD_ROUTE_OUT_TRANSPOSED] = "out-transposed",
    [FPD_ROUTE_OUT_REVERSED] = "out-reversed", [FPD_ROUTE_GEMMT_UPPER] = "gemmt-upper",
    [FPD_ROUTE_GEMMT_LOWER] = "gemmt-lower", [FPD_ROUTE_GEMM_COL_MAJOR] = "gemm-col-major"};
const char *const fpd_execution_names[FPD_EXEC_COMPILED + 1] = {
    [FPD_EXEC_DEFAULT] = "default", [FPD_EXEC_EAGER] = "eager", [FPD_EXEC_COMPILED] = "compiled"};

enum fpd_route fpd_route_find(const char *name)
{
    int r = 0;
    while (r < FPD_ROUTE_COUNT && strcmp(fpd_route_names[r], name) != 0)
        r++;
    return (enum fpd_route)r;
}

static struct fpd_backend_slot slots[FPD_MAX_BACKENDS];
static size_t slot_count;

static bool name_char(char c, bool in_set)
{
    bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    return alnum || c == '_' || (!in_set && (c == '-' || c == '.' || c == '+'));
}

bool fpd_backend_name_valid(const char *name)
{
    const char *at = strchr(name, '@');
    size_t len = strlen(name), base = at ? (size_t)(at - name) : len;
    if (base == 0 || len >= 64 || name[0] == '_' || !name_char(name[0], true) || (at && !at[1]))
        return false;
    for (size_t i = 0; i < len; i++)
        if (i != base && !name_char(name[i], i > base))
            return false;
    return true;
}

int fpd_registry_add(const struct fpd_backend *b, char *why, size_t why_size)
{
    return fpd_registry_add_upgraded(b, b, why, why_size);
}

int fpd_registry_add_upgraded(const struct fpd_backend *b, const struct fpd_backend *own, char *why, size_t why_size)
{
    if (b->abi != FPDIV_BACKEND_ABI) {
        snprintf(why, why_size, "backend '%s' was built for backend ABI %d; this fpdiv speaks ABI %d",
                 b->name ? b->name : "?", b->abi, FPDIV_BACKEND_ABI);
        return FPD_ERR_INPUT;
    }
    if (!b->name || !b->open || !b->supports || !b->gemm) {
        snprintf(why, why_size, "backend '%s' lacks a name, open, supports or gemm", b->name ? b->name : "?");
        return FPD_ERR_INPUT;
    }
    if ((b->features & FPD_FEAT_CONCURRENT) && !b->gemm_concurrent) {
        snprintf(why, why_size, "backend '%s' has the feature FPD_FEAT_CONCURRENT but no gemm_concurrent", b->name);
        return FPD_ERR_INPUT;
    }
    if (!fpd_backend_name_valid(b->name)) {
        char shown[300];
        snprintf(why, why_size, "'%s' is not a backend name: a letter or digit, then letters, digits, '-', '_', '.' "
                 "or '+' (and @SET for a kernel set), under 64 bytes", fpd_printable(b->name, shown, sizeof shown));
        return FPD_ERR_INPUT;
    }
    if (fpd_registry_find_loaded(b->name)) {
        snprintf(why, why_size, "a backend named '%s' is already registered", b->name);
        return FPD_ERR_INPUT;
    }
    if (slot_count == FPD_MAX_BACKENDS) {
        snprintf(why, why_size, "too many backends (at most %d)", FPD_MAX_BACKENDS);
        return FPD_ERR_INPUT;
    }
    slots[slot_count++] = (struct fpd_backend_slot){.impl = b, .own = own, .state = FPD_SLOT_CLOSED};
    return FPD_OK;
}


static void (*deferred)(void);

void fpd_registry_defer(void (*load)(void)) { deferred = load; }

/* Runs the deferred loader once (cleared first: the backends it adds may look names up). */
static void load_deferred(void)
{
    void (*load)(void) = deferred;
    deferred = NULL;
    if (load)
        load();
}

size_t fpd_registry_count(void)
{
    load_deferred(); /* the list is asked for whole: every backend must be in it */
    return slot_count;
}

struct fpd_backend_slot *fpd_registry_at(size_t i) { return i < slot_count ? &slots[i] : NULL; }

struct fpd_backend_slot *fpd_registry_find_loaded(const char *name)
{
    for (size_t i = 0; i < slot_count; i++)
        if (strcmp(slots[i].impl->name, name) == 0)
            return &slots[i];
    return NULL;
}

struct fpd_backend_slot *fpd_registry_find(const char *name)
{
    struct fpd_backend_slot *s = fpd_registry_find_loaded(name);
    if (!s && deferred) {
        load_deferred();
        s = fpd_registry_find_loaded(name);
    }
    return s;
}

int fpd_backend_acquire(struct fpd_backend_slot *s)
{
    if (s->state == FPD_SLOT_CLOSED) {
        s->why[0] = '\0';
        int rc = s->impl->open(s->own, &s->handle, s->why, sizeof s->why);
        s->state = rc == FPD_OK ? FPD_SLOT_OPEN : FPD_SLOT_UNAVAILABLE;
        if (rc != FPD_OK && s->why[0] == '\0')
            snprintf(s->why, sizeof s->why, "open failed (status %d)", rc);
        char who[128];
        snprintf(who, sizeof who, "opening backend %s", s->impl->name);
        fpd_fpenv_restore_noting(who, NULL);
    }
    return s->state == FPD_SLOT_OPEN ? FPD_OK : FPD_ERR_UNAVAILABLE;
}

/* A GEMM's outcome as fpdiv reports it: a failure without a reason gets one, and a backend that
 * left the floating-point environment changed (`changed` says how; NULL: it did not) failed. A
 * GEMM that does not apply stays that; every other failure is the backend's. */
static int outcome(const struct fpd_backend_slot *s, int rc, const char *changed, char *why, size_t why_size)
{
    if (rc != FPD_OK) {
        if (why[0] == '\0')
            snprintf(why, why_size, "%s %s (status %d)", s->impl->name,
                     rc == FPD_ERR_NOT_APPLICABLE ? "cannot compute this GEMM" : "failed", rc);
        return rc == FPD_ERR_NOT_APPLICABLE ? FPD_ERR_NOT_APPLICABLE : FPD_ERR_BACKEND;
    }
    if (changed) {
        snprintf(why, why_size, "%s returned with the floating-point environment changed (%s); fpdiv put IEEE's "
                                "default back", s->impl->name, changed);
        return FPD_ERR_BACKEND;
    }
    return FPD_OK;
}

/* The threads a library call runs: its own (where it takes a count), one for each caller. */
static unsigned library_threads(const struct fpd_backend_slot *s, size_t count, const struct fpd_gemm_args *const *args,
                                bool concurrent)
{
    unsigned total = 0;
    for (size_t i = 0; i < count; i++) {
        unsigned own = (s->impl->features & FPD_FEAT_THREADS) && args[i]->threads > 1 ? (unsigned)args[i]->threads : 1;
        total = concurrent ? total + own : own > total ? own : total;
    }
    return total;
}

int fpd_backend_gemm(const struct fpd_backend_slot *s, const struct fpd_gemm_args *args, char *why, size_t why_size)
{
    why[0] = '\0';
    bool oversubscribed = fpd_oversubscribed_enter(library_threads(s, 1, &args, false));
    int rc = s->impl->gemm(s->handle, args, why, why_size);
    fpd_oversubscribed_leave(oversubscribed);
    char changed[256];
    bool left_changed = !fpd_fpenv_restore_default(changed, sizeof changed);
    return outcome(s, rc, left_changed ? changed : NULL, why, why_size);
}

void fpd_backend_rounding(const struct fpd_backend_slot *s, const struct fpd_dtypes *dt, struct fpd_rounding *out)
{
    *out = (struct fpd_rounding){.kind = FPD_ROUNDING_NEAREST};
    if (s->impl->rounding && s->state == FPD_SLOT_OPEN)
        s->impl->rounding(s->handle, dt, out);
}

void fpd_backend_gemm_many(const struct fpd_backend_slot *s, size_t count, const struct fpd_gemm_args *const *args,
                           int *status, char *why, size_t why_size)
{
    if (!s->impl->gemm_many) {
        for (size_t i = 0; i < count; i++)
            status[i] = fpd_backend_gemm(s, args[i], why + i * why_size, why_size);
        return;
    }
    for (size_t i = 0; i < count; i++)
        why[i * why_size] = '\0';
    bool oversubscribed = fpd_oversubscribed_enter(library_threads(s, count, args, false));
    s->impl->gemm_many(s->handle, count, args, status, why, why_size);
    fpd_oversubscribed_leave(oversubscribed);
    char changed[256];
    if (!fpd_fpenv_restore_default(changed, sizeof changed)) { /* which GEMM changed it: each again, alone */
        for (size_t i = 0; i < count; i++)
            status[i] = fpd_backend_gemm(s, args[i], why + i * why_size, why_size);
        return;
    }
    for (size_t i = 0; i < count; i++)
        status[i] = outcome(s, status[i], NULL, why + i * why_size, why_size);
}

void fpd_backend_gemm_concurrent(const struct fpd_backend_slot *s, size_t count,
                                 const struct fpd_gemm_args *const *args, int *status, char *why, size_t why_size)
{
    for (size_t i = 0; i < count; i++)
        why[i * why_size] = '\0';
    if (!(s->impl->features & FPD_FEAT_CONCURRENT) || count > FPD_MAX_CALLERS) {
        for (size_t i = 0; i < count; i++) {
            snprintf(why + i * why_size, why_size, "%s does not take concurrent calls%s", s->impl->name,
                     count > FPD_MAX_CALLERS ? " from so many threads" : "");
            status[i] = FPD_ERR_NOT_APPLICABLE;
        }
        return;
    }
    bool oversubscribed = fpd_oversubscribed_enter(library_threads(s, count, args, true));
    s->impl->gemm_concurrent(s->handle, count, args, status, why, why_size);
    fpd_oversubscribed_leave(oversubscribed);
    char changed[256];
    bool left_changed = !fpd_fpenv_restore_default(changed, sizeof changed);
    for (size_t i = 0; i < count; i++)
        status[i] = outcome(s, status[i], left_changed ? changed : NULL, why + i * why_size, why_size);
}

bool fpd_backend_supports(struct fpd_backend_slot *s, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    if (fpd_backend_acquire(s) != FPD_OK) {
        snprintf(why, why_size, "%s is unavailable: %s", s->impl->name, s->why);
        return false;
    }
    return s->impl->supports(s->handle, dt, why, why_size);
}

void fpd_registry_close_all(void)
{
    for (size_t i = 0; i < slot_count; i++) {
        if (slots[i].state == FPD_SLOT_OPEN && slots[i].impl->close)
            slots[i].impl->close(slots[i].handle);
        slots[i].state = FPD_SLOT_CLOSED;
        slots[i].handle = NULL;
    }
}

struct provenance_lookup {
    const char *key;
    char *buf;
    size_t size;
    bool found;
};

static void look_up(void *ctx, const char *key, const char *value)
{
    struct provenance_lookup *l = ctx;
    if (!l->found && strcmp(key, l->key) == 0 && value) {
        snprintf(l->buf, l->size, "%s", value);
        l->found = true;
    }
}

const char *fpd_backend_provenance_value(const struct fpd_backend_slot *s, const char *key, char *buf, size_t size)
{
    struct provenance_lookup l = {key, buf, size, false};
    if (s->state == FPD_SLOT_OPEN && s->impl->provenance)
        s->impl->provenance(s->handle, look_up, &l);
    return l.found ? buf : NULL;
}

static int placeholder_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    (void)state;
    snprintf(why, why_size, "%s is not loaded here (a plugin's backend? give --plugin)", self->name);
    return FPD_ERR_UNAVAILABLE;
}

static bool placeholder_supports(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    (void)state, (void)dt;
    snprintf(why, why_size, "not loaded here");
    return false;
}

static int placeholder_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    (void)state, (void)g;
    snprintf(why, why_size, "not loaded here");
    return FPD_ERR_UNAVAILABLE;
}

struct fpd_backend_slot *fpd_registry_placeholder(const char *name)
{
    struct fpd_backend_slot *s = fpd_registry_find_loaded(name);
    if (s)
        return s;
    struct fpd_backend *b = calloc(1, sizeof *b);
    char *copy = strdup(name), why[256];
    if (!b || !copy) {
        free(b), free(copy);
        return NULL;
    }
    *b = (struct fpd_backend){.abi = FPDIV_BACKEND_ABI, .name = copy, .summary = "a backend not loaded here",
                              .kind = FPD_KIND_TEST, .open = placeholder_open, .supports = placeholder_supports,
                              .gemm = placeholder_gemm};
    if (fpd_registry_add(b, why, sizeof why) != FPD_OK) {
        free(b), free(copy);
        return NULL;
    }
    return fpd_registry_find_loaded(name);
}
