/* bridge.c — the client of the bridge's servers: JSON lines out, JSON lines in, operands shared. */
#define _GNU_SOURCE
#include "backends/bridge.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "backends/backend.h"
#include "backends/server.h"
#include "common/clock.h"
#include "common/dtype.h"

extern char **environ;

enum { BRIDGE_PROTOCOL = 1, MAX_LINE = 1 << 16, MAX_DTYPES = 32 };

struct fpd_bridge {
    struct fpd_server server;
    struct fpd_bridge_spec spec; /* its strings are the copies below */
    char label[160], python[1024], script[1024], framework[1024];
    uint64_t seq;
    struct fpd_dtypes dtypes[MAX_DTYPES];
    size_t n_dtypes;
    json_t *features, *provenance;
    char line[MAX_LINE]; /* what has come in of the current line */
    size_t line_len;
};


/* The next line from the server, parsed: FPD_OK, or FPD_ERR_BACKEND with why (then reaped). */
static int receive(struct fpd_bridge *b, json_t **out, char *why, size_t why_size)
{
    double timeout = b->spec.timeout, deadline = timeout > 0 ? fpd_now() + timeout : 0;
    for (;;) {
        char *end = memchr(b->line, '\n', b->line_len);
        if (end) {
            size_t len = (size_t)(end - b->line);
            json_error_t error;
            *out = json_loadb(b->line, len, 0, &error);
            memmove(b->line, end + 1, b->line_len - len - 1);
            b->line_len -= len + 1;
            if (!json_is_object(*out)) {
                json_decref(*out);
                fpd_server_reap(&b->server, "sent a line that is no JSON object (killed)", why, why_size);
                return FPD_ERR_BACKEND;
            }
            return FPD_OK;
        }
        if (b->line_len == sizeof b->line) {
            fpd_server_reap(&b->server, "sent a line longer than 64 KiB (killed)", why, why_size);
            return FPD_ERR_BACKEND;
        }
        int rc = fpd_server_wait(&b->server, deadline, timeout, why, why_size);
        if (rc != FPD_OK)
            return rc;
        ssize_t got = read(b->server.sock, b->line + b->line_len, sizeof b->line - b->line_len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) { /* the other end is gone: the server died */
            fpd_server_reap(&b->server, NULL, why, why_size);
            return FPD_ERR_BACKEND;
        }
        b->line_len += (size_t)got;
    }
}

/* The message and its newline in one write: a line that arrives in two wakes its reader twice. */
static int send_line(struct fpd_bridge *b, json_t *msg, char *why, size_t why_size)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    size_t len = text ? strlen(text) : 0, sent = 0;
    char *line = text ? realloc(text, len + 2) : NULL;
    if (!line) {
        free(text);
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    memcpy(line + len, "\n", 2);
    int rc = FPD_OK;
    while (rc == FPD_OK && sent < len + 1) {
        ssize_t put = send(b->server.sock, line + sent, len + 1 - sent, MSG_NOSIGNAL);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0) {
            fpd_server_reap(&b->server, "could not be sent a request (killed)", why, why_size);
            rc = FPD_ERR_BACKEND;
        }
        sent += (size_t)(put > 0 ? put : 0);
    }
    free(line);
    return rc;
}

/* The hello's dtypes ([["bf16", "bf16", "f32"], …]); false when malformed. */
static bool read_dtypes(struct fpd_bridge *b, json_t *list)
{
    size_t i;
    json_t *entry;
    if (!json_is_array(list) || json_array_size(list) > MAX_DTYPES)
        return false;
    json_array_foreach(list, i, entry) {
        enum fpd_dtype t[3];
        for (size_t j = 0; j < 3; j++)
            if (!json_is_array(entry) || json_array_size(entry) != 3 ||
                fpd_dtype_parse(json_string_value(json_array_get(entry, j)) ? json_string_value(json_array_get(entry, j)) : "",
                                &t[j]) != FPD_OK)
                return false;
        b->dtypes[b->n_dtypes++] = (struct fpd_dtypes){t[0], t[1], t[2]};
    }
    return true;
}

/* The hello: FPD_OK, FPD_ERR_UNAVAILABLE with the server's own reason, or FPD_ERR_BACKEND. */
static int read_hello(struct fpd_bridge *b, char *why, size_t why_size)
{
    json_t *hello;
    int rc = receive(b, &hello, why, why_size);
    if (rc != FPD_OK)
        return rc;
    const char *error = json_string_value(json_object_get(hello, "error"));
    if (json_integer_value(json_object_get(hello, "hello")) != BRIDGE_PROTOCOL) {
        snprintf(why, why_size, "the bridge server for %s speaks another protocol than %d", b->label, BRIDGE_PROTOCOL);
        rc = FPD_ERR_BACKEND;
    } else if (error) {
        snprintf(why, why_size, "%.400s", error);
        rc = FPD_ERR_UNAVAILABLE;
    } else if (!read_dtypes(b, json_object_get(hello, "dtypes")) || !json_is_array(json_object_get(hello, "features")) ||
               !json_is_object(json_object_get(hello, "provenance"))) {
        snprintf(why, why_size, "the bridge server for %s sent a malformed hello", b->label);
        rc = FPD_ERR_BACKEND;
    } else {
        b->features = json_incref(json_object_get(hello, "features"));
        b->provenance = json_incref(json_object_get(hello, "provenance"));
    }
    json_decref(hello);
    if (rc != FPD_OK)
        fpd_server_retire(&b->server);
    return rc;
}

int fpd_bridge_start(const struct fpd_bridge_spec *spec, struct fpd_bridge **out, char *why, size_t why_size)
{
    *out = NULL;
    struct fpd_bridge *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    snprintf(b->label, sizeof b->label, "%s", spec->label);
    snprintf(b->python, sizeof b->python, "%s", spec->python);
    snprintf(b->script, sizeof b->script, "%s", spec->server);
    snprintf(b->framework, sizeof b->framework, "%s", spec->framework);
    b->spec = (struct fpd_bridge_spec){b->label, b->python, b->script, b->framework, spec->timeout};
    char *argv[] = {b->python, b->script, b->framework, NULL};
    int rc = fpd_server_start(&b->server, "bridge server", b->label, argv, environ, SOCK_STREAM, why, why_size);
    if (rc == FPD_OK)
        rc = read_hello(b, why, why_size);
    if (rc != FPD_OK) {
        fpd_bridge_stop(b);
        return rc;
    }
    *out = b;
    return FPD_OK;
}

int fpd_bridge_renew(struct fpd_bridge **b, char *why, size_t why_size)
{
    if (fpd_server_usable(&(*b)->server))
        return FPD_OK;
    struct fpd_bridge *fresh;
    int rc = fpd_bridge_start(&(*b)->spec, &fresh, why, why_size);
    if (rc != FPD_OK)
        return rc;
    fpd_bridge_stop(*b);
    *b = fresh;
    return FPD_OK;
}

static json_t *operand(size_t offset, bool trans, size_t ld, size_t stride)
{
    return json_pack("{s:I,s:b,s:I,s:I}", "offset", (json_int_t)offset, "trans", trans, "ld", (json_int_t)ld, "stride",
                     (json_int_t)stride);
}

static json_t *request(struct fpd_bridge *b, const struct fpd_gemm_args *g, const struct fpd_server_layout *l)
{
    const struct fpd_dtypes *dt = &g->dt;
    return json_pack("{s:s,s:I,s:I,s:[s,s,s],s:I,s:I,s:I,s:I,s:i,s:s,s:s,s:o,s:o,s:o,s:o}", "op", "gemm", "seq",
                     (json_int_t)++b->seq, "memory", (json_int_t)b->server.map_size, "dtype",
                     fpd_dtype_info(dt->in)->name, fpd_dtype_info(dt->out)->name, fpd_dtype_info(dt->acc)->name,
                     "batch", (json_int_t)g->batch, "m", (json_int_t)g->m, "n", (json_int_t)g->n, "k",
                     (json_int_t)g->k, "threads", g->threads, "route", fpd_route_names[g->route], "execution",
                     fpd_execution_names[g->execution], "a", operand(l->a, g->trans_a, g->lda, g->stride_a), "b",
                     operand(l->b, g->trans_b, g->ldb, g->stride_b), "c", operand(l->c, false, g->ldc, g->stride_c),
                     "bias", g->bias ? json_pack("{s:I}", "offset", (json_int_t)l->bias) : json_null());
}

int fpd_bridge_gemm(struct fpd_bridge *b, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    if (!fpd_server_usable(&b->server)) {
        snprintf(why, why_size, "the bridge server for %s is gone", b->label);
        return FPD_ERR_BACKEND;
    }
    if (g->route >= FPD_ROUTE_COUNT || g->execution > FPD_EXEC_COMPILED) {
        snprintf(why, why_size, "%s: no such route or execution", b->label);
        return FPD_ERR_BACKEND;
    }
    struct fpd_server_layout l;
    if (fpd_server_stage(&b->server, g, &l) != FPD_OK) {
        snprintf(why, why_size, "out of memory for the operands shared with the bridge server for %s", b->label);
        return FPD_ERR_NOMEM;
    }
    json_t *req = request(b, g, &l);
    int rc = req ? send_line(b, req, why, why_size) : FPD_ERR_NOMEM;
    json_decref(req);
    uint64_t seq = b->seq;
    while (rc == FPD_OK) {
        json_t *answer;
        if ((rc = receive(b, &answer, why, why_size)) != FPD_OK)
            break;
        json_t *ok = json_object_get(answer, "ok");
        bool mine = (uint64_t)json_integer_value(json_object_get(answer, "seq")) == seq;
        if (mine && !json_is_boolean(ok)) {
            fpd_server_reap(&b->server, "sent an answer without \"ok\" (killed)", why, why_size);
            rc = FPD_ERR_BACKEND;
        } else if (mine && !json_is_true(ok)) { /* the framework's own failure, in its words */
            const char *said = json_string_value(json_object_get(answer, "why"));
            snprintf(why, why_size, "%s: %.400s", b->label, said ? said : "failed, without a reason");
            rc = FPD_ERR_BACKEND;
        }
        json_decref(answer);
        if (mine)
            break; /* else an answer to an earlier request it was given up on */
    }
    return rc == FPD_OK ? fpd_server_unstage(&b->server, g, &l, why, why_size) : rc;
}

bool fpd_bridge_supports(const struct fpd_bridge *b, const struct fpd_dtypes *dt)
{
    for (size_t i = 0; i < b->n_dtypes; i++)
        if (fpd_dtypes_equal(&b->dtypes[i], dt))
            return true;
    return false;
}

bool fpd_bridge_has_feature(const struct fpd_bridge *b, const char *feature)
{
    size_t i;
    json_t *f;
    json_array_foreach(b->features, i, f) {
        if (json_is_string(f) && strcmp(json_string_value(f), feature) == 0)
            return true;
    }
    return false;
}

void fpd_bridge_provenance(const struct fpd_bridge *b, fpd_provenance_fn emit, void *ctx)
{
    const char *key;
    json_t *value;
    json_object_foreach(b->provenance, key, value) {
        if (json_is_string(value))
            emit(ctx, key, json_string_value(value));
    }
}

void fpd_bridge_stop(struct fpd_bridge *b)
{
    if (!b)
        return;
    if (fpd_server_usable(&b->server)) {
        json_t *bye = json_pack("{s:s}", "op", "bye");
        char ignored[256];
        if (bye)
            send_line(b, bye, ignored, sizeof ignored);
        json_decref(bye);
    }
    fpd_server_retire(&b->server);
    json_decref(b->features);
    json_decref(b->provenance);
    free(b);
}
