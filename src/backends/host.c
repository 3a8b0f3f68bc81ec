/* host.c — starting a host, and the protocol both of its ends speak. */
#define _GNU_SOURCE
#include "backends/host.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "backends/backend_util.h"
#include "backends/server.h"
#include "common/clock.h"
#include "common/dtype.h"

extern char **environ;

/* The host finds its socket and its shared memory at these descriptors. */
enum { HOST_SOCKET_FD = FPD_SERVER_SOCKET_FD, HOST_MEMORY_FD = FPD_SERVER_MEMORY_FD };

enum host_op { HOST_HELLO = 1, HOST_GEMM, HOST_CONCURRENT };

/* A GEMM's arguments with the pointers as offsets into the shared memory. Both ends are the same
 * binary, so the structs need no encoding. */
struct host_gemm {
    struct fpd_dtypes dt;
    uint64_t batch, m, n, k, lda, ldb, ldc, stride_a, stride_b, stride_c;
    uint64_t a, b, c, bias; /* offsets; bias NO_BIAS when there is none */
    uint8_t trans_a, trans_b;
    int32_t threads, algo, route, execution, alpha_exp, beta_exp, alpha_negative;
};
#define NO_BIAS UINT64_MAX

/* HOST_GEMM: gemm[0]; HOST_CONCURRENT: the `count` GEMMs, called from threads of their own at once. */
struct host_request {
    uint32_t op, seq;
    uint64_t memory_size; /* the shared memory's size now: the host maps it again when it grew */
    uint32_t count;
    struct host_gemm gemm[FPD_MAX_CALLERS];
};

/* The answer to a request, or the hello a host sends once it has opened its backend: status,
 * reason, and for the hello the provenance as "key\0value\0" pairs. A concurrent request's
 * outcomes are status and why for the first GEMM, then each further one's in `more`. */
struct host_reply {
    uint32_t op, seq;
    int32_t status;
    uint32_t text_len;
    char why[512];
    struct {
        int32_t status;
        char why[512];
    } more[FPD_MAX_CALLERS - 1];
    char text[8192];
};

struct fpd_host {
    struct fpd_server server;
    /* what it was started with, to start it again (fpd_host_renew) */
    char name[160], env_name[64], env_value[64];
    bool has_env;
    double timeout;
    uint32_t seq;
    char *provenance; /* "key\0value\0" pairs */
    size_t provenance_len;
    struct host_reply reply; /* the latest: kept here, not allocated per request */
};

/* ---- the fpdiv that starts it ------------------------------------------------------------------ */

enum { MAX_GLOBAL_OPTIONS = 32 };
static char *global_options[MAX_GLOBAL_OPTIONS][2]; /* option, value */
static size_t n_global_options;

static char *program; /* NULL: fpdiv itself */

void fpd_host_set_program(const char *path)
{
    free(program);
    program = path ? strdup(path) : NULL;
}

const char *fpd_host_program(void) { return program ? program : "/proc/self/exe"; }

int fpd_host_add_global_option(const char *option, const char *value)
{
    if (n_global_options == MAX_GLOBAL_OPTIONS)
        return FPD_ERR_INPUT;
    char *o = strdup(option), *v = strdup(value);
    if (!o || !v) {
        free(o), free(v);
        return FPD_ERR_NOMEM;
    }
    global_options[n_global_options][0] = o, global_options[n_global_options][1] = v;
    n_global_options++;
    return FPD_OK;
}

/* The environment with name=value in place of any value it had. NULL when out of memory. */
static char **environment_with(const char *name, const char *value)
{
    size_t n = 0, len = name ? strlen(name) : 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 2, sizeof *env), *pinned = name ? malloc(len + strlen(value) + 2) : NULL;
    if (!env || (name && !pinned)) {
        free(env);
        free(pinned);
        return NULL;
    }
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (!(name && strncmp(environ[i], name, len) == 0 && environ[i][len] == '='))
            env[kept++] = environ[i];
    if (name) {
        sprintf(pinned, "%s=%s", name, value);
        env[kept] = pinned;
    }
    return env;
}

size_t fpd_host_global_options(const char *const **pairs)
{
    *pairs = (const char *const *)global_options;
    return n_global_options;
}

static bool serving, proven;

void fpd_host_set_serving(void) { serving = true; }
bool fpd_host_serving(void) { return serving; }
void fpd_host_set_proven(void) { proven = true; }
bool fpd_host_proven(void) { return proven; }

/* Waits for the reply to request `seq` (or the hello, seq 0): FPD_OK, or FPD_ERR_BACKEND with why
 * once the host is dead or past the deadline (then killed). */
static int receive(struct fpd_host *h, uint32_t seq, double timeout, struct host_reply *r, char *why, size_t why_size)
{
    struct fpd_server_patience patience = {timeout > 0 ? fpd_now() + timeout : 0, timeout, NULL, NULL};
    for (;;) {
        int rc = fpd_server_wait(&h->server, &patience, why, why_size);
        if (rc != FPD_OK)
            return rc;
        ssize_t got = recv(h->server.sock, r, sizeof *r, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) { /* the other end is gone: the host died */
            fpd_server_reap(&h->server, NULL, why, why_size);
            return FPD_ERR_BACKEND;
        }
        if ((size_t)got < offsetof(struct host_reply, text) || r->text_len > sizeof r->text) {
            fpd_server_reap(&h->server, "sent a malformed answer (killed)", why, why_size);
            return FPD_ERR_BACKEND;
        }
        if (r->seq == seq)
            return FPD_OK;
        /* an answer to an earlier request it was given up on: not this one's */
    }
}

/* A host not started yet, or retired: what it is started with, no process. */
static struct fpd_host *host_new(const char *label, const char *name, const char *env_name, const char *env_value,
                                 double timeout)
{
    struct fpd_host *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->server = (struct fpd_server){.sock = -1, .memory = -1, .err = -1, .cpu = -1, .dead = true};
    snprintf(h->server.label, sizeof h->server.label, "%s", label);
    snprintf(h->name, sizeof h->name, "%s", name);
    h->has_env = env_name != NULL;
    snprintf(h->env_name, sizeof h->env_name, "%s", env_name ? env_name : "");
    snprintf(h->env_value, sizeof h->env_value, "%s", env_value ? env_value : "");
    h->timeout = timeout;
    return h;
}

int fpd_host_prepare(const char *label, const char *name, const char *env_name, const char *env_value, double timeout,
                     const char *provenance, size_t provenance_len, struct fpd_host **out)
{
    struct fpd_host *h = host_new(label, name, env_name, env_value, timeout);
    if (!h || !(h->provenance = malloc(provenance_len + 1))) {
        free(h);
        *out = NULL;
        return FPD_ERR_NOMEM;
    }
    memcpy(h->provenance, provenance, provenance_len);
    h->provenance_len = provenance_len;
    *out = h;
    return FPD_OK;
}

/* fpd_host_start; proven: the host is told its library has run here (fpd_host_set_proven). */
static int host_start(const char *label, const char *name, const char *env_name, const char *env_value, double timeout,
                      bool proven_here, struct fpd_host **out, char *why, size_t why_size)
{
    *out = NULL;
    struct fpd_host *h = host_new(label, name, env_name, env_value, timeout);
    /* /proc/self/exe, not the path it links to: that is fpdiv even if its file was replaced or
     * deleted since it started (a rebuild during a long campaign) */
    char exe[PATH_MAX];
    ssize_t exe_len = (ssize_t)snprintf(exe, sizeof exe, "%s", fpd_host_program());
    char **env = environment_with(env_name, env_value);
    char *argv[2 * MAX_GLOBAL_OPTIONS + 5];
    int rc = FPD_ERR_BACKEND;
    if (!h || !env) {
        snprintf(why, why_size, "out of memory");
        rc = FPD_ERR_NOMEM;
        goto done;
    }
    if (exe_len <= 0 || (size_t)exe_len >= sizeof exe) {
        snprintf(why, why_size, "the fpdiv executable's name is too long to start a host process");
        goto done;
    }
    size_t argc = 0;
    argv[argc++] = exe;
    for (size_t i = 0; i < n_global_options; i++) {
        argv[argc++] = global_options[i][0];
        argv[argc++] = global_options[i][1];
    }
    argv[argc++] = "__host";
    argv[argc++] = (char *)name;
    if (proven_here)
        argv[argc++] = "proven";
    argv[argc] = NULL;
    if ((rc = fpd_server_start(&h->server, "host", label, argv, env, SOCK_SEQPACKET, why, why_size)) != FPD_OK)
        goto done;
    h->server.follows = true;
    struct host_reply *hello = &h->reply;
    rc = receive(h, 0, timeout, hello, why, why_size);
    if (rc == FPD_OK && hello->status != FPD_OK) {
        snprintf(why, why_size, "%.*s", (int)sizeof hello->why, hello->why);
        rc = FPD_ERR_UNAVAILABLE;
    }
    if (rc == FPD_OK && !(h->provenance = malloc(hello->text_len + 1))) {
        snprintf(why, why_size, "out of memory");
        rc = FPD_ERR_NOMEM;
    }
    if (rc == FPD_OK) {
        memcpy(h->provenance, hello->text, hello->text_len);
        h->provenance_len = hello->text_len;
        *out = h;
        h = NULL;
    }
done:
    if (env) {
        for (size_t i = 0; env_name && env[i]; i++)
            if (!env[i + 1])
                free(env[i]); /* the pinned variable, last: the others are environ's */
        free(env);
    }
    fpd_host_stop(h);
    return rc;
}

int fpd_host_start(const char *label, const char *name, const char *env_name, const char *env_value, double timeout,
                   struct fpd_host **out, char *why, size_t why_size)
{
    return host_start(label, name, env_name, env_value, timeout, false, out, why, why_size);
}

int fpd_host_renew(struct fpd_host **h, char *why, size_t why_size)
{
    if (fpd_host_usable(*h))
        return FPD_OK;
    struct fpd_host *old = *h, *fresh;
    /* a host that was started, or recalled from a run before: its library has run here */
    int rc = host_start(old->server.label, old->name, old->has_env ? old->env_name : NULL, old->env_value,
                        old->timeout, true, &fresh, why, why_size);
    if (rc != FPD_OK)
        return rc;
    fpd_host_stop(old);
    *h = fresh;
    return FPD_OK;
}

static struct host_gemm host_gemm_of(const struct fpd_gemm_args *g, const struct fpd_server_layout *l)
{
    return (struct host_gemm){
        .dt = g->dt, .batch = g->batch, .m = g->m, .n = g->n, .k = g->k, .lda = g->lda, .ldb = g->ldb,
        .ldc = g->ldc, .stride_a = g->stride_a, .stride_b = g->stride_b, .stride_c = g->stride_c,
        .a = l->a, .b = l->b, .c = l->c, .bias = g->bias ? l->bias : NO_BIAS,
        .trans_a = g->trans_a, .trans_b = g->trans_b, .threads = g->threads, .algo = g->algo,
        .route = (int32_t)g->route, .execution = (int32_t)g->execution, .alpha_exp = g->alpha_exp,
        .beta_exp = g->beta_exp, .alpha_negative = g->alpha_negative,
    };
}

/* The backend's own failure, in its own words. */
static int backend_outcome(int32_t status, const char *reason, size_t reason_size, char *why, size_t why_size)
{
    if (status == FPD_OK)
        return FPD_OK;
    snprintf(why, why_size, "%.*s", (int)reason_size, reason);
    return status == FPD_ERR_NOT_APPLICABLE ? FPD_ERR_NOT_APPLICABLE : FPD_ERR_BACKEND;
}

/* The `count` GEMMs staged one after the other and handed over in one request of kind `op`; their
 * outcomes in status[] and why (why_size bytes each), C copied back for each that succeeded. */
static void host_request_gemms(struct fpd_host *h, enum host_op op, size_t count, const struct fpd_gemm_args *const *g,
                               double timeout, int *status, char *why, size_t why_size)
{
    int rc = FPD_OK;
    char reason[512] = "";
    struct fpd_server_layout l[FPD_MAX_CALLERS];
    struct host_request req = {.op = op, .seq = ++h->seq, .count = (uint32_t)count};
    if (!fpd_host_usable(h)) {
        snprintf(reason, sizeof reason, "the host process running %s is gone", h->server.label);
        rc = FPD_ERR_BACKEND;
    }
    for (size_t i = 0; rc == FPD_OK && i < count; i++) {
        if (fpd_server_stage(&h->server, g[i], i ? l[i - 1].end : 0, &l[i]) != FPD_OK) {
            snprintf(reason, sizeof reason, "out of memory for the operands shared with the host process running %s",
                     h->server.label);
            rc = FPD_ERR_NOMEM;
        }
        req.gemm[i] = host_gemm_of(g[i], &l[i]);
    }
    req.memory_size = h->server.map_size;
    if (rc == FPD_OK && send(h->server.sock, &req, sizeof req, MSG_NOSIGNAL) != (ssize_t)sizeof req) {
        fpd_server_reap(&h->server, "could not be sent a request (killed)", reason, sizeof reason);
        rc = FPD_ERR_BACKEND;
    }
    struct host_reply *r = &h->reply;
    if (rc == FPD_OK)
        rc = receive(h, req.seq, timeout, r, reason, sizeof reason);
    for (size_t i = 0; i < count; i++) {
        char *w = why + i * why_size;
        if (rc != FPD_OK) { /* the request's failure is every GEMM's */
            snprintf(w, why_size, "%s", reason);
            status[i] = rc;
            continue;
        }
        status[i] = i == 0 ? backend_outcome(r->status, r->why, sizeof r->why, w, why_size)
                           : backend_outcome(r->more[i - 1].status, r->more[i - 1].why, sizeof r->more[i - 1].why, w,
                                             why_size);
        if (status[i] == FPD_OK)
            status[i] = fpd_server_unstage(&h->server, g[i], &l[i], w, why_size);
    }
}

int fpd_host_gemm(struct fpd_host *h, const struct fpd_gemm_args *g, double timeout, char *why, size_t why_size)
{
    int status;
    host_request_gemms(h, HOST_GEMM, 1, &g, timeout, &status, why, why_size);
    return status;
}

void fpd_host_gemm_concurrent(struct fpd_host **h, size_t count, const struct fpd_gemm_args *const *g, double timeout,
                              int *status, char *why, size_t why_size)
{
    char reason[512];
    int rc = FPD_ERR_NOT_APPLICABLE;
    if (count > FPD_MAX_CALLERS)
        snprintf(reason, sizeof reason, "a host takes at most %d concurrent calls", FPD_MAX_CALLERS);
    else if ((rc = fpd_host_renew(h, reason, sizeof reason)) == FPD_OK) {
        host_request_gemms(*h, HOST_CONCURRENT, count, g, timeout, status, why, why_size);
        return;
    }
    for (size_t i = 0; i < count; i++) { /* none ran: each fails alike */
        snprintf(why + i * why_size, why_size, "%s", reason);
        status[i] = rc == FPD_ERR_NOMEM || rc == FPD_ERR_NOT_APPLICABLE ? rc : FPD_ERR_BACKEND;
    }
}

void fpd_host_provenance(const struct fpd_host *h, fpd_provenance_fn emit, void *ctx)
{
    for (size_t at = 0; at < h->provenance_len;) {
        const char *key = h->provenance + at;
        size_t key_len = strnlen(key, h->provenance_len - at);
        if (at + key_len + 1 >= h->provenance_len)
            break;
        const char *value = key + key_len + 1;
        emit(ctx, key, value);
        at += key_len + 1 + strnlen(value, h->provenance_len - at - key_len - 1) + 1;
    }
}

const char *fpd_host_provenance_pairs(const struct fpd_host *h, size_t *len)
{
    *len = h->provenance_len;
    return h->provenance;
}

bool fpd_host_usable(const struct fpd_host *h) { return h && fpd_server_usable(&h->server); }

const char *fpd_host_death(const struct fpd_host *h) { return h && h->server.death[0] ? h->server.death : NULL; }

void fpd_host_retire(struct fpd_host *h)
{
    if (h)
        fpd_server_retire(&h->server);
}

void fpd_host_stop(struct fpd_host *h)
{
    fpd_host_retire(h);
    if (h)
        free(h->provenance);
    free(h);
}

/* ---- the host ---------------------------------------------------------------------------------- */

static void append_pair(void *ctx, const char *key, const char *value)
{
    struct host_reply *r = ctx;
    size_t k = strlen(key) + 1, v = strlen(value ? value : "") + 1;
    if (r->text_len + k + v > sizeof r->text)
        return;
    memcpy(r->text + r->text_len, key, k);
    memcpy(r->text + r->text_len + k, value ? value : "", v);
    r->text_len += (uint32_t)(k + v);
}

static bool reply(const struct host_reply *r)
{
    size_t len = offsetof(struct host_reply, text) + r->text_len;
    return send(HOST_SOCKET_FD, r, len, MSG_NOSIGNAL) == (ssize_t)len;
}

/* Whether the request's operands lie inside the shared memory. */
static bool inside(const struct host_gemm *g, size_t size)
{
    size_t in = fpd_dtype_info(g->dt.in)->size, out = fpd_dtype_info(g->dt.out)->size;
    size_t ends[] = {
        g->a + fpd_operand_span(g->batch, g->stride_a, g->trans_a ? g->k : g->m, g->lda, g->trans_a ? g->m : g->k) * in,
        g->b + fpd_operand_span(g->batch, g->stride_b, g->trans_b ? g->n : g->k, g->ldb, g->trans_b ? g->k : g->n) * in,
        g->c + fpd_operand_span(g->batch, g->stride_c, g->m, g->ldc, g->n) * out,
        g->bias == NO_BIAS ? 0 : g->bias + g->n * out,
    };
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++)
        if (ends[i] > size)
            return false;
    return true;
}

static struct fpd_gemm_args args_in(const struct host_gemm *g, unsigned char *map)
{
    return (struct fpd_gemm_args){
        .dt = g->dt, .batch = g->batch, .m = g->m, .n = g->n, .k = g->k, .trans_a = g->trans_a,
        .trans_b = g->trans_b, .a = map + g->a, .lda = g->lda, .stride_a = g->stride_a, .b = map + g->b,
        .ldb = g->ldb, .stride_b = g->stride_b, .c = map + g->c, .ldc = g->ldc, .stride_c = g->stride_c,
        .bias = g->bias == NO_BIAS ? NULL : map + g->bias, .threads = g->threads, .algo = g->algo,
        .route = (enum fpd_route)g->route, .execution = (enum fpd_execution)g->execution,
        .alpha_exp = g->alpha_exp, .beta_exp = g->beta_exp, .alpha_negative = g->alpha_negative,
    };
}

/* The request's GEMMs from threads of their own at once, in this process (the backend's own
 * gemm_concurrent): the races the `concurrent` relation looks for are this process's. */
static void serve_concurrent(const struct fpd_backend_slot *slot, const struct host_request *req, unsigned char *map,
                             struct host_reply *r)
{
    enum { WHY = sizeof r->why };
    struct fpd_gemm_args args[FPD_MAX_CALLERS];
    const struct fpd_gemm_args *each[FPD_MAX_CALLERS];
    int status[FPD_MAX_CALLERS];
    char why[FPD_MAX_CALLERS * WHY];
    for (uint32_t i = 0; i < req->count; i++)
        args[i] = args_in(&req->gemm[i], map), each[i] = &args[i];
    fpd_backend_gemm_concurrent(slot, req->count, each, status, why, WHY);
    r->status = status[0];
    memcpy(r->why, why, WHY);
    for (uint32_t i = 1; i < req->count; i++) {
        r->more[i - 1].status = status[i];
        memcpy(r->more[i - 1].why, why + i * WHY, WHY);
    }
}

int fpd_host_serve(struct fpd_backend_slot *slot, const char *why_unavailable)
{
    struct host_reply *r = calloc(1, sizeof *r);
    if (!r)
        return FPD_ERR_NOMEM;
    r->op = HOST_HELLO;
    r->status = why_unavailable ? FPD_ERR_UNAVAILABLE : FPD_OK;
    if (why_unavailable)
        snprintf(r->why, sizeof r->why, "%s", why_unavailable);
    else if (slot->impl->provenance)
        slot->impl->provenance(slot->handle, append_pair, r);
    bool going = reply(r) && !why_unavailable;
    unsigned char *map = NULL;
    size_t map_size = 0;
    while (going) {
        struct host_request req;
        ssize_t got = recv(HOST_SOCKET_FD, &req, sizeof req, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got != (ssize_t)sizeof req || (req.op != HOST_GEMM && req.op != HOST_CONCURRENT) ||
            (req.op == HOST_GEMM ? req.count != 1 : req.count < 1 || req.count > FPD_MAX_CALLERS))
            break; /* fpdiv has gone (or speaks nonsense): so does the host */
        *r = (struct host_reply){.op = req.op, .seq = req.seq};
        if (req.memory_size > map_size) {
            if (map)
                munmap(map, map_size);
            map = mmap(NULL, req.memory_size, PROT_READ | PROT_WRITE, MAP_SHARED, HOST_MEMORY_FD, 0);
            map_size = map == MAP_FAILED ? 0 : req.memory_size;
            if (map == MAP_FAILED)
                map = NULL;
        }
        bool mapped = map != NULL;
        for (uint32_t i = 0; i < req.count; i++)
            mapped = mapped && inside(&req.gemm[i], map_size);
        if (!mapped) {
            r->status = FPD_ERR_INTERNAL;
            snprintf(r->why, sizeof r->why, "%s: the host could not map the operands", slot->impl->name);
            for (uint32_t i = 1; i < req.count; i++)
                r->more[i - 1].status = r->status, memcpy(r->more[i - 1].why, r->why, sizeof r->why);
        } else if (req.op == HOST_GEMM) {
            struct fpd_gemm_args args = args_in(&req.gemm[0], map);
            r->status = fpd_backend_gemm(slot, &args, r->why, sizeof r->why);
        } else {
            serve_concurrent(slot, &req, map, r);
        }
        going = reply(r);
    }
    if (map)
        munmap(map, map_size);
    free(r);
    return FPD_OK;
}
